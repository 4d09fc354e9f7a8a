"""The requests that change a room: create, join, leave, ready, move, undo, resign, rematch."""

from __future__ import annotations

from typing import Final

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import CreateRoom, JoinRoom, Leave, MoveRequest, Ping, Pong, Ready, Rematch, Resign, Undo
from protocol.schema import Message
from seahaven import decode as decode_deal
from server.rooms.settings import Settings
from server.shell.clock import Clock
from server.shell.guard import ConnectionGuard
from server.shell.handlers import handles
from server.shell.held import Asker, Command, HeldRoom
from server.shell.limits import TokenBucket
from server.shell.names import normalise_room_code
from server.shell.ports import Bots, Deals, MoveWatch
from server.shell.roompath import RoomPath, seated_elsewhere
from server.shell.sessions import Session, SessionTable

WRONG_CODES_AT_ONCE: Final = 20
"""Wrong room codes one address may try at once: a brake on guessing."""
WRONG_CODES_PER_SECOND: Final = 0.2
"""And then how many a second."""


class RoomRequests:
    """Each handler judges its request through ``path``; deals, bots and the lost watch are the
    play side's, given by the wiring."""

    def __init__(
        self,
        path: RoomPath,
        table: SessionTable,
        guard: ConnectionGuard,
        clock: Clock,
        deals: Deals,
        bots: Bots,
        watch: MoveWatch,
    ) -> None:
        self.path = path
        self.table = table
        self.guard = guard
        self.clock = clock
        self.deals = deals
        self.bots = bots
        self.watch = watch
        self.guesses: dict[str, TokenBucket] = {}
        """Wrong room codes by client address."""

    def _seconds(self) -> float:
        return self.clock.now() / 1000

    @handles(Ping)
    async def on_ping(self, asker: Asker, message: Ping) -> Message:
        return Pong(server_time=self.clock.now())

    @handles(CreateRoom)
    async def on_create_room(self, asker: Asker, message: CreateRoom) -> None:
        await self.path.check_free(asker.session)
        preset, deal = message.preset, message.deal_number
        if message.deal_code is not None:  # fields that do not go together: CreateRoom refuses them
            try:
                preset, deal = decode_deal(message.deal_code)
            except ValueError as exc:
                raise ProtocolError(ErrorCode.BAD_DEAL, str(exc)) from None
        daily = None
        if message.daily:
            daily, deal = await self.deals.daily_deal(preset)
        settings = await self.deals.settings(
            preset,
            deal,
            daily=daily,
            seats=message.seats,
            public=message.public,
            time_limit_ms=message.time_limit * 1000 if message.time_limit else None,
            undo=message.undo,
            any_deal=message.any_deal,
            deal_grade=message.deal_grade,
            hints=message.hints,
            lost_notice=message.lost_notice,
            rated=message.rated,
            auto=message.auto,
        )
        held = await self.create(asker, settings)
        await self.path.join(asker, held, spectate=False)
        if message.bot is not None:
            await self.bots.seat(held.room.code, message.bot)

    async def create(self, asker: Asker, settings: Settings) -> HeldRoom:
        """A new room, within the asker's and its address's creation budgets."""
        if not self.guard.new_room(asker.ws, self.guard.address(asker.ws), self._seconds()):
            raise ProtocolError(ErrorCode.ROOM_LIMIT, "you have created too many rooms lately: join one or wait")
        return await self.path.create(settings)

    @handles(JoinRoom)
    async def on_join_room(self, asker: Asker, message: JoinRoom) -> None:
        self.path.check_not_in_room(asker.session)
        guesses = self._guesses(asker.session)
        if not guesses.ready(self._seconds()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many wrong room codes: wait a few seconds")
        code = normalise_room_code(message.room)
        elsewhere = await self.path.seat_elsewhere(asker.session)
        if elsewhere is not None:  # the player races on another connection: only that seat may move here
            other, seated = elsewhere
            if seated.room.code != code or message.spectate:
                raise seated_elsewhere(seated.room.code)
            return await self.path.take_seat(asker, seated, other)
        held = await self.path.get(code)
        if held is not None:
            try:
                return await self.path.join(asker, held, spectate=message.spectate)
            except ProtocolError as exc:
                if exc.code != ErrorCode.ROOM_NOT_FOUND:
                    raise
                held = await self.path.get(code)  # the path let go of it while we waited: load it again
        if held is None:
            guesses.take(self._seconds())
            raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"no room {message.room!r}: check the code")
        await self.path.join(asker, held, spectate=message.spectate)

    def _guesses(self, session: Session) -> TokenBucket:
        """The wrong-code budget of the session's address (shared by all its sessions)."""
        address = self.guard.address(session.conn) if session.conn else "?"
        bucket = self.guesses.get(address)
        if bucket is None:
            now = self._seconds()
            if len(self.guesses) > 10_000:  # forget addresses that have not guessed lately
                self.guesses = {a: b for a, b in self.guesses.items() if not b.full(now)}
            bucket = self.guesses[address] = TokenBucket(WRONG_CODES_PER_SECOND, WRONG_CODES_AT_ONCE, now)
        return bucket

    @handles(Leave)
    async def on_leave(self, asker: Asker, message: Leave) -> Message:
        session = asker.session
        outcome = await self.path.leave(session, self.path.held_by(session))
        return outcome.reply

    @handles(Ready)
    async def on_ready(self, asker: Asker, message: Ready) -> None:
        player, ready = asker.session.player, message.ready
        await self._in_my_room(asker, lambda core, now: core.ready(player, ready, now, message.seed, message.auto))

    @handles(MoveRequest)
    async def on_move(self, asker: Asker, message: MoveRequest) -> None:
        held = self.path.held_by(asker.session)
        player = asker.session.player
        await self.path.run(held, lambda core, now: core.move(player, message.move, now, message.auto), asker)
        if held.room.settings.lost_notice:
            self.watch.moved(held.room.code, player)

    @handles(Undo)
    async def on_undo(self, asker: Asker, message: Undo) -> None:
        await self._in_my_room(asker, lambda core, now: core.undo(asker.session.player, now))

    @handles(Resign)
    async def on_resign(self, asker: Asker, message: Resign) -> None:
        await self._in_my_room(asker, lambda core, now: core.resign(asker.session.player, now))

    @handles(Rematch)
    async def on_rematch(self, asker: Asker, message: Rematch) -> None:
        deal = await self.deals.rematch_deal(self.path.held_by(asker.session).room)
        player = asker.session.player
        await self._in_my_room(asker, lambda core, now: core.rematch(player, deal, now, message.seed, message.auto))

    async def _in_my_room(self, asker: Asker, command: Command) -> None:
        await self.path.run(self.path.held_by(asker.session), command, asker)
