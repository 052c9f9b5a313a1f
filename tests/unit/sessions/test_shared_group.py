"""A member of a consumer group pairing turns in memory (no ``sessions.topic``) pairs only
while it holds every partition of the traces: with a share of them, the next turn of a
session may be another replica's, so it writes no pair, counts every turn ``shared`` and says
so (log, metric, ``/readyz``); a rebalance drops the turns it held (``revoked``)."""

from __future__ import annotations

import urllib.request

import structlog
from prometheus_client import CollectorRegistry

from monitor.commands.server import MetricsServer
from monitor.core.model import Turn
from monitor.ingest.decoder import OneItemPerRecord
from monitor.ingest.native import NativeDecoder
from monitor.sessions.join import Sessions
from monitor.sessions.stage import WithSessions
from monitor.telemetry import SessionsCollector


def stage(seen: list[str], group: bool = True) -> WithSessions:
    sessions = Sessions(1800.0, 60.0, 1 << 20, observe=seen.append)
    return WithSessions(OneItemPerRecord(NativeDecoder()), sessions, None, group=group,
                        clock=lambda: 1000.0)  # fmt: skip


def turn(tid: str, at: float) -> Turn:
    return Turn("s1", tid, at, "how much is the pro plan?", "clean")


def pairs(s: WithSessions) -> list[tuple[str, str]]:
    return [(d.item.turn.trace_id, d.item.by.trace_id) for d in s.due(flush=True)
            if d.item is not None]  # fmt: skip


def test_a_member_holding_every_partition_pairs() -> None:
    seen: list[str] = []
    s = stage(seen)
    s.on_share(1.0)
    for tid, at in (("a", 100), ("b", 160)):
        s.sessions.hold(turn(tid, at), 0.0)
    assert pairs(s) == [("a", "b")]
    assert s.notice() is None


def test_a_member_with_a_share_writes_no_pair_and_counts_every_turn() -> None:
    seen: list[str] = []
    s = stage(seen)
    s.sessions.hold(turn("a", 100), 0.0)
    s.due()  # held, alone so far
    with structlog.testing.capture_logs() as logs:
        s.on_share(0.5)
        s.on_share(0.5)  # said once
    assert [e["event"] for e in logs] == ["sessions_shared"]
    s.sessions.hold(turn("b", 160), 0.0)
    assert pairs(s) == []  # a and b may not be consecutive: c may be the other replica's
    assert seen == ["shared", "shared"]
    notice = s.notice()
    assert notice is not None and "50%" in notice and "sessions.topic" in notice
    s.on_share(1.0)  # alone again: pairs what it sees from now on
    for tid, at in (("d", 300), ("e", 360)):
        s.sessions.hold(turn(tid, at), 0.0)
    assert pairs(s) == [("d", "e")]


def test_a_rebalance_drops_the_turns_held_in_memory() -> None:
    seen: list[str] = []
    s = stage(seen)
    s.sessions.hold(turn("a", 100), 0.0)
    s.due()
    s.revoke([("traces", 0)])  # the turn after a may be read by another replica meanwhile
    s.sessions.hold(turn("c", 220), 0.0)
    assert pairs(s) == []
    assert seen == ["revoked", "last"]


def test_one_process_is_never_a_member() -> None:
    seen: list[str] = []
    s = stage(seen, group=False)  # files, replay, OTLP/HTTP
    s.sessions.hold(turn("a", 100), 0.0)
    s.due()
    s.on_share(0.5)
    s.revoke([("traces", 0)])
    s.sessions.hold(turn("b", 160), 0.0)
    assert pairs(s) == [("a", "b")]


def test_readyz_and_the_gauge_say_it() -> None:
    seen: list[str] = []
    s = stage(seen)
    s.on_share(0.25)
    registry = CollectorRegistry()
    registry.register(SessionsCollector(lambda: (0, 0), lambda: s.share < 1.0))
    assert registry.get_sample_value("ragmon_sessions_shared") == 1
    server = MetricsServer(registry, "127.0.0.1", 0)
    server.detail = lambda: [n for n in (s.notice(),) if n is not None]
    server.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/readyz", timeout=5) as r:
            body = r.read().decode()
    finally:
        server.close()
    assert body.startswith("ready\n") and "25%" in body and "sessions.topic" in body
