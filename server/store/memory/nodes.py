"""``Nodes`` in memory: the beats, where members' connections are, the due rooms."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.base import DEAD_NODES_KEPT, check_count, check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryNodes"]


class MemoryNodes(MemoryBase):
    """``Nodes`` in memory: the beats, where members' connections are, the due rooms."""

    def beat(self, node: str, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("beat", lambda: self._beat(node, ttl))

    def _beat(self, node: str, ttl: float) -> None:
        self._beats[node] = self._now() + ttl

    def leave(self, node: str) -> Awaitable[None]:
        return self._run("leave", lambda: self._leave(node))

    def _leave(self, node: str) -> None:
        if node in self._beats:
            self._beats[node] = self._now()

    def alive(self) -> Awaitable[set[str]]:
        return self._run("alive", lambda: self._nodes(alive=True))

    def dead(self) -> Awaitable[set[str]]:
        return self._run("dead", lambda: self._nodes(alive=False))

    def _nodes(self, *, alive: bool) -> set[str]:
        now = self._now()
        self._beats = {node: deadline for node, deadline in self._beats.items() if deadline > now - DEAD_NODES_KEPT}
        return {node for node, deadline in self._beats.items() if (deadline > now) == alive}

    def locate(self, room: str, player: str, node: str, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("locate", lambda: self._locate(room, player, node, ttl))

    def _locate(self, room: str, player: str, node: str, ttl: float) -> None:
        now = self._now()
        entry = self._live(self._where, room, now)
        where: dict[str, str] = {} if entry is None else entry.value
        where[player] = node
        self._where[room] = Timed(where, now + ttl)
        self._placed.setdefault(node, set()).add(room)

    def set_due(self, room: str, at: int | None) -> Awaitable[None]:
        return self._run("set_due", lambda: self._set_due(room, at))

    def _set_due(self, room: str, at: int | None) -> None:
        if at is None:
            self._rooms_due.pop(room, None)
        else:
            self._rooms_due[room] = at

    def claim_due(self, now: int, lease: int, count: int) -> Awaitable[list[str]]:
        check_count(count)
        return self._run("claim_due", lambda: self._claim_due(now, lease, count))

    def _claim_due(self, now: int, lease: int, count: int) -> list[str]:
        due = sorted((at, room) for room, at in self._rooms_due.items() if at <= now)[:count]
        for _, room in due:
            self._rooms_due[room] = now + lease
        return [room for _, room in due]

    def hand_over(self, node: str, now: int) -> Awaitable[int]:
        return self._run("hand_over", lambda: self._hand_over(node, now))

    def _hand_over(self, node: str, now: int) -> int:
        rooms = self._placed.pop(node, set())
        for room in rooms:
            self._rooms_due[room] = min(self._rooms_due.get(room, now), now)
        return len(rooms)

    def located(self, room: str) -> Awaitable[dict[str, str]]:
        return self._run("located", lambda: self._located(room))

    def _located(self, room: str) -> dict[str, str]:
        entry = self._live(self._where, room, self._now())
        return {} if entry is None else dict(entry.value)
