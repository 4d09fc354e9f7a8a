"""Answers: the one reply to a request, sent to the connection that asked and kept for a resend."""

from __future__ import annotations

from protocol.codec import encode
from protocol.schema import Message
from server.shell.fanout import Fanout
from server.shell.held import Asker


class Replies:
    """``answer`` sends a request's reply once; a resend of its seq gets the same frame again."""

    def __init__(self, fanout: Fanout) -> None:
        self.fanout = fanout

    def answer(self, asker: Asker, message: Message, frame: bytes | None = None) -> None:
        """Answer with ``message`` (``frame``: it already encoded for ``asker.seq``)."""
        asker.reply = message
        self.answer_frame(asker, frame if frame is not None else encode(message, asker.seq))

    def answer_frame(self, asker: Asker, frame: bytes) -> None:
        asker.answered = True
        session = asker.session
        frames = [frame]  # one list for both: neither is ever changed, only replaced
        session.last_reply = frames
        if session.pending is asker.pending:
            session.pending = None
        asker.pending.set_result(frames)
        self.fanout.write([asker.ws], frame)
