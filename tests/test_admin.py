"""The admin API end to end: two real nodes on one real Redis, actions taken on node 1's admin port
(a bearer token), their effect checked on both nodes' connections (docs/admin.md)."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator

import pytest
from websockets.exceptions import ConnectionClosed

from protocol.errors import CloseCode, ErrorCode
from protocol.messages import CreateRoom, Error, Hello, JoinRoom, ListRooms, Notice, Ready, Rooms, RoomState, Welcome
from tests import httpclient
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess, free_port
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

TOKEN = "admin-test-token-0123456789"


class Nodes:
    def __init__(self, redis_url: str) -> None:
        self.admin_port = free_port()
        common = ("--redis", redis_url, "--spectator-delay", "0", "--log-level", "INFO")
        self.one = ServerProcess(*common, "--admin-port", str(self.admin_port), "--admin-token", TOKEN)
        self.two = ServerProcess(*common)

    async def admin(self, method: str, target: str, token: str | None = TOKEN) -> httpclient.Answer:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        return await httpclient.request(self.admin_port, method, target, headers)

    async def act(self, target: str, **query: str) -> dict[str, object]:
        """POST an action; its JSON answer (200 asserted)."""
        answer = await self.admin("POST", f"{target}?{urllib.parse.urlencode(query)}" if query else target)
        assert answer.status == 200, answer
        document = answer.json()
        assert isinstance(document, dict)
        return document

    def close(self) -> None:
        self.one.close()
        self.two.close()


@pytest.fixture
def nodes(redis_proc: RedisProcess) -> Iterator[Nodes]:
    nodes = Nodes(redis_proc.url)
    try:
        yield nodes
    finally:
        nodes.close()


async def closed_with(client: WsClient) -> tuple[int | None, str]:
    """How the server closed ``client`` (reading on until it does): the code and the reason."""
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(10):
            while True:
                await client.ws.recv()
    return client.ws.close_code, client.ws.close_reason or ""


SPREAD_SECONDS = 10.0
"""How long a moderator's action may take to reach every node: the admin API answers once it is
stored and rung, and each node reads the list again when it hears the ring."""


async def refused(url: str, name: str, token: str | None = None) -> tuple[Error, int | None]:
    """A hello the node refuses (asked again while the action spreads): its error, then the close code."""
    deadline = asyncio.get_running_loop().time() + SPREAD_SECONDS
    while True:
        client = await WsClient.open(url)
        answer = await client.call(Hello(name=name, token=token))
        if isinstance(answer, Error) or asyncio.get_running_loop().time() > deadline:
            break
        await client.close()
        await asyncio.sleep(0.05)
    assert isinstance(answer, Error), answer
    code, _ = await closed_with(client)
    return answer, code


async def welcomed(url: str, name: str) -> WsClient:
    """A hello the node welcomes (asked again while a lifted ban spreads)."""
    deadline = asyncio.get_running_loop().time() + SPREAD_SECONDS
    while True:
        client = await WsClient.open(url)
        answer = await client.call(Hello(name=name))
        if isinstance(answer, Welcome) or asyncio.get_running_loop().time() > deadline:
            break
        await client.close()
        await asyncio.sleep(0.05)
    assert isinstance(answer, Welcome), answer
    client.welcome = answer
    return client


def not_(check: Callable[[], Awaitable[bool]]) -> Callable[[], Awaitable[bool]]:
    async def negated() -> bool:
        return not await check()

    return negated


async def test_the_admin_api_wants_its_token(nodes: Nodes) -> None:
    for token in (None, "wrong", TOKEN + "x"):
        answer = await nodes.admin("GET", "/rooms", token)
        assert answer.status == 401 and answer.headers.get("www-authenticate") == "Bearer"
    assert (await nodes.admin("GET", "/rooms")).status == 200
    assert (await nodes.admin("GET", "/nowhere")).status == 404
    assert (await nodes.admin("POST", "/bans?name=a&address=127.0.0.1")).status == 400  # one at a time
    assert (await nodes.admin("POST", "/bans?network=not-a-network")).status == 400


async def test_a_name_ban_takes_effect_on_every_node_until_lifted(nodes: Nodes) -> None:
    bob = await WsClient.open(nodes.two.url, "Bob")
    ann = await WsClient.open(nodes.two.url, "Ann")
    entry = await nodes.act("/bans", name="BOB", minutes="10", reason="abuse")
    assert entry["key"] == "name:bob" and entry["reason"] == "abuse"

    # Bob's connection on node 2 is closed (4004, saying why); Ann, another name, stays.
    code, reason = await closed_with(bob)
    assert code == CloseCode.REMOVED and "banned" in reason and "abuse" in reason
    assert isinstance(await ann.call(CreateRoom()), RoomState)
    for node in (nodes.one, nodes.two):  # in any case or look-alike form, new or resumed
        error, code = await refused(node.url, "b0b")
        assert error.code == ErrorCode.BANNED and code == CloseCode.REMOVED
        error, code = await refused(node.url, "Ann-again", token=bob.token)
        assert error.code == ErrorCode.BANNED
    listed = (await nodes.admin("GET", "/bans")).json()["bans"]
    assert [b["key"] for b in listed] == ["name:bob"]

    assert (await nodes.act("/bans/lift", key="name:bob"))["lifted"] is True
    back = await welcomed(nodes.two.url, "Bob")
    await back.close()
    await ann.close()
    log = nodes.one.log.read_text()
    assert "event=admin.ban key=name:bob" in log and "event=admin.lift key=name:bob" in log


async def test_address_and_network_bans_and_reserved_names_on_every_node(nodes: Nodes) -> None:
    eve = await WsClient.open(nodes.two.url, "Eve")
    await nodes.act("/bans", address="127.0.0.1", minutes="5")
    assert (await closed_with(eve))[0] == CloseCode.REMOVED
    for node in (nodes.one, nodes.two):
        assert (await refused(node.url, "Anyone"))[0].code == ErrorCode.BANNED
    await nodes.act("/bans/lift", key="address:127.0.0.1")
    await (await welcomed(nodes.two.url, "Anyone")).close()

    await nodes.act("/bans", network="127.0.0.0/8", reason="a flood")
    for node in (nodes.one, nodes.two):
        error, code = await refused(node.url, "Someone")
        assert error.code == ErrorCode.BANNED and "a flood" in error.message and code == CloseCode.REMOVED
    await nodes.act("/bans/lift", key="network:127.0.0.0/8")

    await nodes.act("/bans", reserved="Moderator")
    for node in (nodes.one, nodes.two):
        error, code = await refused(node.url, "moderator")
        assert error.code == ErrorCode.NAME_RESERVED and code == CloseCode.REMOVED
    await (await welcomed(nodes.two.url, "Moderator's fan")).close()


async def test_a_notice_reaches_every_connection_on_every_node(nodes: Nodes) -> None:
    ann = await WsClient.open(nodes.one.url, "Ann")
    cy = await WsClient.open(nodes.two.url, "Cy")
    await nodes.act("/notice", text="Restarting in 5 minutes")
    for client in (ann, cy):
        notice = await client.expect(Notice)
        assert notice.text == "Restarting in 5 minutes" and notice.room is None
    assert "event=admin.notice" in nodes.one.log.read_text()
    for client in (ann, cy):
        await client.close()


async def test_a_kick_closes_the_players_connection_wherever_it_is(nodes: Nodes) -> None:
    ann = await WsClient.open(nodes.two.url, "Ann")
    connections = (await nodes.admin("GET", "/connections")).json()["connections"]
    assert connections == []  # node 1's own: Ann is on node 2
    await nodes.act(f"/players/{ann.player}/kick", reason="spam")
    code, reason = await closed_with(ann)
    assert code == CloseCode.REMOVED and "spam" in reason
    assert "event=admin.kick" in nodes.one.log.read_text()


async def test_closing_a_room_removes_its_members_on_every_node_and_nobody_comes_back(nodes: Nodes) -> None:
    ann = await WsClient.open(nodes.one.url, "Ann")
    bob = await WsClient.open(nodes.two.url, "Bob")
    created = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    code = created.room
    assert isinstance(await bob.call(JoinRoom(room=code)), RoomState)
    assert isinstance(await ann.call(Ready()), type(await bob.call(Ready())))
    rooms = (await nodes.admin("GET", "/rooms")).json()
    assert [r["room"] for r in rooms["held_here"]] == [code]
    assert {r["name"] for r in rooms["held_here"][0]["racers"]} == {"Ann", "Bob"}
    listed = (await nodes.admin("GET", "/connections")).json()["connections"]
    assert [(c["name"], c["room"]) for c in listed] == [("Ann", code)]

    dee = await WsClient.open(nodes.two.url, "Dee")

    async def listed_in_the_lobby() -> bool:
        rooms = await dee.call(ListRooms())
        assert isinstance(rooms, Rooms)
        return code in {r.room for r in rooms.rooms}

    assert await listed_in_the_lobby()
    assert (await nodes.act(f"/rooms/{code}/close", reason="cheating"))["closed"] == code
    for client in (ann, bob):
        notice = await client.expect(Notice)
        assert notice.room == code and "closed" in notice.text and "cheating" in notice.text
        assert (await closed_with(client))[0] == CloseCode.REMOVED
    # Coming back, each is in no room; nobody joins it any more.
    for client, node in ((ann, nodes.two), (bob, nodes.one)):
        back = await WsClient.open(node.url, client.welcome.name if client.welcome else "x", token=client.token)
        assert back.welcome is not None and back.welcome.room is None
        error = await back.call(JoinRoom(room=code))
        assert isinstance(error, Error) and error.code == ErrorCode.ROOM_NOT_FOUND
        await back.close()
    await wait_until(not_(listed_in_the_lobby), what="the closed room unlisted")
    await wait_until(lambda: "event=admin.close_room" in nodes.one.log.read_text())
    await dee.close()
