"""Plain HTTP on the WebSocket port: the routes answered before (instead of) an upgrade.

``HttpRoutes`` is the one entry point the shell hands to websockets as ``process_request``.
A WebSocket upgrade always goes through; any other request is matched by path: the
server's own routes (``/healthz``, ``/metrics``), then the browser client's files
(``server/http/static.py``); None lets websockets refuse it (426).
"""

from __future__ import annotations

from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.http.static import static_response
from server.shell.metrics import Metrics
from server.store.interfaces import Store


class HttpRoutes:
    """Answers the HTTP requests that are not WebSocket upgrades."""

    def __init__(self, store: Store, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics

    async def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        if "Upgrade" in request.headers:
            return None  # websockets answers every upgrade (a wrong one with an error)
        path = request.path.partition("?")[0]
        if path == "/healthz":
            return await self.healthz(connection)
        if path == "/metrics":
            return self.scrape()
        return static_response(path)

    async def healthz(self, connection: ServerConnection) -> Response:
        """200 while the store answers, 503 when it does not (for load balancers and compose): the
        guarded ping, answered False at once while the stall breaker is open."""
        ok = await self.store.ping()
        status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
        return connection.respond(status, "ok\n" if ok else "store unavailable\n")

    def scrape(self) -> Response:
        """This node's metrics in the Prometheus text format."""
        body, content_type = self.metrics.exposition()
        headers = Headers(
            [
                ("Content-Type", content_type),
                ("Content-Length", str(len(body))),
                ("Cache-Control", "no-store"),
                ("Connection", "close"),
            ]
        )
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, body)
