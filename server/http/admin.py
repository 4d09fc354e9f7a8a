"""The admin API (docs/admin.md): HTTP on its own port (``--admin-port``, loopback by default),
every request carrying ``Authorization: Bearer TOKEN`` (``--admin-token``).

A port of its own, not a path on the public one: the public port faces the internet through
the balancer, and the admin one need never be published (a firewall rule, or loopback, keeps it
private); one node's API also speaks for that node (its rooms, its connections, its drain).
Requests carry no body (the front door reads none): parameters go in the query string.

    GET  /rooms                      the live rooms: held here in full, the rest of the store by code
    GET  /connections                this node's connections: player, name, room, address
    GET  /bans                       the moderators' list
    POST /bans?name=|address=|network=|reserved=VALUE[&minutes=N][&reason=]   add an entry
    POST /bans/lift?key=KIND:VALUE   lift one
    POST /notice?text=               a notice to every connection on every node
    POST /players/{player}/kick[?reason=]   close that player's connection, wherever it is
    POST /rooms/{code}/close[?reason=]      close the room on every node
    POST /drain                      drain this node, then stop it

Every action is logged (``event=admin.*``) on the node that takes it.
"""

from __future__ import annotations

import hmac
import urllib.parse
from http import HTTPStatus
from typing import Any

from server.http.reply import HttpRequest, Reply, json_reply
from server.http.router import Match, NotAllowed, Router
from server.logs import audit
from server.moderation.actions import Moderation
from server.shell.drain import Drain
from server.shell.guard import ConnectionGuard
from server.shell.held import HeldRoom
from server.shell.sessions import SessionTable
from server.store.base import StoreError
from server.store.interfaces import RoomLog


class AdminRoutes:
    """Answers the admin port's requests (``await routes(request)``), never raising."""

    def __init__(
        self,
        token: str,
        moderation: Moderation,
        drain: Drain,
        rooms: dict[str, HeldRoom],
        table: SessionTable,
        guard: ConnectionGuard,
        store: RoomLog,
    ) -> None:
        self.token = token
        self.moderation = moderation
        self.drain = drain
        self.rooms = rooms
        self.table = table
        self.guard = guard
        self.store = store
        self.router = Router()
        self.router.add(["GET"], "/rooms", self.list_rooms)
        self.router.add(["GET"], "/connections", self.list_connections)
        self.router.add(["GET"], "/bans", self.list_bans)
        self.router.add(["POST"], "/bans", self.ban)
        self.router.add(["POST"], "/bans/lift", self.lift)
        self.router.add(["POST"], "/notice", self.notice)
        self.router.add(["POST"], "/players/{player}/kick", self.kick)
        self.router.add(["POST"], "/rooms/{code}/close", self.close_room)
        self.router.add(["POST"], "/drain", self.start_drain)

    async def __call__(self, request: HttpRequest) -> Reply:
        given = request.header("authorization") or ""
        if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
            audit("admin.refused", peer=request.peer, path=request.path)
            return _error(HTTPStatus.UNAUTHORIZED, "unauthorized", "send Authorization: Bearer TOKEN").with_headers(
                ("WWW-Authenticate", "Bearer")
            )
        found = self.router.match(request.method, request.path)
        if isinstance(found, NotAllowed):
            return _error(HTTPStatus.METHOD_NOT_ALLOWED, "method-not-allowed", f"{request.method} is not allowed here")
        if not isinstance(found, Match):
            return _error(HTTPStatus.NOT_FOUND, "not-found", f"no route {request.path}")
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(request.query, keep_blank_values=True).items()}
        params = {k: urllib.parse.unquote(v) for k, v in found.params.items()} | query
        try:
            return await found.handler(request, params)
        except ValueError as exc:
            return _error(HTTPStatus.BAD_REQUEST, "bad-request", str(exc))
        except StoreError as exc:
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "store-unavailable", str(exc))

    # -- reading ------------------------------------------------------------------------------

    async def list_rooms(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        held = [_room_view(h) for h in self.rooms.values()]
        elsewhere = sorted(set(await self.store.room_ids()) - self.rooms.keys())
        return json_reply(HTTPStatus.OK, {"held_here": held, "elsewhere": elsewhere})

    async def list_connections(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        connections = [
            {"player": s.player, "name": s.name, "room": s.room, "address": self.guard.address(s.conn)}
            for s in self.table.by_token.values()
            if s.conn is not None
        ]
        return json_reply(HTTPStatus.OK, {"connections": connections, "status": self.drain.status()})

    async def list_bans(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        await self.moderation.book.refresh()
        entries = [e.view() for e in self.moderation.book.entries.values()]
        return json_reply(HTTPStatus.OK, {"bans": entries})

    # -- acting ---------------------------------------------------------------------------------

    async def ban(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        kinds = [k for k in ("name", "address", "network", "reserved") if k in params]
        if len(kinds) != 1:
            raise ValueError("give one of name, address, network or reserved")
        minutes = params.get("minutes")
        seconds = None if minutes is None else float(minutes) * 60
        if seconds is not None and seconds <= 0:
            raise ValueError("minutes must be above 0 (leave it out: until lifted)")
        entry = await self.moderation.ban(kinds[0], params[kinds[0]], seconds, params.get("reason", ""))
        return json_reply(HTTPStatus.OK, entry.view())

    async def lift(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        key = params.get("key")
        if not key:
            raise ValueError("give the entry's key, e.g. key=name:bob")
        return json_reply(HTTPStatus.OK, {"lifted": await self.moderation.lift(key)})

    async def notice(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        text = params.get("text", "").strip()
        if not 1 <= len(text) <= 300:
            raise ValueError("text: 1 to 300 characters")
        await self.moderation.notice(text)
        return json_reply(HTTPStatus.OK, {"sent": text})

    async def kick(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        await self.moderation.kick(params["player"], params.get("reason", ""))
        return json_reply(HTTPStatus.OK, {"kicked": params["player"]})

    async def close_room(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        entry = await self.moderation.close_room(params["code"], params.get("reason", ""))
        return json_reply(HTTPStatus.OK, {"closed": entry.value})

    async def start_drain(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        began = self.drain.begin("admin")
        audit("admin.drain", began=began)
        return json_reply(HTTPStatus.ACCEPTED, {"draining": True, "began": began})


def _room_view(held: HeldRoom) -> dict[str, Any]:
    room = held.room
    return {
        "room": room.code,
        "phase": str(room.phase),
        "racers": [
            {
                "player": p,
                "name": seat.name,
                "status": str(seat.status),
                "moves": seat.moves,
                "connected": seat.connected,
            }
            for p, seat in room.seats.items()
            if not seat.left
        ],
        "spectators": sorted(room.spectators),
        "here": sorted(held.visitors),
    }


def _error(status: HTTPStatus, code: str, message: str) -> Reply:
    return json_reply(status, {"error": {"code": code, "message": message}})
