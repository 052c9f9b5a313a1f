"""The daemon's probe loop when a newly published golden set cannot be read."""

from __future__ import annotations

import threading
from collections import Counter
from types import SimpleNamespace
from typing import Any

import httpx

from monitor.golden.probe_client import ProbeLoop, Prober


def test_an_unreadable_new_version_is_counted_and_the_last_good_one_runs_again() -> None:
    sent: list[str] = []
    three_runs = threading.Event()

    def app(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers["X-Ragmon-Golden-Id"])
        if len(sent) >= 6:
            three_runs.set()
        return httpx.Response(200, json={"answer": "ok"})

    loads = 0

    def load() -> Any:
        nonlocal loads
        loads += 1
        if loads > 1:
            raise ValueError("v0002.jsonl: line 3: not JSON")
        return SimpleNamespace(
            items={"g1": {"id": "g1", "query": "a"}, "g2": {"id": "g2", "query": "b"}}
        )

    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def count(outcome: str, n: int) -> None:
        with lock:
            counts[outcome] += n

    prober = Prober("http://app/ask", {"q": "{query}"}, rate=0,
                    client=httpx.Client(transport=httpx.MockTransport(app)))  # fmt: skip
    loop = ProbeLoop(prober, load, every=0.01, count=count)
    loop.start()
    try:
        assert three_runs.wait(10)
    finally:
        loop.close()
    assert sent[:6] == ["g1", "g2"] * 3
    assert counts["golden_set_unreadable"] >= 2 and counts["answered"] >= 6
