"""Serving the review page (``monitor.golden.web``) on its own socket and thread: the bind
rules (a token beyond loopback, TLS), and ``Background``, which ``ragmon review`` and
``ragmon run`` (``golden.review_port``) start."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

import structlog

from monitor.core.errors import ConfigError
from monitor.core.exposure import is_loopback
from monitor.golden.web import build_app

TLS = tuple[Path, Path]  # certificate chain, private key (PEM)


def check_bind(host: str, token: str | None, tls: TLS | None = None) -> None:
    """A bind beyond loopback needs a token (else ``ConfigError``); without TLS it is
    allowed with a warning, since the token then crosses the network in clear text."""
    if is_loopback(host):
        return
    if not token:
        raise ConfigError(
            f"the review page binds to {host}, beyond this machine: set RAGMON_REVIEW_TOKEN "
            "(reviewers log in with it), or bind to 127.0.0.1"
        )
    if tls is None:
        structlog.get_logger("ragmon.review").warning(
            "review_page_without_tls", host=host,
            hint="the token and session cookie cross the network in clear text: set "
            "golden.review_tls_cert_file and review_tls_key_file (ragmon review --tls-cert/"
            "--tls-key), "
            "or put a TLS proxy in front",
        )  # fmt: skip


class _TlsOptions(TypedDict, total=False):
    """uvicorn's TLS arguments."""

    ssl_certfile: str
    ssl_keyfile: str


def _tls_options(tls: TLS | None) -> _TlsOptions:
    """uvicorn's TLS arguments; an unreadable certificate or key is a ``ConfigError``."""
    if tls is None:
        return {}
    import ssl

    cert, key = tls
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(
            f"cannot load the review page's TLS certificate {cert}: {detail}"
        ) from None
    return {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}


class Background:
    """The review page served from a thread of another process (``ragmon run`` with
    ``golden.review_port``). The socket is bound here, so a port in use fails the start."""

    def __init__(
        self,
        golden_dir: Path,
        host: str,
        port: int,
        token: str | None,
        tls: TLS | None = None,
        store: Path | Sequence[Path] | None = None,
    ) -> None:
        import socket
        import threading

        import uvicorn

        check_bind(host, token, tls)
        tls_options = _tls_options(tls)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
            self.sock.listen(128)  # connections wait in the backlog until uvicorn is up
        except OSError:
            self.sock.close()
            raise
        self.port = int(self.sock.getsockname()[1])
        config = uvicorn.Config(build_app(golden_dir, token, tls is not None, store),
                                log_level="warning", access_log=False, server_header=False,
                                **tls_options)  # fmt: skip
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="review-page", daemon=True
        )

    def start(self) -> None:
        """Serve on a daemon thread."""
        self._thread.start()

    def close(self) -> None:
        """Stop serving."""
        self.server.should_exit = True
        self._thread.join(timeout=10)
        self.sock.close()
