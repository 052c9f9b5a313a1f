"""Where a trace belongs and what went into it: bounded **segments** (language, query shape and
length, app, route, release, data source, document age, chosen attributes) and measured
**inputs** (passages, sizes, retrieval scores, document age), computed once per trace
without a model, for every evaluation line and the per-segment metrics.

A ``Segmenter`` is called on the pipeline's thread only. Each dimension keeps the first
``max_values`` values it sees (or its allow-list: the languages); later ones are ``other``,
counted per dimension in ``folded``. A value the trace cannot give is ``unknown``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import NamedTuple

from monitor.core.labels import OTHER, UNKNOWN, LabelLimiter
from monitor.core.model import AGENT_ATTRIBUTE, AGENT_INPUTS, AGENT_SEGMENTS, RagTrace
from monitor.segments.config import BUILTIN_DIMENSIONS, REFUSAL_LANGUAGES, SegmentsConfig
from monitor.segments.language import Detect, LanguageOf
from monitor.segments.shape import query_length, query_shape

__all__ = [
    "BUILTIN_DIMENSIONS", "INPUTS", "OTHER", "REFUSAL_LANGUAGES", "UNKNOWN", "Profile",
    "Segmenter", "SegmentsConfig", "measure_inputs",
]  # fmt: skip

# The measured inputs, in the order of the evaluation line (an input a trace cannot give,
# e.g. scores without retrieval scores, is left out of its line).
INPUTS = (
    "passages", "context_chars", "query_chars", "answer_chars", "retrieved", "top_score",
    "score_gap", "doc_age_days", *AGENT_INPUTS,
)  # fmt: skip

# The OTel GenAI attribute naming the data source a retrieval read (kept on the trace by the
# span mapping); a native record names it per passage (``context[].data_source``).
DATA_SOURCE_ATTRIBUTE = "gen_ai.data_source.id"


def _ages_days(trace: RagTrace) -> list[float]:
    """Each timestamped packed passage's age at the trace's time, in days."""
    at = trace.timestamp
    if at is None:
        return []
    out = []
    for p in trace.context:
        if p.timestamp is not None:
            try:
                out.append(max(0.0, (at - p.timestamp).total_seconds() / 86_400))
            except TypeError:  # one naive, one aware: no age
                continue
    return out


def measure_inputs(trace: RagTrace, ages: list[float] | None = None) -> dict[str, float]:
    """The trace's measured inputs (``INPUTS``, those it can give); ``ages`` are its packed
    documents' (``_ages_days``), when already known."""
    out: dict[str, float] = {
        "passages": len(trace.context),
        "context_chars": sum(len(p.text) for p in trace.context),
        "query_chars": len(trace.query),
        "answer_chars": len(trace.answer),
        "retrieved": len(trace.retrieved),
    }
    scores = sorted((d.score for d in trace.retrieved if d.score is not None), reverse=True)
    if scores:
        out["top_score"] = scores[0]
        if len(scores) > 1:
            out["score_gap"] = round(scores[0] - scores[1], 6)
    ages = sorted(_ages_days(trace) if ages is None else ages)
    if ages:
        mid = len(ages) // 2
        out["doc_age_days"] = ages[mid] if len(ages) % 2 else (ages[mid - 1] + ages[mid]) / 2
    if AGENT_ATTRIBUTE in trace.attributes:  # what the agent did, where the trace says
        for name, key in AGENT_INPUTS.items():
            n = trace.attributes.get(key)
            if isinstance(n, int) and not isinstance(n, bool) and n >= 0:
                out[name] = n
    return out


def _agent(trace: RagTrace) -> str:
    """The ``agent`` segment: one of ``AGENT_SEGMENTS`` as the trace says, ``unknown``
    when it does not (a native record without the attribute), ``other`` for anything else."""
    value = trace.attributes.get(AGENT_ATTRIBUTE)
    if value is None:
        return UNKNOWN
    return value if value in AGENT_SEGMENTS else OTHER


def _data_source(trace: RagTrace) -> str:
    named = {p.data_source for p in trace.context if p.data_source}
    if not named:
        attr = trace.attributes.get(DATA_SOURCE_ATTRIBUTE)
        if isinstance(attr, str) and attr:
            named = {attr}
        elif isinstance(attr, list):
            named = {a for a in attr if isinstance(a, str) and a}
    if not named:
        return UNKNOWN
    return next(iter(named)) if len(named) == 1 else "mixed"


def _attribute(value: object) -> str:
    if value is None or value == "":
        return UNKNOWN
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)[:100]
    return OTHER  # a list or an object is not a segment value


def _attribute_of(key: str) -> Callable[[RagTrace], str]:
    return lambda trace: _attribute(trace.attributes.get(key))


# Distinct combinations of segment values kept with their bounded segments (about 1 KiB
# each): the dimensions' bounds are decided once per combination instead of once per trace.
_COMBINATIONS_KEPT = 4096


class Profile(NamedTuple):
    """A trace's segments (dimension -> bounded value) and measured inputs."""

    segments: dict[str, str]
    inputs: dict[str, float]


class Segmenter:
    """A trace's segments and inputs (``__call__``). What depends on the query alone
    (language, shape, length) is kept for the last 4,096 distinct queries."""

    def __init__(self, config: SegmentsConfig | None = None, detect: Detect | None = None) -> None:
        self.config = c = config if config is not None else SegmentsConfig()
        self.dimensions: tuple[str, ...] = (*BUILTIN_DIMENSIONS, *c.attributes)
        language = LanguageOf(c.languages, c.min_language_confidence, detect)

        @functools.lru_cache(maxsize=4096)
        def of_query(query: str) -> tuple[str, str, str]:
            return (language(query), query_shape(query, c.keyword_words) or UNKNOWN,
                    query_length(query, c.short_chars, c.long_chars) or UNKNOWN)  # fmt: skip

        self._of_query = of_query
        self._bounds = [LabelLimiter(max_values=c.max_values) for _ in self.dimensions]
        # value combinations seen before, each with its bounded segments: a bound that kept a
        # value keeps it for good, so a combination none of whose values was folded into
        # other is bounded the same next time (a folded one is bounded again: counted)
        self._bounded: dict[tuple[str, ...], dict[str, str]] = {}
        self._attributes = [_attribute_of(name) for name in c.attributes]

    def __call__(self, trace: RagTrace) -> Profile:
        """``trace``'s segments (every dimension, bounded) and inputs; both empty when
        segments are off."""
        if not self.config.enabled:
            return Profile({}, {})
        ages = _ages_days(trace)
        inputs = measure_inputs(trace, ages)
        if ages:
            new = [a <= self.config.new_document_days for a in ages]
            age = "new" if all(new) else "old" if not any(new) else "mixed"
        else:
            age = UNKNOWN
        values = [*self._of_query(trace.query), trace.app or UNKNOWN, trace.route or UNKNOWN,
                  trace.release or UNKNOWN, _data_source(trace), age, _agent(trace),
                  *(get(trace) for get in self._attributes)]  # fmt: skip
        key = tuple(values)
        bounded = self._bounded.get(key)
        if bounded is not None:
            return Profile(dict(bounded), inputs)
        segments = {d: bound(v) for d, bound, v in zip(self.dimensions, self._bounds, values,
                                                          strict=True)}  # fmt: skip
        if len(self._bounded) < _COMBINATIONS_KEPT and all(
            s != OTHER or v == OTHER for s, v in zip(segments.values(), values, strict=True)
        ):
            self._bounded[key] = dict(segments)
        return Profile(segments, inputs)

    def segments(self, trace: RagTrace) -> dict[str, str]:
        """Every dimension's bounded value for ``trace``."""
        return self(trace).segments

    def inputs(self, trace: RagTrace) -> dict[str, float]:
        """The trace's measured inputs (none when segments are off)."""
        return self(trace).inputs

    @property
    def folded(self) -> Mapping[str, int]:
        """Values folded into ``other`` so far, per dimension."""
        return {d: b.folded for d, b in zip(self.dimensions, self._bounds, strict=True)}
