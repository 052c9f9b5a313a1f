"""Bounded label values (``monitor.core.labels``, shared with the segments)."""

from __future__ import annotations

from monitor.core.labels import OTHER, UNKNOWN, LabelLimiter

__all__ = ["OTHER", "UNKNOWN", "LabelLimiter"]
