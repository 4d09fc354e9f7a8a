"""Error codes and close codes: stable strings and numbers a client can switch on."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class ErrorCode(StrEnum):
    """The ``code`` of an ``error`` message. Documented in docs/protocol.md."""

    BAD_FRAME = "bad-frame"
    UNKNOWN_TYPE = "unknown-type"
    BAD_FIELD = "bad-field"
    BAD_SEQ = "bad-seq"
    HELLO_FIRST = "hello-first"
    BAD_TOKEN = "bad-token"
    RATE_LIMITED = "rate-limited"
    ROOM_NOT_FOUND = "room-not-found"
    ROOM_UNAVAILABLE = "room-unavailable"
    ROOM_FULL = "room-full"
    RACE_IN_PROGRESS = "race-in-progress"
    NOT_IN_ROOM = "not-in-room"
    ALREADY_IN_ROOM = "already-in-room"
    NOT_A_RACER = "not-a-racer"
    NOT_STARTED = "not-started"
    RACE_OVER = "race-over"
    NOT_RACING = "not-racing"
    ILLEGAL_MOVE = "illegal-move"
    UNDO_DISABLED = "undo-disabled"
    NOTHING_TO_UNDO = "nothing-to-undo"
    UNDO_LIMIT = "undo-limit"
    MOVE_LIMIT = "move-limit"
    BAD_DEAL = "bad-deal"
    ROOM_LIMIT = "room-limit"
    NOT_FINISHED = "not-finished"
    STORE_UNAVAILABLE = "store-unavailable"
    INTERNAL = "internal"
    HINTS_OFF = "hints-off"
    # players that last (docs/protocol.md, section 21)
    BAD_KEY = "bad-key"
    RECORDS_UNAVAILABLE = "records-unavailable"
    NOT_IDENTIFIED = "not-identified"
    ALREADY_REGISTERED = "already-registered"
    BAD_HANDLE = "bad-handle"
    HANDLE_TAKEN = "handle-taken"
    BAD_CREDENTIALS = "bad-credentials"
    # ghost challenges (records-unavailable above)
    RACE_NOT_FOUND = "race-not-found"
    CHALLENGE_NOT_FOUND = "challenge-not-found"
    # arenas
    ARENA_NOT_FOUND = "arena-not-found"
    ARENA_OVER = "arena-over"
    # friends (docs/protocol.md, section 24)
    PLAYER_NOT_FOUND = "player-not-found"
    NOT_FRIENDS = "not-friends"
    BLOCKED = "blocked"
    FRIENDS_LIMIT = "friends-limit"
    INVITE_NOT_FOUND = "invite-not-found"
    NOBODY_TO_INVITE = "nobody-to-invite"
    # moderation (docs/admin.md)
    BANNED = "banned"
    NAME_RESERVED = "name-reserved"


class CloseCode(IntEnum):
    """WebSocket close codes the server uses."""

    NORMAL = 1000
    GOING_AWAY = 1001
    POLICY = 1008
    TOO_BIG = 1009
    SERVICE_RESTART = 1012
    TRY_AGAIN_LATER = 1013
    VERSION_MISMATCH = 4000
    REPLACED = 4001
    HELLO_TIMEOUT = 4002
    TRY_ANOTHER_NODE = 4003
    """This node cannot serve you now (draining, or your room is a newer server version's):
    reconnect with the token at once, through the balancer, which sends you to another node."""
    REMOVED = 4004
    """A moderator removed you (kicked, banned, or your room closed): the reason says why; do not
    reconnect automatically."""


class ProtocolError(Exception):
    """A request the server refuses: a stable ``code`` and a message for people."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.seq: int | None = None
        """The request's seq, when it could be read: the error reply answers it."""
