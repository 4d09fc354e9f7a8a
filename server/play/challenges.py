"""Ghost challenges: the requests that make one of a recorded run and race it (docs/protocol.md).

``challenge`` records a challenge of one racer's run in a finished race (the asker's own by
default): any run, finished or not. ``accept_challenge`` opens a private room on the recorded
race's deal and settings, seats the asker and then the run's ghost (``server/play/ghosts.py``),
ready; the race starts when the asker readies. The records (``ChallengeBook``, the database's side)
hold the challenges; without them both requests answer ``records-unavailable``.

What a challenge race is:

- The deal is the recorded race's, known to anyone who can read that race, so the room is one of a
  chosen deal (``chosen``: shown before the start, and never on a leaderboard).
- A finished run is raced under the recorded race's time limit. A run that did not finish is raced
  for as long as its race lasted (that is the time limit): the ghost stands where the run stood when
  the race ended, and the standings compare the two as that race's did.
- Undo, hints and the lost notice are as the recorded race had them (a run may hold undos); never
  a daily race, two seats, not listed in the lobby.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable
from typing import Final, TypeVar

from protocol.enums import Phase
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import CHALLENGE_LEN, AcceptChallenge, Challenge, ChallengeRequest
from protocol.schema import Message
from server.logs import log_event
from server.play.ghosts import GhostRacers
from server.rooms.history import ChallengeRun, RaceRecord, RacerRecord
from server.rooms.raceid import room_of
from server.rooms.settings import Settings
from server.shell.clock import Clock
from server.shell.handlers import handles
from server.shell.held import Asker, Create
from server.shell.names import CODE_ALPHABET, normalise_room_code
from server.shell.ports import ChallengeBook, Deals
from server.shell.roompath import RoomPath

__all__ = ["ChallengeRequests", "challenge_settings", "link_path", "new_challenge_id"]

T = TypeVar("T")

ID_TRIES: Final = 5
"""New ids tried when one is taken (one in 2**40 is)."""


def new_challenge_id() -> str:
    """Eight characters of the room codes' alphabet: 40 random bits, easy to read and type."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CHALLENGE_LEN))


def link_path(challenge: str) -> str:
    """The challenge's page on the server's HTTP port."""
    return f"/c/{challenge}"


async def challenge_settings(deals: Deals, race: RaceRecord, run: RacerRecord) -> Settings:
    """The settings of a room that races ``run`` of ``race`` again (see the module's docstring)."""
    recorded = race.settings
    # An unfinished run's race ends when its recorded one did (at least 1 ms: 0 would be no limit).
    limit = recorded.time_limit_ms if run.finished else max(1, race.ended_at - race.started_at)
    return await deals.settings(
        recorded.preset,
        recorded.deal,  # a deal given: chosen
        seats=2,
        public=False,
        time_limit_ms=limit,
        undo=recorded.undo,
        any_deal=recorded.any_deal,
        deal_grade=recorded.deal_grade,
        hints=recorded.hints,
        lost_notice=recorded.lost_notice,
    )


class ChallengeRequests:
    """``challenge`` and ``accept_challenge``, on the records of ``book`` (None: no records here).

    ``create`` makes a room within the asker's creation budgets (as ``create_room`` does)."""

    def __init__(
        self,
        path: RoomPath,
        book: ChallengeBook | None,
        ghosts: GhostRacers,
        create: Create,
        deals: Deals,
        clock: Clock,
    ) -> None:
        self.path = path
        self.book = book
        self.ghosts = ghosts
        self.create = create
        self.deals = deals
        self.clock = clock

    @handles(ChallengeRequest)
    async def on_challenge(self, asker: Asker, message: ChallengeRequest) -> Message:
        book = self._book()
        me = asker.session.player
        race = await _records(book.race(message.race_id))
        if race is None:
            await self._check_not_racing(message.race_id)
            raise ProtocolError(ErrorCode.RACE_NOT_FOUND, f"no finished race {message.race_id!r} on record")
        player = message.player if message.player is not None else me
        run = next((racer for racer in race.racers if racer.player == player), None)
        if run is None:
            if message.player is None:
                raise ProtocolError(ErrorCode.BAD_FIELD, f"you did not race in {race.race_id}: name a racer (player)")
            raise ProtocolError(ErrorCode.BAD_FIELD, f"body.player: {player!r} did not race in {race.race_id}")
        if run.ghost:
            raise ProtocolError(ErrorCode.BAD_FIELD, "that run is a ghost's: challenge the race it came from")
        for _ in range(ID_TRIES):
            challenge = new_challenge_id()
            if await _records(book.add(challenge, race, player, me, self.clock.now())):
                break
        else:
            raise ProtocolError(ErrorCode.INTERNAL, "could not find a free challenge id")
        log_event("challenge.created", challenge=challenge, race=race.race_id, player=player, by=me)
        return Challenge(
            challenge=challenge,
            race_id=race.race_id,
            player=player,
            name=run.name,
            preset=race.settings.preset,
            deal=race.deal_code,
            status=run.status,
            progress=run.progress,
            time_ms=run.time_ms,
            link_path=link_path(challenge),
        )

    @handles(AcceptChallenge)
    async def on_accept_challenge(self, asker: Asker, message: AcceptChallenge) -> None:
        await self.path.check_free(asker.session)
        book = self._book()
        challenge = normalise_room_code(message.challenge)
        found: ChallengeRun | None = None
        if len(challenge) == CHALLENGE_LEN and all(c in CODE_ALPHABET for c in challenge):
            found = await _records(book.get(challenge))
        if found is None:
            raise ProtocolError(ErrorCode.CHALLENGE_NOT_FOUND, f"no challenge {message.challenge!r}: check the code")
        settings = await challenge_settings(self.deals, found.race, found.run)
        held = await self.create(asker, settings)
        await self.path.join(asker, held, spectate=False)
        await self.ghosts.seat(held.room.code, found.challenge, found.run)
        log_event("challenge.accepted", challenge=found.challenge, room=held.room.code, by=asker.session.player)

    def _book(self) -> ChallengeBook:
        if self.book is None:
            raise ProtocolError(ErrorCode.RECORDS_UNAVAILABLE, "this server keeps no records: no challenges")
        return self.book

    async def _check_not_racing(self, race_id: str) -> None:
        """not-finished when ``race_id`` is a race still being raced (found in its room's log)."""
        try:
            code = room_of(race_id)
        except ValueError:
            return
        try:
            held = await self.path.get(code)
        except ProtocolError:  # a newer build's room: whatever it holds is not on record here
            return
        if held is None:
            return
        room = held.room
        racing = room.phase == Phase.RACING and room.race_id() == race_id
        await self.path.forget_if_idle(held)  # loaded only to look
        if racing:
            raise ProtocolError(ErrorCode.NOT_FINISHED, f"race {race_id} is still on: challenge it once it is over")


async def _records(call: Awaitable[T]) -> T:
    """The records' answer; records-unavailable when the database cannot be reached."""
    try:
        return await call
    except OSError as exc:
        log_event("records.unavailable", error=str(exc))
        raise ProtocolError(ErrorCode.RECORDS_UNAVAILABLE, "the records are unavailable: try again later") from None
