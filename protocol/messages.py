"""Every message of protocol version 1, as typed dataclasses. docs/protocol.md explains them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from seahaven import PRESETS
from seahaven.deals import MAX_DEAL
from seahaven.moves import read_move
from seahaven.winnable import GRADES

from .enums import EndReason, Phase, Role, Status
from .errors import ErrorCode, ProtocolError
from .schema import Bool, Int, ListOf, Message, Obj, Opt, Str, field_of

PRESET_NAMES: Final = tuple(PRESETS)
NAME_MAX: Final = 24
ROOM_CODE_LEN: Final = 6
MAX_RACERS: Final = 8
ROLES: Final = tuple(Role)
PHASES: Final = tuple(Phase)
STATUSES: Final = tuple(Status)
END_REASONS: Final = tuple(EndReason)
DEAL_GRADES: Final = tuple(GRADES)
"""How hard a winnable deal is (solver effort); not the presets' cell counts (easy/medium/hard)."""
BOT_PACES: Final = ("stroll", "brisk", "sprint")
"""How fast a bot racer plays, slowest first (server/play/bot.py holds their timings)."""

_TOKEN = Str(16, 64)
_PLAYER = Str(1, 16)
_ROOM = Str(4, 12)
_NAME = Str(1, NAME_MAX)
_MS = Int(0, 2**62)
LOBBY_PAGE: Final = 1000
"""The most rooms one ``rooms`` reply lists."""
LOBBY_CURSOR: Final = re.compile(r"[01]\.[0-9A-Za-z]{1,30}")
"""The form of every ``list_rooms`` cursor the server gives: a rank (0 waiting, 1 the rest), a dot,
a room code. The lobby reads the place it names (server/shell/lobby.py)."""


class _Cursor(Str):
    """A ``list_rooms`` cursor: refused here, before the request uses up its seq, unless it has
    the form of one the server gives."""

    def __init__(self) -> None:
        super().__init__(1, 32)

    def check(self, value: object, where: str, strict: bool = True) -> object:
        Str.check(self, value, where, strict)  # not super(): no super object per move
        assert isinstance(value, str)
        if LOBBY_CURSOR.fullmatch(value) is None:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"{where}: not a cursor this server gave")
        return value


class _Seed(Str):
    """A racer's seed: 32 to 64 lowercase hex digits (128 to 256 bits), an even count."""

    def __init__(self) -> None:
        super().__init__(32, 64)

    def check(self, value: object, where: str, strict: bool = True) -> object:
        Str.check(self, value, where, strict)
        assert isinstance(value, str)
        if len(value) % 2 or value.strip("0123456789abcdef"):
            raise ProtocolError(ErrorCode.BAD_FIELD, f"{where}: expected lowercase hex digits, an even count")
        return value


class _Notation(Str):
    """A move in the notation of docs/notation.md: a text that does not read is a validation error
    (bad-field before the request uses up its seq), not the room's to judge."""

    def __init__(self) -> None:
        super().__init__(2, 8)

    def check(self, value: object, where: str, strict: bool = True) -> object:
        Str.check(self, value, where, strict)  # not super(): no super object per move
        assert isinstance(value, str)
        try:
            read_move(value)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"{where}: {exc}") from None
        return value


# -- client to server ---------------------------------------------------------


REGISTERED_PREFIX: Final = "u"
"""The first character of a registered player's id (docs/protocol.md, section 1); anonymous ones
start with ``p`` (``ANONYMOUS_PREFIX``), bots' with ``bot-``."""
ANONYMOUS_PREFIX: Final = "p"
"""The first character of an anonymous session's (a guest's) player id."""
GHOST_PREFIX: Final = "ghost-"
"""A ghost racer's id is this and its challenge's id (docs/protocol.md, ``accept_challenge``): a
client races the run again from that challenge."""
KEY_MAX: Final = 128
"""The longest ``hello.key`` read (a key the server gives is 57 characters)."""
HANDLE_MAX: Final = 24
PASSWORD_MIN: Final = 8
PASSWORD_MAX: Final = 128
EXPORT_MAX: Final = 262_144
"""The most characters (= bytes: the export is ASCII JSON) an ``export`` holds."""


@dataclass(frozen=True, slots=True)
class Hello(Message):
    TYPE = "hello"
    name: str = field_of(Str(1, 64))
    token: str | None = field_of(Opt(_TOKEN), None)
    key: str | None = field_of(Opt(Str(1, KEY_MAX)), None, omit_default=True)
    """A registered player's secret key (``identity.key``): the session is that player's."""


@dataclass(frozen=True, slots=True)
class ListRooms(Message):
    TYPE = "list_rooms"
    preset: str | None = field_of(Opt(Str(1, 32, PRESET_NAMES)), None)
    limit: int = field_of(Int(1, LOBBY_PAGE), LOBBY_PAGE)
    """The most rooms to list."""
    cursor: str | None = field_of(Opt(_Cursor()), None)
    """Where to go on: a previous reply's ``next`` (nil: from the start)."""


@dataclass(frozen=True, slots=True)
class CreateRoom(Message):
    TYPE = "create_room"
    preset: str = field_of(Str(1, 32, PRESET_NAMES), "seahaven")
    deal_number: int | None = field_of(Opt(Int(1, MAX_DEAL)), None)
    deal_code: str | None = field_of(Opt(Str(4, 32)), None)
    seats: int = field_of(Int(2, MAX_RACERS), 2)
    public: bool = field_of(Bool(), True)
    time_limit: int | None = field_of(Opt(Int(30, 7200)), None)
    undo: bool = field_of(Bool(), True)
    any_deal: bool = field_of(Bool(), False, omit_default=True)
    """Deal any deal, winnable or not (default: a proven-winnable one)."""
    deal_grade: str | None = field_of(Opt(Str(1, 16, DEAL_GRADES)), None, omit_default=True)
    """The grade of the winnable deal the server picks (default: any grade)."""
    bot: str | None = field_of(Opt(Str(1, 16, BOT_PACES)), None, omit_default=True)
    """Race the computer: seat a bot racer of this pace."""
    hints: bool = field_of(Bool(), False, omit_default=True)
    """Racers may ask for hints; the standings count them."""
    lost_notice: bool = field_of(Bool(), False, omit_default=True)
    """Tell a racer when their position is proven lost."""
    daily: bool = field_of(Bool(), False, omit_default=True)
    """Race today's daily deal of ``preset``; finishing times go on the daily board."""
    rated: bool = field_of(Bool(), False, omit_default=True)
    """The room's races count for its racers' ratings (docs/ratings.md)."""
    auto: bool = field_of(Bool(), True, omit_default=True)
    """Racers may ask the server to play their auto-moves (false: every card by hand)."""

    def conflict(self) -> str | None:
        chosen = self.deal_number is not None or self.deal_code is not None
        if self.rated and self.hints:
            return "a rated race takes no hints"
        if self.rated and (chosen or self.daily):
            return "a rated race takes a deal the server picks in secret: no deal, deal_code or daily"
        if self.deal_number is not None and self.deal_code is not None:
            return "give deal_number or deal_code, not both"
        if chosen and (self.any_deal or self.deal_grade is not None):
            return "a chosen deal takes neither any_deal nor deal_grade"
        if self.daily and (chosen or self.any_deal or self.deal_grade is not None):
            return "a daily race takes no deal, any_deal or deal_grade"
        if self.any_deal and self.deal_grade is not None:
            return "any_deal takes no deal_grade: graded deals are winnable ones"
        return None


@dataclass(frozen=True, slots=True)
class JoinRoom(Message):
    TYPE = "join_room"
    room: str = field_of(_ROOM)
    spectate: bool = field_of(Bool(), False)


@dataclass(frozen=True, slots=True)
class QuickMatch(Message):
    TYPE = "quick_match"
    preset: str = field_of(Str(1, 32, PRESET_NAMES), "seahaven")
    deal_grade: str | None = field_of(Opt(Str(1, 16, DEAL_GRADES)), None, omit_default=True)
    """Meet only racers asking for this deal grade, and race a deal of it (default: those asking for none)."""
    bot_after: int | None = field_of(Opt(Int(1, 600)), None, omit_default=True)
    """When the racer has waited so many seconds for a partner and nobody else waits, a bot takes the free seat."""
    daily: bool = field_of(Bool(), False, omit_default=True)
    """Meet racers asking for today's daily deal, and race it."""

    def conflict(self) -> str | None:
        return "a daily race takes no deal_grade" if self.daily and self.deal_grade is not None else None


@dataclass(frozen=True, slots=True)
class Leave(Message):
    TYPE = "leave"


@dataclass(frozen=True, slots=True)
class Ready(Message):
    TYPE = "ready"
    ready: bool = field_of(Bool(), True)
    seed: str | None = field_of(Opt(_Seed()), None, omit_default=True)
    """The racer's share of the next race's draw (docs/fairness.md): random bits, in hex."""
    auto: bool = field_of(Bool(), False, omit_default=True)
    """Play my auto-moves at the start (the opening's safe cards home)."""


@dataclass(frozen=True, slots=True)
class MoveRequest(Message):
    TYPE = "move"
    move: str = field_of(_Notation())
    auto: bool = field_of(Bool(), False, omit_default=True)
    """Play my auto-moves after this move, in the same step (where the room allows it)."""


@dataclass(frozen=True, slots=True)
class Undo(Message):
    TYPE = "undo"


@dataclass(frozen=True, slots=True)
class Resign(Message):
    TYPE = "resign"


@dataclass(frozen=True, slots=True)
class Rematch(Message):
    TYPE = "rematch"
    seed: str | None = field_of(Opt(_Seed()), None, omit_default=True)
    """The racer's share of the rematch's draw, as ``ready``'s."""
    auto: bool = field_of(Bool(), False, omit_default=True)
    """As ``ready``'s, for the rematch."""


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE = "ping"


@dataclass(frozen=True, slots=True)
class HintRequest(Message):
    TYPE = "hint"


@dataclass(frozen=True, slots=True)
class DailyBoardRequest(Message):
    TYPE = "daily_board"
    preset: str = field_of(Str(1, 32, PRESET_NAMES), "seahaven")


# -- players that last (docs/protocol.md, section 21) --


@dataclass(frozen=True, slots=True)
class Register(Message):
    """Make a registered player (with the session's name) and give its first key."""

    TYPE = "register"


@dataclass(frozen=True, slots=True)
class ClaimHandle(Message):
    TYPE = "claim_handle"
    handle: str = field_of(Str(1, 64))


@dataclass(frozen=True, slots=True)
class SetPassword(Message):
    TYPE = "set_password"
    password: str = field_of(Str(PASSWORD_MIN, PASSWORD_MAX))


@dataclass(frozen=True, slots=True)
class SetName(Message):
    """The session's display name from now on; a registered player's on every device."""

    TYPE = "set_name"
    name: str = field_of(Str(1, 64))


@dataclass(frozen=True, slots=True)
class SignIn(Message):
    """A new key for this device, by handle and password."""

    TYPE = "sign_in"
    handle: str = field_of(Str(1, 64))
    password: str = field_of(Str(1, PASSWORD_MAX))


@dataclass(frozen=True, slots=True)
class DeleteAccount(Message):
    TYPE = "delete_account"


@dataclass(frozen=True, slots=True)
class ExportData(Message):
    TYPE = "export_data"


REQUESTS: Final[dict[str, type[Message]]] = {
    m.TYPE: m
    for m in (
        Hello,
        ListRooms,
        CreateRoom,
        JoinRoom,
        QuickMatch,
        Leave,
        Ready,
        MoveRequest,
        Undo,
        Resign,
        Rematch,
        Ping,
        HintRequest,
        DailyBoardRequest,
        Register,
        ClaimHandle,
        SetPassword,
        SignIn,
        DeleteAccount,
        ExportData,
        SetName,
    )
}

# -- server to client ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Limits(Message):
    max_frame: int = field_of(Int(0, 2**31))
    rate: int = field_of(Int(0, 2**31))
    burst: int = field_of(Int(0, 2**31))
    grace_ms: int = field_of(_MS)


@dataclass(frozen=True, slots=True)
class Welcome(Message):
    TYPE = "welcome"
    token: str = field_of(_TOKEN)
    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    server_time: int = field_of(_MS)
    limits: Limits = field_of(Obj(Limits))
    room: str | None = field_of(Opt(_ROOM), None)
    last_seq: int = field_of(Int(-1, 2**53), -1)
    """The highest seq this session has sent (-1: none): a resumed client continues above it,
    and may resend exactly ``last_seq`` to hear its answer again."""
    handle: str | None = field_of(Opt(Str(1, HANDLE_MAX)), None, omit_default=True)
    """The registered player's handle (nil: none claimed, or not registered)."""
    identified: bool = field_of(Bool(), False, omit_default=True)
    """The session is a registered player's (``player`` is its durable id)."""
    seat: str | None = field_of(Opt(_ROOM), None, omit_default=True)
    """The room where this player races on another connection (a tab or device still connected):
    ``join_room`` of it takes the seat here (nil: none)."""


@dataclass(frozen=True, slots=True)
class Ok(Message):
    TYPE = "ok"


@dataclass(frozen=True, slots=True)
class Error(Message):
    TYPE = "error"
    code: str = field_of(Str(1, 32))
    message: str = field_of(Str(0, 300))


@dataclass(frozen=True, slots=True)
class Pong(Message):
    TYPE = "pong"
    server_time: int = field_of(_MS)


@dataclass(frozen=True, slots=True)
class RoomSummary(Message):
    room: str = field_of(_ROOM)
    preset: str = field_of(Str(1, 32))
    seats: int = field_of(Int(1, MAX_RACERS))
    racers: int = field_of(Int(0, MAX_RACERS))
    spectators: int = field_of(Int(0, 2**31))
    phase: str = field_of(Str(1, 16, PHASES))
    time_limit: int | None = field_of(Opt(Int(0, 2**31)))
    undo: bool = field_of(Bool())
    any_deal: bool = field_of(Bool(), False, omit_default=True)
    deal_grade: str | None = field_of(Opt(Str(1, 16, DEAL_GRADES)), None, omit_default=True)
    deal: str | None = field_of(Opt(Str(4, 32)), None, omit_default=True)
    """The deal code, when the creator chose the deal (never when the server picked it)."""
    hints: bool = field_of(Bool(), False, omit_default=True)
    daily: str | None = field_of(Opt(Str(10, 10)), None, omit_default=True)
    """A daily race: the UTC day (YYYY-MM-DD) whose deal it races."""
    rated: bool = field_of(Bool(), False, omit_default=True)
    """Its races count for the racers' ratings."""


@dataclass(frozen=True, slots=True)
class Rooms(Message):
    TYPE = "rooms"
    rooms: tuple[RoomSummary, ...] = field_of(ListOf(Obj(RoomSummary), LOBBY_PAGE))
    next: str | None = field_of(Opt(Str(1, 32)), None)
    """The ``cursor`` of the next page; nil on the last one."""


@dataclass(frozen=True, slots=True)
class Racer(Message):
    """One racer as everyone in the room sees them."""

    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    status: str = field_of(Str(1, 16, STATUSES))
    connected: bool = field_of(Bool())
    progress: int = field_of(Int(0, 52))
    moves: int = field_of(Int(0, 2**31))
    time_ms: int | None = field_of(Opt(_MS))
    bot: bool = field_of(Bool(), False, omit_default=True)
    """A bot racer played by the server."""
    hints: int = field_of(Int(0, 2**31), 0, omit_default=True)
    """Hints this racer was given this race."""
    ghost: bool = field_of(Bool(), False, omit_default=True)
    """A ghost: a recorded run raced again (``accept_challenge``), played by the server."""


@dataclass(frozen=True, slots=True)
class Standing(Message):
    place: int = field_of(Int(1, MAX_RACERS))
    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    status: str = field_of(Str(1, 16, STATUSES))
    progress: int = field_of(Int(0, 52))
    moves: int = field_of(Int(0, 2**31))
    time_ms: int | None = field_of(Opt(_MS))
    bot: bool = field_of(Bool(), False, omit_default=True)
    hints: int = field_of(Int(0, 2**31), 0, omit_default=True)
    ghost: bool = field_of(Bool(), False, omit_default=True)
    undos: int = field_of(Int(0, 2**31), 0, omit_default=True)
    """The racer's own undos: ``moves`` counts them and the moves they took back, so a client that
    shows the moves on the board shows ``moves - 2 * undos``."""


@dataclass(frozen=True, slots=True)
class Watched(Message):
    """One racer's moves still in effect, for spectators."""

    player: str = field_of(_PLAYER)
    history: tuple[str, ...] = field_of(ListOf(Str(2, 8), 100_000))
    actions: int = field_of(Int(0, 2**31), 0)
    """Moves and undos this history stands for: later ``progress`` frames with ``moves`` above it
    are the ones still to play."""


@dataclass(frozen=True, slots=True)
class RoomState(Message):
    """The whole room as the receiver may see it: sent on join, reconnect and rematch."""

    TYPE = "room"
    room: str = field_of(_ROOM)
    you: str = field_of(_PLAYER)
    role: str = field_of(Str(1, 16, ROLES))
    preset: str = field_of(Str(1, 32))
    seats: int = field_of(Int(1, MAX_RACERS))
    public: bool = field_of(Bool())
    time_limit: int | None = field_of(Opt(Int(0, 2**31)))
    undo: bool = field_of(Bool())
    phase: str = field_of(Str(1, 16, PHASES))
    racers: tuple[Racer, ...] = field_of(ListOf(Obj(Racer), MAX_RACERS))
    spectators: int = field_of(Int(0, 2**31))
    server_time: int = field_of(_MS)
    starts_at: int | None = field_of(Opt(_MS), None)
    started_at: int | None = field_of(Opt(_MS), None)
    deal: str | None = field_of(Opt(Str(4, 32)), None)
    board: str | None = field_of(Opt(Str(0, 4096)), None)
    history: tuple[str, ...] = field_of(ListOf(Str(2, 8), 100_000), ())
    standings: tuple[Standing, ...] = field_of(ListOf(Obj(Standing), MAX_RACERS), ())
    rematch: tuple[str, ...] = field_of(ListOf(_PLAYER, MAX_RACERS), ())
    watching: tuple[Watched, ...] = field_of(ListOf(Obj(Watched), MAX_RACERS), ())
    """For a spectator in phases racing and finished: every racer's moves, to draw their boards."""
    any_deal: bool = field_of(Bool(), False, omit_default=True)
    deal_grade: str | None = field_of(Opt(Str(1, 16, DEAL_GRADES)), None, omit_default=True)
    hints: bool = field_of(Bool(), False, omit_default=True)
    lost_notice: bool = field_of(Bool(), False, omit_default=True)
    daily: str | None = field_of(Opt(Str(10, 10)), None, omit_default=True)
    rated: bool = field_of(Bool(), False, omit_default=True)
    """The room's races count for its racers' ratings (docs/ratings.md)."""
    commitment: str | None = field_of(Opt(Str(64, 64)), None, omit_default=True)
    """A drawn room's commitment to the server's seed of its next race (of this race while it
    runs): SHA-256 in hex, revealed as ``result.seed`` (docs/fairness.md)."""
    auto: bool = field_of(Bool(), True, omit_default=True)
    """Racers may ask for auto-moves (``create_room.auto``)."""
    auto_played: tuple[int, ...] = field_of(ListOf(Int(0, 100_000), 100_000), (), omit_default=True)
    """The indices in ``history`` of the moves the server played (auto-moves); the others are yours."""


@dataclass(frozen=True, slots=True)
class Members(Message):
    """Who is in the room now: after a join, leave, ready, disconnect or reconnect."""

    TYPE = "members"
    racers: tuple[Racer, ...] = field_of(ListOf(Obj(Racer), MAX_RACERS))
    spectators: int = field_of(Int(0, 2**31))
    rematch: tuple[str, ...] = field_of(ListOf(_PLAYER, MAX_RACERS), ())


@dataclass(frozen=True, slots=True)
class Countdown(Message):
    TYPE = "countdown"
    starts_at: int | None = field_of(Opt(_MS))
    server_time: int = field_of(_MS)


@dataclass(frozen=True, slots=True)
class Started(Message):
    TYPE = "started"
    deal: str = field_of(Str(4, 32))
    preset: str = field_of(Str(1, 32))
    board: str = field_of(Str(0, 4096))
    started_at: int = field_of(_MS)
    ends_at: int | None = field_of(Opt(_MS))
    server_time: int = field_of(_MS)


@dataclass(frozen=True, slots=True)
class Moved(Message):
    """Reply to ``move`` and ``undo``: the racer's own state after it."""

    TYPE = "moved"
    move: str = field_of(Str(2, 8))
    undo: bool = field_of(Bool())
    progress: int = field_of(Int(0, 52))
    moves: int = field_of(Int(0, 2**31))
    status: str = field_of(Str(1, 16, STATUSES))
    elapsed_ms: int = field_of(_MS)
    auto: tuple[str, ...] = field_of(ListOf(Str(2, 8), 52), (), omit_default=True)
    """The auto-moves the server played after the move, in order (asked for with ``move.auto``)."""
    undone: int = field_of(Int(1, 53), 1, omit_default=True)
    """For an undo: the moves it took back (your move and the auto-moves after it)."""


@dataclass(frozen=True, slots=True)
class Progress(Message):
    """Broadcast after every accepted move, undo, resignation or finish of a racer."""

    TYPE = "progress"
    player: str = field_of(_PLAYER)
    progress: int = field_of(Int(0, 52))
    moves: int = field_of(Int(0, 2**31))
    status: str = field_of(Str(1, 16, STATUSES))
    elapsed_ms: int = field_of(_MS)
    time_ms: int | None = field_of(Opt(_MS), None)
    move: str | None = field_of(Opt(Str(2, 8)), None)
    """For spectators only: the move just played (``undo`` for an undo), so they can follow the
    board. Rivals never see each other's moves."""
    auto: tuple[str, ...] = field_of(ListOf(Str(2, 8), 52), (), omit_default=True)
    """For spectators and the racer themself: the auto-moves the server played after ``move``
    (or, with ``move`` nil, at the start), to play after it."""
    undone: int = field_of(Int(1, 53), 1, omit_default=True)
    """For spectators, with ``move`` ``undo``: how many moves it took back."""
    actions: int | None = field_of(Opt(Int(0, 2**31)), None, omit_default=True)
    """For spectators: the racer's moves and undos once this is played, auto-moves and the undos
    of auto-moves included (as ``Watched.actions`` counts them); absent while it equals ``moves``."""


@dataclass(frozen=True, slots=True)
class Result(Message):
    TYPE = "result"
    reason: str = field_of(Str(1, 16, END_REASONS))
    standings: tuple[Standing, ...] = field_of(ListOf(Obj(Standing), MAX_RACERS))
    histories: tuple[Watched, ...] = field_of(ListOf(Obj(Watched), MAX_RACERS), ())
    """Every racer's moves in effect at the end, in seat order: for a post-race review."""
    race_id: str | None = field_of(Opt(Str(1, 40)), None, omit_default=True)
    """The race's id on record (``GET /api/v1/races/{race_id}``); nil when the race never started."""
    seed: str | None = field_of(Opt(Str(64, 64)), None, omit_default=True)
    """A drawn race's server seed, revealed: its SHA-256 is the ``commitment`` the room showed."""
    commitment: str | None = field_of(Opt(Str(64, 64)), None, omit_default=True)
    """A drawn room's commitment to its rematch's seed (given before the votes carry theirs)."""


ADVICE_KINDS: Final = ("hint", "lost", "won", "unknown")


@dataclass(frozen=True, slots=True)
class Advice(Message):
    """Reply to ``hint``: the next move of a win, or that none exists, or that none was found in time."""

    TYPE = "advice"
    kind: str = field_of(Str(1, 16, ADVICE_KINDS))
    move: str | None = field_of(Opt(Str(2, 8)), None)


@dataclass(frozen=True, slots=True)
class Lost(Message):
    """To one racer (rooms with ``lost_notice``): their position is proven lost; undo or resign."""

    TYPE = "lost"
    moves: int = field_of(Int(0, 2**31))
    """The racer's move count when the search proved it."""


@dataclass(frozen=True, slots=True)
class DailyEntry(Message):
    place: int = field_of(Int(1, 2**31))
    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    time_ms: int = field_of(_MS)


@dataclass(frozen=True, slots=True)
class DailyBoard(Message):
    """Reply to ``daily_board``: today's deal of a preset and the best finishing times on it."""

    TYPE = "daily"
    preset: str = field_of(Str(1, 32))
    date: str = field_of(Str(10, 10))
    deal: str = field_of(Str(4, 32))
    entries: tuple[DailyEntry, ...] = field_of(ListOf(Obj(DailyEntry), 100))


@dataclass(frozen=True, slots=True)
class Identity(Message):
    """Reply to ``register``, ``claim_handle`` and ``sign_in``: a registered player."""

    TYPE = "identity"
    player: str = field_of(_PLAYER)
    handle: str | None = field_of(Opt(Str(1, HANDLE_MAX)))
    key: str | None = field_of(Opt(Str(1, KEY_MAX)))
    """A new secret key (to ``register`` and ``sign_in``; nil otherwise): keep it, say it in ``hello``."""


@dataclass(frozen=True, slots=True)
class Export(Message):
    """Reply to ``export_data``: everything on record of the player, as JSON."""

    TYPE = "export"
    data: str = field_of(Str(2, EXPORT_MAX))


@dataclass(frozen=True, slots=True)
class RatingNotice(Message):
    """Event: a rated race on record changed the receiver's rating on ``preset`` (docs/ratings.md)."""

    TYPE = "rating"
    preset: str = field_of(Str(1, 32))
    rating: int = field_of(Int(-(2**31), 2**31))
    """The shown rating after the race."""
    change: int = field_of(Int(-(2**31), 2**31))
    """What the race changed it by (the shown numbers' difference: ``+14`` is 14)."""
    provisional: bool = field_of(Bool())
    """Fewer than 10 rated races on ``preset`` so far: the number is a first guess."""
    race_id: str = field_of(Str(1, 40))


SERVER_MESSAGES: Final[dict[str, type[Message]]] = {
    m.TYPE: m
    for m in (
        Welcome,
        Ok,
        Error,
        Pong,
        Rooms,
        RoomState,
        Members,
        Countdown,
        Started,
        Moved,
        Progress,
        Result,
        Advice,
        Lost,
        DailyBoard,
        Identity,
        Export,
        RatingNotice,
    )
}


# -- ghost challenges: race a recorded run again (docs/protocol.md, ``challenge``) -----------------

CHALLENGE_LEN: Final = 8
"""A challenge's id: this many characters of the room codes' alphabet (typed in the terminal client)."""


@dataclass(frozen=True, slots=True)
class ChallengeRequest(Message):
    """Make a challenge of one racer's run in a finished race on record (default: the asker's)."""

    TYPE = "challenge"
    race_id: str = field_of(Str(1, 40))
    player: str | None = field_of(Opt(_PLAYER), None, omit_default=True)


@dataclass(frozen=True, slots=True)
class AcceptChallenge(Message):
    """Race a challenge's run: a new private room with its ghost seated and ready."""

    TYPE = "accept_challenge"
    challenge: str = field_of(Str(CHALLENGE_LEN, 2 * CHALLENGE_LEN))
    """Read like a room code: spaces, case and the look-alikes O, I and L do not matter."""


@dataclass(frozen=True, slots=True)
class Challenge(Message):
    """Reply to ``challenge``: the challenge made, and the run it races."""

    TYPE = "challenge"
    challenge: str = field_of(Str(CHALLENGE_LEN, CHALLENGE_LEN))
    race_id: str = field_of(Str(1, 40))
    player: str = field_of(_PLAYER)
    """Whose run the ghost plays."""
    name: str = field_of(_NAME)
    preset: str = field_of(Str(1, 32))
    deal: str = field_of(Str(4, 32))
    status: str = field_of(Str(1, 16, STATUSES))
    """How the run ended: ``finished``, or where it stood when its race ended."""
    progress: int = field_of(Int(0, 52))
    time_ms: int | None = field_of(Opt(_MS))
    """The run's finishing time (else when its progress last changed), from the start."""
    link_path: str = field_of(Str(1, 64))
    """The challenge's page on the server's HTTP port: ``/c/{challenge}``."""


REQUESTS.update({m.TYPE: m for m in (ChallengeRequest, AcceptChallenge)})
SERVER_MESSAGES.update({m.TYPE: m for m in (Challenge,)})


# -- arenas (docs/protocol.md, section 23) ----------------------------------------------------------

ARENA_MINUTES: Final = (5, 180)
"""How long an arena may run, in minutes (shortest, longest)."""


@dataclass(frozen=True, slots=True)
class CreateArena(Message):
    """Open an arena: a timed event on one preset (and deal grade) that pairs its players race after race."""

    TYPE = "create_arena"
    preset: str = field_of(Str(1, 32, PRESET_NAMES), "seahaven")
    deal_grade: str | None = field_of(Opt(Str(1, 16, DEAL_GRADES)), None, omit_default=True)
    minutes: int = field_of(Int(*ARENA_MINUTES), 30)
    starts_in: int = field_of(Int(0, 86_400), 0, omit_default=True)
    """Seconds until it starts (players may join before)."""


@dataclass(frozen=True, slots=True)
class JoinArena(Message):
    TYPE = "join_arena"
    arena: str = field_of(_ROOM)
    """The arena's code, read like a room code."""


@dataclass(frozen=True, slots=True)
class LeaveArena(Message):
    TYPE = "leave_arena"
    arena: str = field_of(_ROOM)


@dataclass(frozen=True, slots=True)
class ArenaStanding(Message):
    """One player's line in an arena's standings."""

    rank: int = field_of(Int(1, 2**31))
    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    points: int = field_of(Int(0, 2**31))
    races: int = field_of(Int(0, 2**31))
    wins: int = field_of(Int(0, 2**31))
    streak: int = field_of(Int(0, 2**31))
    """Wins in a row now: from 2 on, the next race's points count double."""
    active: bool = field_of(Bool())
    """In the arena now (false: left; their points stay)."""


@dataclass(frozen=True, slots=True)
class Arena(Message):
    """An arena and its standings: the reply to ``create_arena``, ``join_arena`` and ``leave_arena``,
    and an event to its players whenever the standings change."""

    TYPE = "arena"
    arena: str = field_of(_ROOM)
    preset: str = field_of(Str(1, 32))
    deal_grade: str | None = field_of(Opt(Str(1, 16)))
    starts_at: int = field_of(_MS)
    ends_at: int = field_of(_MS)
    phase: str = field_of(Str(1, 16, ("waiting", "running", "finished")))
    link_path: str = field_of(Str(1, 64))
    """The arena's link: ``/a/{arena}``."""
    standings: tuple[ArenaStanding, ...] = field_of(ListOf(Obj(ArenaStanding), 100_000))


@dataclass(frozen=True, slots=True)
class Podium(Message):
    """An arena ended: its first three (fewer when fewer raced), to every player in it."""

    TYPE = "podium"
    arena: str = field_of(_ROOM)
    podium: tuple[ArenaStanding, ...] = field_of(ListOf(Obj(ArenaStanding), 3))


REQUESTS.update({m.TYPE: m for m in (CreateArena, JoinArena, LeaveArena)})
SERVER_MESSAGES.update({m.TYPE: m for m in (Arena, Podium)})


# -- rating-matched quick match (docs/protocol.md, ``quick_match``) --------------------------------


@dataclass(frozen=True, slots=True)
class Matching(Message):
    """To a racer ``quick_match`` seated alone (and again when they are back in that room): the
    queue looks for a partner of a similar rating, in a window that widens while they wait."""

    TYPE = "matching"
    preset: str = field_of(Str(1, 32))
    rating: int = field_of(Int(-(2**31), 2**31))
    """The rating the queue compares (the shown one; a player without one counts as 1500)."""
    window: int = field_of(Int(0, 2**31))
    """Ratings this far either side may race you now."""
    widens: int = field_of(Int(0, 2**31))
    """Points the window grows by each second you wait."""
    anyone_after_ms: int = field_of(_MS)
    """From this much waiting on, anyone waiting may race you, whatever their rating."""
    waited_ms: int = field_of(_MS)
    """How long you have waited so far."""


SERVER_MESSAGES.update({m.TYPE: m for m in (Matching,)})


@dataclass(frozen=True, slots=True)
class Notice(Message):
    """An event from the server's operators to every connection (docs/admin.md): show ``text``
    to the player (a banner or a toast); ``room`` is set when it says that room was closed."""

    TYPE = "notice"
    text: str = field_of(Str(1, 300))
    room: str | None = field_of(Opt(_ROOM), None)
    """The room this notice closed (nil: a notice to everyone)."""


SERVER_MESSAGES.update({m.TYPE: m for m in (Notice,)})


@dataclass(frozen=True, slots=True)
class SeatTaken(Message):
    """To a connection whose race seat another connection of the same player took (its
    ``join_room`` of that room): this one is in the lobby now, still connected, and ``join_room``
    of ``room`` takes the seat back."""

    TYPE = "seat_taken"
    room: str = field_of(_ROOM)


SERVER_MESSAGES.update({m.TYPE: m for m in (SeatTaken,)})


# -- friends, presence and invitations (docs/protocol.md, section 24) ------------------------------

PRESENCES: Final = ("offline", "lobby", "waiting", "racing", "watching")
"""What a friend is doing: not connected (or hiding it), in the lobby, in a room's waiting room (or
its results), racing, watching a room."""
PRESENCE_SHOWN_TO: Final = ("friends", "nobody")
"""Who sees a player's presence."""
INVITE_ANSWERS: Final = ("accepted", "declined", "expired")
FRIENDS_MAX: Final = 200
"""The most friends a player keeps (and the most requests either way)."""
INVITE_LEN: Final = 12


@dataclass(frozen=True, slots=True)
class FriendsRequest(Message):
    """My friends, with what each is doing, and the requests either way."""

    TYPE = "friends"


@dataclass(frozen=True, slots=True)
class AddFriend(Message):
    """Ask a registered player to be friends, by ``handle`` or by ``player`` id (exactly one); if
    they asked me already, we are friends."""

    TYPE = "add_friend"
    handle: str | None = field_of(Opt(Str(1, HANDLE_MAX)), None, omit_default=True)
    player: str | None = field_of(Opt(_PLAYER), None, omit_default=True)


@dataclass(frozen=True, slots=True)
class RemoveFriend(Message):
    """End a friendship, withdraw my request, or decline theirs."""

    TYPE = "remove_friend"
    player: str = field_of(_PLAYER)


@dataclass(frozen=True, slots=True)
class BlockPlayer(Message):
    """Block a player: no request, invitation or presence between us (a friendship ends)."""

    TYPE = "block_player"
    player: str = field_of(_PLAYER)


@dataclass(frozen=True, slots=True)
class UnblockPlayer(Message):
    TYPE = "unblock_player"
    player: str = field_of(_PLAYER)


@dataclass(frozen=True, slots=True)
class SetPresence(Message):
    """Who sees what I am doing: ``friends`` (the default) or ``nobody`` (I am shown offline)."""

    TYPE = "set_presence"
    shown_to: str = field_of(Str(1, 16, PRESENCE_SHOWN_TO))


@dataclass(frozen=True, slots=True)
class Invite(Message):
    """Invite a friend to race: to the room I am waiting in, or, in none, to a new private room of
    two seats the server makes and seats me in (a ``room`` event comes before the reply)."""

    TYPE = "invite"
    player: str = field_of(_PLAYER)


@dataclass(frozen=True, slots=True)
class RaceAgain(Message):
    """From a race's results: a new private room with the room's settings and a new deal, me seated
    in it (I leave this one), and an invitation to each other person who raced (section 24)."""

    TYPE = "race_again"


@dataclass(frozen=True, slots=True)
class AnswerInvite(Message):
    """Accept (seated in the room: the reply is ``room``) or decline (``ok``) an invitation."""

    TYPE = "answer_invite"
    invite: str = field_of(Str(INVITE_LEN, INVITE_LEN))
    accept: bool = field_of(Bool())


@dataclass(frozen=True, slots=True)
class FriendRef(Message):
    """A player in a friends list: the id, the display name and the handle (nil: none claimed)."""

    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    handle: str | None = field_of(Opt(Str(1, HANDLE_MAX)), None, omit_default=True)


@dataclass(frozen=True, slots=True)
class Friend(Message):
    """A friend and what they are doing (``room``: the room they wait in, race in or watch)."""

    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    handle: str | None = field_of(Opt(Str(1, HANDLE_MAX)), None, omit_default=True)
    state: str = field_of(Str(1, 16, PRESENCES), "offline")
    room: str | None = field_of(Opt(_ROOM), None, omit_default=True)


@dataclass(frozen=True, slots=True)
class Friends(Message):
    """Reply to every friends request, and an event when my list changes (a request came, was
    accepted, a friendship ended)."""

    TYPE = "friends"
    friends: tuple[Friend, ...] = field_of(ListOf(Obj(Friend), FRIENDS_MAX))
    incoming: tuple[FriendRef, ...] = field_of(ListOf(Obj(FriendRef), FRIENDS_MAX))
    """Players who asked me (``add_friend`` accepts, ``remove_friend`` declines)."""
    outgoing: tuple[FriendRef, ...] = field_of(ListOf(Obj(FriendRef), FRIENDS_MAX))
    """Players I asked, who have not answered."""
    blocked: tuple[FriendRef, ...] = field_of(ListOf(Obj(FriendRef), FRIENDS_MAX))
    shown_to: str = field_of(Str(1, 16, PRESENCE_SHOWN_TO), "friends")


@dataclass(frozen=True, slots=True)
class Presence(Message):
    """Event: a friend's state changed."""

    TYPE = "presence"
    player: str = field_of(_PLAYER)
    state: str = field_of(Str(1, 16, PRESENCES))
    room: str | None = field_of(Opt(_ROOM), None, omit_default=True)


@dataclass(frozen=True, slots=True)
class Invitation(Message):
    """Reply to ``invite``: the invitation sent (``expires_at`` in server time)."""

    TYPE = "invitation"
    invite: str = field_of(Str(INVITE_LEN, INVITE_LEN))
    player: str = field_of(_PLAYER)
    room: str = field_of(_ROOM)
    expires_at: int = field_of(_MS)


@dataclass(frozen=True, slots=True)
class Invited(Message):
    """Event: a friend invites me to race in ``room`` (answer with ``answer_invite``)."""

    TYPE = "invited"
    invite: str = field_of(Str(INVITE_LEN, INVITE_LEN))
    player: str = field_of(_PLAYER)
    name: str = field_of(_NAME)
    room: str = field_of(_ROOM)
    preset: str = field_of(Str(1, 32))
    expires_at: int = field_of(_MS)
    again: bool = field_of(Bool(), False, omit_default=True)
    """The inviter raced with me and asks the same group to race again (``race_again``)."""


@dataclass(frozen=True, slots=True)
class InviteClosed(Message):
    """Event, to the inviter and the invited: the invitation was answered or ran out."""

    TYPE = "invite_closed"
    invite: str = field_of(Str(INVITE_LEN, INVITE_LEN))
    player: str = field_of(_PLAYER)
    """The invited player."""
    answer: str = field_of(Str(1, 16, INVITE_ANSWERS))


_FRIENDS_REQUESTS: Final = (FriendsRequest, AddFriend, RemoveFriend, BlockPlayer, UnblockPlayer, SetPresence)
REQUESTS.update({m.TYPE: m for m in (*_FRIENDS_REQUESTS, Invite, RaceAgain, AnswerInvite)})
SERVER_MESSAGES.update({m.TYPE: m for m in (Friends, Presence, Invitation, Invited, InviteClosed)})
