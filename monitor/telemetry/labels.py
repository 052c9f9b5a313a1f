"""Bounded label values (``monitor.labels``, shared with the segments)."""

from __future__ import annotations

from monitor.labels import OTHER, UNKNOWN, LabelLimiter

__all__ = ["OTHER", "UNKNOWN", "LabelLimiter"]
