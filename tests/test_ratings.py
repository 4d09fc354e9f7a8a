"""Ratings on record (docs/ratings.md): what a race rates, the model's update in the race's own
transaction (once, however often the race is written; none lost when writers rate one player at
once), and what the read API shows of them, on a real SQLite file and a real PostgreSQL database."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import sqlalchemy as sa

from server.http.openapi import SCHEMAS
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import Database, open_database
from server.records.ratings import BASE, MU, PROVISIONAL_RACES, SIGMA, shown
from server.records.reader import Reader
from server.records.schema import rating_history, ratings
from server.rooms.history import RaceRecord
from server.rooms.rated import RatingChange, rated_racers
from tests.race_records import T0, Run, made_record

ANN, BOB, CY = "uANN000000000", "uBOB000000000", "uCY0000000000"
ids = itertools.count(1)


def clock() -> int:
    return T0


def race(runs: list[Run], **settings: Any) -> RaceRecord:
    """A rated race (unless ``settings`` say otherwise) of ``runs``, a room and an end of its own."""
    n = next(ids)
    return made_record(f"RATE{n:02d}-1-aaaaaaaa", T0 + 60_000 * n, runs, **{"rated": True, **settings})


def ann_beats(*others: str, **settings: Any) -> RaceRecord:
    return race([Run(ANN, 61_000), *(Run(p) for p in others)], **settings)


async def accounts(database: Database, *players: str) -> None:
    book = Accounts(database)
    for player in players:
        await book.create_player(player, player[1:4].title(), f"hash-{player}", T0)


async def rating_rows(database: Database) -> dict[str, tuple[float, float, int]]:
    async with database.read() as conn:
        rows = await conn.execute(sa.select(ratings.c.player, ratings.c.mu, ratings.c.sigma, ratings.c.races))
        return {row.player: (row.mu, row.sigma, row.races) for row in rows}


async def history_rows(database: Database) -> list[dict[str, Any]]:
    async with database.read() as conn:
        query = sa.select(rating_history).order_by(rating_history.c.player, rating_history.c.races)
        return [dict(row) for row in (await conn.execute(query)).mappings()]


class Heard:
    """The archive's ``rated`` hook: every change it was told of."""

    def __init__(self) -> None:
        self.changes: list[RatingChange] = []

    async def __call__(self, changes: Any) -> None:
        self.changes.extend(changes)


# -- what a race rates ------------------------------------------------------------------------------


def test_a_rated_race_rates_its_registered_humans_in_the_standings_order() -> None:
    record = race([Run(CY), Run(ANN, 61_000), Run("bot-1234abcd", 65_000), Run(BOB, 70_000), Run("pANONYMOUS0")])
    assert [r.player for r in rated_racers(record)] == [ANN, BOB, CY]
    assert [r.place for r in rated_racers(record)] == [1, 3, 4]  # the others' places are left as gaps


@pytest.mark.parametrize(
    "settings",
    [{"rated": False}, {"hints": True}, {"chosen": True}, {"daily": "2027-01-15"}],
    ids=["unrated room", "hints on", "a chosen deal", "a daily deal"],
)
def test_a_race_rates_nobody_unless_rated_hints_off_and_the_deal_secret(settings: dict[str, Any]) -> None:
    assert rated_racers(ann_beats(BOB, **settings)) == []
    assert rated_racers(ann_beats(BOB)) != []


def test_fewer_than_two_registered_humans_rate_nobody() -> None:
    assert rated_racers(ann_beats("bot-1234abcd")) == []
    assert rated_racers(ann_beats("ghost-CHALLNGE")) == []
    assert rated_racers(ann_beats("pANONYMOUS0")) == []  # an anonymous id lasts a day


def test_the_shown_number_is_1500_for_a_new_player() -> None:
    assert shown(MU) == BASE == 1500
    assert shown(MU + 1) == 1530 and shown(MU - 1 / 3) == 1490


# -- the update, once --------------------------------------------------------------------------------


async def test_a_rated_race_is_rated_once_however_often_it_is_written(database: Database) -> None:
    await accounts(database, ANN, BOB)
    archive = Archive(database, now=clock)
    heard = Heard()
    archive.rated.append(heard)
    record = ann_beats(BOB)
    assert await archive.write_race(record) is True
    rows = await rating_rows(database)
    assert rows[ANN][0] > MU > rows[BOB][0] and rows[ANN][2] == rows[BOB][2] == 1
    assert rows[ANN][1] < SIGMA and rows[BOB][1] < SIGMA  # each knows more than before
    told = {c.player: c for c in heard.changes}
    assert set(told) == {ANN, BOB}
    assert told[ANN].rating > 1500 > told[BOB].rating and told[ANN].change == told[ANN].rating - 1500
    assert told[ANN].provisional and told[ANN].races == 1 and told[ANN].race_id == record.race_id
    history = await history_rows(database)

    # Written again (a retry, another archiver, a challenge of it): nothing changes, nobody is told.
    assert await archive.write_race(record) is False
    await archive.write_races([record, record])
    assert await rating_rows(database) == rows
    assert await history_rows(database) == history
    assert len(heard.changes) == 2


@pytest.mark.parametrize(
    "settings",
    [{"rated": False}, {"hints": True}],
    ids=["unrated room", "hints on"],
)
async def test_an_unrated_race_writes_no_rating(database: Database, settings: dict[str, Any]) -> None:
    await accounts(database, ANN, BOB)
    archive = Archive(database, now=clock)
    heard = Heard()
    archive.rated.append(heard)
    assert await archive.write_race(ann_beats(BOB, **settings)) is True
    assert await archive.write_race(ann_beats("bot-1234abcd")) is True
    assert await rating_rows(database) == {} and await history_rows(database) == []
    assert heard.changes == []


async def test_a_deleted_account_is_left_out_of_the_ranking(database: Database) -> None:
    await accounts(database, ANN, BOB, CY)
    assert await Accounts(database).delete_player(BOB, T0)
    archive = Archive(database, now=clock)
    await archive.write_race(ann_beats(BOB))  # Bob's account is gone: Ann alone, rated by nobody
    assert await rating_rows(database) == {}
    await archive.write_race(ann_beats(BOB, CY))  # Ann and Cy, as if Bob had not raced
    assert set(await rating_rows(database)) == {ANN, CY}


async def test_three_racers_are_ranked_by_their_places(database: Database) -> None:
    await accounts(database, ANN, BOB, CY)
    await Archive(database, now=clock).write_race(race([Run(ANN, 61_000), Run(BOB, 70_000), Run(CY)]))
    rows = await rating_rows(database)
    assert rows[ANN][0] > rows[BOB][0] > rows[CY][0]


async def test_writers_rating_one_player_at_once_lose_no_update(database: Database, tmp_path: Path) -> None:
    """Ann races twelve others in twelve races, written by four archives on two connection pools
    (as two nodes) at once: every race counts, each from the rating the one before it left."""
    others = [f"uOTHER{n:07d}" for n in range(12)]
    await accounts(database, ANN, *others)
    records = [ann_beats(other) for other in others]
    second = open_database(database.url, tmp_path)
    try:
        writers = [Archive(db, now=clock) for db in (database, database, second, second)]

        async def write(archive: Archive, share: list[RaceRecord]) -> None:
            for record in share:
                await archive.write_race(record)

        await asyncio.gather(*(write(w, records[i::4]) for i, w in enumerate(writers)))
    finally:
        await second.close()
    mu, sigma, count = (await rating_rows(database))[ANN]
    assert count == 12
    chain = [row for row in await history_rows(database) if row["player"] == ANN]
    assert [row["races"] for row in chain] == list(range(1, 13))
    assert (chain[0]["mu_before"], chain[0]["sigma_before"]) == (MU, SIGMA)
    for before, after in itertools.pairwise(chain):  # nobody rated from a rating another overwrote
        assert (after["mu_before"], after["sigma_before"]) == (before["mu_after"], before["sigma_after"])
    assert (chain[-1]["mu_after"], chain[-1]["sigma_after"]) == (mu, sigma)


# -- reading -----------------------------------------------------------------------------------------


def check(document: Any, schema: str) -> None:
    """``document``, as the API serves it (JSON), is what the served OpenAPI document says (its
    closed components)."""
    jsonschema_rs.Draft202012Validator(
        {"$ref": f"#/components/schemas/{schema}", "components": {"schemas": SCHEMAS}}
    ).validate(json.loads(json.dumps(document)))


async def test_the_player_page_history_and_board_show_the_ratings(database: Database) -> None:
    await accounts(database, ANN, BOB, CY)
    archive = Archive(database, now=clock)
    for _ in range(PROVISIONAL_RACES):
        await archive.write_race(ann_beats(BOB))
    await archive.write_race(race([Run(CY, 61_000), Run(ANN)], preset="seahaven-3cells"))
    reader = Reader(database, now=clock)

    ann, bob = await reader.player(ANN), await reader.player(BOB)
    assert ann is not None and bob is not None
    check(ann, "Player")
    assert [(r["preset"], r["provisional"], r["races"]) for r in ann["ratings"]] == [
        ("seahaven", False, PROVISIONAL_RACES),
        ("seahaven-3cells", True, 1),
    ]
    assert ann["ratings"][0]["rating"] > 1500 > bob["ratings"][0]["rating"]
    anonymous = await reader.player("pANONYMOUS0")
    assert anonymous is None  # no races, no account

    page = await reader.player_ratings(ANN, "seahaven", limit=4)
    check(page, "PlayerRatings")
    assert [e["races"] for e in page["history"]] == [10, 9, 8, 7] and page["next"] is not None
    assert all(e["change"] > 0 and e["place"] == 1 and e["racers"] == 2 for e in page["history"])
    assert page["history"][-1]["provisional"] is True and page["history"][0]["provisional"] is False
    rest = await reader.player_ratings(ANN, "seahaven", limit=20, before=page["next"])
    assert [e["races"] for e in rest["history"]] == [6, 5, 4, 3, 2, 1] and rest["next"] is None
    assert rest["history"][-1]["rating"] == 1500 + rest["history"][-1]["change"]
    every = await reader.player_ratings(ANN, None, limit=20)
    assert [e["preset"] for e in every["history"]][:1] == ["seahaven-3cells"] and len(every["history"]) == 11
    with pytest.raises(ValueError, match="unknown preset"):
        await reader.player_ratings(ANN, "chess")

    board = await reader.rating_board("seahaven")
    check(board, "RatingBoard")
    assert [(e["rank"], e["player"], e["name"]) for e in board["entries"]] == [(1, ANN, "Ann"), (2, BOB, "Bob")]
    assert board["entries"][0]["rating"] == ann["ratings"][0]["rating"] and board["next_offset"] is None
    first = await reader.rating_board("seahaven", limit=1)
    assert [e["player"] for e in first["entries"]] == [ANN] and first["next_offset"] == 1
    provisional = await reader.rating_board("seahaven-3cells")
    assert provisional["entries"] == []  # one race each: provisional, left out

    # A deleted account leaves the board; its races' history stays with the races.
    assert await Accounts(database).delete_player(BOB, T0)
    assert [e["player"] for e in (await reader.rating_board("seahaven"))["entries"]] == [ANN]
    assert len([r for r in await history_rows(database) if r["player"] == BOB]) == PROVISIONAL_RACES


async def test_a_race_view_says_whether_its_room_was_rated(database: Database) -> None:
    await accounts(database, ANN, BOB)
    rated, unrated = ann_beats(BOB), ann_beats(BOB, rated=False)
    await Archive(database, now=clock).write_races([rated, unrated])
    reader = Reader(database, now=clock)
    views = [await reader.race(r.race_id) for r in (rated, unrated)]
    assert [v["rated"] for v in views if v is not None] == [True, False]
    for view in views:
        check(view, "Race")
