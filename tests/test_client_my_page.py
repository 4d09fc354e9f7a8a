"""My page in the terminal client, with what rated races and arenas put on record: Ann beats Bob
in a rated room and both play an arena to its end on a real server with records (a SQLite file);
Ann's page then shows her rating, what each rated race did to it (Enter: that race's replay) and the
arena with her place and points, as the server's read API has them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from client.apps.app import RaceApp
from client.records.records_api import Records, http_base
from client.screens.records_screens import PlayerScreen, ratings_line, title_of, when
from client.screens.review import ReviewScreen
from protocol.messages import (
    CreateRoom,
    JoinRoom,
    Leave,
    MoveRequest,
    Ok,
    RatingNotice,
    Resign,
    RoomState,
)
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.arenas import ArenaArchive
from server.records.database import open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from tests.client_driver import SIZE, data_home, top, until
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.httpclient import get
from tests.racing import arena_race_resigned, start_race
from tests.wsclient import WsClient, registered

__all__ = ["data_home"]

SOLUTION = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


def cells(screen: PlayerScreen, table: str) -> list[list[str]]:
    found: DataTable[str] = screen.query_one(table, DataTable)
    return [[str(cell) for cell in found.get_row_at(i)] for i in range(found.row_count)]


async def api(server: RaceServer, path: str) -> dict[str, Any]:
    answer = await get(server.port, f"/api/v1{path}")
    assert answer.status == 200, answer.body
    document: dict[str, Any] = answer.json()
    return document


async def rated_win(ann: WsClient, bob: WsClient) -> str:
    """Ann wins a rated room against Bob, who resigns; the race's id once it is rated."""
    opened = await ann.call(CreateRoom(rated=True))
    assert isinstance(opened, RoomState) and opened.rated
    assert isinstance(await bob.call(JoinRoom(room=opened.room)), RoomState)
    await start_race([ann, bob])
    assert isinstance(await bob.call(Resign()), Ok)
    for move in SOLUTION:
        await ann.call(MoveRequest(move=move))
    told = await ann.expect(RatingNotice, wait=20)  # archived and rated
    assert told.change > 0
    for client in (ann, bob):
        assert isinstance(await client.call(Leave()), Ok)
    return told.race_id


async def arena_to_its_end(server: RaceServer, reader: Reader, ann: WsClient, bob: WsClient) -> str:
    """Ann opens a 5-minute arena, Bob joins, both resign the race it seats them in, the time runs
    out; its code once it is on Ann's record."""
    code = await arena_race_resigned(ann, bob)

    async def scored() -> bool:
        found = await server.arenas.live_arena(code)
        return found is not None and sum(int(s["races"]) for s in found["standings"]) == 2

    await wait_until(scored, 10, what="the arena's race scored")
    fake(server).advance(5 * 60_000 + 1000)

    async def on_record() -> bool:  # polled on the records themselves: the API's rate limit runs on the fake clock
        return [a["code"] for a in (await reader.player_arenas(ann.player))["arenas"]] == [code]

    await wait_until(on_record, 20, what="the arena on Ann's record")
    return code


async def test_my_page_shows_my_ratings_their_history_and_my_arenas(
    make_memory_server: MakeServer, tmp_path: Path, data_home: Path
) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    try:
        server = await make_memory_server(
            accounts=Accounts(db),
            archive=Archive(db, now=wall_ms),
            records=Reader(db, now=wall_ms),
            arena_archive=ArenaArchive(db, now=wall_ms),
            deals=lambda: 1,
        )
        ann, bob = await registered(url_of(server), "Ann"), await registered(url_of(server), "Bob")
        race_id = await rated_win(ann, bob)
        code = await arena_to_its_end(server, Reader(db, now=wall_ms), ann, bob)
        fake(server).advance(60_000)  # the read API's budget for this address, full again
        page_doc = await api(server, f"/players/{ann.player}")
        history = (await api(server, f"/players/{ann.player}/ratings"))["history"]
        [arena] = (await api(server, f"/players/{ann.player}/arenas"))["arenas"]
        assert history[-1]["race_id"] == race_id  # the rated room's race, the oldest

        app = RaceApp(url_of(server), "cid", autoconnect=False, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: top(app) is app.lobby, "the lobby")
            app.push_screen(PlayerScreen(Records(http_base(url_of(server))), ann.player))
            await until(pilot, lambda: isinstance(top(app), PlayerScreen), "Ann's page")
            page = top(app)
            assert isinstance(page, PlayerScreen)
            await until(pilot, lambda: page.document is not None, "the page read", 15)
            await until(pilot, lambda: cells(page, "#player-arenas") != [], "the arenas read", 15)

            # Her rating, as the page's document has it.
            [rating] = page_doc["ratings"]
            assert str(page.ratings.content) == ratings_line(page_doc["ratings"])
            races = "rated race" if rating["races"] == 1 else "rated races"
            mark = "?" if rating["provisional"] else ""
            assert str(page.ratings.content) == (
                f"Ratings: Seahaven Towers {rating['rating']}{mark} ({rating['races']} {races})"
            )
            # Each rated race, newest first, with what it did to the rating.
            shown = cells(page, "#rating-history")
            assert len(shown) == len(history)
            oldest = history[-1]
            assert shown[-1] == [
                when(oldest["ended_at"]),
                "Seahaven Towers",
                "1 of 2",
                f"{oldest['rating']}?" if oldest["provisional"] else str(oldest["rating"]),
                f"+{oldest['change']}",
            ]
            # The arena, with her place and points.
            assert cells(page, "#player-arenas") == [
                [
                    when(arena["ends_at"]),
                    code,
                    title_of("seahaven"),
                    f"{arena['place']} of 2",
                    str(arena["points"]),
                    f"{arena['wins']} of 1",
                ]
            ]
            # Enter on the rated race: its replay, from the record.
            table: DataTable[str] = page.query_one("#rating-history", DataTable)
            table.focus()
            table.move_cursor(row=len(shown) - 1)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the rated race's replay", 15)
            replay = top(app)
            assert isinstance(replay, ReviewScreen)
            await until(pilot, lambda: replay.source != "reading", "the record read", 15)
            assert replay.source == "server", replay.note
            assert [t.name for t in replay.tracks] == ["Ann", "Bob"]
        for client in (ann, bob):
            await client.close()
    finally:
        await db.close()
