"""HTTP endpoints next to the metrics: ``/metrics``, ``/healthz`` (process up), ``/readyz``."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse, WSGIEnvironment

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, make_wsgi_app


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Scrapes are not log lines."""


class MetricsServer:
    """Serves the registry and the health endpoints on a background thread."""

    def __init__(
        self,
        registry: CollectorRegistry,
        host: str,
        port: int,
        ready: Callable[[], bool] = lambda: True,
        more: Callable[[], bytes] | None = None,
    ) -> None:
        self._metrics_app = make_wsgi_app(registry)
        self._registry = registry
        self._more = more  # exposition text served after the registry's (the workers')
        self.ready = ready
        # lines /readyz adds to its answer, ready or not: what a replica has to say about
        # itself (a member of a group that cannot pair conversations in memory)
        self.detail: Callable[[], list[str]] = list
        self._httpd = make_server(host, port, self._app, _Server, handler_class=_QuietHandler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="ragmon-http", daemon=True
        )

    @property
    def port(self) -> int:
        """The port it listens on (the one picked when configured as 0)."""
        return int(self._httpd.server_address[1])

    def _app(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok\n"]
        if path == "/readyz":
            said = "".join(f"{line}\n" for line in self.detail()).encode()
            if self.ready():
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [b"ready\n" + said]
            start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
            return [b"not ready\n" + said]
        if path in ("/metrics", "/"):
            if self._more is not None:
                start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
                return [generate_latest(self._registry), self._more()]
            result: Iterable[bytes] = self._metrics_app(environ, start_response)
            return result
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found: try /metrics, /healthz or /readyz\n"]

    def start(self) -> None:
        """Listen and serve on a daemon thread."""
        self._thread.start()

    def close(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
