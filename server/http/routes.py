"""Plain HTTP on the race server's port: every request that is not a WebSocket upgrade.

``HttpRoutes`` is what the front door (``front.py``) asks: one request in, one reply out, never
raising. Its table (``router.py``): ``/healthz``, ``/metrics``, the public API under ``/api/v1``
(``api.py``); then the browser client's files (``static.py``). On top of the table:

- HEAD is GET without the body (the door leaves it out); OPTIONS answers which methods a path
  takes, and for ``/api/v1`` is the CORS preflight; a known path asked with another method is
  405 with ``Allow``; an unknown path 404; a request with a body 413 (no route takes one).
- Under ``/api/v1`` every answer is JSON (errors in the API's one shape), carries
  ``Access-Control-Allow-Origin: *``, and first spends a token of the client's address
  (``ratelimit.py``): none left is 429 with ``Retry-After``. Elsewhere errors are plain text and
  nothing is rate-limited (load balancers' health checks, the page and its assets).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Final

from server.http.api import Api, LiveArenas, RecordsReader, api_error
from server.http.clients import ClientAddress
from server.http.ratelimit import AddressLimits
from server.http.reply import HttpRequest, Reply, text_reply
from server.http.router import Match, NotAllowed, Router
from server.http.static import static_response
from server.shell.clock import Clock, SystemClock
from server.shell.metrics import Metrics
from server.store.base import StoreError
from server.store.interfaces import Store

log = logging.getLogger("seahaven.http")

API: Final = "/api/v1/"
CORS: Final = (
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Expose-Headers", "ETag, Retry-After"),
)
PREFLIGHT: Final = (
    ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
    ("Access-Control-Allow-Headers", "If-None-Match"),
    ("Access-Control-Max-Age", "86400"),
)
STATIC_METHODS: Final = ("GET", "HEAD", "OPTIONS")


class HttpRoutes:
    """Answers the HTTP requests that are not WebSocket upgrades (``await routes(request)``).

    ``records`` is what the API reads (None: records are off, and ``/api/v1`` answers 503);
    ``clock`` the server's one clock (the rate limit's time); ``trusted_proxies`` the networks
    whose ``X-Forwarded-For`` names the client; ``limits`` the API's per-address rate limit."""

    def __init__(
        self,
        store: Store,
        metrics: Metrics,
        records: RecordsReader | None = None,
        *,
        clock: Clock | None = None,
        trusted_proxies: tuple[str, ...] = (),
        limits: AddressLimits | None = None,
        arenas: LiveArenas | None = None,
        refusing: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.store = store
        self.refusing = refusing
        """Why this node takes no new connections (a drain): ``/healthz`` then says so with 503."""
        self.metrics = metrics
        self.records = records
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.client = ClientAddress(trusted_proxies)
        self.limits = limits if limits is not None else AddressLimits()
        self.router = Router()
        self.router.add(["GET"], "/healthz", self.healthz)
        self.router.add(["GET"], "/metrics", self.scrape)
        self.api = Api(records, arenas=arenas)
        self.api.add_routes(self.router)

    async def __call__(self, request: HttpRequest) -> Reply:
        api = request.path.startswith(API) or request.path == API.rstrip("/")
        try:
            if not api:
                reply = await self.route(request, api=False)
                self.metrics.http_requests.labels(code=str(int(reply.status))).inc()
                return reply
            address = self.client(request.peer, request.all("x-forwarded-for"))
            wait = self.limits.take(address, self.clock.now() / 1000)
            if wait is None:
                reply = await self.route(request, api=True)
            else:
                message = f"too many requests from {address}: try again in {wait} s"
                reply = api_error(HTTPStatus.TOO_MANY_REQUESTS, "rate-limited", message)
                reply = reply.with_headers(("Retry-After", str(wait)))
        except Exception as exc:  # a bug in a route: one answer and one log line, never a dead server
            log.exception("event=http.error method=%s path=%r error=%r", request.method, request.path, exc)
            reply = self.refusal(HTTPStatus.INTERNAL_SERVER_ERROR, "internal", "internal error", api)
        self.metrics.http_requests.labels(code=str(int(reply.status))).inc()
        return reply.with_headers(*CORS) if api else reply

    async def route(self, request: HttpRequest, *, api: bool) -> Reply:
        found = self.router.match(request.method, request.path)
        if request.method == "OPTIONS":
            return self.options(request, found, api)
        if isinstance(found, Match):
            if request.has_body:
                return self.refusal(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "payload-too-large", "no body here", api)
            return await found.handler(request, found.params)
        allow = self.allowed(request, found, api)
        if allow is None:
            return self.refusal(HTTPStatus.NOT_FOUND, "not-found", f"no route {request.path}", api)
        if request.method not in allow:
            message = f"{request.method} is not allowed here; allowed: {', '.join(allow)}"
            refused = self.refusal(HTTPStatus.METHOD_NOT_ALLOWED, "method-not-allowed", message, api)
            return refused.with_headers(("Allow", ", ".join(allow)))
        if request.has_body:
            return self.refusal(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "payload-too-large", "no body here", api)
        return static_response(request.path)

    def allowed(self, request: HttpRequest, found: Match | NotAllowed | None, api: bool) -> tuple[str, ...] | None:
        """The methods ``request.path`` takes (None: an unknown path)."""
        if isinstance(found, NotAllowed):
            return found.allow
        if isinstance(found, Match):
            return STATIC_METHODS  # every route takes GET, HEAD and OPTIONS
        if not api and static_response(request.path).status == HTTPStatus.OK:
            return STATIC_METHODS
        return None

    def options(self, request: HttpRequest, found: Match | NotAllowed | None, api: bool) -> Reply:
        allow = self.allowed(request, found, api)
        if allow is None:
            return self.refusal(HTTPStatus.NOT_FOUND, "not-found", f"no route {request.path}", api)
        headers = [("Allow", ", ".join(allow)), ("Cache-Control", "no-store")]
        if api:
            headers += PREFLIGHT
        return Reply(HTTPStatus.NO_CONTENT, tuple(headers))

    @staticmethod
    def refusal(status: HTTPStatus, code: str, message: str, api: bool) -> Reply:
        """An error answer: the API's JSON shape under /api/v1, a line of text elsewhere."""
        if api:
            return api_error(status, code, message)
        return text_reply(status, "not found\n" if status == HTTPStatus.NOT_FOUND else f"{message}\n")

    async def healthz(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        """200 while the store answers, 503 when it does not (for load balancers and compose): the
        guarded ping, answered False at once while the stall breaker is open. The body says more,
        a line each: the store, the database (``off`` without records; never a 503: racing does
        not need it, finished races wait in the store) and the archive backlog. While the node takes
        no new connections (a drain, docs/admin.md) it answers 503 with the reason alone, so that
        the balancer sends nobody new here. Cheap: the three
        are asked at once, each bounded (the ping and the index's count, one O(1) command, by the
        store's timeout; the database's ``SELECT 1`` by its probe's)."""
        refusing = self.refusing()
        if refusing is not None:
            return text_reply(HTTPStatus.SERVICE_UNAVAILABLE, f"{refusing}\n")
        store_ok, database, backlog = await asyncio.gather(self.store.ping(), self.database(), self.backlog())
        lines = [
            "ok" if store_ok else "store unavailable",
            f"store: {'ok' if store_ok else 'unavailable'}",
            f"database: {database}",
            f"archive backlog: {'unknown' if backlog is None else backlog}",
        ]
        status = HTTPStatus.OK if store_ok else HTTPStatus.SERVICE_UNAVAILABLE
        return text_reply(status, "\n".join(lines) + "\n")

    async def database(self) -> str:
        if self.records is None:
            return "off"
        return "ok" if await self.records.reachable() else "unavailable"

    async def backlog(self) -> int | None:
        """Rooms waiting for the archivers (None: the store did not answer)."""
        try:
            return await self.store.archive_backlog()
        except StoreError:
            return None

    async def scrape(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        """This node's metrics in the Prometheus text format."""
        backlog = await self.backlog()
        if backlog is not None:
            self.metrics.archive_backlog.set(backlog)
        body, content_type = self.metrics.exposition()
        return Reply(HTTPStatus.OK, (("Content-Type", content_type), ("Cache-Control", "no-store")), body)
