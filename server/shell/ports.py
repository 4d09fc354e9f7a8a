"""What the shell asks of the parts the wiring gives it (the play side, registered players,
moderation): one narrow protocol each.

The shell never imports ``server.play``, ``server.players`` or ``server.moderation`` (they import
the shell): ``app.py`` hands it objects that have these methods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from protocol.errors import ProtocolError
from server.rooms.history import ChallengeRun, RaceRecord
from server.rooms.room import Room
from server.rooms.settings import Settings
from server.shell.sessions import Session


class Deals(Protocol):
    """Which deal a room races."""

    async def settings(self, preset: str, deal: int | None, *, drawn: bool = False, **chosen: Any) -> Settings:
        """A new room's settings: ``deal`` when chosen, else one the server picks; ``drawn`` (and
        every rated room): a server-picked deal is drawn at each start (docs/fairness.md)."""
        ...

    async def daily_deal(self, preset: str) -> tuple[str, int]:
        """Today's date (ISO) and its daily deal of ``preset``."""
        ...

    async def rematch_deal(self, room: Room) -> int:
        """The deal of ``room``'s next race."""
        ...


class Bots(Protocol):
    """Bot racers."""

    async def seat(self, code: str, pace: str) -> str:
        """Seat a ready bot of ``pace`` in room ``code``; its player id."""
        ...

    async def offer(self, code: str, player: str) -> None:
        """Quick match: a bot takes the free seat now if ``player`` still waits there alone (the
        shell asks once the racer's wait for a bot is over and nobody else waits to race)."""
        ...


class MoveWatch(Protocol):
    """Told each accepted move of a racer in a room that watches for lost positions."""

    def moved(self, code: str, player: str) -> None: ...


class AnalysisBook(Protocol):
    """The records' side of race analyses (server/records/analyses.py): a queue of races, each
    analysed once. Every method raises ``OSError`` when the database cannot be reached."""

    async def take(self, limit: int, lease_ms: int) -> list[dict[str, Any]]:
        """Up to ``limit`` of the newest races still to analyse that nobody holds, held now by the
        caller for ``lease_ms`` (race documents: ``race_id``, ``preset``, ``deal``, ``racers``)."""
        ...

    async def store(self, race_id: str, document: dict[str, Any]) -> bool:
        """Keep the race's analysis and take it off the queue, in one transaction keyed by its id:
        False when it had one already (a second store changes nothing)."""
        ...


class ArenaArchive(Protocol):
    """The database's side of finished arenas (server/records/arenas.py): each written once."""

    async def write_arena(self, arena: Mapping[str, Any], standings: Sequence[Mapping[str, Any]]) -> bool:
        """Write a finished arena (``arena``: code, name, preset, deal_grade, created_by,
        starts_at, ends_at) and its final ``standings`` (each: player, name, place, points, wins,
        races) in one transaction keyed by its code: False when it was there already (a second
        write changes nothing). Raises ``OSError`` when the database cannot be reached (then
        nothing was written): the pairing node tries again later."""
        ...


# -- players that last ------------------------------------------------------------------------------


class Account(Protocol):
    """What a hello needs to know of a registered player."""

    @property
    def handle(self) -> str | None: ...

    @property
    def key_hashes(self) -> Sequence[str]:
        """The sha256 (hex) of each of the player's secret keys (server/players/keys.py)."""
        ...

    @property
    def name(self) -> str:
        """The player's display name: theirs on every device, until they change it."""
        ...


class Accounts(Protocol):
    """The database's side of registered players (server/records/accounts.py). Every method raises
    ``OSError`` when the database cannot be reached; then nothing was changed."""

    async def create_player(self, player: str, name: str, key_hash: str, now: int, guest: str | None = None) -> int:
        """A new player, with its first key; the races of the session ``guest`` become theirs
        (once: not if another registration claimed them first). How many races moved."""
        ...

    async def player(self, player: str) -> Account | None:
        """The player (None: there is none, or it was deleted)."""
        ...

    async def add_key(self, player: str, key_hash: str, now: int) -> bool:
        """Another key of the player's (False: no such player)."""
        ...

    async def claim_handle(self, player: str, handle: str, handle_key: str) -> bool:
        """Give the player the handle (``handle_key``: its fold), in place of any it had; False when
        another player holds a handle of that fold (the first to claim it wins)."""
        ...

    async def set_password_hash(self, player: str, password_hash: str) -> bool:
        """False: no such player."""
        ...

    async def set_name(self, player: str, name: str) -> bool:
        """The player's display name from now on (races on record keep theirs). False: no such player."""
        ...

    async def password_of(self, handle_key: str) -> tuple[str, str, str | None] | None:
        """The player holding the handle of fold ``handle_key``: (player, handle, password hash or
        None when they set none); None when nobody holds it."""
        ...

    async def delete_player(self, player: str, now: int) -> bool:
        """Delete the player's account: their row's personal data, keys and password; on the races on
        record their name becomes "deleted player". False: no such player."""
        ...

    async def export(self, player: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """Everything on record of the player: their row (without hashes) and every race they
        raced, newest first, each as JSON-able values; None when there is no such player."""
        ...


class Identities(Protocol):
    """Registered players at the hello (``server/players/identities.py``): a ``hello`` with a key."""

    async def session_for(self, key: str, name: str, address: str) -> tuple[Session, bool]:
        """The session of the player whose ``key`` it is, and whether it is new (else it is their
        seat's, in a room, to resume). ProtocolError ``bad-key`` for a key that is not a live one,
        ``records-unavailable`` when the database cannot say; StoreError from the store."""
        ...

    async def beside(self, seated: Session) -> Session:
        """A new session of ``seated``'s player (and name) for another connection."""
        ...

    async def name_of(self, session: Session, address: str) -> str:
        """The registered player's name as on record (the session's own when the records cannot say)."""
        ...


# -- moderation ----------------------------------------------------------------------------------


class Bans(Protocol):
    """The moderators' list as a hello checks it (``server/moderation/bans.py``'s ``BanBook``)."""

    def refusal(self, name: str, address: str, handle: str | None = None) -> ProtocolError | None:
        """Why a player of this name, from this address, may not play here (None: they may)."""
        ...


# -- ghost challenges -------------------------------------------------------------------------


class ChallengeBook(Protocol):
    """The records' side of ghost challenges (``server/play/challenges.py`` asks). Every method
    raises ``OSError`` when the database cannot be reached."""

    async def race(self, race_id: str) -> RaceRecord | None:
        """The finished race of this id, archived or still only in the store (None: no such race)."""
        ...

    async def add(self, challenge: str, race: RaceRecord, player: str, by: str, at: int) -> bool:
        """Record a challenge of ``player``'s run in ``race`` (the race is written first if it is
        not archived yet: a second write changes nothing). False if the id is taken."""
        ...

    async def get(self, challenge: str) -> ChallengeRun | None:
        """The challenge of this id (None: none)."""
        ...


class ListedPlayer(Protocol):
    """A registered player as a friends list shows them."""

    @property
    def player(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def handle(self) -> str | None: ...


class FriendListing(Protocol):
    """A player's friends, requests either way, blocks, and who sees their presence."""

    @property
    def friends(self) -> Sequence[ListedPlayer]: ...
    @property
    def incoming(self) -> Sequence[ListedPlayer]: ...
    @property
    def outgoing(self) -> Sequence[ListedPlayer]: ...
    @property
    def blocked(self) -> Sequence[ListedPlayer]: ...
    @property
    def shown_to(self) -> str: ...
    @property
    def ids(self) -> frozenset[str]:
        """The friends' ids."""
        ...


class FriendBook(Protocol):
    """The records' side of friends (``server/play/friends.py`` asks; ``server/records/friends.py``
    answers). Every method raises ``OSError`` when the database cannot be reached."""

    async def find(self, *, handle: str | None = None, player: str | None = None) -> ListedPlayer | None:
        """A live registered player by handle or by id."""
        ...

    async def listing(self, player: str) -> FriendListing: ...

    async def add(self, me: str, other: str, now: int) -> str:
        """``me`` asks ``other``: ``requested``, ``friends`` (they had asked), ``already``,
        ``blocked`` (they block me), ``you-blocked`` (I block them) or ``limit``."""
        ...

    async def remove(self, me: str, other: str) -> bool: ...

    async def block(self, me: str, other: str, now: int) -> None: ...

    async def unblock(self, me: str, other: str) -> bool: ...

    async def set_shown_to(self, me: str, shown_to: str) -> None: ...

    async def blocks_or_friends(self, me: str, other: str) -> tuple[bool, bool]:
        """(either blocks the other, the two are friends)."""
        ...
