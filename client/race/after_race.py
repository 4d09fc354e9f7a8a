"""After a race: racing the same people again on a new deal (``race_again``), a ghost challenge
of my run, and the review of the race just over.

``AfterRace`` is the race controller's part for them (client/race/controller.py:
``RaceController`` derives from it); what it uses of the controller is declared at the top of
the class.
"""

from __future__ import annotations

import logging
from functools import partial

from i18n import _
from protocol.enums import Phase, Role
from protocol.errors import ErrorCode
from protocol.messages import GHOST_PREFIX, Challenge, ChallengeRequest, Leave, Watched

from ..net.connection import ConnectionLost, ServerError
from ..net.errors import error_text, problem
from ..net.outbox import Requester
from ..records.verification import verdict
from ..screens.friends import names_and
from ..screens.race_screen import RaceScreen
from ..screens.review import ReviewScreen
from .host import RaceHost
from .room_model import RoomModel
from .spectating import Boards

log = logging.getLogger("seahaven.client")


class AfterRace:
    """Race again, challenge, review: what a room offers once its race is over."""

    host: RaceHost
    conn: Requester
    model: RoomModel
    spectate: Boards
    screen: RaceScreen
    closed: bool
    asked_again: bool
    """``race_again`` sent, no answer yet."""
    challenge_code: str | None
    """The last ghost challenge made of my run here (shown to the player to pass on)."""

    # -- what the controller provides -------------------------------------------------

    @property
    def code(self) -> str:
        raise NotImplementedError

    def _say(self, text: str, kind: str = "info") -> None:
        raise NotImplementedError

    def _render(self) -> None:
        raise NotImplementedError

    # -- race again (race_again): a new room and deal, the people just raced invited ---------

    def _people(self) -> list[str]:
        """The names of the other people seated in the room (bots and ghosts are not invited)."""
        model = self.model
        return [r.name for p, r in model.racers.items() if p != model.me and not r.bot and not r.ghost]

    def why_not_race_again(self) -> str | None:
        """None: ``g`` races again now (a racer after the race, who raced people, and may invite);
        else why not, in words ("" where ``g`` means nothing: before the race's end, a spectator,
        asked already)."""
        model = self.model
        if model.phase != Phase.FINISHED or model.role != Role.RACER or self.asked_again or self.closed:
            return ""
        raced_people = any(s.player != model.me and not s.bot and not s.ghost for s in model.standings)
        if not raced_people:
            return error_text(ErrorCode.NOBODY_TO_INVITE, "")  # the catalog's words: no server message here
        if not self._people():
            return _("Everyone you raced has left the room: nobody is left to invite")
        return self.host.why_no_invitations()

    def can_race_again(self) -> bool:
        return self.why_not_race_again() is None

    def _again_line(self) -> str:
        """The results' line on ``g`` (empty: not offered)."""
        if not self.can_race_again():
            return ""
        return _("g: race {names} again in a new room, on a new deal").format(names=names_and(self._people()))

    def race_again(self) -> None:
        """``g`` after the race: a new room and deal, the people of this race invited to it."""
        why = self.why_not_race_again()
        if why is not None:
            if why:
                self._say(why, "error")
            return
        self.asked_again = True
        self._say(
            _("Asking the server for a new room: {names} will be invited").format(names=names_and(self._people()))
        )
        self.host.race_again(self)
        self._render()

    def again_refused(self, error: BaseException) -> None:
        """The server refused the race again (or did not answer): still in this room, said why."""
        self.asked_again = False
        if self.closed:
            return
        if isinstance(error, ServerError) and error.code == ErrorCode.NOBODY_TO_INVITE and self._people() == []:
            reason = _("Everyone you raced has left the room: nobody is left to invite")
        else:
            reason = problem(error)
        self._say(_("No race again: {reason}").format(reason=reason), "error")
        self._render()

    def invitations_changed(self, said: str | None = None) -> None:
        """My invitations to this room changed: the waiting room says whom it waits for (an answer:
        ``said``, as the note said it)."""
        if self.closed:
            return
        pending = self.host.invited_to(self.code)
        if said:
            self._say(said, "good")
        elif pending:
            self._say(_("Invitation sent to {names}").format(names=names_and(pending)), "good")
        self._render()

    def _ghost_challenge(self) -> str | None:
        """The challenge code of the ghost racing in this room, if one is (its id: GHOST_PREFIX + code)."""
        for player, racer in self.model.racers.items():
            if racer.ghost and player.startswith(GHOST_PREFIX):
                return player[len(GHOST_PREFIX) :]
        return None

    async def _race_ghost_again(self, challenge: str) -> None:
        try:
            await self.conn.request(Leave())
        except (ServerError, ConnectionLost, TimeoutError) as error:
            log.info("leave: %s", error)
        self.host.back_to_lobby()
        self.host.race_ghost(challenge)

    def challenge(self) -> None:
        """Make a ghost challenge of my run in the race just over: a code a friend races it by."""
        race = self.model.race_id
        if race is None or self.model.role != Role.RACER:
            self.screen.flash(_("Only a racer's finished race on record can be challenged"), "error")
            return
        self.screen.flash(_("Asking the server for a challenge code…"))
        self.host.start_task(self._challenge(race), "challenge")

    async def _challenge(self, race: str) -> None:
        try:
            made = await self.conn.request(ChallengeRequest(race_id=race))
        except ServerError as error:
            self._say(_("No challenge: {reason}").format(reason=error_text(error.code, error.message)), "error")
            return
        except (ConnectionLost, TimeoutError):
            self._say(_("No challenge: the server did not answer, try again"), "error")
            return
        if isinstance(made, Challenge) and not self.closed:
            self.challenge_code = made.challenge
            # The message line keeps to 80 columns; the web link, long, goes in a note that wraps.
            self._say(
                _("Challenge {code}: a friend types it into the lobby's Join").format(code=made.challenge), "good"
            )
            self.screen.notify(
                _("A friend races your run with code {code}, or in a browser at {link}").format(
                    code=made.challenge, link=self.host.web_link(made.link_path)
                ),
                title=_("Challenge {code}").format(code=made.challenge),
                timeout=60,
            )

    def review(self) -> None:
        """Step through the racers' moves of the race just over."""
        model = self.model
        if model.deal is None:
            return
        histories = self.histories()
        names = {p: r.name for p, r in model.racers.items()}
        names.update({s.player: s.name for s in model.standings})
        # On record: the server's moves, undos and times.
        records, race = self.host.records(), model.race_id
        fetch = partial(records.race, race) if race is not None else None
        check = partial(verdict, records, race) if race is not None else None
        analyse = partial(records.analysis, race) if race is not None else None
        self.screen.app.push_screen(
            ReviewScreen(model.deal, histories, names, first=model.me, fetch=fetch, check=check, analyse=analyse)
        )

    def histories(self) -> tuple[Watched, ...]:
        """Every racer's moves at the end: the server's, else (an older server) my own."""
        model = self.model
        if model.histories:
            return model.histories
        if model.role == Role.RACER:
            own = tuple(str(m) for m in self.screen.board.move_stack)
            return (Watched(player=model.me, history=own, actions=len(own)),)
        return tuple(
            Watched(player=p, history=tuple(str(m) for m in b.move_stack)) for p, b in self.spectate.boards.items()
        )
