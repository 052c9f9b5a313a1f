"""``ragmon review``: the review page over the candidate golden rows.

A queue of candidate rows (filtered by state, reason, category, route, release and check),
and one page per row showing the query, the packed context and the answer with the check
evidence marked in place; a reviewer accepts the row into the golden set (with a reference
answer, graded gold documents, a trap category and the expected behaviour) or rejects it
with a reason. Decisions go to the append-only log of ``monitor.golden.review``.

Starlette serves it (through uvicorn), Jinja2 renders it with autoescaping on: trace content
is untrusted production text and is only ever shown as text. Every response carries a
Content-Security-Policy that allows no inline script; the one script is a static file.
Bound to a loopback address the page needs no login; any other bind needs a token
(``golden.review_token``, from ``RAGMON_REVIEW_TOKEN``), given once on a login form (then an
HttpOnly, SameSite=Strict cookie, ``Secure`` when served over TLS) or as a bearer header.
Every state-changing request, the login included, carries a CSRF token. ``tls`` (a
certificate and its key) serves HTTPS; beyond loopback without it the token crosses the
network in clear text, which is logged as a warning.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import jinja2
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from monitor.core.lines import GoldenRow
from monitor.golden import review
from monitor.golden.export import status_of
from monitor.golden.page import (
    check_views,
    conflict_pairs,
    conflicting_passages,
    mark_answer,
    matches,
    when,
)
from monitor.golden.precision import PrecisionCollector
from monitor.golden.stored import load_rows
from monitor.golden.trace_pages import TracePages
from monitor.telemetry import LabelLimiter

HERE = Path(__file__).resolve().parent
_TRACE_ID = re.compile(r"[0-9a-f]{32}")
COOKIE = "ragmon_review"
FILTERS = ("state", "reason", "category", "route", "release", "check")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)


class ReviewSite:
    """The pages and their state: the golden directory, the decision log, the secrets."""

    def __init__(
        self,
        golden_dir: Path,
        token: str | None = None,
        secure: bool = False,
        store: Path | Sequence[Path] | None = None,
    ) -> None:
        self.golden_dir = golden_dir
        self.log = review.ReviewLog(golden_dir)
        self.token = token
        self.secure = secure  # served over TLS: the session cookie is Secure
        self._secret = secrets.token_bytes(32)
        self.csrf = self._mac("csrf")
        self.registry = CollectorRegistry()
        self.registry.register(PrecisionCollector(self.log, LabelLimiter()))
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates" / "review"),
            autoescape=True,  # every {{ }} is HTML-escaped: trace text is data
            undefined=jinja2.StrictUndefined,
        )
        self.templates.filters["when"] = when
        # the evaluation store's pages (/trace, /session, /search) when a store is given (or
        # several, read as one)
        stores = (store,) if isinstance(store, Path) else tuple(store or ())
        self.traces = TracePages(stores, self.page, self._row_of) if stores else None

    def _mac(self, what: str) -> str:
        return hmac.new(self._secret, what.encode(), hashlib.sha256).hexdigest()

    def session(self) -> str:
        """The session cookie's value for a logged-in reviewer."""
        return self._mac(f"session:{self.token}")

    def authorised(self, request: Request) -> bool:
        """Whether ``request`` may see the pages (no token set, the session cookie, or the bearer
        token)."""
        if self.token is None:
            return True
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        # authentication schemes are case-insensitive (RFC 9110 section 11.1)
        if scheme.lower() == "bearer" and hmac.compare_digest(credentials.strip(), self.token):
            return True
        return hmac.compare_digest(request.cookies.get(COOKIE, ""), self.session())

    def page(self, name: str, status: int = 200, **context: object) -> HTMLResponse:
        """Render template ``name``."""
        body = self.templates.get_template(name).render(
            csrf=self.csrf, login=self.token is not None, **context
        )
        return HTMLResponse(body, status_code=status)

    # pages

    def _queue(
        self, filters: dict[str, str], done: str | None = None
    ) -> tuple[dict[str, GoldenRow], list[tuple[GoldenRow, str]]]:
        """All candidate rows, and those in the filtered queue (most frequent first) with
        their state; ``done`` is left out."""
        rows = load_rows(self.golden_dir)
        decided = review.apply_decisions(rows, self.log.latest().values())
        states = ((r, status_of(decided[r["id"]])) for r in rows.values()
                  if r["id"] != done)  # fmt: skip
        chosen = [(r, state) for r, state in states if matches(r, state, filters)]
        chosen.sort(key=lambda rs: (-int(rs[0]["ragmon"].get("count", 1)), rs[0]["id"]))
        return rows, chosen

    def queue(self, request: Request) -> Response:
        """The queue of candidate rows, filtered."""
        filters = {k: request.query_params.get(k, "") for k in FILTERS}
        rows, items = self._queue(filters)
        options = {
            key: sorted({str(r["ragmon"].get(key) or "") for r in rows.values()} - {""})
            for key in ("reason", "category", "route", "release")
        }
        options["check"] = sorted(
            {c for r in rows.values() for c in r["ragmon"].get("checks") or {}}
        )
        options["state"] = ["needs_review", "accepted", "rejected", "any"]
        query = urlencode({k: v for k, v in filters.items() if v})
        return self.page("queue.html", rows=items, filters=filters, options=options, query=query,
                         total=len(rows))  # fmt: skip

    def row(self, request: Request) -> Response:
        """One row with its evidence marked, and the decision form; after a refused decision
        (redirected here, so a reload does not post it again) its reason and the reference
        the reviewer had typed."""
        rid = request.path_params["row_id"]
        row = load_rows(self.golden_dir).get(rid)
        if row is None:
            return self._missing(rid)
        error, typed = self._read_notice(request.query_params.get("notice", ""), rid)
        return self._row_page(row, request.query_params.get("q", ""), error, typed)

    def _refused(self, rid: str, query: str, error: str, reference: str | None) -> Response:
        """A refused decision: redirect (303) to the row's page with the reason and the
        typed reference in a notice this site signed (a link cannot forge one), so a reload
        shows the page instead of posting the form again."""
        data = {"row": rid, "error": error, "reference": reference}
        payload = base64.urlsafe_b64encode(json.dumps(data).encode()).decode()
        notice = f"{payload}.{self._mac('notice:' + payload)}"
        return RedirectResponse(f"/row/{rid}?{urlencode({'q': query, 'notice': notice})}",
                                status_code=303)  # fmt: skip

    def _read_notice(self, notice: str, rid: str) -> tuple[str | None, str | None]:
        """The reason and the typed reference of a notice this site signed for row ``rid``,
        or nothing."""
        payload, _, mac = notice.rpartition(".")
        if not payload or not hmac.compare_digest(mac, self._mac("notice:" + payload)):
            return None, None
        data = json.loads(base64.urlsafe_b64decode(payload))
        if data.get("row") != rid:
            return None, None
        ref = data.get("reference")
        return str(data.get("error") or ""), (None if ref is None else str(ref))

    def _row_page(
        self, row: GoldenRow, query: str, error: str | None = None, typed: str | None = None
    ) -> Response:
        meta = row["ragmon"]
        checks = meta.get("checks") or {}
        history = [d for d in self.log.read().decisions if d.row_id == row["id"]]
        current = history[-1] if history else None  # the row's latest decision
        ids = row.get("retrieved_context_ids") or []
        chunks = row.get("retrieved_chunk_ids") or [None] * len(ids)
        # (document id, chunk id, text, whether this is the document's first passage: the
        # grade is asked once per document, the unit probes and retrieval metrics score)
        seen: set[str] = set()
        passages = []
        for doc, chunk, text in zip(ids, chunks, row.get("retrieved_contexts") or [],
                                    strict=False):  # fmt: skip
            passages.append((doc, chunk if chunk and chunk != doc else None, text, doc not in seen))
            seen.add(doc)
        judge = meta.get("judge") or {}
        answer = mark_answer(row.get("response") or "", checks)
        return self.page(
            "row.html", row=row, meta=meta, answer=answer, passages=passages,
            conflicts=conflicting_passages(checks), checks=check_views(checks),
            pairs=conflict_pairs(checks, row.get("retrieved_contexts") or []),
            claims=judge.get("claims") or [], history=history, current=current, query=query,
            grades=(current.gold_docs if current else {}), error=error,
            categories=review.TRAP_CATEGORIES, reasons=review.REJECT_LABELS,
            typed=typed,
        )  # fmt: skip

    def trace(self, request: Request) -> Response:
        """A trace (a Grafana exemplar links here): its page from the evaluation store when
        the store holds it, else the candidate row it went into (its first trace, one of its
        examples, or one of its newest occurrences); 404 when neither has it."""
        trace_id = str(request.path_params["trace_id"]).lower()
        if _TRACE_ID.fullmatch(trace_id) is None:
            return self.page("message.html", 404, title="No such trace",
                             message="A trace id is 32 hexadecimal digits.")  # fmt: skip
        if self.traces is not None and (shown := self.traces.trace(trace_id)) is not None:
            return shown
        rid = self._row_of(trace_id)
        if rid is not None:
            return RedirectResponse(f"/row/{rid}", status_code=303)
        message = f"No candidate row holds trace {trace_id}."
        if self.traces is not None:
            message = f"Neither the evaluation store nor a candidate row holds trace {trace_id}."
        return self.page("message.html", 404, title="No such trace", message=message)

    def _row_of(self, trace_id: str) -> str | None:
        """The candidate row that holds ``trace_id``, or None."""
        for rid, row in load_rows(self.golden_dir).items():
            meta = row.get("ragmon") or {}
            held = (*(meta.get("examples") or ()), *(meta.get("recent_trace_ids") or ()))
            if trace_id == row.get("source_trace_id") or trace_id in held:
                return rid
        return None

    def session_page(self, request: Request) -> Response:
        """A session's page from the evaluation store."""
        if self.traces is None:
            return self._no_store()
        return self.traces.session(request)

    def search(self, request: Request) -> Response:
        """The search over the evaluation store."""
        if self.traces is None:
            return self._no_store()
        return self.traces.search(request)

    def _no_store(self) -> Response:
        message = "No evaluation store is configured (store.path, or ragmon review --store)."
        return self.page("message.html", 404, title="No evaluation store", message=message)

    def _missing(self, rid: str) -> Response:
        message = f"No candidate row {rid}."
        return self.page("message.html", 404, title="No such row", message=message)

    async def decide(self, request: Request) -> Response:
        """Append the reviewer's decision to the log (CSRF-checked; a conflicting decision is
        refused)."""
        form = await request.form()
        if not hmac.compare_digest(str(form.get("csrf", "")), self.csrf):
            message = "Missing or stale form token: reload the page."
            return self.page("message.html", 403, title="Refused", message=message)
        rid = request.path_params["row_id"]
        row = load_rows(self.golden_dir).get(rid)
        if row is None:
            return self._missing(rid)
        text = {k: str(v).strip() for k, v in form.items() if isinstance(v, str)}
        query = text.get("q", "")
        action, reviewer = text.get("action", ""), text.get("reviewer", "")
        typed = text.get("reference")
        if action not in ("accept", "reject") or not reviewer:
            error = "Choose accept or reject and give your name."
            return self._refused(rid, query, error, typed)
        fields = {"after": text.get("after"), "note": text.get("note")}
        if action == "accept":
            grades = {k[6:]: int(v) for k, v in text.items() if k.startswith("grade:") and v}
            fields.update(reference=text.get("reference"), category=text.get("category"),
                          expected=text.get("expected"))  # fmt: skip
            kept: dict[str, Any] = {k: v for k, v in fields.items() if v}
            kept["gold_docs"] = grades
        else:
            fields["reason"] = text.get("reason")
            kept = {k: v for k, v in fields.items() if v}
        filters = dict(parse_qsl(query))
        before = [r["id"] for r, _ in self._queue(filters)[1]]  # the queue the reviewer saw
        try:
            review.decide(self.log, row, "accept" if action == "accept" else "reject", reviewer,
                          **kept)  # fmt: skip
        except review.ReviewConflict as exc:
            now = exc.current
            error = (f"{now.reviewer} {now.action}ed this row {when(now.at)}, after the "
                     "version you were looking at. The page now shows their decision: "
                     "check it, then decide again if you still disagree.")  # fmt: skip
            return self._refused(rid, query, error, typed)
        except review.ReviewError as exc:
            return self._refused(rid, query, str(exc), typed)
        return RedirectResponse(self._next(rid, query, before), status_code=303)

    def _next(self, done: str, query: str, before: list[str]) -> str:
        """The row that came after ``done`` in the queue the reviewer saw (``before``) and is
        still in it, else the queue's first, else the queue page."""
        _, left = self._queue(dict(parse_qsl(query)), done=done)
        still = {r["id"] for r, _ in left}
        after = before[before.index(done) + 1 :] if done in before else []
        chosen = next((rid for rid in after if rid in still), left[0][0]["id"] if left else None)
        suffix = f"?{urlencode({'q': query})}" if query else ""
        return f"/row/{chosen}{suffix}" if chosen else f"/?{query}"

    def favicon(self, request: Request) -> Response:
        """A browser's default icon request: the page's icon (no 404 in the console)."""
        return RedirectResponse("/static/favicon.svg", status_code=301)

    def metrics(self, request: Request) -> Response:
        """The reviewed precision of each check, in Prometheus text format."""
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)

    def login_form(self, request: Request) -> Response:
        """The login page."""
        return self.page("login.html", error=None)

    async def login(self, request: Request) -> Response:
        """Check the token (CSRF-checked) and set the session cookie."""
        form = await request.form()
        if not hmac.compare_digest(str(form.get("csrf", "")), self.csrf):
            return self.page("login.html", 403, error="The form expired: log in again.")
        given = str(form.get("token", ""))
        if self.token is None or not hmac.compare_digest(given, self.token):
            return self.page("login.html", 401, error="Wrong token.")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            COOKIE, self.session(), httponly=True, samesite="strict", secure=self.secure
        )
        return response


class _Guard(BaseHTTPMiddleware):
    """Security headers on every response; the login gate when a token is set."""

    def __init__(self, app: ASGIApp, site: ReviewSite) -> None:
        super().__init__(app)
        self.site = site

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        open_paths = request.url.path in ("/login", "/favicon.ico") or request.url.path.startswith(
            "/static/"
        )
        if not open_paths and not self.site.authorised(request):
            if request.method == "GET" and request.url.path != "/metrics":
                response: Response = RedirectResponse("/login", status_code=303)
            else:
                response = Response("login required\n", status_code=401, media_type="text/plain")
        else:
            response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cache-Control"] = "no-store"
        return response


def build_app(
    golden_dir: Path,
    token: str | None = None,
    secure: bool = False,
    store: Path | Sequence[Path] | None = None,
) -> Starlette:
    """The review page's Starlette app over ``golden_dir`` (and the evaluation store's trace
    pages over ``store``, when given: one path or several, each read with its workers' files
    beside it, ``monitor.golden.stores``)."""
    site = ReviewSite(golden_dir, token, secure, store)
    routes = [
        Route("/", site.queue),
        Route("/row/{row_id}", site.row),
        Route("/trace/{trace_id}", site.trace),
        Route("/session/{session_id}", site.session_page),
        Route("/search", site.search),
        Route("/row/{row_id}/decide", site.decide, methods=["POST"]),
        Route("/metrics", site.metrics),
        Route("/favicon.ico", site.favicon),
        Route("/login", site.login_form, methods=["GET"]),
        Route("/login", site.login, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static" / "review"), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(_Guard, site=site)])
    app.state.site = site
    return app
