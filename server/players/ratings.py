"""Telling players what a rated race did to their ratings (docs/ratings.md), off the move path.

The archive calls ``tell`` once the race's transaction committed (``RaceArchive.rated``). For each
rated racer: first the new shown rating goes into the store (``RatingCache``: what the quick match
reads, never the database), then a ``rating`` frame rings the player's doorbell, which every node
hears: the node holding the player's connection sends it (``NodeUpkeep.ring``), wherever the race
was archived. A store that fails here loses the telling, never the rating: the database has it
(the player's page shows it, the next rated race puts it in the store again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from protocol.codec import encode
from protocol.messages import RatingNotice
from server.logs import log_event
from server.rooms.rated import RatingChange
from server.shell.sessions import PLAYER_BELL
from server.store.base import StoreError
from server.store.interfaces import Doorbells, RatingCache

__all__ = ["RATING_TTL", "RatingNotices", "RatingStore"]

RATING_TTL: Final = 30 * 86400.0
"""How long the store keeps a player's rating after their last rated race (as their entry)."""


class RatingStore(Doorbells, RatingCache, Protocol):
    """What telling the players needs of the store."""


class RatingNotices:
    """Puts each changed rating in the store and rings its player's doorbell with the frame."""

    def __init__(self, store: RatingStore, ttl: float = RATING_TTL) -> None:
        self.store = store
        self.ttl = ttl

    async def tell(self, changes: Sequence[RatingChange]) -> None:
        """Never raises: the ratings are on record whatever happens here."""
        for change in changes:
            notice = RatingNotice(
                preset=change.preset,
                rating=change.rating,
                change=change.change,
                provisional=change.provisional,
                race_id=change.race_id,
            )
            try:
                await self.store.put_rating(change.player, change.preset, change.rating, self.ttl)
                await self.store.ring(PLAYER_BELL, change.player, encode(notice))
            except StoreError as exc:
                log_event("rating.untold", player=change.player, race=change.race_id, error=str(exc))
