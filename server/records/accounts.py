"""Registered players on record: ``Accounts`` implements ``server.shell.ports.Accounts``.

A player's row holds their first key's hash (``players.key_hash``), each other device's is a
``player_keys`` row. Handles are unique by their fold (``handle_key``, a unique column): two
claims at once are decided by the database's constraint, the first to commit wins and the other
gets False. Deleting an account keeps its row as the mark that the player is gone (``deleted_at``;
the read API then calls them "deleted player" wherever they raced) and empties it: handle,
password, keys and name go, and the name on each of their racer rows on record becomes "deleted
player" (their races stay whole; the racer's player column keeps the id, which no longer names
anyone).

A guest who registers (``create_player`` with the guest's session id) hands the new player its
races in the same transaction, once: the claim (``guest_claims``, keyed by the guest's id) is
written first, and only the first claim of a guest moves anything; a race of the guest archived
later is filed under the player by the archive (server/records/archive.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import delete, insert, select, update
from sqlalchemy import literal as sa_literal
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.database import Database
from server.records.schema import (
    arena_players,
    challenges,
    friendships,
    guest_claims,
    player_keys,
    players,
    presence_settings,
    race_racers,
    races,
    ratings,
)
from server.records.views import DELETED_NAME

__all__ = ["EXPORT_RACES", "Account", "Accounts"]

EXPORT_RACES: Final = 2000
"""The most races an export reads (far more than its frame holds: it keeps the newest that fit)."""

_live = players.c.deleted_at.is_(None)


@dataclass(frozen=True, slots=True)
class Account:
    handle: str | None
    key_hashes: tuple[str, ...]
    name: str


class Accounts:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create_player(self, player: str, name: str, key_hash: str, now: int, guest: str | None = None) -> int:
        """A new player, with its first key; the races of ``guest`` (the session that registered)
        become theirs unless that guest was claimed before. How many races moved."""
        async with self.db.write() as conn:
            await conn.execute(
                players.insert().values(player=player, display_name=name, key_hash=key_hash, created_at=now)
            )
            if guest is None:
                return 0
            # One at a time with an archive of this guest's race (server/records/archive.py): each
            # sees what the other wrote, so no race of the guest is filed under it after its claim.
            await self.db.serialize(conn, [guest])
            claim = self.db.insert(guest_claims).on_conflict_do_nothing(index_elements=["guest"])
            claimed = await conn.execute(
                claim.values(guest=guest, player=player, claimed_at=now).returning(guest_claims.c.guest)
            )
            if claimed.first() is None:
                return 0  # claimed by an earlier registration of this session: it keeps them
            return await _hand_over(conn, guest, player)

    async def player(self, player: str) -> Account | None:
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(players.c.handle, players.c.key_hash, players.c.display_name).where(
                        players.c.player == player, _live
                    )
                )
            ).first()
            if row is None:
                return None
            more = (await conn.execute(select(player_keys.c.key_hash).where(player_keys.c.player == player))).scalars()
            return Account(row.handle, (row.key_hash, *more), row.display_name)

    async def add_key(self, player: str, key_hash: str, now: int, label: str | None = None) -> bool:
        async with self.db.write() as conn:
            if (await conn.execute(select(players.c.player).where(players.c.player == player, _live))).first() is None:
                return False
            await conn.execute(
                player_keys.insert().values(key_hash=key_hash, player=player, created_at=now, label=label)
            )
        return True

    async def claim_handle(self, player: str, handle: str, handle_key: str) -> bool:
        change = update(players).where(players.c.player == player, _live).values(handle=handle, handle_key=handle_key)
        try:
            async with self.db.write() as conn:
                changed = (await conn.execute(change)).rowcount
        except IntegrityError:  # another player's handle has that fold (or is that handle)
            return False
        return bool(changed)

    async def set_password_hash(self, player: str, password_hash: str) -> bool:
        change = update(players).where(players.c.player == player, _live).values(password_hash=password_hash)
        async with self.db.write() as conn:
            return bool((await conn.execute(change)).rowcount)

    async def set_name(self, player: str, name: str) -> bool:
        change = update(players).where(players.c.player == player, _live).values(display_name=name)
        async with self.db.write() as conn:
            return bool((await conn.execute(change)).rowcount)

    async def password_of(self, handle_key: str) -> tuple[str, str, str | None] | None:
        query = select(players.c.player, players.c.handle, players.c.password_hash).where(
            players.c.handle_key == handle_key, _live
        )
        async with self.db.read() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else (row.player, row.handle, row.password_hash)

    async def delete_player(self, player: str, now: int) -> bool:
        emptied = (
            update(players)
            .where(players.c.player == player, _live)
            .values(
                handle=None,
                handle_key=None,
                display_name=DELETED_NAME,
                key_hash="",  # no sha256 is empty: no key matches
                password_hash=None,
                deleted_at=now,
            )
        )
        async with self.db.write() as conn:
            if not (await conn.execute(emptied)).rowcount:
                return False
            await conn.execute(delete(player_keys).where(player_keys.c.player == player))
            # Their ratings go (off the rating boards); what each race did to them stays with the race.
            await conn.execute(delete(ratings).where(ratings.c.player == player))
            # No friend, request or block stays: nobody sees the deleted player anywhere.
            mine = (friendships.c.player == player) | (friendships.c.other == player)
            await conn.execute(delete(friendships).where(mine))
            await conn.execute(delete(presence_settings).where(presence_settings.c.player == player))
            await conn.execute(update(race_racers).where(race_racers.c.player == player).values(name=DELETED_NAME))
        return True

    async def export(self, player: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        rr = race_racers
        own = (
            select(rr, *(c for c in races.c if c.name not in rr.c))
            .join(races, races.c.race_id == rr.c.race_id)
            .where(rr.c.player == player)
            .order_by(rr.c.ended_at.desc(), rr.c.race_id.desc())
            .limit(EXPORT_RACES)
        )
        async with self.db.read() as conn:
            account = (
                (
                    await conn.execute(
                        select(players.c.player, players.c.handle, players.c.display_name, players.c.created_at).where(
                            players.c.player == player, _live
                        )
                    )
                )
                .mappings()
                .first()
            )
            if account is None:
                return None
            keys = (await conn.execute(select(player_keys.c.created_at).where(player_keys.c.player == player))).all()
            rows = (await conn.execute(own)).mappings().all()
            others = await _racers_of(conn, [row["race_id"] for row in rows])
        record = dict(account)
        record["devices"] = 1 + len(keys)
        return record, [_race(row, others.get(row["race_id"], [])) for row in rows]


def _race(row: Any, racers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One race of an export: the race as on record, the player's own run (moves and all), and
    where everyone finished."""
    mine = {c.name: row[c.name] for c in race_racers.c if c.name not in ("race_id", "ended_at")}
    race = {c.name: row[c.name] for c in races.c}
    return {**race, "you": mine, "racers": list(racers)}


async def _racers_of(conn: AsyncConnection, race_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each race's racers (without their moves), in place order."""
    found: dict[str, list[dict[str, Any]]] = {}
    rr = race_racers
    for start in range(0, len(race_ids), 500):  # bound the IN list
        chunk = race_ids[start : start + 500]
        query = (
            select(rr.c.race_id, rr.c.player, rr.c.name, rr.c.place, rr.c.status, rr.c.time_ms, rr.c.bot, rr.c.ghost)
            .where(rr.c.race_id.in_(chunk))
            .order_by(rr.c.race_id, rr.c.place)
        )
        for row in (await conn.execute(query)).mappings():
            entry = dict(row)
            found.setdefault(entry.pop("race_id"), []).append(entry)
    return found


async def _hand_over(conn: AsyncConnection, guest: str, player: str) -> int:
    """Move ``guest``'s racer rows (and what points at them: ghost challenges, arena standings) to
    ``player``, keys first so no foreign key is ever left dangling. How many races moved."""
    columns = [c for c in race_racers.c if c.name != "player"]
    copied = select(*columns, sa_literal(player).label("player")).where(race_racers.c.player == guest)
    moved = await conn.execute(insert(race_racers).from_select([*(c.name for c in columns), "player"], copied))
    await conn.execute(update(challenges).where(challenges.c.player == guest).values(player=player))
    await conn.execute(update(arena_players).where(arena_players.c.player == guest).values(player=player))
    await conn.execute(delete(race_racers).where(race_racers.c.player == guest))
    return moved.rowcount or 0
