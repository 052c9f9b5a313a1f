"""``OpenAIBatches``: OpenAI's Batch API (half the price of Chat Completions) through the
real SDK, with the same request and verdict as ``OpenAIJudge``: the requests are uploaded as
one JSONL file, the batch's output and error files are read back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Final

from openai.types.chat import ChatCompletion

from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.judge.openai_judge import OpenAIJudge

_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
_ENDPOINT: Final = "/v1/chat/completions"
# The outbox's batch key, in the batch's metadata: what a restart finds its batch by. A new
# batch is "validating" with every request count 0 (the API reference's create example), so
# counts cannot tell which batch is ours.
KEY = "ragmon_batch"


class OpenAIBatches:
    """The ``BatchApi`` of OpenAI's Batch API, over an ``OpenAIJudge``'s client."""

    name = "openai"

    def __init__(self, judge: OpenAIJudge, discount: float = 0.5) -> None:
        self.judge = judge
        self.discount = discount
        self._client = judge.client

    def submit(self, requests: list[tuple[str, RagTrace]], key: str) -> str:
        """Upload the requests as a JSONL file and create the batch over it, with ``key`` in
        its metadata. The upload may be retried (an unused file costs nothing); the create
        is sent once: the stage looks a lost answer up by the key."""
        lines = []
        for rid, trace in requests:
            line = {"custom_id": rid, "method": "POST", "url": _ENDPOINT,
                    "body": self.judge.request(trace)}  # fmt: skip
            lines.append(json.dumps(line))
        upload = self._client.files.create(
            file=("ragmon-batch.jsonl", ("\n".join(lines) + "\n").encode()), purpose="batch"
        )
        batch = self._client.with_options(max_retries=0).batches.create(
            input_file_id=upload.id, endpoint=_ENDPOINT, completion_window="24h",
            metadata={KEY: key},
        )  # fmt: skip
        return str(batch.id)

    def ended(self, provider_id: str) -> bool:
        """Whether the batch completed, failed, expired or was cancelled."""
        return str(self._client.batches.retrieve(provider_id).status) in _ENDED

    def results(self, provider_id: str) -> Iterator[tuple[str, str, object]]:
        """Each answered request: succeeded with its completion, or errored. Requests in
        neither file (an expired or cancelled batch) are missing: the stage says expired."""
        batch = self._client.batches.retrieve(provider_id)
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            # JSON Lines: lines end at "\n" only; a completion's text may hold U+2028 as
            # it is, which splitlines() would break a line at
            for line in self._client.files.content(file_id).text.split("\n"):
                if not line.strip():
                    continue
                entry = json.loads(line)
                response = entry.get("response") or {}
                error = entry.get("error")
                if response.get("status_code") == 200 and not error:
                    yield str(entry["custom_id"]), "succeeded", response.get("body")
                elif isinstance(error, dict) and error.get("code") == "batch_expired":
                    yield str(entry["custom_id"]), "expired", error  # not run in the window
                else:
                    yield str(entry["custom_id"]), "errored", error

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        """Batches created at ``since`` or later whose metadata carries ``key`` (the count is
        not used: a validating batch reports none). The list is newest first: it is read
        only back to ``since``, not through every page of history."""
        found = []
        for batch in self._client.batches.list(limit=100):
            if batch.created_at < since:
                break
            if (batch.metadata or {}).get(KEY) == key:
                found.append(str(batch.id))
        return found

    def verdict(self, answer: object, trace: RagTrace) -> Verdict:
        """The verdict in a succeeded request's completion, at the batch price."""
        return self.judge.verdict(ChatCompletion.model_validate(answer), trace, self.discount)
