"""``AnthropicBatches``: the Message Batches API (half the price of the Messages API) through
the real SDK, with the same request and verdict as ``AnthropicJudge`` (the rubric is the
cached system block of every request).

A Message Batch carries no metadata, so the outbox's batch key cannot travel with it: a
restart finds the batch it may have created by its time and request count, which the create
answer already holds (``processing`` is the batch's size from the start)."""

from __future__ import annotations

from collections.abc import Iterator

from anthropic.types import Message
from anthropic.types.messages.batch_create_params import Request

from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.judge.anthropic_judge import AnthropicJudge


class AnthropicBatches:
    """The ``BatchApi`` of Anthropic's Message Batches, over an ``AnthropicJudge``'s client."""

    name = "anthropic"

    def __init__(self, judge: AnthropicJudge, discount: float = 0.5) -> None:
        self.judge = judge
        self.discount = discount
        self._batches = judge.client.messages.batches

    def submit(self, requests: list[tuple[str, RagTrace]], key: str) -> str:
        """One Message Batch of the requests (``custom_id`` = the request id), sent once:
        the stage looks a lost answer up (``key`` has nowhere to go, see the module doc)."""
        body: list[Request] = [{"custom_id": rid, "params": self.judge.request(trace)}
                               for rid, trace in requests]  # fmt: skip
        once = self.judge.client.with_options(max_retries=0).messages.batches
        return str(once.create(requests=body).id)

    def ended(self, provider_id: str) -> bool:
        """Whether processing ended."""
        return bool(self._batches.retrieve(provider_id).processing_status == "ended")

    def results(self, provider_id: str) -> Iterator[tuple[str, str, object]]:
        """Each request's outcome (succeeded, errored, canceled, expired) and message."""
        for entry in self._batches.results(provider_id):
            result = entry.result
            yield str(entry.custom_id), str(result.type), getattr(result, "message", None)

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        """Batches created at ``since`` or later with ``count`` requests. The list is newest
        first: it is read only back to ``since``, not through every page of history."""
        found = []
        for batch in self._batches.list(limit=100):
            if batch.created_at.timestamp() < since:
                break
            c = batch.request_counts
            if c.processing + c.succeeded + c.errored + c.canceled + c.expired == count:
                found.append(str(batch.id))
        return found

    def verdict(self, answer: object, trace: RagTrace) -> Verdict:
        """The verdict in a succeeded request's message, at the batch price."""
        if not isinstance(answer, Message):
            raise ValueError(f"a succeeded request without a message ({type(answer).__name__})")
        return self.judge.verdict(answer, 0.0, discount=self.discount)
