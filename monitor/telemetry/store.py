"""The evaluation store's metrics: what its retention deleted, and the damaged files it moved
aside (``sinks.store``)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter


class StoreMetrics:
    """The evaluation store's half of ``Metrics``."""

    def _define_store(self, registry: CollectorRegistry) -> None:
        self.store_deleted = Counter(
            "ragmon_store_deleted",
            "Traces the evaluation store's retention deleted: age (written longer ago than "
            "store.max_age_days) or size (the oldest, over store.max_bytes).",
            ["reason"],
            registry=registry,
        )
        self.store_damaged = Counter(
            "ragmon_store_damaged",
            "Evaluation store files moved aside as damaged (not a store); a new store was "
            "started each time.",
            registry=registry,
        )

    def on_store_deleted(self, reason: str, n: int) -> None:
        """Retention deleted ``n`` traces for ``reason`` (age, size)."""
        self.store_deleted.labels(reason).inc(n)

    def on_store_damaged(self) -> None:
        """A damaged store file was moved aside."""
        self.store_damaged.inc()
