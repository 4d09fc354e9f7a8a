"""The account requests: ``register``, ``claim_handle``, ``set_password``, ``sign_in``,
``delete_account`` and ``export_data`` (docs/protocol.md, section 21).

Each talks to the database (``Accounts``, bounded by ``RECORDS_WAIT``: ``records-unavailable``
when it is down, slow or not configured) and never to a room: racing goes on whatever the
database does. A change of a player marks their cache entry first and puts them there again as
the change left them (``Identities.changing``), so the next hello with a key knows them so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from websockets.asyncio.server import ServerConnection

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    ANONYMOUS_PREFIX,
    EXPORT_MAX,
    ClaimHandle,
    DeleteAccount,
    Export,
    ExportData,
    Identity,
    Ok,
    Register,
    SetName,
    SetPassword,
    SignIn,
)
from protocol.names import clean_handle, fold, sanitise_name
from server.logs import log_event
from server.players.identities import Identities, bounded, unavailable
from server.players.keys import new_key
from server.players.passwords import Passwords
from server.shell.clock import Clock
from server.shell.handlers import handles
from server.shell.held import Asker
from server.shell.names import new_durable_id
from server.shell.ports import Accounts
from server.shell.sessions import PLAYER_TTL, Session, SessionTable
from server.store.interfaces import PlayerCache

RECORDS_WAIT: Final = 5.0
"""Seconds an account request waits for the database (then ``records-unavailable``)."""
SIGN_IN_WINDOW: Final = 300.0
SIGN_INS_PER_HANDLE: Final = 5
"""Sign-in attempts on one handle per window, from anywhere (then ``rate-limited``)."""
SIGN_INS_PER_ADDRESS: Final = 20
"""Sign-in attempts from one client address per window, on any handles."""
REGISTRATIONS_PER_HOUR: Final = 200
"""New players one client address may register an hour: both clients register at their first
start, so every new visitor behind one address (a school, a household's NAT) counts here."""


def _nobody_told(player: str) -> None:
    """No one is told of a change of name."""


class AccountRequests:
    """The handlers of the account requests (registered in server/app.py)."""

    def __init__(
        self,
        accounts: Accounts | None,
        identities: Identities,
        cache: PlayerCache,
        table: SessionTable,
        clock: Clock,
        address: Callable[[ServerConnection], str],
        passwords: Passwords | None = None,
        renamed: Callable[[str], None] | None = None,
    ) -> None:
        """``renamed``: told the player whose handle or name on record changed (their friends'
        lists show it)."""
        self.accounts = accounts
        self.renamed = renamed if renamed is not None else _nobody_told
        self.identities = identities
        self.cache = cache
        self.table = table
        self.clock = clock
        self.address = address
        self.passwords = passwords if passwords is not None else Passwords()

    def _records(self) -> Accounts:
        if self.accounts is None:
            raise unavailable()
        return self.accounts

    async def _limit(self, what: str, window: float, most: int, message: str) -> None:
        if await self.cache.count_attempt(what, window) > most:
            raise ProtocolError(ErrorCode.RATE_LIMITED, message)

    @handles(Register)
    async def on_register(self, asker: Asker, message: Register) -> Identity:
        session = asker.session
        if session.identified:
            raise ProtocolError(ErrorCode.ALREADY_REGISTERED, "this session is a registered player's already")
        accounts = self._records()
        address = self.address(asker.ws)
        await self._limit(
            f"register:{address}", 3600.0, REGISTRATIONS_PER_HOUR, "too many players registered from your address"
        )
        player = new_durable_id()
        key, hashed = new_key(player)
        now = self.clock.now()
        # A guest's races so far become the player's (not a deleted account's: they stay its).
        guest = session.player if session.player.startswith(ANONYMOUS_PREFIX) else None
        moved = await self.identities.changing(
            accounts, player, lambda: accounts.create_player(player, session.name, hashed, now, guest), RECORDS_WAIT
        )
        log_event("player.registered", player=player, session=guest, races=moved)
        return Identity(player=player, handle=None, key=key)

    def _identified(self, session: Session) -> str:
        if not session.identified:
            raise ProtocolError(ErrorCode.NOT_IDENTIFIED, "say hello with your key first (register to get one)")
        return session.player

    @handles(ClaimHandle)
    async def on_claim_handle(self, asker: Asker, message: ClaimHandle) -> Identity:
        session = asker.session
        player = self._identified(session)
        try:
            handle = clean_handle(message.handle)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.BAD_HANDLE, str(exc)) from None
        accounts = self._records()
        claimed = await self.identities.changing(
            accounts, player, lambda: accounts.claim_handle(player, handle, fold(handle)), RECORDS_WAIT
        )
        if not claimed:
            raise ProtocolError(ErrorCode.HANDLE_TAKEN, f"the handle {handle!r} is taken (or one too like it)")
        session.handle = handle
        await self.table.save(session)
        self.renamed(player)
        return Identity(player=player, handle=handle, key=None)

    @handles(SetPassword)
    async def on_set_password(self, asker: Asker, message: SetPassword) -> Ok:
        player = self._identified(asker.session)
        accounts = self._records()
        hashed = await self.passwords.hash(message.password)
        if not await bounded(accounts.set_password_hash(player, hashed), RECORDS_WAIT):
            raise _gone()
        return Ok()

    @handles(SetName)
    async def on_set_name(self, asker: Asker, message: SetName) -> Ok:
        """The session's name from now on (a room keeps the name its racer joined with); a
        registered player's on record too, so every device of theirs says it at its next hello."""
        session = asker.session
        name = sanitise_name(message.name)
        if session.identified:
            player, accounts = session.player, self._records()
            if not await self.identities.changing(
                accounts, player, lambda: accounts.set_name(player, name), RECORDS_WAIT
            ):
                raise _gone()
            self.renamed(player)
        session.name = name
        await self.table.save(session)
        return Ok()

    @handles(SignIn)
    async def on_sign_in(self, asker: Asker, message: SignIn) -> Identity:
        accounts = self._records()
        handle_key = fold(message.handle.strip())
        # Counted before the check, so that attempts sent at once are counted all the same.
        await self._limit(
            f"sign-in:{handle_key}", SIGN_IN_WINDOW, SIGN_INS_PER_HANDLE, "too many sign-in attempts: wait 5 minutes"
        )
        await self._limit(
            f"sign-in@{self.address(asker.ws)}",
            SIGN_IN_WINDOW,
            SIGN_INS_PER_ADDRESS,
            "too many sign-in attempts: wait 5 minutes",
        )
        found = await bounded(accounts.password_of(handle_key), RECORDS_WAIT)
        stored = found[2] if found is not None else None
        if not await self.passwords.check(stored, message.password) or found is None:
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "no such handle, or a wrong password")
        player, handle, _ = found
        key, hashed = new_key(player)
        now = self.clock.now()
        added = await self.identities.changing(
            accounts, player, lambda: accounts.add_key(player, hashed, now), RECORDS_WAIT
        )
        if not added:  # deleted meanwhile
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "no such handle, or a wrong password")
        log_event("player.signed_in", player=player)
        return Identity(player=player, handle=handle, key=key)

    @handles(DeleteAccount)
    async def on_delete_account(self, asker: Asker, message: DeleteAccount) -> Ok:
        session = asker.session
        player = self._identified(session)
        accounts = self._records()
        now = self.clock.now()
        if not await self.identities.changing(
            accounts, player, lambda: accounts.delete_player(player, now), RECORDS_WAIT
        ):
            raise _gone()
        # The session goes on as it is (its room, its player id), no longer a registered player's.
        await self.cache.swap_player_session(player, session.token, None, PLAYER_TTL)
        session.identified, session.handle = False, None
        await self.table.save(session)
        log_event("player.deleted", player=player)
        return Ok()

    @handles(ExportData)
    async def on_export_data(self, asker: Asker, message: ExportData) -> Export:
        player = self._identified(asker.session)
        accounts = self._records()
        found = await bounded(accounts.export(player), RECORDS_WAIT)
        if found is None:
            raise _gone()
        row, races = found
        return Export(data=export_json(row, races))


def export_json(player: dict[str, Any], races: list[dict[str, Any]]) -> str:
    """The export: ``{"player": ..., "races": [...], "truncated": bool}``, ASCII JSON of at most
    EXPORT_MAX characters: the newest races that fit (``races`` come newest first)."""
    head = json.dumps({"player": player, "races": []}, sort_keys=True)
    budget = EXPORT_MAX - len(head) - len(', "truncated": false')
    kept: list[str] = []
    for race in races:
        text = json.dumps(race, sort_keys=True)
        if len(text) + 2 > budget:
            break
        budget -= len(text) + 2
        kept.append(text)
    truncated = json.dumps(len(kept) < len(races))
    return f'{{"player": {json.dumps(player, sort_keys=True)}, "races": [{", ".join(kept)}], "truncated": {truncated}}}'


def _gone() -> ProtocolError:
    return ProtocolError(ErrorCode.NOT_IDENTIFIED, "this player is no longer on record")
