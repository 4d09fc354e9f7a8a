"""Bot racers over real WebSockets: a bot races a scripted human through the judged path."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    Leave,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Progress,
    QuickMatch,
    Ready,
    Resign,
    Result,
    RoomState,
    Started,
)
from seahaven import Board, Move
from seahaven.solver import solve
from server.app import RaceServer
from server.rooms.room import BOT_PREFIX
from tests.fakeclock import FakeClock
from tests.helpers import MakeServer, url_of, wait_until
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient


async def test_a_bot_finishes_a_race_against_a_scripted_human(make_server: MakeServer) -> None:
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    state = await ann.call(CreateRoom(bot="sprint"))
    assert isinstance(state, RoomState)
    members = await ann.expect(Members, where=lambda m: any(r.status == "ready" for r in m.racers))
    (bot,) = [r for r in members.racers if r.player != ann.player]
    assert bot.bot and bot.player.startswith(BOT_PREFIX) and bot.status == "ready"
    assert isinstance(await ann.call(Ready()), Ok)
    started = await ann.expect(Started)
    # Ann plays the first move of a win, as a person would; the bot races on meanwhile.
    first = solve(Board.deal("seahaven", server.rooms[state.room].room.settings.deal)).moves[0]
    moved = await ann.call(MoveRequest(move=str(first)))
    assert isinstance(moved, Moved) and moved.moves == 1
    done = await ann.expect(Progress, wait=60, where=lambda p: p.player == bot.player and p.status == "finished")
    assert done.progress == 52
    result = await ann.expect(Result)  # the first finisher ends the race
    assert [(s.player, s.status == "finished", s.bot) for s in result.standings] == [
        (bot.player, True, True),
        (ann.player, False, False),
    ]
    # Every bot move was judged and stored: the room's log replays to the bot's win.
    (history,) = [h for h in result.histories if h.player == bot.player]
    board = Board.deal("seahaven", server.rooms[state.room].room.settings.deal)
    for move in history.history:
        board.push(Move.parse(move))
    assert board.is_won() and started.deal
    await ann.close()


async def test_quick_match_offers_a_bot_after_the_wait_and_the_bot_leaves_with_the_human(
    make_server: MakeServer,
) -> None:
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    state = await ann.call(QuickMatch(bot_after=20))
    assert isinstance(state, RoomState) and len(state.racers) == 1
    clock = server.clock
    assert isinstance(clock, FakeClock)
    clock.advance(19_000)
    assert not [e for e in await ann.settle() if isinstance(e, Members) and len(e.racers) > 1]  # not yet
    clock.advance(1_000)
    members = await ann.expect(Members, where=lambda m: len(m.racers) == 2)
    assert [r.bot for r in members.racers] == [False, True]
    assert isinstance(await ann.call(Leave()), Ok)
    # The bot notices it is alone and leaves; the room is let go. Waited for in time, not in
    # pings: a hundred pings took 0.2 s, less than a busy machine needs for those store calls.
    await wait_until(lambda: state.room not in server.rooms, what="the bot gone and the room let go")
    await ann.close()


async def test_a_bot_needs_a_known_pace(make_server: MakeServer) -> None:
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    refused = await ann.error(CreateRoom(bot="warp"))
    assert refused.code == ErrorCode.BAD_FIELD
    await ann.close()


@pytest.mark.parametrize("pace", ["stroll", "brisk", "sprint"])
def test_protocol_paces_are_the_bot_brains_paces(pace: str) -> None:
    from protocol.messages import BOT_PACES
    from server.play.bot import PACES

    assert pace in BOT_PACES and tuple(PACES) == BOT_PACES


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


async def test_a_killed_server_leaves_no_worker_process_behind() -> None:
    server = ServerProcess()
    try:
        assert server.proc is not None
        ann = await WsClient.open(f"ws://127.0.0.1:{server.port}", "Ann")
        state = await ann.call(CreateRoom(bot="sprint"))
        assert isinstance(state, RoomState)
        await ann.call(Ready())
        await ann.expect(Progress, wait=60)  # the bot moved: its worker process planned the race
        workers = _children(server.proc.pid)
        assert workers
        await ann.close()
    finally:
        server.close()
    # Each worker sees its parent gone within a second or so.
    await wait_until(lambda: not _alive(workers), 20, what=lambda: f"workers {_alive(workers)} still running")


def _alive(pids: set[int]) -> list[int]:
    """The processes of ``pids`` still running (a zombie has exited)."""
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/status").read_text().split("State:")[1].splitlines()[0]
        except (OSError, IndexError):
            continue
        if "zombie" not in state:
            alive.append(pid)
    return alive


async def test_resigning_against_a_bot_ends_the_race_at_once(make_server: MakeServer) -> None:
    """Issue 38, bug 6: a player who resigned against a bot waited, with no results, until the bot
    finished. Once no person races, the race is over (the bot stops where it is, resigned)."""
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    state = await ann.call(CreateRoom(bot="stroll"))
    assert isinstance(state, RoomState)
    await ann.expect(Members, where=lambda m: any(r.status == "ready" for r in m.racers))
    assert isinstance(await ann.call(Ready()), Ok)
    await ann.expect(Started)
    assert isinstance(await ann.call(Resign()), Ok)
    result = await ann.expect(Result, wait=5)
    assert result.reason == "all-done"
    (bot,) = [s for s in result.standings if s.bot]
    assert bot.status == "resigned"  # stopped with her: nobody waits for it
    assert [(s.player, s.status) for s in result.standings if not s.bot] == [(ann.player, "resigned")]
    await ann.close()


async def race_a_bot(server: RaceServer, name: str) -> tuple[WsClient, str]:
    """``name`` (a protocol client) races a sprint bot, started: the client and the bot's id."""
    client = await WsClient.open(url_of(server), name)
    state = await client.call(CreateRoom(bot="sprint"))
    assert isinstance(state, RoomState)
    members = await client.expect(Members, where=lambda m: any(r.status == "ready" for r in m.racers))
    (bot,) = [r.player for r in members.racers if r.player != client.player]
    assert isinstance(await client.call(Ready()), Ok)
    await client.expect(Started)
    return client, bot


async def test_a_bot_whose_worker_was_killed_gives_up_and_the_next_bot_has_a_new_one(
    make_server: MakeServer,
) -> None:
    """A bot plans in a worker process. With that process killed, the bot resigned rather than sit
    in the race unseen (its task died quietly before), and the next bot gets a new worker."""
    server = await make_server()
    loop = asyncio.get_running_loop()
    worker = await loop.run_in_executor(server.worker.executor(), os.getpid)
    os.kill(worker, signal.SIGKILL)
    ann, bot = await race_a_bot(server, "Ann")
    gave_up = await ann.expect(Progress, wait=20, where=lambda p: p.player == bot and p.status != "racing")
    assert gave_up.status == "resigned" and gave_up.progress < 52
    assert isinstance(await ann.call(Resign()), Ok)
    await ann.expect(Result)
    await ann.close()

    cid, bot = await race_a_bot(server, "Cid")
    won = await cid.expect(Progress, wait=60, where=lambda p: p.player == bot and p.status != "racing")
    assert (won.status, won.progress) == ("finished", 52)
    assert await loop.run_in_executor(server.worker.executor(), os.getpid) != worker
    await cid.close()
