"""A room as the server describes it: plain state fed by the server's messages, no Textual, no I/O.

``RoomModel`` holds what the room frames say (phase, racers, rematch votes, settings, the
server's clock) and answers questions about it (may I ready, am I racing, who wants a rematch).
The race controller (client/race/controller.py) feeds it and draws the screen from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TypeVar

from i18n import _
from i18n.rules_help import preset_title
from protocol.enums import EndReason, Phase, Role, Status
from protocol.messages import (
    Countdown,
    Matching,
    Members,
    Moved,
    Progress,
    Racer,
    RatingNotice,
    Result,
    RoomState,
    Standing,
    Started,
    Watched,
)
from seahaven import preset

from ..net.clock import ServerClock, now_ms
from ..text.rating_text import with_change
from ..text.words import bot_name, deal_label, grade_word

R = TypeVar("R", Racer, Standing)


def said(racer: R) -> R:
    """A racer as this client says them: a bot's name in the player's language."""
    return replace(racer, name=bot_name(racer.name)) if racer.bot else racer


class RoomModel:
    """One room on one connection, as the last frames described it."""

    def __init__(
        self,
        state: RoomState,
        *,
        created: bool = False,
        deal_asked: str | None = None,
        ratings: Mapping[str, RatingNotice] | None = None,
    ) -> None:
        self.created = created
        """This client opened the room (only the creator is asked to pass the code on)."""
        self.deal_asked = deal_asked
        """The deal the creator asked for (the server names it only at the start)."""
        self.ratings: Mapping[str, RatingNotice] = ratings if ratings is not None else {}
        """My ratings by preset, as the server's last ``rating`` said (this run of the client)."""
        self.clock = ServerClock()
        self.racers: dict[str, Racer] = {}
        self.rematch: set[str] = set()
        self.phase = Phase(state.phase)
        self.deal: str | None = None
        self.race_number = 0
        """Races started while in this room (a room frame mid-race counts as one)."""
        self.starts_at: int | None = None
        self.started_at: int | None = None
        self.ends_at: int | None = None
        self.standings: tuple[Standing, ...] = ()
        self.reason: EndReason | None = None
        self.histories: tuple[Watched, ...] = ()
        """Every racer's moves at the end of the race (the post-race review)."""
        self.race_id: str | None = None
        """The race just over on record (its ``result``'s): what a challenge names."""
        self.matching: Matching | None = None
        """Quick match looks for a partner for us (while we wait alone), since ``matching_at``."""
        self.matching_at = 0
        self.code = state.room
        self.apply_state(state)

    # -- what the server says -------------------------------------------------------

    def apply_state(self, state: RoomState) -> bool:
        """The whole room (join, reconnect, rematch); True if this starts a new race's wait."""
        self.state = state
        self.me = state.you
        if state.room != self.code:  # quick match moved us to a partner's room: the wait is over
            self.matching = None
        self.code = state.room
        self.preset = state.preset
        self.role = Role(state.role)
        self.seats = state.seats
        self.undo = state.undo
        self.hints = state.hints
        self.clock.sync(state.server_time)
        self.racers = {r.player: said(r) for r in state.racers}
        self.rematch = set(state.rematch)
        self.spectators = state.spectators
        phase = Phase(state.phase)
        rematch = phase in (Phase.WAITING, Phase.COUNTDOWN) and self.phase in (Phase.RACING, Phase.FINISHED)
        if phase in (Phase.RACING, Phase.FINISHED) and self.race_number == 0:
            self.race_number = 1
        self.phase = phase
        self.starts_at = state.starts_at if phase == Phase.COUNTDOWN else None
        self.started_at = state.started_at
        self.ends_at = (
            state.started_at + state.time_limit * 1000 if state.started_at is not None and state.time_limit else None
        )
        if state.deal is not None or phase in (Phase.WAITING, Phase.COUNTDOWN):
            self.deal = state.deal
        if phase == Phase.FINISHED:
            self.standings = tuple(said(s) for s in state.standings)
            self.reason = end_reason(state)
            if state.watching:
                self.histories = state.watching
        else:
            self.standings, self.reason, self.histories, self.race_id = (), None, (), None
        return rematch

    def apply_matching(self, matching: Matching) -> None:
        self.matching, self.matching_at = matching, now_ms()

    def match_wait(self, now: int) -> tuple[int, int | None] | None:
        """While quick match looks for a partner for us (we wait alone): how long we have waited
        (ms) and the rating window now (None: anyone may race us now)."""
        matching = self.matching
        if matching is None or self.phase != Phase.WAITING or list(self.racers) != [self.me]:
            return None
        since = max(0, now - self.matching_at)
        waited = matching.waited_ms + since
        if waited >= matching.anyone_after_ms:
            return waited, None
        return waited, matching.window + matching.widens * since // 1000

    def apply_members(self, members: Members) -> None:
        self.racers = {r.player: said(r) for r in members.racers}
        self.rematch = set(members.rematch)
        self.spectators = members.spectators

    def apply_countdown(self, countdown: Countdown) -> None:
        self.clock.sync(countdown.server_time)
        self.starts_at = countdown.starts_at
        self.phase = Phase.WAITING if countdown.starts_at is None else Phase.COUNTDOWN

    def apply_started(self, started: Started, progress: int) -> None:
        """The race began on ``started.deal``; every racer has ``progress`` cards home."""
        self.clock.sync(started.server_time)
        self.phase = Phase.RACING
        self.deal = started.deal
        self.race_number += 1
        self.starts_at = None
        self.started_at = started.started_at
        self.ends_at = started.ends_at
        self.standings, self.reason, self.histories, self.race_id = (), None, (), None
        for player, racer in self.racers.items():
            self.racers[player] = replace(racer, status=Status.RACING, progress=progress, moves=0, time_ms=None)

    def apply_progress(self, progress: Progress) -> None:
        racer = self.racers.get(progress.player)
        if racer is not None:
            self.racers[progress.player] = replace(
                racer,
                progress=progress.progress,
                moves=progress.moves,
                status=progress.status,
                time_ms=progress.time_ms,
            )

    def apply_moved(self, moved: Moved) -> None:
        """The answer to my own move: my state after it (a finish's time is the race time)."""
        racer = self.racers.get(self.me)
        if racer is not None:
            time_ms = moved.elapsed_ms if moved.status == Status.FINISHED else None
            self.racers[self.me] = replace(
                racer, progress=moved.progress, moves=moved.moves, status=moved.status, time_ms=time_ms
            )

    def apply_result(self, result: Result) -> None:
        self.phase = Phase.FINISHED
        self.starts_at = None
        self.standings = tuple(said(s) for s in result.standings)
        self.reason = EndReason(result.reason)
        self.race_id = result.race_id
        if result.histories:
            self.histories = result.histories
        for s in result.standings:
            racer = self.racers.get(s.player)
            if racer is not None:
                self.racers[s.player] = replace(
                    racer, status=s.status, progress=s.progress, moves=s.moves, time_ms=s.time_ms
                )

    # -- questions --------------------------------------------------------------------

    @property
    def spectating(self) -> bool:
        return self.role == Role.SPECTATOR

    @property
    def limit_ms(self) -> int | None:
        return self.state.time_limit * 1000 if self.state.time_limit else None

    def my_status(self) -> Status | None:
        me = self.racers.get(self.me)
        return Status(me.status) if me is not None else None

    def can_ready(self) -> bool:
        return self.role == Role.RACER and self.phase in (Phase.WAITING, Phase.COUNTDOWN)

    def racing_now(self) -> bool:
        return self.role == Role.RACER and self.phase == Phase.RACING and self.my_status() == Status.RACING

    def stuck_now(self) -> bool:
        return self.role == Role.RACER and self.phase == Phase.RACING and self.my_status() == Status.STUCK

    def rematch_wanted_by(self) -> list[str]:
        """The names of the others who asked for a rematch."""
        return [r.name for p, r in self.racers.items() if p in self.rematch and p != self.me]

    def final_ms(self, *, live: bool = False) -> int | None:
        """The race's length on the clock once it is over: the winner's time; at the time limit,
        the limit. With no finisher (all resigned or stuck) the race ended when the result came:
        ``live`` (it just came) the race time now on the server's clock, else (a room frame
        afterwards says no more) the longest time on record. A non-finisher's ``time_ms`` is
        their last move's, never the end of the race."""
        if self.reason == EndReason.WON and self.standings and self.standings[0].time_ms is not None:
            return self.standings[0].time_ms
        limit = self.limit_ms
        if self.reason == EndReason.TIME_LIMIT and limit is not None:
            return limit
        if live and self.started_at is not None:
            now = max(0, self.clock.now() - self.started_at)
            return min(now, limit) if limit is not None else now
        times = [s.time_ms for s in self.standings if s.time_ms is not None]
        return max(times, default=None)

    def settings_lines(self) -> list[str]:
        """The room's settings for the waiting room."""
        state = self.state
        limit = (
            _("{n} min").format(n=state.time_limit // 60) if state.time_limit and state.time_limit % 60 == 0 else None
        )
        if state.time_limit and limit is None:
            limit = _("{n} s").format(n=state.time_limit)
        lines = [f"{preset_title(preset(self.preset).title)} · {self.deal_asked or deal_label(self.deal)}"]
        if state.daily:
            lines.append(_("the daily deal of {date}").format(date=state.daily))
        elif self.deal_asked is None and self.deal is None:  # the server picks the deal
            grade = (
                _("a winnable {grade} deal").format(grade=grade_word(state.deal_grade))
                if state.deal_grade
                else _("a winnable deal")
            )
            lines.append(_("any deal: it may be unwinnable") if state.any_deal else grade)
        if state.commitment:  # docs/fairness.md: the deal is drawn from everyone's seeds at the start
            lines.append(_("drawn at the start · commitment {short}").format(short=state.commitment[:12]))
        settings = [
            _("time limit {limit}").format(limit=limit) if limit else _("no time limit"),
            _("undo on") if state.undo else _("undo off"),
            _("hints on") if state.hints else _("hints off"),
            _("told when lost") if state.lost_notice else "",
            "" if state.auto else _("every card by hand"),  # the room forbids auto-move
            _("public") if state.public else _("private"),
            _("rated") if state.rated else _("unrated"),
        ]
        lines.append(" · ".join(filter(None, settings)))
        mine = self.ratings.get(self.preset)
        if state.rated and mine is not None:
            lines.append(_("your rating here: {rating}").format(rating=with_change(mine)))
        return lines


def end_reason(state: RoomState) -> EndReason | None:
    """Why a finished room's race ended, as far as its frame tells (it does not say): a finisher
    won it; a racer still racing at the end was stopped by the time limit; else all were done."""
    statuses = {s.status for s in state.standings}
    if Status.FINISHED in statuses:
        return EndReason.WON
    if Status.RACING in statuses:
        return EndReason.TIME_LIMIT if state.time_limit else None
    return EndReason.ALL_DONE if statuses else None
