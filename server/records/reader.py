"""The public read API's answers: races, players, their races, rivals and ratings, leaderboards, challenges.

Every method returns JSON-ready dicts (``server.records.views``) or None for what is not there,
raises ``ValueError`` (with a message for the asker) for a bad argument and
``DatabaseUnavailable`` (an OSError) when the database cannot be used. A race not yet archived is
read from the live store (``live``): its room's log, replayed by ``races_of``.

The boards count only runs that prove something: finished, the moves replayed by the engine and
winning (``proven``), no hints, a human (no bot, no ghost), on a deal the server picked in secret
(``chosen`` false: a creator-chosen deal is known beforehand) - except the daily board, whose
deal is public by design and the same for everyone that day (its races are the ones whose
settings name that day). Each player appears once, with their fastest run; ties share a rank
(1, 2, 2, 4) and are listed by who got there first.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import datetime
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Select, and_, case, func, literal, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from protocol.enums import Status
from protocol.names import fold
from seahaven.rules import PRESETS
from seahaven.verify import ALGORITHM
from seahaven.winnable import GRADES
from server.records.analyses import analysis_document, analysis_view, mistakes
from server.records.arenas import arena_document, player_arenas_page, recent_arenas
from server.records.challenge_results import RESULTS, finishing_time, result_view, results_query
from server.records.database import Database
from server.records.rating_reads import player_ratings, rating_board, rating_history_page
from server.records.rows import proofs, record_of
from server.records.schema import challenges, players, race_racers, race_signatures, races, signing_keys
from server.records.views import race_view, shown_name, summary_view
from server.rooms.events import unpack
from server.rooms.history import races_of
from server.rooms.raceid import room_of
from server.store.interfaces import RoomLog

__all__ = ["LATEST_DEALS", "MAX_LIMIT", "PERIODS", "RECENT", "RIVALS_DEFAULT", "RIVALS_MAX", "Reader"]

PERIODS = ("day", "week", "all")
MAX_LIMIT = 100
PROBE_TIMEOUT = 1.0
"""Seconds the health probe waits for the database (a load balancer's check waits 2 s)."""
"""The most rows one page holds."""
RECENT = 10
"""Races a player's page lists."""
RIVALS_DEFAULT = 20
"""Rivals a player's rivals list holds unless asked for fewer or more..."""
RIVALS_MAX = 50
"""...and at most (server/http/openapi.py says the same)."""
LATEST_DEALS = 5
"""Shared deals a rival's head-to-head lists, the most recently finished first."""
WEEK_MS = 7 * 86_400_000

rr = race_racers


class Reader:
    """Answers the read API from ``db`` (and ``live``, the rooms' logs, for races not yet
    archived); ``now``: the server's clock (ms), for today's and this week's boards."""

    def __init__(self, db: Database, *, now: Callable[[], int], live: RoomLog | None = None) -> None:
        self.db = db
        self.now = now
        self.live = live

    async def reachable(self) -> bool:
        """One ``SELECT 1`` within ``PROBE_TIMEOUT`` (``/healthz`` asks every few seconds)."""
        try:
            async with asyncio.timeout(PROBE_TIMEOUT), self.db.read() as conn:
                await conn.execute(select(literal(1)))
        except (OSError, TimeoutError):
            return False
        return True

    # -- races --------------------------------------------------------------

    async def race(self, race_id: str) -> dict[str, Any] | None:
        """The race ``race_id``: archived, else live in the store (``"archived": false``); None if
        neither has it (a malformed id included)."""
        async with self.db.read() as conn:
            race = (await conn.execute(select(races).where(races.c.race_id == race_id))).mappings().first()
            if race is not None:
                racers = (
                    (await conn.execute(select(rr).where(rr.c.race_id == race_id).order_by(rr.c.place, rr.c.player)))
                    .mappings()
                    .all()
                )
                deleted = await deleted_among(conn, [r["player"] for r in racers])
                record = record_of(race, racers)
                return race_view(record, {r["player"]: r["proven"] for r in racers}, archived=True, deleted=deleted)
        return await self.live_race(race_id)

    async def signed_race(self, race_id: str) -> str | None:
        """The race's signed record, the JSON as it was signed and stored (None: not archived yet,
        or archived before races were signed)."""
        async with self.db.read() as conn:
            query = select(race_signatures.c.document).where(race_signatures.c.race_id == race_id)
            document: str | None = (await conn.execute(query)).scalar()
        return document

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        """Where the race was won and lost (``server.records.analyses``): "pending" for a race
        that ended and is not on record yet; None if there is no such race."""
        async with self.db.read() as conn:
            found = await analysis_view(conn, race_id, self.now())
        if found is None and await self.live_race(race_id) is not None:
            return analysis_document(race_id, "pending")
        return found

    async def keys(self) -> dict[str, Any]:
        """``{"keys": [...]}``: every key that signed races here, the oldest first."""
        async with self.db.read() as conn:
            rows = (await conn.execute(select(signing_keys).order_by(signing_keys.c.since))).mappings().all()
        return {
            "keys": [
                {"id": r["key_id"], "alg": ALGORITHM, "key": r["public_key"], "since": r["since"], "until": r["until"]}
                for r in rows
            ]
        }

    async def live_race(self, race_id: str) -> dict[str, Any] | None:
        if self.live is None:
            return None
        try:
            code = room_of(race_id)
        except ValueError:
            return None
        try:
            records = races_of([unpack(entry) for entry in await self.live.load(code)])
        except ValueError:  # a log this build cannot read (a newer format) or replay: not servable here
            return None
        for record in records:
            if record.race_id == race_id:
                async with self.db.read() as conn:
                    deleted = await deleted_among(conn, [r.player for r in record.racers])
                return race_view(record, proofs(record), archived=False, deleted=deleted)
        return None

    # -- players ------------------------------------------------------------

    async def player(self, player: str) -> dict[str, Any] | None:
        """A player's page: totals, streaks, bests per preset, the newest races; None for a player
        with neither races nor an account, and for a deleted account. ``player``: an id, or a
        handle (compared by the one name rule, ``protocol.names.fold``)."""
        async with self.db.read() as conn:
            player = await resolve(conn, player)
            account = (await conn.execute(select(players).where(players.c.player == player))).mappings().first()
            if account is not None and account["deleted_at"] is not None:
                return None
            won = and_(rr.c.place == 1, rr.c.status == Status.FINISHED)
            totals = (
                await conn.execute(
                    select(
                        func.count(),
                        func.coalesce(func.sum(case((won, 1), else_=0)), 0),
                        func.coalesce(func.sum(case((rr.c.status == Status.FINISHED, 1), else_=0)), 0),
                    ).where(rr.c.player == player)
                )
            ).one()
            if account is None and totals[0] == 0:
                return None
            recent = (await conn.execute(summaries(player).limit(RECENT))).mappings().all()
            current, best = await streaks(conn, player)
            bests = await personal_bests(conn, player)
            rated = await player_ratings(conn, player)
            summed = await mistakes(conn, player)
        name = account["display_name"] if account is not None else (recent[0]["name"] if recent else player)
        return {
            "player": player,
            "name": name,
            "handle": account["handle"] if account is not None else None,
            "races": int(totals[0]),
            "wins": int(totals[1]),
            "finished": int(totals[2]),
            "current_streak": current,
            "best_streak": best,
            "bests": bests,
            "ratings": rated,
            "recent": [summary_view(row) for row in recent],
            "mistakes": summed,
        }

    async def player_races(self, player: str, limit: int = 20, before: str | None = None) -> dict[str, Any]:
        """A page of a player's races (an id or a handle), newest first; ``before``: the ``next``
        of the page before."""
        check_limit(limit)
        async with self.db.read() as conn:
            player = await resolve(conn, player)
        query = summaries(player)
        if before is not None:
            ended_at, race_id = read_cursor(before)
            query = query.where(or_(rr.c.ended_at < ended_at, and_(rr.c.ended_at == ended_at, rr.c.race_id < race_id)))
        async with self.db.read() as conn:
            rows = (await conn.execute(query.limit(limit + 1))).mappings().all()
        shown = rows[:limit]
        more = len(rows) > limit
        return {
            "races": [summary_view(row) for row in shown],
            "next": cursor(shown[-1]["ended_at"], shown[-1]["race_id"]) if more else None,
        }

    async def player_ratings(
        self, player: str, preset: str | None = None, limit: int = 20, before: str | None = None
    ) -> dict[str, Any]:
        """A page of what rated races did to a player's ratings (an id or a handle; on ``preset``,
        None: every preset), newest first; ``before``: the ``next`` of the page before."""
        check_limit(limit)
        if preset is not None and preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        after = read_cursor(before) if before is not None else None
        async with self.db.read() as conn:
            player = await resolve(conn, player)
            history, last = await rating_history_page(conn, player, preset, limit, after)
        return {
            "player": player,
            "preset": preset,
            "history": history,
            "next": cursor(*last) if last is not None else None,
        }

    async def player_rivals(self, player: str, limit: int = RIVALS_DEFAULT) -> dict[str, Any]:
        """The last ``limit`` people a player (an id or a handle) raced, the newest race together
        first, each with their head-to-head: the races both were in (bots and ghosts are nobody's
        rivals), how often the player placed ahead and behind, and their best times on the deals
        both finished, in any race (``shared_deals``). Two queries, whatever the number of rivals."""
        if not 1 <= limit <= RIVALS_MAX:
            raise ValueError(f"limit must be 1 to {RIVALS_MAX}, not {limit}")
        async with self.db.read() as conn:
            player = await resolve(conn, player)
            rows = (await conn.execute(rivals_query(player, limit))).mappings().all()
            deals = await shared_deals(conn, player, [row["player"] for row in rows])
        return {
            "player": player,
            "rivals": [
                {
                    "player": row["player"],
                    "name": rival_name(row),
                    "handle": row["handle"] if row["deleted_at"] is None else None,
                    "races": int(row["races"]),
                    "wins": int(row["wins"]),
                    "losses": int(row["losses"]),
                    "last_race": row["race_id"],
                    "last_raced_at": row["ended_at"],
                    "deals": deals.get(row["player"], {"shared": 0, "faster": 0, "slower": 0, "latest": []}),
                }
                for row in rows
            ],
        }

    # -- arenas -------------------------------------------------------------

    async def arena(self, code: str) -> dict[str, Any] | None:
        """The finished arena ``code`` and its final standings (None: not on record)."""
        async with self.db.read() as conn:
            return await arena_document(conn, code)

    async def recent_arenas(self, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` newest finished arenas, the last to end first."""
        check_limit(limit)
        async with self.db.read() as conn:
            return await recent_arenas(conn, limit)

    async def player_arenas(self, player: str, limit: int = 20, before: str | None = None) -> dict[str, Any]:
        """A page of the finished arenas a player (an id or a handle) was in, the last to end
        first, each with their place and points; ``before``: the ``next`` of the page before."""
        check_limit(limit)
        after = read_cursor(before) if before is not None else None
        async with self.db.read() as conn:
            player = await resolve(conn, player)
            page, last = await player_arenas_page(conn, player, limit, after)
        return {"player": player, "arenas": page, "next": cursor(*last) if last is not None else None}

    # -- boards -------------------------------------------------------------

    async def rating_board(self, preset: str, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """The best settled ratings of ``preset`` (provisional ones are left out)."""
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        check_limit(limit)
        if offset < 0:
            raise ValueError(f"offset must be 0 or more, not {offset}")
        async with self.db.read() as conn:
            rows = await rating_board(conn, preset, limit, offset)
        return {
            "preset": preset,
            "entries": rows[:limit],
            "next_offset": offset + limit if len(rows) > limit else None,
        }

    async def leaderboard(
        self,
        preset: str,
        period: str = "all",
        grade: str | None = None,
        day: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> dict[str, Any]:
        """The fastest proven wins of ``preset`` (one per player): ``period`` "day" (the daily
        deal of ``day``, a UTC YYYY-MM-DD, today by default), "week" (ended in the UTC week, Monday
        first, of ``day``, today's by default) or "all"; ``grade``: only deals the server picked of
        that grade."""
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        if period not in PERIODS:
            raise ValueError(f"unknown period {period!r}; periods: {', '.join(PERIODS)}")
        if grade is not None and grade not in GRADES:
            raise ValueError(f"unknown deal grade {grade!r}; grades: {', '.join(GRADES)}")
        if day is not None and period == "all":
            raise ValueError("day names a day or a week: give it with period=day or period=week")
        check_limit(limit)
        if offset < 0:
            raise ValueError(f"offset must be 0 or more, not {offset}")
        if period != "all":
            day = check_day(day) if day is not None else today(self.now())
        where = [
            races.c.preset == preset,
            rr.c.status == Status.FINISHED,
            rr.c.proven.is_(True),
            rr.c.hints == 0,
            rr.c.bot.is_(False),
            rr.c.ghost.is_(False),
            rr.c.time_ms.is_not(None),
        ]
        if period == "day":
            where.append(races.c.daily == day)
        else:
            where.append(races.c.chosen.is_(False))
            if period == "week":
                assert day is not None
                start = week_start_ms(day)
                where += [races.c.ended_at >= start, races.c.ended_at < start + WEEK_MS]
        if grade is not None:
            where.append(races.c.deal_grade == grade)
        async with self.db.read() as conn:
            rows = (await conn.execute(board_query(where).limit(limit + 1).offset(offset))).mappings().all()
        return {
            "preset": preset,
            "period": period,
            "grade": grade,
            "day": day,
            "entries": [
                {
                    "rank": int(row["rank"]),
                    "player": row["player"],
                    "name": shown_name(row["display_name"] or row["name"], row["deleted_at"] is not None),
                    "time_ms": row["time_ms"],
                    "race_id": row["race_id"],
                    "deal": row["deal"],
                    "ended_at": row["ended_at"],
                }
                for row in rows[:limit]
            ],
            "next_offset": offset + limit if len(rows) > limit else None,
        }

    # -- challenges ---------------------------------------------------------

    async def challenge(self, challenge: str) -> dict[str, Any] | None:
        """A ghost challenge: whose run, on which race, that run's preset, deal and time, and the
        races run against its ghost (``server/records/challenge_results.py``)."""
        query = (
            select(
                challenges,
                races.c.preset,
                races.c.deal,
                rr.c.name,
                rr.c.status,
                rr.c.time_ms,
                players.c.deleted_at,
            )
            .join(races, races.c.race_id == challenges.c.race_id)
            .join(rr, and_(rr.c.race_id == challenges.c.race_id, rr.c.player == challenges.c.player))
            .outerjoin(players, players.c.player == challenges.c.player)
            .where(challenges.c.challenge == challenge)
        )
        async with self.db.read() as conn:
            row = (await conn.execute(query)).mappings().first()
            if row is None:
                return None
            results = (await conn.execute(results_query([challenge]).limit(RESULTS))).mappings().all()
            deleted = await deleted_among(conn, [r["player"] for r in results])
        # The API's closed ``Challenge`` document (server/http/openapi.py), results latest first.
        return {
            "challenge": row["challenge"],
            "race_id": row["race_id"],
            "player": row["player"],
            "name": shown_name(row["name"], row["deleted_at"] is not None),
            "preset": row["preset"],
            "deal": row["deal"],
            "time_ms": finishing_time(row),
            "created_at": row["created_at"],
            "results": [result_view(r, deleted) for r in results],
        }


# -- queries ----------------------------------------------------------------


async def resolve(conn: AsyncConnection, player: str) -> str:
    """The player id ``player`` names: itself when some account or race has that id, else the id
    of the account whose handle it is (compared folded), else itself."""
    for known in (
        select(players.c.player).where(players.c.player == player),
        select(rr.c.player).where(rr.c.player == player),
    ):
        if (await conn.execute(known.limit(1))).first() is not None:
            return player
    by_handle = await conn.execute(select(players.c.player).where(players.c.handle_key == fold(player)))
    return by_handle.scalar() or player


def summaries(player: str) -> Select[Any]:
    """The player's races, newest first, as ``summary_view`` reads them."""
    return (
        select(
            rr.c.race_id,
            rr.c.ended_at,
            rr.c.place,
            rr.c.status,
            rr.c.time_ms,
            rr.c.name,
            races.c.preset,
            races.c.deal,
            races.c.racer_count,
        )
        .join(races, races.c.race_id == rr.c.race_id)
        .where(rr.c.player == player)
        .order_by(rr.c.ended_at.desc(), rr.c.race_id.desc())
    )


def rivals_query(player: str, limit: int) -> Select[Any]:
    """The ``limit`` people ``player`` raced most recently, one row each: the newest race together
    (``race_id``, ``ended_at``), ``races`` together, ``wins`` and ``losses`` (``player`` placed
    ahead, behind), their account's ``display_name``, ``handle`` and ``deleted_at`` (None without
    one) and the ``name`` of their newest racer row. People only: a bot or ghost row counts on
    neither side. One pass over the player's races (their index) and each race's racers (its key)."""
    me, them, theirs = rr.alias("me"), rr.alias("them"), rr.alias("theirs")
    by_rival = them.c.player
    pairs = (
        select(
            them.c.player,
            them.c.race_id,
            them.c.ended_at,
            func.row_number()
            .over(partition_by=by_rival, order_by=(them.c.ended_at.desc(), them.c.race_id.desc()))
            .label("n"),
            func.count().over(partition_by=by_rival).label("races"),
            func.sum(case((me.c.place < them.c.place, 1), else_=0)).over(partition_by=by_rival).label("wins"),
            func.sum(case((me.c.place > them.c.place, 1), else_=0)).over(partition_by=by_rival).label("losses"),
        )
        .select_from(me.join(them, and_(them.c.race_id == me.c.race_id, them.c.player != me.c.player)))
        .where(
            me.c.player == player,
            me.c.bot.is_(False),
            me.c.ghost.is_(False),
            them.c.bot.is_(False),
            them.c.ghost.is_(False),
        )
        .subquery("pairs")
    )
    newest = (
        select(pairs)
        .where(pairs.c.n == 1)
        .order_by(pairs.c.ended_at.desc(), pairs.c.race_id.desc(), pairs.c.player)
        .limit(limit)
        .subquery("newest")
    )
    # Their newest racer row's name, for rivals without an account (looked up by the index, for
    # the rivals listed only).
    name = (
        select(theirs.c.name)
        .where(theirs.c.player == newest.c.player)
        .order_by(theirs.c.ended_at.desc(), theirs.c.race_id.desc())
        .limit(1)
        .scalar_subquery()
    )
    return (
        select(newest, name.label("name"), players.c.display_name, players.c.handle, players.c.deleted_at)
        .outerjoin(players, players.c.player == newest.c.player)
        .order_by(newest.c.ended_at.desc(), newest.c.race_id.desc(), newest.c.player)
    )


def rival_name(row: Any) -> str:
    """A rival's current name: their account's, else their newest racer row's ("deleted player"
    for a deleted account, as everywhere)."""
    if row["deleted_at"] is not None:
        return shown_name(row["name"], deleted=True)
    return str(row["display_name"] if row["display_name"] is not None else row["name"])


async def shared_deals(conn: AsyncConnection, player: str, rivals: Sequence[str]) -> dict[str, dict[str, Any]]:
    """For each of ``rivals``, the deals (a deal code and a preset) both they and ``player``
    finished, in any race: how many (``shared``), on how many ``player``'s best time is lower
    (``faster``) or higher (``slower``) than theirs, and the ``LATEST_DEALS`` last finished by
    either (``latest``: each one's best there). Ghost rows never count. One query."""
    if not rivals:
        return {}

    def bests(who: Any, group: tuple[Any, ...], name: str) -> Any:
        return (
            select(
                *group,
                races.c.deal_code,
                races.c.preset,
                func.min(rr.c.time_ms).label("best"),
                func.max(rr.c.ended_at).label("last"),
            )
            .join(races, races.c.race_id == rr.c.race_id)
            .where(who, rr.c.status == Status.FINISHED, rr.c.time_ms.is_not(None), rr.c.ghost.is_(False))
            .group_by(*group, races.c.deal_code, races.c.preset)
            .subquery(name)
        )

    mine = bests(rr.c.player == player, (), "mine")
    theirs = bests(rr.c.player.in_(rivals), (rr.c.player,), "theirs")
    last = case((mine.c.last > theirs.c.last, mine.c.last), else_=theirs.c.last)
    by_rival = theirs.c.player
    shared = (
        select(
            theirs.c.player,
            theirs.c.deal_code,
            mine.c.best.label("mine_ms"),
            theirs.c.best.label("theirs_ms"),
            func.row_number()
            .over(partition_by=by_rival, order_by=(last.desc(), theirs.c.deal_code, theirs.c.preset))
            .label("n"),
            func.count().over(partition_by=by_rival).label("shared"),
            func.sum(case((mine.c.best < theirs.c.best, 1), else_=0)).over(partition_by=by_rival).label("faster"),
            func.sum(case((mine.c.best > theirs.c.best, 1), else_=0)).over(partition_by=by_rival).label("slower"),
        )
        .select_from(mine.join(theirs, and_(mine.c.deal_code == theirs.c.deal_code, mine.c.preset == theirs.c.preset)))
        .subquery("shared")
    )
    rows = (
        await conn.execute(select(shared).where(shared.c.n <= LATEST_DEALS).order_by(shared.c.player, shared.c.n))
    ).mappings()
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        deals = found.setdefault(
            row["player"],
            {"shared": int(row["shared"]), "faster": int(row["faster"]), "slower": int(row["slower"]), "latest": []},
        )
        deals["latest"].append(
            {"deal_code": row["deal_code"], "mine_ms": row["mine_ms"], "theirs_ms": row["theirs_ms"]}
        )
    return found


async def streaks(conn: AsyncConnection, player: str) -> tuple[int, int]:
    """(current, best) runs of consecutive wins, in the order the races ended.

    Islands: each race that is not a win starts a new group (a running count of non-wins), so a
    group holds one loss (except the first) and the wins after it; its win count is a streak."""
    won = case((and_(rr.c.place == 1, rr.c.status == Status.FINISHED), 1), else_=0)
    ordered = (
        select(
            won.label("won"),
            func.sum(literal(1) - won).over(order_by=(rr.c.ended_at, rr.c.race_id), rows=(None, 0)).label("island"),
        )
        .where(rr.c.player == player)
        .subquery()
    )
    islands = (
        await conn.execute(
            select(ordered.c.island, func.sum(ordered.c.won)).group_by(ordered.c.island).order_by(ordered.c.island)
        )
    ).all()
    if not islands:
        return 0, 0
    return int(islands[-1][1]), max(int(wins) for _, wins in islands)


async def personal_bests(conn: AsyncConnection, player: str) -> list[dict[str, Any]]:
    """The player's fastest proven finish without hints, per preset (preset order)."""
    fastest = (
        select(
            races.c.preset,
            rr.c.time_ms,
            rr.c.race_id,
            races.c.deal,
            rr.c.ended_at,
            func.row_number()
            .over(partition_by=races.c.preset, order_by=(rr.c.time_ms, rr.c.ended_at, rr.c.race_id))
            .label("n"),
        )
        .join(races, races.c.race_id == rr.c.race_id)
        .where(
            rr.c.player == player,
            rr.c.status == Status.FINISHED,
            rr.c.proven.is_(True),
            rr.c.hints == 0,
            rr.c.time_ms.is_not(None),
        )
        .subquery()
    )
    rows = (
        await conn.execute(
            select(fastest.c.preset, fastest.c.time_ms, fastest.c.race_id, fastest.c.deal, fastest.c.ended_at)
            .where(fastest.c.n == 1)
            .order_by(fastest.c.preset)
        )
    ).mappings()
    return [dict(row) for row in rows]


def board_query(where: Sequence[Any]) -> Select[Any]:
    """Each player's fastest run among those ``where`` admits, ranked (ties share a rank)."""
    runs = (
        select(
            rr.c.player,
            rr.c.name,
            rr.c.time_ms,
            rr.c.race_id,
            races.c.deal,
            races.c.ended_at,
            func.row_number()
            .over(partition_by=rr.c.player, order_by=(rr.c.time_ms, races.c.ended_at, rr.c.race_id))
            .label("n"),
        )
        .join(races, races.c.race_id == rr.c.race_id)
        .where(*where)
        .subquery()
    )
    best = select(runs, func.rank().over(order_by=runs.c.time_ms).label("rank")).where(runs.c.n == 1).subquery()
    return (
        select(best, players.c.display_name, players.c.deleted_at)
        .outerjoin(players, players.c.player == best.c.player)
        .order_by(best.c.rank, best.c.ended_at, best.c.player)
    )


async def deleted_among(conn: AsyncConnection, player_ids: Sequence[str]) -> set[str]:
    """Which of ``player_ids`` are deleted accounts."""
    if not player_ids:
        return set()
    rows = await conn.execute(
        select(players.c.player).where(players.c.player.in_(player_ids), players.c.deleted_at.is_not(None))
    )
    return set(rows.scalars())


# -- arguments --------------------------------------------------------------


def check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")


def check_day(day: str) -> str:
    try:
        parsed = datetime.date.fromisoformat(day)
    except ValueError:
        raise ValueError(f"day must be a date, YYYY-MM-DD, not {day!r}") from None
    if parsed.isoformat() != day:  # fromisoformat also takes 20260520 and the like
        raise ValueError(f"day must be a date, YYYY-MM-DD, not {day!r}")
    return day


def week_start_ms(day: str) -> int:
    """The start (Monday 00:00 UTC, unix ms) of the week holding ``day``."""
    date = datetime.date.fromisoformat(day)
    monday = date - datetime.timedelta(days=date.weekday())
    return int(datetime.datetime.combine(monday, datetime.time(), datetime.UTC).timestamp() * 1000)


def today(now_ms: int) -> str:
    return datetime.datetime.fromtimestamp(now_ms / 1000, datetime.UTC).date().isoformat()


def cursor(ended_at: int, race_id: str) -> str:
    """An opaque page cursor: the last race shown, by (ended_at, race_id)."""
    return base64.urlsafe_b64encode(f"{ended_at}:{race_id}".encode()).decode().rstrip("=")


def read_cursor(text: str) -> tuple[int, str]:
    try:
        decoded = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        ended_at, race_id = decoded.split(":", 1)
        if not (ended_at.isdigit() and race_id):
            raise ValueError
        return int(ended_at), race_id
    except (ValueError, binascii.Error, UnicodeDecodeError):  # UnicodeDecodeError is a ValueError too
        raise ValueError(f"not a page cursor: {text!r} (pass the 'next' of the page before)") from None
