"""Two histories of one room that part at an index, made one when they commute.

A stored log can lose its tail (an ``everysec`` power cut, a replica promoted before it got the last
writes) and another node, which never saw that tail, can append its own events at the same index.
The node that still holds the lost tail ("ours") then finds the stored log ("theirs" after the common
prefix) is not its own. The stored history stays (other nodes have built on it); ours is appended
after it when doing so keeps what every event meant:

- **No player in both.** An event naming a player (a move, an undo, a hint, a join, a ready change, a
  resignation, a forfeit, a rematch vote, a leave) is judged on that player's state: if both
  histories hold one for the same player, ours was judged on a state the merged log does not have.
  Presence (a connection dropped or back) is the exception: it only says where a racer's connection
  is, commutes with everything, and the node holding the connection records the racer back.
- **No race-wide event in theirs**, unless ours holds presence only: ours would come after a start,
  an end, a new deal or a countdown change it was judged before (two ends, a start against a leave).
- **A race-wide event in ours** only over theirs holding moves, undos, hints and presence: then our
  end (say) comes after their moves, and the standings it computes rank finishers by the server
  times stored in the moves, not by where they stand in the log.
- The merged log **replays**, every move judged again by the engine (``RoomCore.load``).

What fails these is :class:`Unmergeable`, with the reason: the stored history wins and ours is
dropped (the room path resyncs the members it holds: docs/durability.md).
"""

from __future__ import annotations

from server.rooms.events import CountdownSet, Created, Ended, Event, Hinted, Moved, NewDeal, Presence, Started, Undone

__all__ = ["RACE_WIDE", "Unmergeable", "merge"]

RACE_WIDE = (Created, CountdownSet, Started, Ended, NewDeal)
"""Events that change the race for everyone (they name no player)."""


class Unmergeable(ValueError):
    """The two histories cannot be one: the reason says why."""


def merge(ours: list[Event], theirs: list[Event]) -> list[Event]:
    """The events to append after ``theirs`` (stored) so that the log keeps ``ours`` (lost) too:
    ``ours`` itself when the two commute (see the module docstring); else :class:`Unmergeable`.
    The merged log's replay is the caller's check (it has the prefix)."""
    mine, others = _players(ours), _players(theirs)
    both = sorted(mine & others)
    if both:
        raise Unmergeable(f"both histories hold events of {', '.join(both)}")
    our_wide = [type(e).__name__ for e in ours if isinstance(e, RACE_WIDE)]
    their_wide = [type(e).__name__ for e in theirs if isinstance(e, RACE_WIDE)]
    if their_wide and not all(isinstance(e, Presence) for e in ours):
        theirs_named = ", ".join(their_wide)
        raise Unmergeable(f"the stored history holds {theirs_named}, which ours was judged before")
    if our_wide and not all(_commutes(e) for e in theirs):
        ours_named = ", ".join(our_wide)
        lifecycle = ", ".join(sorted({type(e).__name__ for e in theirs if not _commutes(e)}))
        raise Unmergeable(f"our {ours_named} against their {lifecycle}")
    return list(ours)


def _players(events: list[Event]) -> set[str]:
    """The players whose state the events were judged on (presence aside)."""
    return {player for e in events if not isinstance(e, Presence) and (player := getattr(e, "player", None))}


def _commutes(event: Event) -> bool:
    """A racer's own event that a race-wide event of the other history may follow."""
    return isinstance(event, Moved | Undone | Hinted | Presence)
