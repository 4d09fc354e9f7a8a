"""What a room's screen says: the lock reason, the cover over the cards, the racers panel, the
title, the results' headline and rows. Pure functions of the room (``RoomModel``), a spectator's
boards (``Boards``) and a few facts about the screen; no Textual."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from i18n import N_, _, ngettext
from i18n.rules_help import preset_title
from protocol.enums import EndReason, Phase, Status
from protocol.messages import Racer, Standing
from seahaven import preset

from ..board.places import safe_count
from ..screens.friends import names_and
from ..screens.results import ResultRow
from ..text.rating_text import RatingBook, beside_my_name
from ..text.words import ordinal, status_word
from ..widgets.rivals import DID_NOT_FINISH, RacerView, format_ms
from .room_model import RoomModel
from .spectating import Boards

OUT_OF_RACE: Final = {
    Status.STUCK: N_("No legal move is left, and undo is off: you are out of this race"),
    Status.RESIGNED: N_("You resigned this race"),
    Status.FORFEIT: N_("You were away too long: the race went on without you"),
    Status.FINISHED: N_("All 52 cards home: you finished!"),
}


@dataclass(frozen=True)
class Seen:
    """What the screen shows now, besides the model: the player's own board and the results."""

    progress: int
    """Cards home on the player's (optimistic) board."""
    actions: int
    """Moves and undos played on it."""
    won: bool
    """The board is solved (the screen shows its own banner)."""
    results_open: bool
    asked_rematch: bool
    now: int = 0
    """The local clock (ms), for what widens with time (the quick match's window)."""
    safe: int = 0
    """Cards that could go home safely now on the player's board (client/board/places.py safe_count)."""
    ghost: tuple[str, ...] = ()
    """Before a ghost race: whose run it is, its time to beat, who raced it (``ghost_lines``)."""
    invited: tuple[str, ...] = ()
    """Whom I invited to this waiting room who has not answered yet (names)."""


def lock_reason(model: RoomModel, *, reconnecting: bool) -> str | None:
    """Why the board refuses input now, or None when the player may move."""
    if reconnecting:
        return _("Connection lost: reconnecting…")
    if model.spectating:
        return _("Spectating: only racers move")
    if model.phase == Phase.COUNTDOWN:
        return _("The race starts in a moment: the cards show at the start")
    if model.phase == Phase.WAITING and model.my_status() == Status.READY:
        return _("The race has not started: you are ready, waiting for the others")
    if model.phase == Phase.WAITING:
        return _("The race has not started: r when you are ready")
    if model.phase == Phase.FINISHED:
        return _("The race is over")
    status = model.my_status()
    if status == Status.STUCK and model.undo:
        return None  # only an undo is possible, and it gets the racer going again
    if status is not None and status != Status.RACING:
        out = OUT_OF_RACE.get(status)
        return _(out) if out is not None else _("You are {status}").format(status=status_word(status))
    return None


def welcome_back(model: RoomModel) -> tuple[str, str]:
    """What a restarted client says back in its room, and how (``flash``'s kind): a seat the
    server gave up while we were away is said to be lost, not welcomed back to."""
    if model.my_status() == Status.FORFEIT:
        if model.phase == Phase.RACING:
            text = _(
                "Back in room {code}, but you were away too long: you lost your seat in this race"
                " (you watch the race to its end)"
            )
        else:
            text = _(
                "Back in room {code}, but you were away too long: you lost your seat in this race (the race is over)"
            )
        return text.format(code=model.code), "error"
    return _("Welcome back to room {code}").format(code=model.code), "good"


RIVAL_NEWS: Final = {
    Status.RESIGNED: N_("{name} resigned"),
    Status.FORFEIT: N_("{name} was away too long and forfeited"),
}


def rival_news(before: Mapping[str, Racer], model: RoomModel) -> str:
    """What happened to the other racers since ``before`` that a player wants told: a rival
    who resigned or forfeited during the race, or left the room ("" when nothing did)."""
    news: list[str] = []
    for player, racer in before.items():
        if player == model.me:
            continue
        now = model.racers.get(player)
        if now is None:
            news.append(_("{name} left the room").format(name=racer.name))
        elif now.status != racer.status and now.status in RIVAL_NEWS and model.phase == Phase.RACING:
            news.append(_(RIVAL_NEWS[Status(now.status)]).format(name=now.name))
    return " · ".join(news)


def racer_views(model: RoomModel, spectate: Boards, seen: Seen, book: RatingBook | None = None) -> list[RacerView]:
    """You first, then the others in seat order (``book``: the others' ratings)."""
    views: list[RacerView] = []
    for player, racer in model.racers.items():
        progress, moves = racer.progress, racer.moves
        you = player == model.me
        if you and model.phase == Phase.RACING:
            progress, moves = seen.progress, seen.actions  # optimistic
        watched = player == spectate.watched and player in spectate.boards
        over = model.phase == Phase.FINISHED and racer.status == Status.RACING
        # Safe cards are counted on a board this client holds: the player's own, and every racer's
        # for a spectator. A racer is never sent a rival's moves (docs/protocol.md, progress), so
        # a rival's panel line has the cards home only.
        safe = 0
        if model.phase == Phase.RACING and racer.status == Status.RACING:
            board = spectate.boards.get(player) if model.spectating else None
            safe = seen.safe if you else safe_count(board) if board is not None else 0
        view = RacerView(
            racer.name,
            progress,
            moves,
            DID_NOT_FINISH if over else racer.status,
            racer.time_ms,
            racer.connected,
            you,
            watched,
            racer.bot,
            racer.hints,
            racer.ghost,
            ratings_beside(model, player, book),
            safe,
        )
        if you:
            views.insert(0, view)
        else:
            views.append(view)
    return views


def title(model: RoomModel, spectate: Boards) -> str:
    """The status line's title: the room and rules, or whose board a spectator watches."""
    watched = spectate.watched
    racer = model.racers.get(watched) if watched is not None else None
    if model.spectating and racer is not None and watched in spectate.boards:
        return _("Watching {name} · Room {code}").format(name=racer.name, code=model.code)  # it fits at 80 columns
    rules = preset_title(preset(model.preset).title).split(",")[0]  # the rules in full: ? help
    return _("Room {code} · {rules}").format(code=model.code, rules=rules)


def cover(model: RoomModel, spectate: Boards, seen: Seen) -> tuple[str, ...] | None:
    """The message shown instead of the cards (empty: the cards; None: leave it as it is)."""
    n, seats = len(model.racers), model.seats
    ready = sum(1 for r in model.racers.values() if r.status == Status.READY)
    if model.phase == Phase.WAITING:
        lines = [_("Room {code}").format(code=model.code), *model.settings_lines(), *seen.ghost]
        if seen.invited:  # race again, or a friend invited: whom the room waits for
            lines.append(_("Invitation sent to {names}").format(names=names_and(list(seen.invited))))
        elif model.created and n < seats:  # a full room needs nobody else
            lines.append(_("Share this code: your friend joins with it"))
        lines.append("")
        if model.spectating:
            lines.append(_("You are watching: the race starts when every racer is ready"))
        elif model.my_status() == Status.READY:
            lines.append(_("You are ready ✓ · waiting for the others"))
            lines.append(_("r: not ready after all"))
        else:
            lines.append(_("Press r when you are ready"))
        # Counted by n, not by the seats: "1 joueur sur 2" (English says racers either way).
        seated = ngettext("{n} of {seats} racers", "{n} of {seats} racers", n).format(n=n, seats=seats)
        readiness = ngettext("{ready} ready", "{ready} ready", ready).format(ready=ready)  # "1 pronto", "2 pronti"
        lines.append(f"{seated} · {readiness}" + (" · " + _("2 needed") if n < 2 else ""))
        lines.extend(match_lines(model, seen.now))
        lines.append(_("l: leave the room"))
        return tuple(lines)
    if model.phase == Phase.COUNTDOWN:
        return ()
    spectating = (
        _("Spectating room {code}").format(code=model.code),
        _("the racers' progress is on the right"),
        _("l: leave the room"),
    )
    if model.spectating and model.phase == Phase.RACING:
        watched = spectate.watched
        if watched in spectate.stale:
            name = model.racers[watched].name if watched in model.racers else _("this racer")
            return (
                _("{name}'s board is out of step").format(name=name),
                _("catching up with the server…"),
                _("[ and ]: another racer"),
            )
        if spectate.watched_board() is not None:
            return ()  # the watched racer's board
    if model.spectating and (model.phase != Phase.FINISHED or seen.results_open):
        return spectating  # no board to show (an older server sends no moves), only the progress
    if model.phase == Phase.RACING and seen.won:
        return None  # the screen's own "all 52 cards home" banner
    if model.phase == Phase.FINISHED and seen.results_open:
        return None
    if model.phase == Phase.FINISHED:
        present = [r for r in model.racers.values() if r.connected]
        votes = [r.name for p, r in model.racers.items() if p in model.rematch]
        if seen.asked_rematch or model.spectating or votes:
            if len(present) < 2:
                return (_("Rematch?"), _("Nobody else is left in the room"), _("l: back to the lobby"))
            waiting = [r.name for p, r in model.racers.items() if r.connected and p not in model.rematch]
            return (
                _("Rematch?"),
                ngettext("{votes} of {n} racers wants one", "{votes} of {n} racers want one", len(votes)).format(
                    votes=len(votes), n=len(present)
                ),
                _("waiting for {names}").format(names=", ".join(waiting)) if waiting else _("starting…"),
                _("r: rematch · v: review the race · l: back to the lobby")
                if not seen.asked_rematch and not model.spectating
                else _("v: review the race · l: back to the lobby"),
            )
    return ()  # the final board (the message line says the keys)


def match_lines(model: RoomModel, now: int) -> tuple[str, ...]:
    """What quick match is doing for a racer waiting alone: the rating window, widening."""
    wait = model.match_wait(now)
    if wait is None or model.matching is None:
        return ()
    waited, window = wait
    if window is None:
        return (_("Looking for a racer: anyone now"), _("waited {seconds} s").format(seconds=waited // 1000))
    anyone = model.matching.anyone_after_ms // 1000
    return (
        _("Looking for a racer near {rating} ±{window}").format(rating=model.matching.rating, window=window),
        _("waited {seconds} s · anyone from {anyone} s").format(seconds=waited // 1000, anyone=anyone),
    )


def headline(reason: str | None, standings: tuple[Standing, ...], me: str) -> str:
    """The results' first line, from the player's point of view."""
    if not standings:
        return _("Race over")
    first = standings[0]
    mine = first.player == me
    # Level on cards and on the tie-break time: the places only follow the seats, nobody got further.
    tied = len(standings) > 1 and (standings[1].progress, standings[1].time_ms) == (first.progress, first.time_ms)
    n = first.progress
    if tied and reason == EndReason.TIME_LIMIT:
        return ngettext("Time is up: a tie at {n} card home", "Time is up: a tie at {n} cards home", n).format(n=n)
    if tied and reason == EndReason.ALL_DONE:
        return ngettext(
            "Nobody finished: a tie at {n} card home", "Nobody finished: a tie at {n} cards home", n
        ).format(n=n)
    if reason == EndReason.WON:
        return _("You win!") if mine else _("{name} wins").format(name=first.name)
    if reason == EndReason.TIME_LIMIT:
        return (
            _("Time is up: you got furthest") if mine else _("Time is up: {name} got furthest").format(name=first.name)
        )
    if reason == EndReason.ALL_DONE:
        if mine:
            return _("Nobody finished: you got furthest")
        return _("Nobody finished: {name} got furthest").format(name=first.name)
    return _("Race abandoned")


def ghost_lines(challenge: Mapping[str, Any]) -> tuple[str, ...]:
    """A ghost challenge (the records' document) before its race: whose run and its time to
    beat, then how often it was raced and the best time against it."""
    name, time_ms = str(challenge["name"]), challenge.get("time_ms")
    run = (
        _("A ghost: {name}'s run, {time} to beat").format(name=name, time=format_ms(time_ms))
        if isinstance(time_ms, int)
        else _("A ghost: {name}'s run, which did not finish").format(name=name)
    )
    results = [r for r in challenge.get("results", ()) if isinstance(r, Mapping)]
    finished = [r for r in results if isinstance(r.get("time_ms"), int)]
    if not results:
        return (run, _("Nobody has raced it yet"))
    raced = ngettext("Raced {n} time", "Raced {n} times", len(results)).format(n=len(results))
    if not finished:
        return (run, raced)
    best = min(finished, key=lambda r: int(r["time_ms"]))
    fastest = _("fastest {name} {time}").format(name=best["name"], time=format_ms(int(best["time_ms"])))
    return (run, f"{raced} · {fastest}")


def last_race(model: RoomModel) -> str | None:
    """The race just over in a line, for when the next one takes its screen at once (an arena's):
    who won, and where this player came. None if this room has no finished race."""
    if model.phase != Phase.FINISHED or not model.standings:
        return None
    said = headline(model.reason, model.standings, model.me)
    mine = next((s for s in model.standings if s.player == model.me), None)
    if mine is None:
        return said
    place = _("{place} of {n}").format(place=ordinal(mine.place), n=len(model.standings))
    return _("{headline} · you: {place}").format(headline=said, place=place)


def ratings_beside(model: RoomModel, player: str, book: RatingBook | None) -> str:
    """The rating beside ``player``'s name: mine from the ``rating`` event (its change only in the
    room of its race), the others' from ``book``."""
    if player == model.me:
        return beside_my_name(model.ratings, model.preset, model.race_id)
    return book.text(player, model.preset) if book is not None else ""


def result_rows(standings: Iterable[Standing], me: str, shown: Mapping[str, str] | None = None) -> list[ResultRow]:
    """The standings for the results view: a time only for those who finished; ``shown``: the
    ratings beside the names, by player."""
    return [
        ResultRow(
            s.place,
            s.name,
            DID_NOT_FINISH if s.status == Status.RACING else s.status,
            s.progress,
            s.moves - 2 * s.undos,  # an undo takes a move back: the moves on the board, undos said apart
            s.time_ms if s.status == Status.FINISHED else None,
            s.player == me,
            s.bot,
            s.hints,
            s.ghost,
            (shown or {}).get(s.player, ""),
            s.undos,
        )
        for s in standings
    ]
