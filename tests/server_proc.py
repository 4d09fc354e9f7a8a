"""``seahaven-server`` as a real child process (``python -m server``) on a free loopback port."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

NEXT_RELEASE = (
    "-c",
    "import server.rooms.events as e; e.FORMAT += 1; from server.__main__ import main; main()",
)
"""How the next release's server starts (``launch``): this build with its events' format version
raised by one, as a release that changed the log's form would (tests/test_format_version.py)."""

# Fast test settings: a short countdown, and no rate limit getting in a scripted client's way.
FAST = ("--countdown", "0.05", "--rate", "10000", "--burst", "10000")


class ServerProcess:
    """One node: started at once, ``port`` read from its "listening on" line; stderr kept in ``log``."""

    def __init__(self, *args: str, port: int = 0, launch: tuple[str, ...] = ("-m", "server")) -> None:
        """``launch``: how the interpreter is told to start the server (another build: ``-c`` code)."""
        self.log = Path(tempfile.mkstemp(prefix="seahaven-server-", suffix=".log")[1])
        # Each node's own data folder (its SQLite records unless a --database is given), never the user's.
        self.data = Path(tempfile.mkdtemp(prefix="seahaven-data-"))
        with self.log.open("wb") as stderr:
            self.proc = subprocess.Popen(
                [sys.executable, *launch, "--host", "127.0.0.1", "--port", str(port), *FAST, *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env={**os.environ, "SEAHAVEN_LOG_LEVEL": "WARNING", "SEAHAVEN_DATA_DIR": str(self.data)},
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("listening on ws://"):
            self.kill()
            raise AssertionError(f"server did not start: {line!r}\n{self.log.read_text(errors='replace')[-2000:]}")
        self.port = int(line.rsplit(":", 1)[1])

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """A crash (SIGKILL): no goodbye to anyone."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def terminate(self) -> int:
        """A graceful stop (SIGTERM); the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(10)

    def close(self) -> None:
        self.kill()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.unlink(missing_ok=True)
        shutil.rmtree(self.data, ignore_errors=True)
