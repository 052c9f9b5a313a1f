"""Two periods from one stream of evaluation lines (``ragmon explain FILE --since T``): the
lines before ``since``, and those from ``since`` to ``until``, by each line's ``timestamp``
(the trace's time). A follow-up line takes the time of its turn's evaluation line, which
comes earlier in the same stream; a line with no time is counted and left out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from monitor.core.lines import Line


def seconds(stamp: object) -> float | None:
    """Unix seconds of an RFC 3339 time (one without a zone read as UTC), or None when
    ``stamp`` is not one."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


@dataclass(slots=True)
class Periods:
    """The lines of each period, and what was left out of both."""

    before: list[Line] = field(default_factory=list)
    after: list[Line] = field(default_factory=list)
    untimed: int = 0  # lines with no time (no timestamp, or their turn's line had none)
    later: int = 0  # lines at or after ``until``
    first: float | None = None  # the earliest and latest time seen
    last: float | None = None


def split(lines: Iterable[Line], since: float, until: float | None = None) -> Periods:
    """``lines`` before ``since`` and from ``since`` up to ``until`` (None: no end)."""
    out = Periods()
    times: dict[str, float] = {}  # an evaluation line's time, by trace id, for its follow-up
    for line in lines:
        if "followup" in line:
            at = times.get(line["trace_id"])
        else:
            at = seconds(line.get("timestamp"))
            if at is not None:
                times[line["trace_id"]] = at
        if at is None:
            out.untimed += 1
            continue
        out.first = at if out.first is None else min(out.first, at)
        out.last = at if out.last is None else max(out.last, at)
        if at < since:
            out.before.append(line)
        elif until is None or at < until:
            out.after.append(line)
        else:
            out.later += 1
    return out
