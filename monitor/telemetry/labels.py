"""Bounded label values: free text (routes, apps, instrumentations) onto a fixed set."""

from __future__ import annotations

import threading
from collections.abc import Iterable

OTHER = "other"
UNKNOWN = "unknown"


class LabelLimiter:
    """Maps a free-text label value onto a bounded set.

    With an allow-list, anything else is ``other``. Without one, the first ``max_values``
    distinct values are kept and later ones become ``other``. Missing values are ``unknown``.
    """

    def __init__(self, allow: Iterable[str] = (), max_values: int = 50) -> None:
        self._allow = frozenset(allow)
        self._seen: set[str] = set()
        self._max = max_values
        self._lock = threading.Lock()

    def __call__(self, value: str | None) -> str:
        """The bounded label value for ``value``."""
        if not value:
            return UNKNOWN
        if self._allow:
            return value if value in self._allow else OTHER
        if value in self._seen:
            return value
        with self._lock:
            if len(self._seen) < self._max:
                self._seen.add(value)
                return value
        return OTHER
