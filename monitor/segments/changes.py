"""What ``explain`` measures and ``causes`` ranks: one trace's part in a rate
(``Observation``) and one segment's part in a rate's change (``SegmentChange``); a module of
their own, so that the two read them without importing each other."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from monitor.core.lines import JsonObject


@dataclass(frozen=True, slots=True)
class Observation:
    """One trace's part in one rate: its segments, whether it counts (applicable), whether
    it is flagged, and its weight: its adjusted count when it was sampled upstream (1 /
    sample_rate), times 1/p for the judge's sample."""

    segments: Mapping[str, str]
    flagged: bool
    weight: float = 1.0


@dataclass(slots=True)
class SegmentChange:
    """One segment's part in a rate's change."""

    segment: str
    share_before: float
    share_after: float
    rate_before: float | None
    rate_after: float | None
    mix: float
    rate: float
    contribution_interval: tuple[float, float]
    rate_interval: tuple[float, float] | None
    share_interval: tuple[float, float]
    # a check's: the share of the segment's traces it applied to, before and after, the
    # interval of its change, and the part of the share's move (share_after - share_before)
    # that its change accounts for (the rest is the segment's share of the traffic)
    checkable_before: float | None = None
    checkable_after: float | None = None
    checkable_interval: tuple[float, float] | None = None
    checkable_part: float = 0.0

    @property
    def share_kind(self) -> str:
        """What moved the segment's share of the traces the rate counts: ``applicability``
        (the share of its traces the check applied to moved, significantly, and accounts
        for more of the move than its share of the traffic) or ``mix`` (its share of the
        traffic)."""
        iv = self.checkable_interval
        moved = iv is not None and (iv[0] > 0 or iv[1] < 0)
        traffic = (self.share_after - self.share_before) - self.checkable_part
        return "applicability" if moved and abs(self.checkable_part) > abs(traffic) else "mix"

    @property
    def contribution(self) -> float:
        """Its mix and rate terms: the change of its share of all flagged traces."""
        return self.mix + self.rate

    @property
    def significant(self) -> bool:
        """Its contribution's interval excludes 0."""
        lo, hi = self.contribution_interval
        return lo > 0 or hi < 0

    @property
    def cause(self) -> str | None:
        """``rate`` (its own rate moved), ``mix`` (its share of the traffic moved),
        ``applicability`` (the share of its traces the check applied to moved, and with it its
        share of the checked traces: ``share_kind``), ``both`` (its rate and its share), or
        None."""
        rate = self.rate_interval is not None and (
            self.rate_interval[0] > 0 or self.rate_interval[1] < 0
        )
        lo, hi = self.share_interval
        mix = (lo > 0 or hi < 0) and abs(self.mix) > 0
        return "both" if rate and mix else "rate" if rate else self.share_kind if mix else None

    def as_dict(self) -> JsonObject:
        """The JSON form (``ragmon explain --output-json``)."""
        out: JsonObject = {
            "segment": self.segment,
            "share_before": self.share_before, "share_after": self.share_after,
            "rate_before": self.rate_before, "rate_after": self.rate_after,
            "mix": self.mix, "rate": self.rate, "contribution": self.contribution,
            "interval": list(self.contribution_interval),
            "rate_change_interval": None if self.rate_interval is None
            else list(self.rate_interval),
            "significant": self.significant, "cause": self.cause,
        }  # fmt: skip
        if self.checkable_before is not None or self.checkable_after is not None:
            out["checkable_before"] = self.checkable_before
            out["checkable_after"] = self.checkable_after
        return out
