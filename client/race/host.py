"""What a room's controller asks of the App that hosts it (``RaceHost``; client/apps/app.py's
``RaceApp`` implements it), and what the App asks back of a room it races again from
(``AgainRoom``): each side sees the other through the narrow interface it uses."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol

from ..data.stats import RaceRecord
from ..records.records_api import Records
from ..screens.race_screen import RaceScreen
from .room_model import RoomModel


class AgainRoom(Protocol):
    """A room whose people the App asks the server to race again (``race_again``)."""

    model: RoomModel

    def again_refused(self, error: BaseException) -> None:
        """The server refused the race again (or did not answer)."""


class RaceHost(Protocol):
    """What the controller needs of the App: show screens, run tasks, go back to the lobby."""

    async def show_race_screen(self, screen: RaceScreen) -> None: ...

    def start_task(self, work: Coroutine[Any, Any, None], name: str) -> None: ...

    def back_to_lobby(self, message: str | None = None, kind: str = "info") -> None: ...

    def race_over(self, record: RaceRecord) -> None:
        """A race this player took part in ended (for the statistics)."""

    def records(self) -> Records:
        """The server's read API (races on record)."""

    def race_ghost(self, challenge: str) -> None:
        """From the lobby: race the run of ``challenge`` (a ghost challenge's code) in a new room."""

    def web_link(self, path: str) -> str:
        """The full web address of a server path (``/c/CODE``), to paste in a browser."""

    def offer_deal(self, code: str) -> None:
        """In the lobby's New room form: deal ``code``, to race it again."""

    def why_no_invitations(self) -> str | None:
        """Why this player cannot invite anyone (anonymous, no friends on this server), in words;
        None: they can."""

    def race_again(self, room: AgainRoom) -> None:
        """Ask the server for a new room and deal with the people of ``room``'s race (``race_again``);
        a refusal comes back to ``room.again_refused``."""

    def invited_to(self, room: str) -> list[str]:
        """Whom I invited to ``room`` who has not answered yet, by name."""
