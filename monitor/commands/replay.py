"""``ragmon replay``: trace files evaluated offline, with a progress bar and a summary table."""

from __future__ import annotations

import argparse
import threading
import time
from typing import TextIO

from prometheus_client import CollectorRegistry

from monitor import config as config_mod
from monitor import registry
from monitor.commands.common import _open_output, _settings, is_stdout
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, StartupError, describe
from monitor.core.heap import freeze_startup_heap
from monitor.core.pii import redactor_for
from monitor.ingest.assembly import OtlpAssembler
from monitor.ingest.conventions import OUTCOMES
from monitor.ingest.conversion import by_convention
from monitor.sources import JsonlSource, OtlpFileSource, framing
from monitor.sources.inputs import Input, check_inputs
from sinks import Sink
from sinks.golden import GoldenRowSink
from sinks.jsonl import JsonlSink
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


def _replay_sinks(
    args: argparse.Namespace, settings: config_mod.Settings, stdout: TextIO | None
) -> tuple[SummarySink, GoldenRowSink | None, list[Sink]]:
    """The summary, the golden-row sink (``--golden-dir``) and every sink of a replay;
    ``stdout`` is given when the evaluation lines go there (``--output-jsonl -``)."""
    summary = SummarySink(registry.build_suite(settings).names)
    summary.calibration = registry.calibration(settings)
    sinks: list[Sink] = [summary]
    if args.output_jsonl is not None:
        path = None if stdout is not None else args.output_jsonl
        sinks.append(JsonlSink(path, stream=stdout, redactor=redactor_for(settings, "lines")))
    if args.store is not None:  # the evaluation store, redacted as the lines are
        from sinks.store import StoreSink

        sinks.append(StoreSink(args.store, redactor=redactor_for(settings, "lines")))
    golden = GoldenRowSink(args.golden_dir) if args.golden_dir is not None else None
    if golden is not None:
        sinks.append(golden)
    return summary, golden, sinks


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


def _replay_source(
    inputs: list[Input], fmt: str, progress: _Progress
) -> JsonlSource | OtlpFileSource:
    """The files' source: native lines, or OTLP in ``fmt``; read errors said by the replay."""
    source: JsonlSource | OtlpFileSource
    if fmt == "native":
        source = JsonlSource(inputs, on_progress=progress)
    else:
        source = OtlpFileSource(inputs, fmt, on_progress=progress)
    source.log_read_errors = False  # said once, below, with the other reasons
    return source


def _replay(args: argparse.Namespace, inputs: list[Input], stdout: TextIO, stderr: TextIO) -> int:
    fmt = _replay_format(args, inputs, stderr)
    settings = _settings(args, "replay", stderr) if fmt is not None else None
    if fmt is None or settings is None:
        return EXIT_USAGE
    settings = _replay_judge(args, settings, stderr)
    to_stdout = is_stdout(args.output_jsonl)
    if settings is None or not _output_opened(args, to_stdout, stderr):
        return EXIT_USAGE
    backend = settings.judge.backend
    enabled = args.progress == "always" or (args.progress == "auto" and stderr.isatty())
    sizes = [i.size for i in inputs]
    total = None if None in sizes else sum(s or 0 for s in sizes)
    progress = _Progress(total, stderr, enabled)
    source = _replay_source(inputs, fmt, progress)
    try:
        summary, golden, sinks = _replay_sinks(args, settings, stdout if to_stdout else None)
        metrics = registry.build_metrics(CollectorRegistry())
        stage = registry.build_judge_stage(settings, metrics, sample_rate=args.sample_rate)
        if stage is not None:
            print(f"ragmon replay: {_sampling_said(settings, args.sample_rate)}", file=stderr)
        decoder = registry.build_decoder(settings, metrics, fmt=fmt.replace("-", "_"))
        pipeline = registry.build_pipeline(
            settings, metrics, source=source, extra_sinks=sinks, judge_stage=stage,
            decoder=decoder, outputs=False,
        )  # fmt: skip
        pipeline.start()
    except StartupError as exc:
        print(f"ragmon replay: {exc}", file=stderr)
        return EXIT_USAGE
    except (OSError, ValueError, KeyError) as exc:
        detail = describe(exc) if isinstance(exc, OSError) else str(exc)
        print(f"ragmon replay: cannot set up: {detail}", file=stderr)
        return EXIT_USAGE
    freeze_startup_heap()
    try:
        pipeline.run(threading.Event())
    finally:
        pipeline.close()
    progress.finish()
    if isinstance(decoder, OtlpAssembler):
        _report_conventions(decoder.counts, stderr)
    _report_bad_records(summary, "message" if fmt == "otlp-proto" else "line", stderr)
    if golden is not None:
        print(f"candidate golden rows: {golden.rows_written} new in {args.golden_dir}",
              file=stderr)  # fmt: skip
    for what in source.read_errors:
        print(f"ragmon replay: {what}", file=stderr)
    if pipeline.stats.traces == 0:
        why = _why_nothing([i.head for i in inputs], fmt)
        print(f"ragmon replay: no trace evaluated{why}", file=stderr)
        return EXIT_FAIL
    print(summary.table(), file=stderr if to_stdout else stdout)
    failed = summary.judge_failures()
    if backend != "none" and failed and summary.judged == 0:
        print(f"ragmon replay: {_judge_failed_said(backend, failed)}", file=stderr)
        return EXIT_FAIL
    return EXIT_FAIL if source.read_errors else EXIT_OK


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
    return f": nothing in the input is a trace this reader understands ({fmt})"


def _report_conventions(counts: dict[tuple[str, str], int], stderr: TextIO) -> None:
    """One line: traces per recognised convention, and what was not evaluated."""
    by, incomplete = by_convention(counts)
    parts = [f"{by.get(c, 0)} {c}" for c in OUTCOMES if by.get(c)]
    print(f"OTLP traces: {', '.join(parts) or 'none'}"
          + (f" ({incomplete} incomplete)" if incomplete else ""), file=stderr)  # fmt: skip
