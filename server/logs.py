"""The command's log lines: text (``time LEVEL logger message``) or JSON, one object a line.

The server's lines are structured already (``event=room.created room=ABCD players=2``, from
``log_event`` and its kind); in JSON each ``key=value`` of a line that starts with ``event=`` is a
field of its own, beside ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message`` (the
line as text writes it), so a log store can filter on them without parsing. A line that is not
of that shape keeps only ``message``; an exception's traceback is ``exception``.

``log_event`` writes the server's lines (the ``seahaven.server`` logger, ``log``) and ``audit`` the
moderators' actions (``seahaven.admin``, at WARNING: kept whatever the level); every part of the
server logs through them, so none imports the room types for its logger.
"""

from __future__ import annotations

import json
import logging
import shlex
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

FORMATS: Final = ("text", "json")
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s %(message)s"
RESERVED: Final = frozenset({"time", "level", "logger", "message", "exception"})

log = logging.getLogger("seahaven.server")
"""The server's log lines."""
audit_log = logging.getLogger("seahaven.admin")
"""Every moderator's action, at WARNING: kept whatever the log level (an audit trail)."""


def log_event(event: str, /, **fields: object) -> None:
    """One structured log line: ``event=room.created key=value ...`` (values with spaces quoted)."""
    log.info("event=%s %s", event, line(fields))


def audit(event: str, /, **fields: object) -> None:
    """One line of the audit log, in the form of the other log lines (``event=admin.ban key=...``)."""
    audit_log.warning("event=%s %s", event, line(fields))


def line(fields: dict[str, object]) -> str:
    """``key=value ...``, each value as written (quoted when empty or holding a space)."""
    return " ".join(
        f"{k}={v!r}" if isinstance(v, str) and (not v or " " in v) else f"{k}={v}" for k, v in fields.items()
    )


@dataclass(frozen=True, slots=True)
class Logs:
    level: str = "INFO"
    format: str = "text"


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": message,
        }
        for key, value in fields(message).items():
            line[key if key not in RESERVED else f"field.{key}"] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def fields(message: str) -> dict[str, str]:
    """The ``key=value`` fields of an ``event=...`` line (values as written, quotes removed);
    none for any other line, or one that does not split cleanly."""
    if not message.startswith("event="):
        return {}
    try:
        words = shlex.split(message)
    except ValueError:
        return {}
    found = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            return {}
        found[key] = value
    return found


def configure(logs: Logs) -> None:
    """Set up the root logger for the command (stderr)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if logs.format == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=logs.level.upper(), handlers=[handler], force=True)
