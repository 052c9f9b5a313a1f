"""The passage memo: content-addressed, byte-capped, counted, and invisible in the results."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from monitor import registry
from monitor.checks import CheckSuite, PassageMemo
from monitor.checks.memo import PassageFacts
from monitor.config import Settings
from tests.conftest import make_trace
from tests.unit.checks.test_context import NEW, OLD, OTHER


def test_a_passage_is_kept_from_its_second_sighting() -> None:
    memo = PassageMemo(1 << 20)
    empty = memo.bytes  # the door list of first sightings, counted full
    first = memo.facts(OLD)
    assert len(memo) == 0 and memo.bytes == empty  # seen once: only its hash is noted
    second = memo.facts("".join(list(OLD)))  # equal text, another string object
    assert second is not first and len(memo) == 1
    assert memo.facts(OLD) is second
    assert (memo.hits, memo.misses) == (1, 2)
    assert memo.bytes == empty + second.size


def test_the_door_table_ages_its_first_sightings() -> None:
    memo = PassageMemo(0)  # the smallest table: 64 slots, cleared after 32 marks
    texts = [f"{OTHER} Note {n}." for n in range(200)]
    marks = [memo._first_sighting(hash(t)) for t in texts]
    assert memo._door_size == 64 and memo._door_marks <= 32  # cleared, not full
    # collisions (the table at most half full) admit some early; the expected share is
    # about a quarter, so fewer than 90 of 200 (a bound several deviations away)
    assert marks.count(False) < 90
    memo._door = bytearray(memo._door_size)  # a clean table: no clearing in between
    memo._door_marks = 0
    fresh = hash(f"{OTHER} Fresh.")
    assert memo._first_sighting(fresh) and not memo._first_sighting(fresh)


def test_a_chunk_id_with_new_text_is_a_miss() -> None:
    """The stale-document case: same doc and chunk id, other text, so other facts."""
    suite = CheckSuite(memo=PassageMemo(1 << 20))
    answer = "Customers get refunds within 14 days of purchase."
    for _ in range(3):
        suite(make_trace(answer, [OLD, OTHER]))
    assert suite.memo is not None and (suite.memo.misses, suite.memo.hits) == (4, 2)
    result = suite(make_trace(answer, [NEW, OTHER]))
    assert (suite.memo.misses, suite.memo.hits) == (5, 3)
    assert result["unsupported_numbers"].flagged  # read from NEW's text, not OLD's


def test_the_cap_holds_also_when_lazy_parts_grow_an_entry() -> None:
    one = PassageFacts(OLD).estimate()
    memo = PassageMemo(4 * one)
    door = memo.bytes
    for n in range(10):
        for _ in range(2):  # the second sighting keeps it
            memo.facts(f"{OLD} Revision {n}.")
        assert memo.bytes <= memo.max_bytes
    assert memo.evictions >= 7 and len(memo) <= 3
    hits = memo.hits  # (a door-table collision may have kept one at its first sighting)
    kept = memo.facts(f"{OLD} Revision 9.")  # the newest is still kept
    assert memo.hits == hits + 1
    kept.shingles  # noqa: B018 - growing the entry must evict others, not overrun the cap
    kept.pieces  # noqa: B018
    assert memo.bytes <= memo.max_bytes
    assert memo.bytes == door + sum(f.size for f in memo._entries.values())


def test_a_passage_bigger_than_the_cap_is_analysed_but_not_kept() -> None:
    memo = PassageMemo(100)
    door = memo.bytes
    facts = memo.facts(OTHER)
    assert memo.facts(OTHER).lower == facts.lower == OTHER.encode().lower()
    assert len(memo) == 0 and memo.bytes == door and memo.misses == 2


def test_a_negative_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        PassageMemo(-1)


def test_results_are_the_same_with_and_without_the_memo() -> None:
    """Conflicts, numbers and overlap read passage facts; the memo must not change them."""
    traces = [
        make_trace("Refunds take 30 days.", [OLD, NEW, OTHER]),
        make_trace("Refunds take 14 days.", [NEW, OLD]),
        make_trace("Ship in 2 days [1].", [OTHER, OTHER]),
        make_trace("Refunds take 14 days.", [OLD, NEW, OTHER]),
    ]
    with_memo = CheckSuite(memo=PassageMemo(1 << 20))
    without = CheckSuite()
    for trace in traces * 2:
        got, want = with_memo(trace), without(trace)
        assert {k: v.to_line() for k, v in got.items()} == {k: v.to_line() for k, v in want.items()}
    assert with_memo.memo is not None and with_memo.memo.hits > 0
    assert with_memo(traces[0])["context_conflict"].flagged


def test_the_daemon_exports_the_memo_counts() -> None:
    metrics = registry.build_metrics(CollectorRegistry())
    on = Settings().model_copy(
        update={"checks": Settings().checks.model_copy(update={"memo_bytes": 1 << 20})}
    )
    suite = registry.build_suite(on, metrics)
    assert suite.memo is not None and suite.memo.max_bytes == 1 << 20
    for _ in range(3):
        suite(make_trace("Refunds take 30 days.", [OLD, NEW]))
    text = generate_latest(metrics.registry).decode()
    assert "ragmon_passage_memo_hits_total 2.0" in text
    assert "ragmon_passage_memo_misses_total 4.0" in text
    assert "ragmon_passage_memo_entries 2.0" in text
    assert registry.build_suite(Settings()).memo is None  # off by default


def test_where_nothing_recurs_most_traces_pass_the_memo_by() -> None:
    """A window without hits lets nine traces in ten by; hits bring the memo back."""
    suite = CheckSuite(memo=PassageMemo(1 << 20))
    for n in range(1200):  # 2 passages a trace, every one new: 2,400 lookups
        suite(make_trace("Refunds take 30 days.", [f"{OLD} Note {n}.", f"{OTHER} Note {n}."]))
    memo = suite.memo
    assert memo is not None and memo.hits == 0
    assert memo.bypassed > 0 and memo._bypass > 0
    while memo._bypass:  # the sampled traces keep looking: recurring passages come back
        suite(make_trace("Refunds take 30 days.", [OLD, OTHER]))
    for _ in range(1000):
        suite(make_trace("Refunds take 30 days.", [OLD, OTHER]))
    assert memo.hits > 1900 and memo._bypass == 0
