"""Several evaluation stores read as one (issue 76, a group's workers' files): a trace in one
with its follow-up and its session's outcome in another, a session split over two, a
search's counts summed, a base path that names its workers' files, and one missing or
damaged file among them said in one line while the others are read. Every store here is a
real file written by the store sink."""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from monitor.commands.cli import build_parser, runner
from monitor.core.model import Followup, SessionOutcome, SessionTurn, Turn
from monitor.core.store import StoreUnreadable
from monitor.golden.stores import EvaluationStores, store_files
from monitor.golden.traces import EvaluationStore, Search
from monitor.golden.web import build_app
from sinks.store import StoreSink
from tests.unit.test_store import Clock, evaluate, trace

A, B, C = f"{1:032x}", f"{2:032x}", f"{3:032x}"
BAD, GOOD = "The refund fee is 25 euros.", "The refund fee is 15 euros [1]."


def _write(
    path: Path,
    traces: Iterable[tuple[str, str, str]] = (),
    followups: Iterable[Followup] = (),
    outcomes: Iterable[SessionOutcome] = (),
    at: float = 1_800_000_000.0,
) -> Path:
    """A store written by the sink at ``path``: traces as (id, time, answer) of session
    ``conv-1``, then the follow-ups and outcomes given; written at ``at``."""
    clock = Clock()
    clock.now = at
    sink = StoreSink(path, clock=clock)
    sink.start()
    for tid, stamp, answer in traces:
        sink.write(evaluate(trace(int(tid, 16), trace_id=tid, timestamp=stamp,
                                  session_id="conv-1", answer=answer)))  # fmt: skip
    for f in followups:
        sink.write_followup(f)
    for o in outcomes:
        sink.write_session(o)
    sink.close()
    return path


def _pairing() -> tuple[Followup, SessionOutcome]:
    """What the replica that paired conv-1's two turns writes: A's follow-up (B escalated)
    and the session's outcome."""
    a = Turn("conv-1", A, 1.0, "how much?", "unsupported")
    b = Turn("conv-1", B, 31.0, "a human please", "clean")
    turn = SessionTurn(B, "a human please", "clean", False, ("escalation",), 31.0)
    outcome = SessionOutcome("conv-1", "escalated", "idle", 2, 0, 30.0, "billing", "en", A,
                             (turn,))  # fmt: skip
    return Followup(a, b, ("escalation",)), outcome


def _group(tmp_path: Path) -> Path:
    """A group of two workers' stores beside the base path ``store.db`` (absent): A in
    worker 0; B, A's follow-up and the outcome in worker 1 (it paired the turns)."""
    followup, outcome = _pairing()
    _write(tmp_path / "store.worker-0.db", [(A, "2027-01-15T08:00:00Z", BAD)])
    _write(tmp_path / "store.worker-1.db", [(B, "2027-01-15T08:00:30Z", GOOD)], [followup],
           [outcome])  # fmt: skip
    return tmp_path / "store.db"


def _call(argv: list[str]) -> tuple[int, str, str]:
    args = build_parser().parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    return runner(args.command)(args, out, err), out.getvalue(), err.getvalue()


def test_a_base_path_names_its_workers_files_and_nothing_else(tmp_path: Path) -> None:
    """``store.db`` names ``store.worker-<i>.db`` in the workers' order (10 after 9), itself
    when it exists, and not a moved-aside damaged file, a WAL file or another stem's."""
    base = tmp_path / "store.db"
    for name in ("store.worker-10.db", "store.worker-9.db", "store.worker-1.db-wal",
                 "store.worker-2.db.damaged-20270115T080000", "other.worker-0.db",
                 "store.worker-x.db", "storeXworker-3.db"):  # fmt: skip
        (tmp_path / name).write_bytes(b"")
    assert store_files(base) == [tmp_path / "store.worker-9.db", tmp_path / "store.worker-10.db"]
    base.write_bytes(b"")
    assert store_files(base)[0] == base and len(store_files(base)) == 3
    assert store_files(tmp_path / "none.db") == [tmp_path / "none.db"]


def test_a_trace_in_one_store_gets_its_follow_up_and_outcome_from_the_other(
    tmp_path: Path,
) -> None:
    stores = EvaluationStores([_group(tmp_path)])
    try:
        found = stores.trace(A.upper())
        assert found is not None and found.trace_id == A
        assert found.followup is not None and found.followup["followup"]["by"] == B
        assert [s["session"]["outcome"] for s in found.sessions] == ["escalated"]
        assert stores.trace(C) is None and stores.problems == []
    finally:
        stores.close()
    alone = EvaluationStore(tmp_path / "store.worker-0.db")  # one store has no follow-up
    try:
        only = alone.trace(A)
        assert only is not None and only.followup is None and only.sessions == ()
    finally:
        alone.close()


def test_a_session_split_over_two_stores_is_one_in_time_order(tmp_path: Path) -> None:
    stores = EvaluationStores([_group(tmp_path)])
    try:
        session = stores.session("conv-1")
    finally:
        stores.close()
    assert session is not None
    assert [t.trace_id for t in session.turns] == [A, B]
    assert session.turns[0].followup is not None  # written by the other store's replica
    assert [o["session"]["outcome"] for o in session.outcomes] == ["escalated"]


def test_inspect_reads_the_workers_files_of_a_base_path(tmp_path: Path) -> None:
    base = _group(tmp_path)
    status, out, err = _call(["inspect", "--store", str(base), A])
    assert (status, err) == (0, "")
    assert f"follow-up: trace {B}, 30.0 s later: escalation" in out
    assert "session conv-1: escalated after 2 turns" in out
    status, out, _ = _call(["inspect", "--store", str(base), "--session", "conv-1"])
    assert status == 0 and out.index(A) < out.index(B) and "outcome: escalated" in out
    one = ["inspect", "--store", str(tmp_path / "store.worker-0.db")]  # given one by one
    status, out, _ = _call([*one, "--store", str(tmp_path / "store.worker-1.db"), A])
    assert status == 0 and "follow-up: trace" in out
    status, _, err = _call([*one, B])  # one store alone does not hold B
    assert status == 1 and err == f"ragmon inspect: no trace {B} in {one[-1]}\n"


def test_a_search_sums_the_counts_and_merges_the_newest(tmp_path: Path) -> None:
    """Two stores searched as one count what one store holding every trace counts."""
    rows = [(f"{10 + i:032x}", f"2027-01-15T0{i}:00:00Z", BAD if i % 3 else GOOD)
            for i in range(8)]  # fmt: skip
    _write(tmp_path / "s.worker-0.db", rows[0::2])
    _write(tmp_path / "s.worker-1.db", rows[1::2])
    one = EvaluationStore(_write(tmp_path / "one.db", rows))
    group = EvaluationStores([tmp_path / "s.db"])
    try:
        for wanted in (Search(), Search(check="unsupported_numbers", limit=3),
                       Search(segment="route=billing", since=1_800_000_000.0 - 10**9),
                       Search(route="billing", limit=5)):  # fmt: skip
            got, expected = group.search(wanted), one.search(wanted)
            assert got.total == expected.total > 0
            assert got.by_check == expected.by_check
            assert [f.trace_id for f in got.traces] == [f.trace_id for f in expected.traces]
        assert group.search(Search()).traces[0].trace_id == rows[-1][0]  # the newest first
        assert group.options() == one.options()
    finally:
        group.close()
        one.close()


def test_of_a_trace_two_stores_hold_the_later_evaluation_is_shown(tmp_path: Path) -> None:
    """A rebalance replayed it on another replica: the one written last is shown, once in
    a search's list, counted in each store."""
    _write(tmp_path / "r.worker-0.db", [(A, "2027-01-15T08:00:00Z", BAD)])
    _write(tmp_path / "r.worker-1.db", [(A, "2027-01-15T08:00:00Z", GOOD)], at=1_800_000_100.0)
    stores = EvaluationStores([tmp_path / "r.db"])
    try:
        found = stores.trace(A)
        result = stores.search(Search())
    finally:
        stores.close()
    assert found is not None and found.record["answer"] == GOOD
    assert [f.trace_id for f in result.traces] == [A] and result.total == 2


def test_a_missing_or_damaged_store_among_them_is_one_line_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    base = _group(tmp_path)
    junk = tmp_path / "store.worker-2.db"
    junk.write_bytes(b"junk" * 1000)
    missing = tmp_path / "gone.db"
    stores = EvaluationStores([base, missing])
    try:
        assert stores.trace(A) is not None
    finally:
        stores.close()
    assert len(stores.problems) == 2
    assert f"{junk} is not a store" in stores.problems[0]
    assert stores.problems[1] == f"no store at {missing}"
    status, out, err = _call(["inspect", "--store", str(base), "--store", str(missing), A])
    assert status == 0 and "follow-up: trace" in out
    lines = err.splitlines()
    assert len(lines) == 2 and all(x.endswith("the other stores are read") for x in lines)
    status, _, err = _call(["inspect", "--store", str(junk), "--store", str(missing), A])
    assert status == 2 and err.count("\n") == 1  # none left: one line, exit 2
    with pytest.raises(StoreUnreadable, match=r"is not a store.*; no store at"):
        EvaluationStores([junk, missing])


def test_a_store_damaged_under_the_reader_is_dropped_with_one_line(tmp_path: Path) -> None:
    """A file whose first pages are whole (it opens) but whose tables are overwritten: the
    query that meets the damage drops it and the other store still answers."""
    many = [(f"{100 + i:032x}", "2027-01-15T08:00:00Z", BAD) for i in range(300)]
    damaged = _write(tmp_path / "d.worker-0.db", many)
    _write(tmp_path / "d.worker-1.db", [(A, "2027-01-15T09:00:00Z", BAD)])
    data = bytearray(damaged.read_bytes())
    data[16384 * 2 :] = b"\xa5" * (len(data) - 16384 * 2)
    damaged.write_bytes(bytes(data))
    stores = EvaluationStores([tmp_path / "d.db"])
    try:
        result = stores.search(Search())
        assert result.total == 1 and result.traces[0].trace_id == A
        assert stores.problems == [
            f"{damaged} cannot be read (database disk image is malformed): a damaged file?"
        ]
        assert stores.trace(A) is not None  # the damaged file is read no more
    finally:
        stores.close()


def test_the_pages_read_the_workers_files_and_say_which_one_is_damaged(tmp_path: Path) -> None:
    base = _group(tmp_path)
    client = TestClient(build_app(tmp_path, store=base))
    page = client.get(f"/trace/{A}")
    assert page.status_code == 200 and "escalat" in page.text
    session = client.get("/session/conv-1")
    assert session.status_code == 200 and A in session.text and B in session.text
    search = client.get("/search")
    assert '<span id="total">2</span>' in search.text
    (tmp_path / "store.worker-2.db").write_bytes(b"junk" * 1000)  # found at the next request
    search = client.get("/search")
    assert search.status_code == 200 and '<span id="total">2</span>' in search.text
    assert search.text.count('role="status"') == 1 and "store.worker-2.db is not a store" in (
        search.text
    )
    several = TestClient(build_app(tmp_path, store=[tmp_path / "store.worker-0.db",
                                                    tmp_path / "store.worker-1.db"]))  # fmt: skip
    assert '<span id="total">2</span>' in several.get("/search").text
