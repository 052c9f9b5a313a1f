"""What a command states of its pipeline: what differs from the daemon — its source (files it
opened, a window of a topic's history: ``monitor.components.COMMAND``'s rows) and the outputs
it may write, each with its path — from which ``monitor.registry.build_command`` builds every
part from the component rows, the daemon's rows for the daemon's outputs.

The daemon's outputs a command writes are built from the same sections the daemon reads, with
the command's paths in the daemon's place (``command_settings``): evaluation lines redacted by
``output.redact_pii``; candidate golden rows by the whole ``golden`` section (reasons, bounds,
PII patterns, segments), ``--golden-dir`` over ``golden.dir``; the store by ``store``, its
path the command's. Nothing else of the daemon's is written: no dead-letter file or topic, no
``golden.topic``, no collector. An evaluations path of ``-`` is standard output.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from monitor.components import FileInput, HistoryWindow
from monitor.config import Settings
from monitor.ingest.decoder import RecordDecoder
from monitor.pipeline import Pipeline
from monitor.sources import Source
from sinks.store import StoreConfig

if TYPE_CHECKING:
    from monitor.judge.estimate import JudgeEstimate
    from sinks.golden import GoldenRowSink
    from sinks.openmetrics import OpenMetricsHistorySink
    from sinks.summary import SummarySink

__all__ = ["CommandRun", "FileInput", "HistoryWindow", "Outputs", "command_settings"]


@dataclass(frozen=True)
class Outputs:
    """What a command may write, each where (None: not written). The daemon's outputs at the
    command's paths — ``evaluations`` (``-``: standard output), ``golden_dir``, ``store`` —
    and its own: a ``summary`` table (of the checks that run), an ``openmetrics`` history of
    ``step_seconds`` steps, the ``judge_estimate`` (what the settings' judge would take of
    the evaluations, read in this process)."""

    evaluations: Path | None = None
    golden_dir: Path | None = None
    store: Path | None = None
    summary: bool = False
    openmetrics: Path | None = None
    step_seconds: float = 60.0
    judge_estimate: bool = False

    def rows(self) -> tuple[str, ...]:
        """The daemon's sink rows (``SINKS``) these outputs write, by name."""
        return tuple(name for name, path in (("jsonl", self.evaluations),
                     ("golden_rows", self.golden_dir), ("store", self.store))
                     if path is not None)  # fmt: skip


@dataclass(frozen=True)
class CommandRun:
    """A command's pipeline, and the parts it reads back once the pipeline has run."""

    pipeline: Pipeline
    source: Source
    decoder: RecordDecoder
    summary: SummarySink | None
    golden: GoldenRowSink | None
    history: OpenMetricsHistorySink | None
    estimate: JudgeEstimate | None = None

    @property
    def read_errors(self) -> list[str]:
        """Why the files could not be read to their end (a files source), in order."""
        return list(getattr(self.source, "read_errors", []))


def command_settings(settings: Settings, outputs: Outputs) -> Settings:
    """The daemon's settings with the command's outputs in the daemon's place: the evaluation
    lines at the command's path (no dead-letter file or topic), ``golden.dir`` the command's
    (no ``golden.topic``), ``store.path`` the command's; the rest of each section as set."""
    output = settings.output.model_copy(update={
        "evaluations_jsonl": outputs.evaluations, "dead_letters_jsonl": None,
        "dead_letters_topic": None,
    })  # fmt: skip
    golden = settings.golden.model_copy(update={"dir": outputs.golden_dir, "topic": None})
    store = settings.of(StoreConfig).model_copy(update={"path": outputs.store})
    return settings.model_copy(update={"output": output, "golden": golden, "store": store})
