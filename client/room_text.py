"""What a room's screen says: the lock reason, the cover over the cards, the racers panel, the
title, the results' headline and rows. Pure functions of the room (``RoomModel``), a spectator's
boards (``Boards``) and a few facts about the screen; no Textual."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from protocol.enums import EndReason, Phase, Status
from protocol.messages import Racer, Standing
from seahaven import preset

from .rating_text import RatingBook, beside_my_name
from .results import ResultRow
from .rivals import DID_NOT_FINISH, RacerView
from .room_model import RoomModel
from .spectating import Boards

OUT_OF_RACE: Final = {
    Status.STUCK: "No legal move is left, and undo is off: you are out of this race",
    Status.RESIGNED: "You resigned this race",
    Status.FORFEIT: "You were away too long: the race went on without you",
    Status.FINISHED: "All 52 cards home: you finished!",
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


def lock_reason(model: RoomModel, *, reconnecting: bool) -> str | None:
    """Why the board refuses input now, or None when the player may move."""
    if reconnecting:
        return "Connection lost: reconnecting…"
    if model.spectating:
        return "Spectating: only racers move"
    if model.phase == Phase.COUNTDOWN:
        return "The race starts in a moment: the cards show at the start"
    if model.phase == Phase.WAITING and model.my_status() == Status.READY:
        return "The race has not started: you are ready, waiting for the others"
    if model.phase == Phase.WAITING:
        return "The race has not started: r when you are ready"
    if model.phase == Phase.FINISHED:
        return "The race is over"
    status = model.my_status()
    if status == Status.STUCK and model.undo:
        return None  # only an undo is possible, and it gets the racer going again
    if status is not None and status != Status.RACING:
        return OUT_OF_RACE.get(status, f"You are {status}")
    return None


def welcome_back(model: RoomModel) -> tuple[str, str]:
    """What a restarted client says back in its room, and how (``flash``'s kind): a seat the
    server gave up while we were away is said to be lost, not welcomed back to."""
    if model.my_status() == Status.FORFEIT:
        after = "you watch the race to its end" if model.phase == Phase.RACING else "the race is over"
        text = f"Back in room {model.code}, but you were away too long: you lost your seat in this race ({after})"
        return text, "error"
    return f"Welcome back to room {model.code}", "good"


RIVAL_NEWS: Final = {
    Status.RESIGNED: "{name} resigned",
    Status.FORFEIT: "{name} was away too long and forfeited",
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
            news.append(f"{racer.name} left the room")
        elif now.status != racer.status and now.status in RIVAL_NEWS and model.phase == Phase.RACING:
            news.append(RIVAL_NEWS[Status(now.status)].format(name=now.name))
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
        return f"Watching {racer.name} · Room {model.code}"  # short: it fits at 80 columns
    return f"Room {model.code} · {preset(model.preset).title.split(',')[0]}"  # the rules in full: ? help


def cover(model: RoomModel, spectate: Boards, seen: Seen) -> tuple[str, ...] | None:
    """The message shown instead of the cards (empty: the cards; None: leave it as it is)."""
    n, seats = len(model.racers), model.seats
    ready = sum(1 for r in model.racers.values() if r.status == Status.READY)
    if model.phase == Phase.WAITING:
        lines = [f"Room {model.code}", *model.settings_lines()]
        if model.created and n < seats:  # a full room needs nobody else
            lines.append("Share this code: your friend joins with it")
        lines.append("")
        if model.spectating:
            lines.append("You are watching: the race starts when every racer is ready")
        elif model.my_status() == Status.READY:
            lines.append("You are ready ✓ · waiting for the others")
            lines.append("r: not ready after all")
        else:
            lines.append("Press r when you are ready")
        lines.append(f"{n} of {seats} racers · {ready} ready" + (" · 2 needed" if n < 2 else ""))
        lines.extend(match_lines(model, seen.now))
        lines.append("l: leave the room")
        return tuple(lines)
    if model.phase == Phase.COUNTDOWN:
        return ()
    spectating = (f"Spectating room {model.code}", "the racers' progress is on the right", "l: leave the room")
    if model.spectating and model.phase == Phase.RACING:
        watched = spectate.watched
        if watched in spectate.stale:
            name = model.racers[watched].name if watched in model.racers else "this racer"
            return (f"{name}'s board is out of step", "catching up with the server…", "[ and ]: another racer")
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
                return ("Rematch?", "Nobody else is left in the room", "l: back to the lobby")
            waiting = [r.name for p, r in model.racers.items() if r.connected and p not in model.rematch]
            return (
                "Rematch?",
                f"{len(votes)} of {len(present)} racers want one",
                ("waiting for " + ", ".join(waiting)) if waiting else "starting…",
                "r: rematch · v: review the race · l: back to the lobby"
                if not seen.asked_rematch and not model.spectating
                else "v: review the race · l: back to the lobby",
            )
        return ("The race is over", "r: rematch · v: review the race · l: back to the lobby")
    return ()


def match_lines(model: RoomModel, now: int) -> tuple[str, ...]:
    """What quick match is doing for a racer waiting alone: the rating window, widening."""
    wait = model.match_wait(now)
    if wait is None or model.matching is None:
        return ()
    waited, window = wait
    if window is None:
        return ("Looking for a racer: anyone now", f"waited {waited // 1000} s")
    anyone = model.matching.anyone_after_ms // 1000
    return (
        f"Looking for a racer near {model.matching.rating} ±{window}",
        f"waited {waited // 1000} s · anyone from {anyone} s",
    )


def headline(reason: str | None, standings: tuple[Standing, ...], me: str) -> str:
    """The results' first line, from the player's point of view."""
    if not standings:
        return "Race over"
    first = standings[0]
    who = "you" if first.player == me else first.name
    if reason == EndReason.WON:
        return "You win!" if first.player == me else f"{first.name} wins"
    if reason == EndReason.TIME_LIMIT:
        return f"Time is up: {who} got furthest"
    if reason == EndReason.ALL_DONE:
        return f"Nobody finished: {who} got furthest"
    return "Race abandoned"


def ratings_beside(model: RoomModel, player: str, book: RatingBook | None) -> str:
    """The rating beside ``player``'s name: mine from the ``rating`` event, the others' from ``book``."""
    if player == model.me:
        return beside_my_name(model.ratings, model.preset)
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
            s.moves,
            s.time_ms if s.status == Status.FINISHED else None,
            s.player == me,
            s.bot,
            s.hints,
            s.ghost,
            (shown or {}).get(s.player, ""),
        )
        for s in standings
    ]
