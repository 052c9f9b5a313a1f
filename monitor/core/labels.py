"""Bounded values: free text (routes, apps, instrumentations, segment values) onto a fixed
set, for metric labels and segments alike. A leaf: the telemetry core and the segments (which
may not import it) both use it."""

from __future__ import annotations

import threading
from collections.abc import Iterable

OTHER = "other"
UNKNOWN = "unknown"
_AS_THEY_ARE = frozenset({OTHER, UNKNOWN})


class LabelLimiter:
    """Maps a free-text label value onto a bounded set.

    With an allow-list, anything else is ``other``. Without one, the first ``max_values``
    distinct values are kept and later ones become ``other`` (counted in ``folded``). Missing
    values are ``unknown``; ``unknown`` and ``other`` themselves pass as they are, without
    taking a place.
    """

    def __init__(self, allow: Iterable[str] = (), max_values: int = 50) -> None:
        self._allow = frozenset(allow)
        self._seen: set[str] = set()
        self._max = max_values
        self._lock = threading.Lock()
        self.folded = 0  # values turned into ``other`` so far

    def __call__(self, value: str | None) -> str:
        """The bounded label value for ``value``."""
        if not value:
            return UNKNOWN
        if value in self._seen or value in _AS_THEY_ARE:
            return value
        if self._allow:
            if value in self._allow:
                return value
        else:
            with self._lock:
                if len(self._seen) < self._max:
                    self._seen.add(value)
                    return value
        self.folded += 1
        return OTHER
