"""``ragmon replay``: trace files evaluated offline, with a progress bar and a summary table."""

from __future__ import annotations

import argparse
import threading
import time
from typing import NamedTuple, TextIO

from prometheus_client import CollectorRegistry

from monitor import config as config_mod
from monitor import registry
from monitor.commands.common import _open_output, _settings, is_stdout
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, StartupError, describe
from monitor.core.heap import freeze_startup_heap
from monitor.ingest.assembly import OtlpAssembler
from monitor.ingest.conventions import OUTCOMES
from monitor.ingest.conversion import by_convention
from monitor.sources import framing
from monitor.sources.inputs import Input, check_inputs
from sinks.summary import SummarySink


class _Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second: the share of
    the input read, records per second and the time left when the input's size is known
    (regular files), bytes and records per second otherwise (stdin, pipes)."""

    def __init__(self, total: int | None, out: TextIO, enabled: bool) -> None:
        self.total = total
        self.out = out
        self.enabled = enabled
        self.records = 0
        self._start = time.monotonic()
        self._last = 0.0

    def __call__(self, done: int) -> None:
        self.records += 1
        now = time.monotonic()
        if not self.enabled or now - self._last < 0.1:
            return
        self._last = now
        elapsed = max(now - self._start, 1e-9)
        rate = f"{self.records / elapsed:,.0f} records/s"
        if self.total:
            frac = min(done / self.total, 1.0)
            left = elapsed * (1 - frac) / frac if frac > 0 else 0.0
            bar = "#" * int(frac * 30)
            line = (f"[{bar:<30}] {frac:6.1%}  {done / 1e6:.1f}/{self.total / 1e6:.1f} MB  "
                    f"{rate}  {left:,.0f} s left")  # fmt: skip
        else:
            line = f"{done / 1e6:.1f} MB read  {rate}"
        self.out.write(f"\r{line:<79}")
        self.out.flush()

    def finish(self) -> None:
        if self.enabled:
            elapsed = max(time.monotonic() - self._start, 1e-9)
            line = f"{self.records:,} records in {elapsed:,.1f} s"
            self.out.write(f"\r{line:<79}\n")
            self.out.flush()


def _open_inputs(args: argparse.Namespace, stderr: TextIO) -> list[Input] | None:
    """Every input opened once (``-`` is stdin; pipes; gzip), or None after saying why not."""
    wrong = check_inputs(args.files)
    if wrong is None and args.sample_rate is not None and not 0.0 <= args.sample_rate <= 1.0:
        wrong = "--sample-rate must be between 0 and 1"
    if wrong is not None:
        print(f"ragmon replay: {wrong}", file=stderr)
        return None
    opened: list[Input] = []
    try:
        for path in args.files:
            opened.append(Input(path))
    except OSError as exc:
        print(f"ragmon replay: cannot read {path}: {describe(exc)}", file=stderr)
        for inp in opened:
            inp.close()
        return None
    return opened


def _replay_format(args: argparse.Namespace, inputs: list[Input], stderr: TextIO) -> str | None:
    """The input format (told from the inputs' first bytes unless named), or None after
    saying that the inputs mix formats."""
    if args.format != "auto":
        return str(args.format)
    found = {framing.sniff_format(i.head) for i in inputs} - {None}
    if len(found) > 1:
        print(f"ragmon replay: the files mix formats ({', '.join(sorted(map(str, found)))}); "
              "replay them separately or name one with --format", file=stderr)  # fmt: skip
        return None
    return str(found.pop()) if found else "native"


def _sampling_said(settings: config_mod.Settings, sample_rate: float | None) -> str:
    """What sampling the replay's judge runs: --sample-rate, or the daemon's own."""
    if sample_rate is not None:
        return f"judging {sample_rate:g} of the traces, by trace id (--sample-rate)"
    s = settings.judge.sampling
    base, flagged = registry.sampling_rates(settings)
    extra = [f"routes {s.routes}"] if s.routes else []
    extra += [f"releases {s.releases}"] if s.releases else []
    extra += ["golden probes always"] if s.golden_always else []
    more = f", {', '.join(extra)}" if extra else ""
    if s.by == "risk":  # by the trace's risk, not by whether a check flagged it
        rates = f"by risk: {base:g} at risk 0 rising to {flagged:g} at risk 1"
    else:
        rates = f"base rate {base:g}, flagged {flagged:g}"
    return (f"judging as the daemon samples (judge.sampling, salt {s.salt!r}): {rates}{more}; "
            "--sample-rate overrides")  # fmt: skip


# why sampled traces got no verdict, by the summary's reason (sinks.summary)
_JUDGE_FAILED = {
    "error:connection": "could not reach its server",
    "error:timeout": "timed out",
    "error:rate_limited": "were refused as over its rate limit (HTTP 429)",
    "error:server_error": "got a server error (HTTP 5xx)",
    "error:invalid_response": "got an answer that is not a verdict",
    "error:invalid_output": "got an answer that is not a verdict",
    "error:truncated": "got an answer cut short",
    "error:internal": "failed inside ragmon (the judge_crashed log line says where)",
    "error:worker_died": "lost the judge's worker process",
    "error:closed": "came as the judge was closing",
    "circuit_open": "were skipped while its circuit breaker was open after those failures",
    "paused": "were skipped while it was paused (the judge_paused log line says why)",
}


def _judge_failed_said(backend: str, failed: dict[str, int]) -> str:
    """What happened to the sampled traces the judge could not judge, in words."""
    parts = []
    for reason, n in sorted(failed.items(), key=lambda kv: (-kv[1], kv[0])):
        said = _JUDGE_FAILED.get(reason)
        if said is None and reason.startswith("error:http_"):  # refused whatever the trace
            said = (f"were refused with HTTP {reason.removeprefix('error:http_')} (the key, the "
                    "model or the endpoint; the judge_paused log line says more)")  # fmt: skip
        parts.append(f"{n} {said or reason}")
    return (
        f"no sampled trace could be judged by the {backend} judge: {'; '.join(parts)}; "
        "the checks' results above stand, the judge's do not"
    )


def cmd_replay(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon replay``: evaluate trace files offline and print a summary table."""
    inputs = _open_inputs(args, stderr)
    if inputs is None:
        return EXIT_USAGE
    try:
        return _replay(args, inputs, stdout, stderr)
    finally:
        for inp in inputs:
            inp.close()


def _replay_judge(
    args: argparse.Namespace, settings: config_mod.Settings, stderr: TextIO
) -> config_mod.Settings | None:
    """The settings with the replay's judge: ``--judge`` over ``judge.backend``, online
    (``judge.batch`` is the daemon's outbox); None after saying why not."""
    backend = args.judge or settings.judge.backend  # the flag overrides the config
    if args.sample_rate is not None and backend == "none":
        print("ragmon replay: --sample-rate needs a judge (--judge heuristic, anthropic or "
              "openai, or judge.backend in the config)", file=stderr)  # fmt: skip
        return None
    judge = settings.judge.model_copy(update={"backend": backend})
    if judge.batch.enabled and backend != "none":
        # the batch outbox (judge.batch.dir) is the daemon's: a replay never writes into it
        print("ragmon replay: judge.batch is the daemon's outbox; this replay judges online",
              file=stderr)  # fmt: skip
        judge = judge.model_copy(
            update={"batch": judge.batch.model_copy(update={"enabled": False})}
        )
    return settings.model_copy(update={"judge": judge})


def _output_opened(args: argparse.Namespace, to_stdout: bool, stderr: TextIO) -> bool:
    """``--output-jsonl``, when a regular file (or none yet), overwritten now unless
    ``--append``; False after saying why it cannot be."""
    out = args.output_jsonl
    if out is not None and not to_stdout and (not out.exists() or out.is_file()):
        # a regular file is overwritten now unless --append; the sink appends from here. A
        # FIFO or a device is opened once, by the sink: a FIFO opened and closed here would
        # give its reader an end of file, and the sink's open would then wait forever.
        opened = _open_output(out, "replay", stderr, "a" if args.append else "w")
        if opened is None:
            return False
        opened.close()
    return True


def _replay(args: argparse.Namespace, inputs: list[Input], stdout: TextIO, stderr: TextIO) -> int:
    fmt = _replay_format(args, inputs, stderr)
    settings = _settings(args, "replay", stderr) if fmt is not None else None
    if fmt is None or settings is None:
        return EXIT_USAGE
    settings = _replay_judge(args, settings, stderr)
    to_stdout = is_stdout(args.output_jsonl)
    if settings is None or not _output_opened(args, to_stdout, stderr):
        return EXIT_USAGE
    enabled = args.progress == "always" or (args.progress == "auto" and stderr.isatty())
    sizes = [i.size for i in inputs]
    total = None if None in sizes else sum(s or 0 for s in sizes)
    progress = _Progress(total, stderr, enabled)
    # the read errors are said once, below, with the other reasons
    files = registry.FileInput(tuple(inputs), fmt, progress, log_read_errors=False)
    outputs = registry.Outputs(args.output_jsonl, args.golden_dir, args.store, summary=True)
    try:
        metrics = registry.build_metrics(CollectorRegistry())
        stage = registry.build_judge_stage(settings, metrics, sample_rate=args.sample_rate)
        if stage is not None:
            print(f"ragmon replay: {_sampling_said(settings, args.sample_rate)}", file=stderr)
        run = registry.build_command(settings, metrics, files, outputs, judge_stage=stage)
        run.pipeline.start()
    except StartupError as exc:
        print(f"ragmon replay: {exc}", file=stderr)
        return EXIT_USAGE
    except (OSError, ValueError, KeyError) as exc:
        detail = describe(exc) if isinstance(exc, OSError) else str(exc)
        print(f"ragmon replay: cannot set up: {detail}", file=stderr)
        return EXIT_USAGE
    freeze_startup_heap()
    try:
        run.pipeline.run(threading.Event())
    finally:
        run.pipeline.close()
    progress.finish()
    said = _Said(fmt, settings.judge.backend, stderr if to_stdout else stdout, stderr)
    return _replayed(args, run, inputs, said)


class _Said(NamedTuple):
    """How a replay's findings are said: the input's format, the judge that ran, where the
    summary table goes (stdout, or stderr when the lines go to stdout) and the rest."""

    fmt: str
    backend: str
    out: TextIO
    stderr: TextIO


def _replayed(
    args: argparse.Namespace, run: registry.CommandRun, inputs: list[Input], said: _Said
) -> int:
    """What the replay found, said, and its exit status."""
    summary, fmt, backend, stderr = run.summary, said.fmt, said.backend, said.stderr
    assert summary is not None  # asked for
    if isinstance(run.decoder, OtlpAssembler):
        _report_conventions(run.decoder.counts, stderr)
    _report_bad_records(summary, "message" if fmt == "otlp-proto" else "line", stderr)
    if run.golden is not None:
        print(f"candidate golden rows: {run.golden.rows_written} new in {args.golden_dir}",
              file=stderr)  # fmt: skip
    for what in run.read_errors:
        print(f"ragmon replay: {what}", file=stderr)
    if run.pipeline.stats.traces == 0:
        why = _why_nothing([i.head for i in inputs], fmt)
        print(f"ragmon replay: no trace evaluated{why}", file=stderr)
        return EXIT_FAIL
    print(summary.table(), file=said.out)
    failed = summary.judge_failures()
    if backend != "none" and failed and summary.judged == 0:
        print(f"ragmon replay: {_judge_failed_said(backend, failed)}", file=stderr)
        return EXIT_FAIL
    return EXIT_FAIL if run.read_errors else EXIT_OK


def _report_bad_records(summary: SummarySink, unit: str, stderr: TextIO) -> None:
    for letter in summary.dead_letters:
        where = f"{letter.source} {unit} {letter.offset}"
        print(f"bad record at {where} ({letter.reason}): {letter.detail}", file=stderr)
    hidden = summary.dead_letter_count - len(summary.dead_letters)
    if hidden > 0:
        print(f"... and {hidden} more bad records", file=stderr)


def _why_nothing(heads: list[bytes], fmt: str, flag: str = "drop --format, or name it") -> str:
    """Why a replay (or a convert) evaluated nothing (its inputs' first bytes), as a hint for
    the person who ran it; ``flag`` says how to read the input otherwise."""
    looks = {framing.sniff_format(h) for h in heads}
    if looks == {None}:
        return ": the input is empty"
    looks.discard(None)
    other = sorted(str(f) for f in looks if f != fmt)
    if other:
        return f": read as {fmt}, but the input looks like {other[0]} ({flag})"
    if all(framing.plain_text(h) for h in heads if h.strip()):
        return (": the input is text of no known format (neither JSON lines, native or "
                "OTLP/JSON, nor length-prefixed OTLP protobuf)")  # fmt: skip
    return f": nothing in the input is a trace this reader understands ({fmt})"


def _report_conventions(counts: dict[tuple[str, str], int], stderr: TextIO) -> None:
    """One line: traces per recognised convention, and what was not evaluated."""
    by, incomplete = by_convention(counts)
    parts = [f"{by.get(c, 0)} {c}" for c in OUTCOMES if by.get(c)]
    print(f"OTLP traces: {', '.join(parts) or 'none'}"
          + (f" ({incomplete} incomplete)" if incomplete else ""), file=stderr)  # fmt: skip
