"""``GoldenRowSink``: candidate golden rows, deduplicated, PII-redacted, in crash-safe segments."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from monitor.core.lines import GoldenRow
from monitor.core.model import Evaluation, Followup, KafkaConnection, SessionOutcome
from monitor.core.pii import Redactor
from monitor.golden.config import GoldenConfig
from monitor.golden.rows import (
    DEFAULT_REASONS,
    build_followup_row,
    build_row,
    followup_part,
    followup_reasons,
    merge,
    row_id,
)
from monitor.golden.session_rows import build_session_row
from monitor.golden.stored import PREFIX, own_rows
from monitor.golden.stored import load_rows as load_rows  # every writer's rows, read back
from sinks import SinkBase
from sinks.segments import SegmentWriter

if TYPE_CHECKING:
    from monitor.telemetry import Metrics


@dataclass(frozen=True)
class GoldenOutput:
    """The golden-row sink's configuration: ``golden`` (``dir`` and/or ``topic``, one at
    least), the ``kafka`` connection for the topic, and the rows' redactor."""

    golden: GoldenConfig
    connection: KafkaConnection
    redactor: Redactor | None


class RowWriter(Protocol):
    """Where rows go: crash-safe segments, a Kafka topic."""

    def start(self) -> None:
        """Open what rows go to."""

    def put(self, row: GoldenRow) -> None:
        """Take one row (a newer version of a row replaces the older)."""

    def flush(self) -> None:
        """Deliver the rows taken so far."""

    def close(self) -> None:
        """Deliver what is left and release."""


class TopicRowWriter(RowWriter, Protocol):
    """A writer whose records carry only the occurrences its own process counted
    (``golden.topic``, keyed by row and writer)."""

    def resume(self, rows: Iterable[GoldenRow]) -> None:
        """The rows read back at start, counted by earlier processes."""


_MAX_SEEN = 10_000


class GoldenRowSink(SinkBase):
    """Writes a candidate row for every trace flagged for a configured reason.

    Rows with the same normalised query and reason collapse into one (count, first and last
    seen, up to ``max_examples`` trace ids). At most ``max_rows`` rows are kept in memory
    (least recently seen evicted; they stay on disk). On start the existing rows are read
    back, so a restart continues counts and a replay does not count a trace twice.
    """

    name = "golden_rows"

    @classmethod
    def from_config(cls, config: GoldenOutput, metrics: Metrics | None = None) -> GoldenRowSink:
        """Rows to segments in ``golden.dir`` and/or to ``golden.topic``."""
        golden = config.golden
        from sinks.kafka_sink import KafkaRowWriter, writer_identity  # only when used

        topic = (
            [KafkaRowWriter(golden.topic, config.connection, writer_identity())]
            if golden.topic
            else []
        )
        return cls(
            golden.dir,
            config.redactor,
            tuple(golden.reasons),
            max_rows=golden.max_rows,
            max_examples=golden.max_examples,
            segment_max_bytes=golden.segment_max_bytes,
            segment_max_age_seconds=golden.segment_max_age_seconds,
            extra_writers=topic,
        )

    def __init__(
        self,
        directory: Path | None,
        redactor: Redactor | None = None,
        reasons: tuple[str, ...] = DEFAULT_REASONS,
        max_rows: int = 10_000,
        max_examples: int = 5,
        segment_max_bytes: int = 8 << 20,
        segment_max_age_seconds: float = 3600.0,
        extra_writers: Sequence[TopicRowWriter] = (),
    ) -> None:
        self.directory = directory
        self.redactor = redactor or Redactor()
        self.reasons = reasons
        self.max_rows = max_rows
        self.max_examples = max_examples
        self.writers: list[RowWriter] = []
        if directory is not None:
            self.writers.append(
                SegmentWriter(directory, PREFIX, segment_max_bytes, segment_max_age_seconds)
            )
        self.writers.extend(extra_writers)
        self._topics = list(extra_writers)
        self._rows: OrderedDict[str, GoldenRow] = OrderedDict()
        self._seen: dict[str, set[str]] = {}
        self.rows_written = 0

    def start(self) -> None:
        """Open the segment directory and the topic, and read the rows already written there
        (its own: not those of a worker's directory in it, `run --workers`)."""
        for writer in self.writers:
            writer.start()
        if self.directory is not None:
            for rid, row in own_rows(self.directory).items():
                self._remember(rid, row)
        for topic in self._topics:  # their counts are on the earlier processes' keys
            topic.resume(self._rows.values())

    def _put(self, row: GoldenRow) -> None:
        for writer in self.writers:
            writer.put(row)

    def _remember(self, rid: str, row: GoldenRow) -> None:
        self._rows[rid] = row
        self._rows.move_to_end(rid)
        self._seen.setdefault(rid, set()).update(row["ragmon"]["examples"])
        while len(self._rows) > self.max_rows:
            evicted, _ = self._rows.popitem(last=False)
            self._seen.pop(evicted, None)

    def write(self, evaluation: Evaluation) -> None:
        """Merge the evaluation into its candidate row, when a configured reason applies."""
        self._check_open()
        row = build_row(evaluation, self.redactor, self.reasons)
        if row is not None:
            self._take(row)

    def _take(self, row: GoldenRow) -> None:
        """A new row, or an occurrence merged into the row of its id."""
        rid = row["id"]
        existing = self._rows.get(rid)
        if existing is None:
            self._remember(rid, row)
            self._seen[rid].add(row["ragmon"]["trace_id"])
            self._put(row)
            self.rows_written += 1
            return
        self._rows.move_to_end(rid)
        seen = self._seen[rid]
        if merge(existing, row, seen, self.max_examples):
            self._put(existing)
        if len(seen) > _MAX_SEEN:
            # bound the replay guard of a very frequent row; its examples stay known
            self._seen[rid] = set(existing["ragmon"]["examples"])

    def write_followup(self, followup: Followup) -> None:
        """A turn whose next turn asked again, asked for a person or said it was wrong: its
        reasons join the row a check already made of the same question (deduplicated with
        the check reasons), else the question gets a row of its own (``user_*`` reasons)."""
        self._check_open()
        reasons = followup_reasons(followup, self.reasons)
        if not reasons:
            return
        query = followup.turn.query
        for reason in self.reasons:  # a check's row of the same question
            existing = self._rows.get(row_id(query, reason))
            if existing is None:
                continue
            meta = existing["ragmon"]
            added = [r for r in reasons if r not in meta.get("reasons", [])]
            if added or "followup" not in meta:
                meta["reasons"] = [*meta.get("reasons", [meta["reason"]]), *added]
                meta["followup"] = followup_part(followup, self.redactor)
                self._put(existing)
            return
        row = build_followup_row(followup, self.redactor, self.reasons)
        if row is not None:
            self._take(row)

    def write_session(self, outcome: SessionOutcome) -> None:
        """A session that ended badly (abandoned after a failure, escalated): a row of its
        own, its turns and their signals (``golden.session_rows``)."""
        self._check_open()
        row = build_session_row(outcome, self.redactor, self.reasons)
        if row is not None:
            self._take(row)

    def flush(self) -> None:
        """Deliver everything taken so far (raises ``SinkError`` when it cannot)."""
        self._check_open()
        for writer in self.writers:
            writer.flush()

    def close(self) -> None:
        """Deliver what is left and release the sink; a second call does nothing."""
        if not self._closing():
            return
        for writer in self.writers:
            writer.flush()
            writer.close()
