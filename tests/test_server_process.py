"""The server as a real process: start from the command line, crash, restart on the same Redis."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator

import pytest

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Progress, Ready, Result, RoomState, Started
from seahaven import Board, parse_board
from seahaven.solver import solve
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two


@pytest.fixture
def processes() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.close()


async def test_plain_command_serves_from_memory_and_stops_cleanly(processes: list[ServerProcess]) -> None:
    server = ServerProcess()
    processes.append(server)

    def health() -> bytes:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5) as response:
            return bytes(response.read())

    assert (await asyncio.to_thread(health)).startswith(b"ok\nstore: ok\n")
    client = await WsClient.open(server.url, "Ann")
    assert client.welcome is not None
    await client.close()
    assert server.terminate() == 0


def test_a_server_stopped_as_soon_as_it_listens_stops_cleanly(
    processes: list[ServerProcess], redis_proc: RedisProcess
) -> None:
    """SIGTERM right after the "listening" line, while the deal pool's first refill is under way
    (it hung: the refill loop took its swallowed cancellation for a store outage and waited on)."""
    for _ in range(3):
        server = ServerProcess("--redis", redis_proc.url)
        processes.append(server)
        assert server.terminate() == 0


async def test_a_race_survives_a_server_crash_on_redis(
    processes: list[ServerProcess], redis_proc: RedisProcess
) -> None:
    moves = solve(Board.deal("seahaven", 1)).moves
    first = ServerProcess("--redis", redis_proc.url)
    processes.append(first)
    ann = await WsClient.open(first.url, "Ann")
    bob = await WsClient.open(first.url, "Bob")
    await race_of_two(ann, bob, CreateRoom(deal_number=1))
    half = len(moves) // 2
    for move in moves[:half]:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)

    first.kill()
    second = ServerProcess("--redis", redis_proc.url, port=first.port)
    processes.append(second)

    ann2 = await WsClient.open(second.url, "Ann", token=ann.token)
    resumed = await ann2.expect(RoomState)
    assert resumed.phase == "racing" and len(resumed.history) == half
    board = Board.deal("seahaven", 1)
    for move in moves[:half]:
        board.push(move)
    assert resumed.board is not None and parse_board(resumed.board, "seahaven") == board
    bob2 = await WsClient.open(second.url, "Bob", token=bob.token)
    await bob2.expect(RoomState)

    for move in moves[half:]:
        reply = await ann2.call(MoveRequest(move=str(move)))
        assert isinstance(reply, Moved), reply
    result = await bob2.expect(Result)
    assert result.standings[0].player == ann.player and result.standings[0].progress == 52


async def test_a_spectator_who_joins_after_a_crash_gets_every_move(
    processes: list[ServerProcess], redis_proc: RedisProcess
) -> None:
    """What spectators see is rebuilt from the stored log: moves made before the crash, whether
    their delayed frames had fallen due or not, reach a spectator who joins the new process."""
    moves = [str(m) for m in solve(Board.deal("seahaven", 1)).moves[:12]]
    first = ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0.3")
    processes.append(first)
    ann = await WsClient.open(first.url, "Ann")
    bob = await WsClient.open(first.url, "Bob")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    for client in (ann, bob):
        assert isinstance(await client.call(Ready()), Ok)
    await ann.expect(Started)
    for move in moves:
        assert isinstance(await ann.call(MoveRequest(move=move)), Moved)

    first.kill()
    second = ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0.3")
    processes.append(second)
    sue = await WsClient.open(second.url, "Sue")
    joined = await sue.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(joined, RoomState) and joined.phase == "racing"
    (seen,) = [w for w in joined.watching if w.player == ann.player]
    history = list(seen.history)
    while len(history) < len(moves):  # the rest fall due a spectator delay after they were made
        progress = await sue.expect(Progress, where=lambda p: p.player == ann.player)
        assert progress.move is not None and progress.moves == len(history) + 1
        history.append(progress.move)
    assert history == moves and len(moves) > 0
