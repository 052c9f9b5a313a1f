"""``ragmon probe``: send the golden set's questions to the application's own endpoint.

Each request carries the item's id twice, so that the application's trace can carry it to
ragmon: in a header (``X-Ragmon-Golden-Id`` by default) and in W3C baggage
(``baggage: ragmon.golden_id=<id>``, built by OpenTelemetry's propagator; an instrumented
application copies it to the span attribute ``ragmon.golden_id``). The body is a JSON
template in which string values ``{query}`` and ``{golden_id}`` are replaced structurally, so
no question can break out of its string. Requests go one at a time at most ``rate`` per
second; with ``every``, a run starts every period (with jitter) and never while one is in
flight.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
from opentelemetry import baggage
from opentelemetry.baggage.propagation import W3CBaggagePropagator

from monitor.core.errors import ConfigError
from monitor.core.lines import GoldenItem, Tree, map_strings

if TYPE_CHECKING:
    from pathlib import Path

    from monitor.golden.config import ProbesConfig
    from monitor.telemetry import Metrics

HEADER = "X-Ragmon-Golden-Id"
BAGGAGE_KEY = "ragmon.golden_id"


def render(template: Tree, item: GoldenItem) -> Tree:
    """The template with every string ``{query}`` / ``{golden_id}`` filled in, in place of
    string values only (keys and structure untouched)."""
    query, golden_id = str(item.get("query") or ""), str(item["id"])
    return map_strings(
        template, lambda s: s.replace("{query}", query).replace("{golden_id}", golden_id)
    )


def probe_headers(golden_id: str, header: str = HEADER) -> dict[str, str]:
    """The headers that mark a request as the golden probe ``golden_id``."""
    headers = {header: golden_id, "Content-Type": "application/json"}
    W3CBaggagePropagator().inject(headers, context=baggage.set_baggage(BAGGAGE_KEY, golden_id))
    return headers


@dataclass
class RunReport:
    """What one probe run did: requests sent, answered, failed."""

    sent: int = 0
    ok: int = 0
    failed: Counter[str] = field(default_factory=Counter)  # reason -> count

    def line(self) -> str:
        """The run as one line for people."""
        fails = ", ".join(f"{k} {v}" for k, v in sorted(self.failed.items())) or "none"
        return f"probes sent {self.sent}, answered {self.ok}, failed: {fails}"


class Prober:
    """Sends the golden set's questions to the application, rate-limited."""

    def __init__(
        self,
        endpoint: str,
        template: Any,
        rate: float = 1.0,
        timeout: float = 30.0,
        header: str = HEADER,
        client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.template = template
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.header = header
        self._client = client or httpx.Client(timeout=timeout)
        self._sleep = sleep
        self._running = threading.Lock()

    def run(self, items: Iterable[GoldenItem], stop: threading.Event | None = None) -> RunReport:
        """One pass over the items; refuses to start while another pass runs."""
        if not self._running.acquire(blocking=False):
            raise RuntimeError("a probe run is already in flight")
        report = RunReport()
        try:
            for i, item in enumerate(items):
                if stop is not None and stop.is_set():
                    break
                if i and self.interval:
                    self._sleep(self.interval)
                report.sent += 1
                try:
                    resp = self._client.post(
                        self.endpoint,
                        content=json.dumps(render(self.template, item)).encode(),
                        headers=probe_headers(str(item["id"]), self.header),
                    )
                except httpx.TimeoutException:
                    report.failed["timeout"] += 1
                    continue
                except httpx.HTTPError:
                    report.failed["connection"] += 1
                    continue
                if resp.is_success:
                    report.ok += 1
                else:
                    report.failed[f"http_{resp.status_code}"] += 1
        finally:
            self._running.release()
        return report

    def close(self) -> None:
        """Release the HTTP client."""
        self._client.close()


def next_delay(every: float, jitter: float = 0.1, rng: random.Random | None = None) -> float:
    """The wait before the next run: `every` seconds, give or take `jitter` of it."""
    r = rng or random.Random()
    return max(0.0, every * (1 + r.uniform(-jitter, jitter)))


class ProbeLoop:
    """``ragmon probe --every`` inside the daemon: a thread that runs the golden set (its
    newest version each time) through a ``Prober`` every period, and counts the requests.
    A new version that cannot be read is counted and the last good one runs again, as
    ``ragmon probe --every`` does."""

    @classmethod
    def from_config(cls, cfg: ProbesConfig, path: Path | None, metrics: Metrics) -> ProbeLoop:
        """``probes``, against the golden set at ``path`` (``golden.set_path``; the
        configuration requires both)."""
        from monitor.golden.probes import load_set

        if cfg.endpoint is None or path is None or cfg.request_template is None:
            raise ConfigError("probes.endpoint needs golden.set_path and probes.request_template")
        try:
            template = json.loads(cfg.request_template.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"probes.request_template: {exc}") from exc
        prober = Prober(cfg.endpoint, template, cfg.rate_per_second, cfg.timeout_seconds,
                        cfg.header)  # fmt: skip
        return cls(prober, lambda: load_set(path), cfg.every_seconds, metrics.on_probe_requests)

    def __init__(self, prober: Prober, load: Callable[[], Any], every: float,
                 count: Callable[[str, int], None]) -> None:  # fmt: skip
        self.prober = prober
        self._load = load
        self.every = every
        self._count = count
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="golden-probes", daemon=True)

    def start(self) -> None:
        """Start the periodic runs on a daemon thread."""
        self._thread.start()

    def _run(self) -> None:
        items: list[Any] = []
        while not self._stop.is_set():
            try:
                items = list(self._load().items.values())
            except Exception:  # a bad new version: counted; the last good one runs again
                self._count("golden_set_unreadable", 1)
            report = self.prober.run(items, self._stop)
            self._count("answered", report.ok)
            for reason, n in report.failed.items():
                self._count(reason, n)
            if self._stop.wait(next_delay(self.every)):
                return

    def close(self) -> None:
        """Stop the runs (a run in progress ends after its current request)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self.prober.close()
