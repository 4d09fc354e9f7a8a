"""The read API's answers from the records (SQLite and PostgreSQL), and from the live store until archived."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import pytest
import sqlalchemy as sa

from seahaven.codes import encode
from server.records.archive import Archive
from server.records.database import Database
from server.records.reader import Reader, today
from server.records.rows import proofs
from server.records.schema import challenges, players
from server.records.views import race_view
from server.rooms.events import pack
from server.rooms.history import RaceRecord
from server.store.memory import MemoryStore
from tests.race_records import T0, Run, made_record, raced_log, raced_record

DAY_MS = 86_400_000
NOW = T0 + 30 * DAY_MS


def clock() -> int:
    return NOW


async def archive(db: Database, *records: RaceRecord) -> None:
    await Archive(db, now=clock).write_races(records)


async def add_player(db: Database, player: str, display_name: str, **columns: Any) -> None:
    row = {
        "player": player,
        "display_name": display_name,
        "key_hash": hashlib.sha256(player.encode()).hexdigest(),
        "created_at": T0,
        **columns,
    }
    async with db.write() as conn:
        await conn.execute(players.insert().values(row))


# -- races ------------------------------------------------------------------


async def test_a_race_not_on_record_is_none(database: Database) -> None:
    reader = Reader(database, now=clock, live=MemoryStore())
    assert await reader.race("ROOM01-1-aaaaaaaa") is None
    assert await reader.race("not a race id") is None
    assert await reader.race("") is None


async def test_a_live_race_is_served_from_its_room_until_archived(database: Database) -> None:
    store = MemoryStore()
    await store.append("ROOM01", [pack(event) for event in raced_log()], 60.0)
    record = raced_record()
    reader = Reader(database, now=clock, live=store)
    live = await reader.race(record.race_id)
    assert live == race_view(record, proofs(record), archived=False)
    assert live is not None and [r["proven"] for r in live["racers"]] == [True, False]
    assert await reader.race(record.race_id.replace("-1-", "-2-")) is None  # the room's next race: none yet
    assert await Reader(database, now=clock).race(record.race_id) is None  # no live store: not there
    await archive(database, record)
    archived = await reader.race(record.race_id)
    assert archived is not None and archived["archived"] is True
    assert {**archived, "archived": False} == live  # the same answer either way


async def test_a_deleted_account_is_a_deleted_player_in_its_races(database: Database) -> None:
    record = raced_record()
    await archive(database, record)
    await add_player(database, "bob", "Bob", deleted_at=NOW)
    view = await Reader(database, now=clock).race(record.race_id)
    assert view is not None
    assert [(r["player"], r["name"]) for r in view["racers"]] == [("ann", "Ann"), ("bob", "deleted player")]
    assert view["racers"][1]["moves"]  # the race itself stays on record


# -- players ----------------------------------------------------------------

# pat's races in the order they ended: W W L W W W L W (current streak 1, best 3).
PAT = [60_000, 55_000, None, 52_000, 58_000, 51_000, None, 57_000]


def pat_records() -> list[RaceRecord]:
    records = []
    for i, time_ms in enumerate(PAT):
        rival = Run("rex", 65_000) if time_ms is not None else Run("rex", 40_000)
        # Races 3 and 4 end at the same millisecond: the race id orders them.
        ended = T0 + DAY_MS * (i if i != 4 else 3)
        records.append(made_record(f"P{i}-1-aaaaaaaa", ended, [Run("pat", time_ms), rival]))
    records.append(made_record("Q0-1-aaaaaaaa", T0, [Run("pat", 30_000, hints=2)]))  # with hints: no best
    records.append(made_record("Q1-1-aaaaaaaa", T0 - 1, [Run("pat", 70_000)], preset="seahaven-relaxed"))
    return records


async def test_a_players_page(database: Database) -> None:
    await archive(database, *pat_records())
    page = await Reader(database, now=clock).player("pat")
    assert page is not None
    assert (page["player"], page["name"], page["handle"]) == ("pat", "Pat", None)
    assert (page["races"], page["wins"], page["finished"]) == (10, 8, 8)
    # In end order: Q1 (T0-1), Q0 and P0 (T0), P1, P2 (lost), P3 and P4, P5, P6 (lost), P7.
    assert (page["current_streak"], page["best_streak"]) == (1, 4)
    assert page["bests"] == [
        {"preset": "seahaven", "time_ms": 51_000, "race_id": "P5-1-aaaaaaaa", "deal": 1, "ended_at": T0 + 5 * DAY_MS},
        {"preset": "seahaven-relaxed", "time_ms": 70_000, "race_id": "Q1-1-aaaaaaaa", "deal": 1, "ended_at": T0 - 1},
    ]
    recent = page["recent"]
    assert len(recent) == 10
    assert [r["race_id"] for r in recent[:4]] == ["P7-1-aaaaaaaa", "P6-1-aaaaaaaa", "P5-1-aaaaaaaa", "P4-1-aaaaaaaa"]
    assert recent[0] == {
        "race_id": "P7-1-aaaaaaaa",
        "preset": "seahaven",
        "deal": 1,
        "ended_at": T0 + 7 * DAY_MS,
        "place": 1,
        "racers": 2,
        "status": "finished",
        "time_ms": 57_000,
    }
    assert recent[1]["status"] == "resigned" and recent[1]["place"] == 2


async def test_streaks_count_wins_in_a_row(database: Database) -> None:
    await archive(database, *[r for r in pat_records() if r.race_id.startswith("P")])
    page = await Reader(database, now=clock).player("pat")
    assert page is not None and (page["current_streak"], page["best_streak"]) == (1, 3)
    rex = await Reader(database, now=clock).player("rex")
    assert rex is not None and (rex["wins"], rex["current_streak"], rex["best_streak"]) == (2, 0, 1)


async def test_players_without_races_or_accounts(database: Database) -> None:
    reader = Reader(database, now=clock)
    assert await reader.player("nobody") is None
    await add_player(database, "new", "Newcomer", handle="Newcomer", handle_key="newcomer")
    page = await reader.player("new")
    assert page is not None
    assert (page["name"], page["handle"], page["races"], page["wins"]) == ("Newcomer", "Newcomer", 0, 0)
    assert (page["current_streak"], page["best_streak"], page["bests"], page["recent"]) == (0, 0, [], [])
    for asked in ("Newcomer", "NEWCOMER", "Nеwcomer"):  # a handle, by the name rule (a Cyrillic е too)
        by_handle = await reader.player(asked)
        assert by_handle is not None and by_handle["player"] == "new", asked
    assert (await reader.player_races("newcomer", limit=5))["races"] == []
    await archive(database, *pat_records())
    await add_player(database, "pat", "Pat", deleted_at=NOW)
    assert await reader.player("pat") is None  # a deleted account has no page


async def test_a_players_races_page_by_page(database: Database) -> None:
    await archive(database, *pat_records())
    reader = Reader(database, now=clock)
    seen: list[str] = []
    pages = 0
    before = None
    while True:
        page = await reader.player_races("pat", limit=3, before=before)
        seen += [r["race_id"] for r in page["races"]]
        pages += 1
        before = page["next"]
        if before is None:
            break
        assert isinstance(before, str)
    assert pages == 4 and len(seen) == len(set(seen)) == 10
    every = (await reader.player_races("pat", limit=100))["races"]
    assert [r["race_id"] for r in every] == seen  # the pages, in order, are the whole list
    assert [r["ended_at"] for r in every] == sorted((r["ended_at"] for r in every), reverse=True)
    assert await reader.player_races("nobody", limit=5) == {"races": [], "next": None}


@pytest.mark.parametrize("cursor", ["garbage!", "bm90LWEtY3Vyc29y", "", "MTIz"])
async def test_a_malformed_cursor_is_refused(database: Database, cursor: str) -> None:
    with pytest.raises(ValueError, match="not a page cursor"):
        await Reader(database, now=clock).player_races("pat", limit=5, before=cursor)


@pytest.mark.parametrize("limit", [0, 101])
async def test_a_page_size_out_of_range_is_refused(database: Database, limit: int) -> None:
    with pytest.raises(ValueError, match="limit must be 1 to 100"):
        await Reader(database, now=clock).player_races("pat", limit=limit)


# -- boards -----------------------------------------------------------------

DAY = "2027-01-15"
"""A daily race's day (not today)."""


def board_records() -> list[RaceRecord]:
    old = NOW - 8 * DAY_MS  # more than a week before NOW
    recent = NOW - DAY_MS
    forged = made_record("F0-1-aaaaaaaa", recent, [Run("fay", 45_000)])
    fay = forged.racers[0]
    return [
        made_record("A1-1-aaaaaaaa", old, [Run("ann", 60_000), Run("bob", 70_000)]),
        made_record("A2-1-aaaaaaaa", recent, [Run("ann", 50_000), Run("cid", 50_000)]),  # a tie
        made_record("A3-1-aaaaaaaa", recent + 1, [Run("ann", 55_000)]),  # ann's slower second win
        made_record("A4-1-aaaaaaaa", recent, [Run("dan", 40_000, hints=1)]),  # hints: not on a board
        made_record("A5-1-aaaaaaaa", recent, [Run("bot-x", 30_000), Run("ghost-ann", 20_000)]),
        made_record("A6-1-aaaaaaaa", recent, [Run("eve", 45_000)], chosen=True),  # the creator's deal
        made_record("A7-1-aaaaaaaa", recent, [Run("gus")]),  # resigned
        made_record("A8-1-aaaaaaaa", recent, [Run("hal", 65_000)], preset="seahaven-relaxed"),
        made_record("A9-1-aaaaaaaa", recent, [Run("jo", 30_000)], deal_grade="fiendish"),
        made_record("D1-1-aaaaaaaa", old, [Run("ivy", 35_000), Run("kim", 36_000)], daily=DAY, chosen=True),
        made_record("D2-1-aaaaaaaa", recent, [Run("lee", 80_000)], daily=today(NOW), chosen=True),
        # fay's finish does not replay to a win: never proven, never on a board.
        dataclasses.replace(forged, racers=(dataclasses.replace(fay, moves=fay.moves[:-3]),)),
    ]


def entries(board: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(e["rank"], e["player"], e["time_ms"]) for e in board["entries"]]


async def test_the_all_time_board(database: Database) -> None:
    await archive(database, *board_records())
    await add_player(database, "ann", "Ann the Great")
    await add_player(database, "cid", "Cid", deleted_at=NOW)
    board = await Reader(database, now=clock).leaderboard("seahaven", "all")
    assert (board["preset"], board["period"], board["grade"], board["day"]) == ("seahaven", "all", None, None)
    assert entries(board) == [(1, "jo", 30_000), (2, "ann", 50_000), (2, "cid", 50_000), (4, "bob", 70_000)]
    ann = board["entries"][1]
    assert ann == {
        "rank": 2,
        "player": "ann",
        "name": "Ann the Great",
        "time_ms": 50_000,
        "race_id": "A2-1-aaaaaaaa",
        "deal": 1,
        "ended_at": NOW - DAY_MS,
    }
    assert [e["name"] for e in board["entries"]] == ["Jo", "Ann the Great", "deleted player", "Bob"]
    assert board["next_offset"] is None


async def test_a_board_page_by_page(database: Database) -> None:
    await archive(database, *board_records())
    reader = Reader(database, now=clock)
    first = await reader.leaderboard("seahaven", "all", limit=2)
    assert entries(first) == [(1, "jo", 30_000), (2, "ann", 50_000)] and first["next_offset"] == 2
    second = await reader.leaderboard("seahaven", "all", limit=2, offset=2)
    assert entries(second) == [(2, "cid", 50_000), (4, "bob", 70_000)] and second["next_offset"] is None


async def test_the_weekly_board_and_the_grades(database: Database) -> None:
    await archive(database, *board_records())
    reader = Reader(database, now=clock)
    recent = today(NOW - DAY_MS)  # the board records' recent day; their old one is a week earlier
    week = await reader.leaderboard("seahaven", "week", day=recent)
    assert entries(week) == [(1, "jo", 30_000), (2, "ann", 50_000), (2, "cid", 50_000)]  # bob's win is too old
    assert week["day"] == recent
    earlier = await reader.leaderboard("seahaven", "week", day=today(NOW - 8 * DAY_MS))
    assert [e[1] for e in entries(earlier)] == ["ann", "bob"]  # that week's board: only the old race
    fiendish = await reader.leaderboard("seahaven", "all", grade="fiendish")
    assert entries(fiendish) == [(1, "jo", 30_000)] and fiendish["grade"] == "fiendish"
    assert entries(await reader.leaderboard("seahaven", "all", grade="gentle")) == []
    assert entries(await reader.leaderboard("seahaven-relaxed", "all")) == [(1, "hal", 65_000)]


async def test_the_daily_board(database: Database) -> None:
    await archive(database, *board_records())
    reader = Reader(database, now=clock)
    daily = await reader.leaderboard("seahaven", "day", day=DAY)
    assert daily["day"] == DAY and entries(daily) == [(1, "ivy", 35_000), (2, "kim", 36_000)]
    todays = await reader.leaderboard("seahaven", "day")
    assert todays["day"] == today(NOW) and entries(todays) == [(1, "lee", 80_000)]
    assert entries(await reader.leaderboard("seahaven", "day", day="2027-01-16")) == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"preset": "chess"}, "unknown preset 'chess'"),
        ({"period": "month"}, "unknown period 'month'"),
        ({"grade": "easy"}, "unknown deal grade 'easy'"),
        ({"period": "all", "day": DAY}, "day names a day or a week"),
        ({"period": "day", "day": "15/01/2027"}, "day must be a date, YYYY-MM-DD"),
        ({"period": "day", "day": "20270115"}, "day must be a date, YYYY-MM-DD"),
        ({"limit": 0}, "limit must be 1 to 100"),
        ({"offset": -1}, "offset must be 0 or more"),
    ],
)
async def test_bad_board_arguments_are_refused(database: Database, args: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError) as info:
        await Reader(database, now=clock).leaderboard(**{"preset": "seahaven", **args})
    assert says in str(info.value)


# -- challenges -------------------------------------------------------------


async def test_a_challenge(database: Database) -> None:
    record = raced_record()
    await archive(database, record)
    async with database.write() as conn:
        await conn.execute(
            challenges.insert().values(
                challenge="c0ffee", race_id=record.race_id, player="ann", created_at=NOW, created_by="bob"
            )
        )
    reader = Reader(database, now=clock)
    assert await reader.challenge("c0ffee") == {
        "challenge": "c0ffee",
        "race_id": record.race_id,
        "player": "ann",
        "name": "Ann",
        "preset": "seahaven",
        "deal": 1,
        "time_ms": record.racers[0].time_ms,
        "created_at": NOW,
        "results": [],  # nobody raced its ghost yet (tests/test_ghosts.py races it)
    }
    assert await reader.challenge("unknown") is None


async def test_a_challenge_needs_the_run_on_record(database: Database) -> None:
    record = raced_record()
    await archive(database, record)
    with pytest.raises(sa.exc.IntegrityError):
        async with database.write() as conn:
            await conn.execute(
                challenges.insert().values(
                    challenge="nope", race_id=record.race_id, player="zed", created_at=NOW, created_by="bob"
                )
            )


# -- rivals -----------------------------------------------------------------


def flagged(record: RaceRecord, player: str, *, bot: bool = False, ghost: bool = False) -> RaceRecord:
    """``record`` with ``player``'s row marked a bot's or a ghost's, as the archive stores it."""
    racers = tuple(dataclasses.replace(r, bot=bot, ghost=ghost) if r.player == player else r for r in record.racers)
    return dataclasses.replace(record, racers=racers)


def rival_rows(page: dict[str, Any]) -> list[tuple[str, int, int, int, str, int]]:
    return [
        (r["player"], r["races"], r["wins"], r["losses"], r["last_race"], r["last_raced_at"]) for r in page["rivals"]
    ]


async def test_rivals_newest_first_with_wins_and_losses(database: Database) -> None:
    await archive(
        database,
        made_record("V1-1-aaaaaaaa", T0 + 1, [Run("pat", 60_000), Run("ann", 70_000)]),  # pat ahead of ann
        made_record("V2-1-aaaaaaaa", T0 + 2, [Run("bob", 50_000), Run("pat", 55_000), Run("ann")]),
        made_record("V3-1-aaaaaaaa", T0 + 3, [Run("ann", 40_000), Run("pat", 45_000)]),  # ann ahead
        made_record("V4-1-aaaaaaaa", T0 + 4, [Run("pat", 50_000), Run("cid", 52_000)]),
        made_record("V5-1-aaaaaaaa", T0 + 5, [Run("pat", 50_000)]),  # alone: nobody
        made_record("V6-1-aaaaaaaa", T0 + 6, [Run("ann", 30_000), Run("bob", 31_000)]),  # without pat
    )
    page = await Reader(database, now=clock).player_rivals("pat")
    assert page["player"] == "pat"
    assert rival_rows(page) == [
        ("cid", 1, 1, 0, "V4-1-aaaaaaaa", T0 + 4),
        ("ann", 3, 2, 1, "V3-1-aaaaaaaa", T0 + 3),
        ("bob", 1, 0, 1, "V2-1-aaaaaaaa", T0 + 2),
    ]
    ann = await Reader(database, now=clock).player_rivals("ann")
    assert rival_rows(ann) == [
        ("bob", 2, 1, 1, "V6-1-aaaaaaaa", T0 + 6),  # ann ahead in V6, behind in V2 (she resigned)
        ("pat", 3, 1, 2, "V3-1-aaaaaaaa", T0 + 3),
    ]
    assert await Reader(database, now=clock).player_rivals("nobody") == {"player": "nobody", "rivals": []}


async def test_bots_and_ghosts_are_never_rivals(database: Database) -> None:
    await archive(
        database,
        made_record("B1-1-aaaaaaaa", T0 + 1, [Run("pat", 60_000), Run("ann", 70_000)]),
        # Newer races: against a bot and a ghost by their ids, and rows flagged so on either side.
        made_record("B2-1-aaaaaaaa", T0 + 2, [Run("pat", 60_000), Run("bot-x", 50_000), Run("ghost-ch1", 55_000)]),
        flagged(made_record("B3-1-aaaaaaaa", T0 + 3, [Run("pat", 60_000), Run("ann", 50_000)]), "ann", ghost=True),
        flagged(made_record("B4-1-aaaaaaaa", T0 + 4, [Run("pat", 60_000), Run("dan", 50_000)]), "dan", bot=True),
        flagged(made_record("B5-1-aaaaaaaa", T0 + 5, [Run("pat", 60_000), Run("eve", 50_000)]), "pat", ghost=True),
        flagged(made_record("B6-1-aaaaaaaa", T0 + 6, [Run("pat", 60_000), Run("fay", 50_000)]), "pat", bot=True),
    )
    page = await Reader(database, now=clock).player_rivals("pat")
    assert rival_rows(page) == [("ann", 1, 1, 0, "B1-1-aaaaaaaa", T0 + 1)]
    assert (await Reader(database, now=clock).player_rivals("bot-x"))["rivals"] == []


async def test_at_most_twenty_rivals_unless_asked(database: Database) -> None:
    await archive(
        database,
        *[made_record(f"L{i}-1-aaaaaaaa", T0 + i, [Run("pat", 60_000), Run(f"r{i:02d}", 70_000)]) for i in range(25)],
    )
    reader = Reader(database, now=clock)
    newest = [f"r{i:02d}" for i in reversed(range(25))]
    assert [r["player"] for r in (await reader.player_rivals("pat"))["rivals"]] == newest[:20]
    assert [r["player"] for r in (await reader.player_rivals("pat", limit=3))["rivals"]] == newest[:3]
    assert [r["player"] for r in (await reader.player_rivals("pat", limit=50))["rivals"]] == newest


@pytest.mark.parametrize("limit", [0, 51])
async def test_a_rivals_limit_out_of_range_is_refused(database: Database, limit: int) -> None:
    with pytest.raises(ValueError, match="limit must be 1 to 50"):
        await Reader(database, now=clock).player_rivals("pat", limit=limit)


def deal_race(race_id: str, ended_at: int, deal: int, runs: list[Run], **settings: Any) -> RaceRecord:
    """A race on deal ``deal`` (its finishes are not proven there: the bests do not ask)."""
    return made_record(race_id, ended_at, runs, deal=deal, **settings)


async def test_best_times_on_the_deals_both_finished(database: Database) -> None:
    t = T0
    await archive(
        database,
        # Deal 1: pat's best 50 s (of two), ann's 55 s: faster.
        deal_race("D1-1-aaaaaaaa", t + 1, 1, [Run("pat", 60_000), Run("ann", 55_000)]),
        deal_race("D1-2-aaaaaaaa", t + 2, 1, [Run("pat", 50_000)]),
        # ...a ghost row of ann's there at 10 s, and one of pat's on deal 2 at 1 s, never count.
        flagged(deal_race("G1-1-aaaaaaaa", t + 3, 1, [Run("ann", 10_000)]), "ann", ghost=True),
        flagged(deal_race("G2-1-aaaaaaaa", t + 4, 2, [Run("pat", 1_000)]), "pat", ghost=True),
        # Deal 2: 70 s against 65 s: slower.
        deal_race("D2-1-aaaaaaaa", t + 5, 2, [Run("pat", 70_000), Run("ann", 65_000)]),
        # Deal 3: 40 s each: shared, neither faster nor slower.
        deal_race("D3-1-aaaaaaaa", t + 6, 3, [Run("pat", 40_000), Run("ann", 40_000)]),
        # Deal 4: ann resigned: not shared.
        deal_race("D4-1-aaaaaaaa", t + 7, 4, [Run("pat", 40_000), Run("ann")]),
        # Deal 5: each alone, in races of their own: shared all the same (30 s against 31 s).
        deal_race("D5-1-aaaaaaaa", t + 8, 5, [Run("ann", 31_000)]),
        deal_race("D5-2-aaaaaaaa", t + 9, 5, [Run("pat", 30_000)]),
        # Deal 6 on two presets: two deals, each finished by one of them only.
        deal_race("D6-1-aaaaaaaa", t + 10, 6, [Run("pat", 20_000)]),
        deal_race("D6-2-aaaaaaaa", t + 11, 6, [Run("ann", 25_000)], preset="seahaven-relaxed"),
    )
    (ann,) = (await Reader(database, now=clock).player_rivals("pat"))["rivals"]
    assert (ann["player"], ann["races"], ann["wins"], ann["losses"]) == ("ann", 4, 2, 2)  # D1, D2 behind
    deals = ann["deals"]
    assert (deals["shared"], deals["faster"], deals["slower"]) == (4, 2, 1)
    codes = {deal: encode("seahaven", deal) for deal in (1, 2, 3, 5)}
    assert deals["latest"] == [  # the last finished first (by either)
        {"deal_code": codes[5], "mine_ms": 30_000, "theirs_ms": 31_000},
        {"deal_code": codes[3], "mine_ms": 40_000, "theirs_ms": 40_000},
        {"deal_code": codes[2], "mine_ms": 70_000, "theirs_ms": 65_000},
        {"deal_code": codes[1], "mine_ms": 50_000, "theirs_ms": 55_000},
    ]
    (pat,) = (await Reader(database, now=clock).player_rivals("ann"))["rivals"]
    assert (pat["deals"]["shared"], pat["deals"]["faster"], pat["deals"]["slower"]) == (4, 1, 2)  # the other side


async def test_at_most_five_shared_deals_listed(database: Database) -> None:
    await archive(
        database,
        *[deal_race(f"S{d}-1-aaaaaaaa", T0 + d, d, [Run("pat", 50_000 + d), Run("bob", 60_000)]) for d in range(1, 8)],
        deal_race("S0-1-aaaaaaaa", T0 + 100, 8, [Run("pat", 50_000), Run("cid")]),  # cid finished nothing
    )
    bob, cid = (await Reader(database, now=clock).player_rivals("pat"))["rivals"][::-1]
    assert bob["player"] == "bob" and (bob["deals"]["shared"], bob["deals"]["faster"]) == (7, 7)
    assert [d["deal_code"] for d in bob["deals"]["latest"]] == [encode("seahaven", d) for d in (7, 6, 5, 4, 3)]
    assert cid["deals"] == {"shared": 0, "faster": 0, "slower": 0, "latest": []}


async def test_rivals_are_named_as_they_are_now(database: Database) -> None:
    await archive(
        database,
        made_record("N1-1-aaaaaaaa", T0 + 1, [Run("pat", 60_000), Run("ann", 61_000, name="Annie")]),
        made_record("N2-1-aaaaaaaa", T0 + 2, [Run("pat", 60_000), Run("bob", 61_000, name="Bob")]),
        made_record("N3-1-aaaaaaaa", T0 + 3, [Run("bob", 50_000, name="Bobby")]),  # bob's newest row, without pat
        made_record("N4-1-aaaaaaaa", T0 + 4, [Run("pat", 60_000), Run("cid", 61_000, name="Cid")]),
    )
    await add_player(database, "ann", "Ann the Great", handle="Ann", handle_key="ann")
    await add_player(database, "pat", "Pat", handle="patty", handle_key="patty")
    await add_player(database, "cid", "deleted player", deleted_at=NOW)
    page = await Reader(database, now=clock).player_rivals("PATTY")  # a handle, as the name rule folds it
    assert page["player"] == "pat"
    assert [(r["player"], r["name"], r["handle"]) for r in page["rivals"]] == [
        ("cid", "deleted player", None),
        ("bob", "Bobby", None),  # no account: the name of the newest race
        ("ann", "Ann the Great", "Ann"),  # the account's, not the race's
    ]
