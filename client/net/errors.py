"""The server's error codes in the player's language.

An ``error`` carries a stable ``code`` and an English ``message`` (docs/protocol.md, "Error
codes"). This client says each code in its own words from the catalog; the server's message is
kept for codes this client does not know (a newer server's), so nothing is lost.
"""

from __future__ import annotations

from typing import Final

from i18n import N_, _, current
from i18n.languages import SOURCE
from protocol.errors import ErrorCode

from ..text.words import reason
from .connection import ConnectionLost, ServerError

ERROR_TEXTS: Final[dict[str, str]] = {
    ErrorCode.BAD_FRAME: N_("The server could not read our message (this client may be too old for it)"),
    ErrorCode.UNKNOWN_TYPE: N_("The server does not know this request (this client may be newer than it)"),
    ErrorCode.BAD_FIELD: N_("The server refused a value in our request"),
    ErrorCode.BAD_SEQ: N_("Our requests arrived out of order: try again"),
    ErrorCode.HELLO_FIRST: N_("The connection is not ready yet: try again"),
    ErrorCode.BAD_TOKEN: N_("Your earlier session has ended: this is a new one"),
    ErrorCode.RATE_LIMITED: N_("Too many requests at once: wait a moment"),
    ErrorCode.ROOM_NOT_FOUND: N_("There is no such room: check the code"),
    ErrorCode.ROOM_UNAVAILABLE: N_("That room cannot be opened on this server now: try again soon"),
    ErrorCode.ROOM_FULL: N_("The room is full"),
    ErrorCode.RACE_IN_PROGRESS: N_("The race has already begun: spectate it, or wait for the rematch"),
    ErrorCode.NOT_IN_ROOM: N_("You are not in a room"),
    ErrorCode.ALREADY_IN_ROOM: N_("You are already in a room: leave it first"),
    ErrorCode.NOT_A_RACER: N_("Spectators do not move: only racers do"),
    ErrorCode.NOT_STARTED: N_("The race has not started yet"),
    ErrorCode.RACE_OVER: N_("The race is over"),
    ErrorCode.NOT_RACING: N_("You are no longer racing"),
    ErrorCode.ILLEGAL_MOVE: N_("That move is not allowed"),
    ErrorCode.UNDO_DISABLED: N_("Undo is off in this race"),
    ErrorCode.NOTHING_TO_UNDO: N_("Nothing to undo"),
    ErrorCode.UNDO_LIMIT: N_("No more undos in a row under these rules"),
    ErrorCode.MOVE_LIMIT: N_("Too many moves in this race"),
    ErrorCode.BAD_DEAL: N_("That deal is not valid for these rules"),
    ErrorCode.ROOM_LIMIT: N_("The server has too many rooms now: try again later"),
    ErrorCode.NOT_FINISHED: N_("The race is not over yet"),
    ErrorCode.STORE_UNAVAILABLE: N_("The server cannot save anything now: try again in a moment"),
    ErrorCode.INTERNAL: N_("The server ran into a problem: try again"),
    ErrorCode.HINTS_OFF: N_("Hints are off in this race"),
    ErrorCode.BAD_KEY: N_("The server does not know your player key"),
    ErrorCode.RECORDS_UNAVAILABLE: N_("The server's records cannot be reached now: try again later"),
    ErrorCode.NOT_IDENTIFIED: N_("Register first: this needs a player the server knows"),
    ErrorCode.ALREADY_REGISTERED: N_("You are registered already"),
    ErrorCode.BAD_HANDLE: N_("That handle is not allowed: letters, digits, - and _, up to 24"),
    ErrorCode.HANDLE_TAKEN: N_("That handle is taken: choose another"),
    ErrorCode.BAD_CREDENTIALS: N_("Wrong handle or password"),
    ErrorCode.RACE_NOT_FOUND: N_("There is no such race on record"),
    ErrorCode.CHALLENGE_NOT_FOUND: N_("There is no such challenge: check the code"),
    ErrorCode.ARENA_NOT_FOUND: N_("There is no such arena: check the code"),
    ErrorCode.ARENA_OVER: N_("That arena is over"),
    ErrorCode.BANNED: N_("The server's moderators have banned this player"),
    ErrorCode.NAME_RESERVED: N_("That name is kept for someone else: choose another"),
    ErrorCode.PLAYER_NOT_FOUND: N_("No registered player has that handle: check it with your friend"),
    ErrorCode.NOT_FRIENDS: N_("You can invite only your friends: ask them to be friends first"),
    ErrorCode.BLOCKED: N_("A block stands between you and that player: no requests or invitations"),
    ErrorCode.FRIENDS_LIMIT: N_("Too many friends or requests: remove some first"),
    ErrorCode.INVITE_NOT_FOUND: N_("That invitation was answered already or has expired"),
    ErrorCode.NOBODY_TO_INVITE: N_("Nobody else raced: start a new room instead"),
}
"""Every ErrorCode; tests/test_i18n_terminal.py checks none is missing."""

DETAILED: Final = frozenset({ErrorCode.ILLEGAL_MOVE})
"""Codes whose message is the engine's reason, which client/text/words.py can say again in the language in use."""


def error_text(code: str, message: str) -> str:
    """A refusal in the player's words. In English the server's own message is the best text (it
    is English, and often more specific: which room, how many seats); in another language the
    code's text, or for an illegal move the engine's reason said again (client/text/words.py). An
    unknown code keeps the server's message, and its code for a bug report."""
    text = ERROR_TEXTS.get(code)  # a StrEnum key matches its text
    if text is None:
        return _("Refused ({code}): {message}").format(code=code, message=message)
    if message and current().language == SOURCE:
        return message
    if code in DETAILED and message:
        said = reason(message)
        if said != message:
            return said
    return _(text)


def problem(error: BaseException) -> str:
    """What went wrong with a request, for the message line."""
    if isinstance(error, ServerError):
        return error_text(error.code, error.message)
    if isinstance(error, ConnectionLost):
        return _("the connection dropped")
    if isinstance(error, TimeoutError):
        return _("the server did not answer in time")
    return str(error)
