"""The ``ragmon`` commands: what each one does once its arguments are parsed.

``monitor.commands.cli`` parses the command line and imports this module only then, so ``ragmon
--version`` and ``--help`` do not pay for importing the pipeline.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO

import structlog
import yaml
from prometheus_client import CollectorRegistry

from monitor import config as config_mod
from monitor import registry
from monitor.commands.server import MetricsServer
from monitor.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, ConfigError, StartupError, describe
from monitor.golden import export as golden_export
from monitor.golden import review
from monitor.ingest import assembly, otlp
from monitor.ingest.assembly import OtlpAssembler, by_convention
from monitor.ingest.conventions import CONTENT_MISSING, OUTCOMES, OWN, UNRECOGNISED
from monitor.ingest.native import NativeDecoder
from monitor.judge.calibration import Calibration, calibrate, report
from monitor.judge.rubric import RUBRIC_ID
from monitor.judge.verdict import VERDICTS
from monitor.log import configure as configure_logging
from monitor.model import DeadLetter, Evaluation, RagTrace
from monitor.pipeline import Pipeline, freeze_startup_heap
from monitor.sources import JsonlSource, OtlpFileSource, SourcePosition, SourceRecord, demo
from monitor.telemetry import Metrics
from sinks.golden import GoldenRowSink, load_rows
from sinks.jsonl import JsonlSink
from sinks.summary import SummarySink

if TYPE_CHECKING:
    from monitor.golden.probes import LoadedSet

_SHOWN_ERRORS = 10  # bad rows reported one by one; the rest are counted


def _settings(args: argparse.Namespace, command: str, stderr: TextIO) -> config_mod.Settings | None:
    """The configuration of ``--config`` plus the environment, or None after saying why."""
    try:
        return config_mod.load(args.config)
    except ConfigError as exc:
        print(f"ragmon {command}: {exc}", file=stderr)
        return None


def cmd_check(stdin: BinaryIO, stdout: TextIO, stderr: TextIO, pretty: bool = False) -> int:
    raw = stdin.read()
    item = NativeDecoder()(SourceRecord(SourcePosition("stdin", 0, 0), raw.strip()))
    if isinstance(item, DeadLetter):
        print(f"ragmon check: invalid trace ({item.reason}): {item.detail}", file=stderr)
        return EXIT_USAGE
    suite = registry.build_suite(config_mod.Settings())
    evaluation = Evaluation(trace=item, checks=suite(item))
    json.dump(evaluation.to_line(), stdout, ensure_ascii=False, indent=2 if pretty else None)
    stdout.write("\n")
    return EXIT_OK


def _writable(path: Path, command: str, stderr: TextIO) -> bool:
    """Whether ``path`` can be an output file: not a directory, and its parent directories
    exist or were created now (every command's output files behave alike). False after
    saying why on stderr."""
    if path.is_dir():
        print(f"ragmon {command}: {path} is a directory; give a file name", file=stderr)
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"ragmon {command}: cannot create {path.parent}: {describe(exc)}", file=stderr)
        return False
    return True


def _open_output(
    path: Path, command: str, stderr: TextIO, mode: Literal["w", "a"] = "w"
) -> TextIO | None:
    """The output file opened (overwritten unless ``mode`` is "a"), or None after saying
    on stderr why it cannot be."""
    if not _writable(path, command, stderr):
        return None
    try:
        return path.open(mode, encoding="utf-8")
    except OSError as exc:
        print(f"ragmon {command}: cannot write {path}: {describe(exc)}", file=stderr)
        return None


class _Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, out: TextIO, enabled: bool) -> None:
        self.total = max(total, 1)
        self.out = out
        self.enabled = enabled
        self.traces = 0
        self._last = 0.0

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if not self.enabled or now - self._last < 0.1:
            return
        self._last = now
        frac = min(done / self.total, 1.0)
        bar = "#" * int(frac * 30)
        self.out.write(f"\r[{bar:<30}] {frac:6.1%}  {done / 1e6:.1f}/{self.total / 1e6:.1f} MB")
        self.out.flush()

    def finish(self) -> None:
        if self.enabled:
            self.out.write(f"\r[{'#' * 30}] 100.0%{' ' * 24}\n")
            self.out.flush()


def _replay_format(args: argparse.Namespace, stderr: TextIO) -> str | None:
    """The input format (told from the files' first bytes unless named), or None after
    saying what is wrong with the arguments."""
    for path in args.files:
        if not path.exists() or path.is_dir():
            what = "is a directory" if path.is_dir() else "no such file"
            print(f"ragmon replay: {what}: {path}", file=stderr)
            return None
    if args.sample_rate is not None and args.judge == "none":
        print("ragmon replay: --sample-rate needs --judge heuristic or anthropic", file=stderr)
        return None
    if args.sample_rate is not None and not 0.0 <= args.sample_rate <= 1.0:
        print("ragmon replay: --sample-rate must be between 0 and 1", file=stderr)
        return None
    if args.format != "auto":
        return str(args.format)
    found = {otlp.sniff_format(p) for p in args.files} - {None}
    if len(found) > 1:
        print(f"ragmon replay: the files mix formats ({', '.join(sorted(map(str, found)))}); "
              "replay them separately or name one with --format", file=stderr)  # fmt: skip
        return None
    return str(found.pop()) if found else "native"


def _replay_sinks(
    args: argparse.Namespace, settings: config_mod.Settings, stdout: TextIO | None
) -> tuple[SummarySink, GoldenRowSink | None, list[Any]]:
    """The summary, the golden-row sink (``--golden-dir``) and every sink of a replay;
    ``stdout`` is given when the evaluation lines go there (``--output-jsonl -``)."""
    summary = SummarySink(registry.build_suite(settings).names)
    if settings.judge.calibration_file is not None and args.judge != "none":
        summary.calibration = Calibration.load(settings.judge.calibration_file)
    sinks: list[Any] = [summary]
    if args.output_jsonl is not None:
        path = None if stdout is not None else args.output_jsonl
        sinks.append(
            JsonlSink(path, stream=stdout, redactor=registry.evaluation_redactor(settings))
        )
    golden = GoldenRowSink(args.golden_dir) if args.golden_dir is not None else None
    if golden is not None:
        sinks.append(golden)
    return summary, golden, sinks


def cmd_replay(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    fmt = _replay_format(args, stderr)
    settings = _settings(args, "replay", stderr) if fmt is not None else None
    if fmt is None or settings is None:
        return EXIT_USAGE
    settings = settings.model_copy(
        update={"judge": settings.judge.model_copy(update={"backend": args.judge})}
    )
    to_stdout = args.output_jsonl is not None and str(args.output_jsonl) == "-"
    if args.output_jsonl is not None and not to_stdout:
        opened = _open_output(args.output_jsonl, "replay", stderr, "a" if args.append else "w")
        if opened is None:
            return EXIT_USAGE
        opened.close()  # overwritten now unless --append; the sink appends from here
    enabled = args.progress == "always" or (args.progress == "auto" and stderr.isatty())
    progress = _Progress(sum(p.stat().st_size for p in args.files), stderr, enabled)
    source: Any
    if fmt == "native":
        source = JsonlSource(args.files, on_progress=progress)
    else:
        source = OtlpFileSource(args.files, fmt)
    try:
        summary, golden, sinks = _replay_sinks(args, settings, stdout if to_stdout else None)
        metrics = registry.build_metrics(CollectorRegistry())
        rate = 1.0 if args.sample_rate is None else args.sample_rate
        stage = registry.build_judge_stage(settings, metrics, sample_rate=rate)
        decoder = registry.build_decoder(settings, metrics, fmt=fmt.replace("-", "_"))
        pipeline = registry.build_pipeline(
            settings, metrics, source=source, extra_sinks=sinks, judge_stage=stage,
            decoder=decoder,
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
    if pipeline.stats.traces == 0:
        print(f"ragmon replay: no trace evaluated{_why_nothing(args.files, fmt)}", file=stderr)
        return EXIT_FAIL
    print(summary.table(), file=stderr if to_stdout else stdout)
    failed = summary.judge_failures()
    if args.judge != "none" and failed and summary.judged == 0:
        shown = ", ".join(f"{k} {v}" for k, v in sorted(failed.items()))
        print(f"ragmon replay: no sampled trace could be judged ({shown}); the checks' results "
              "above stand, the judge's do not (see the log lines above for why)",
              file=stderr)  # fmt: skip
        return EXIT_FAIL
    return EXIT_OK


def _report_bad_records(summary: SummarySink, unit: str, stderr: TextIO) -> None:
    for letter in summary.dead_letters:
        where = f"{letter.source} {unit} {letter.offset}"
        print(f"bad record at {where} ({letter.reason}): {letter.detail}", file=stderr)
    hidden = summary.dead_letter_count - len(summary.dead_letters)
    if hidden > 0:
        print(f"... and {hidden} more bad records", file=stderr)


def _why_nothing(files: list[Path], fmt: str) -> str:
    """Why a replay evaluated nothing, as a hint for the person who ran it."""
    looks = {otlp.sniff_format(p) for p in files}
    if looks == {None}:
        return ": the input is empty"
    looks.discard(None)
    other = sorted(str(f) for f in looks if f != fmt)
    if other:
        return f": read as {fmt}, but the input looks like {other[0]} (drop --format, or name it)"
    return f": nothing in the input is a trace this reader understands ({fmt})"


def cmd_demo(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    out = stdout
    if args.output is not None:
        opened = _open_output(args.output, "demo", stderr)
        if opened is None:
            return EXIT_USAGE
        out = opened
    rate = args.rate if args.rate is not None else (50.0 if args.count == 0 else 0.0)
    try:
        i = 0
        while args.count == 0 or i < args.count:
            record = demo.generate(i, args.seed)
            if args.with_labels:
                record["label"] = demo.gold_label(record)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            i += 1
            if rate > 0:
                out.flush()
                time.sleep(1.0 / rate)
    finally:
        if out is not stdout:
            out.close()
    return EXIT_OK


def cmd_schema(which: str, stdout: TextIO) -> int:
    model = RagTrace if which == "trace" else config_mod.Settings
    json.dump(model.model_json_schema(), stdout, indent=2)
    stdout.write("\n")
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    settings = _settings(args, "calibrate", stderr)
    if settings is None:
        return EXIT_USAGE
    if not args.labels.is_file():
        print(f"ragmon calibrate: no such file: {args.labels}", file=stderr)
        return EXIT_USAGE
    if args.output is not None and not _writable(args.output, "calibrate", stderr):
        return EXIT_USAGE
    cfg = settings.judge.model_copy(update={"backend": args.judge})
    try:
        judge = registry.build_judge(cfg)
    except StartupError as exc:
        print(f"ragmon calibrate: {exc}", file=stderr)
        return EXIT_USAGE
    pairs: list[tuple[str, str]] = []
    errors = 0
    try:
        text = args.labels.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = describe(exc) if isinstance(exc, OSError) else "not UTF-8 text"
        print(f"ragmon calibrate: cannot read {args.labels}: {why}", file=stderr)
        return EXIT_USAGE
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or "label" not in data:
                raise ValueError("no 'label' field")
            label = data.pop("label")
            if label not in VERDICTS:
                raise ValueError(f"label {label!r} is not one of {VERDICTS}")
            trace = RagTrace.model_validate(data)
            verdict = judge.judge(trace)
        except Exception as exc:  # a bad row or a failed call: counted, reported, skipped
            errors += 1
            if errors <= _SHOWN_ERRORS:
                first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
                print(f"{args.labels} line {lineno}: {first}", file=stderr)
            continue
        pairs.append((label, verdict.verdict))
    if errors > _SHOWN_ERRORS:
        print(f"... and {errors - _SHOWN_ERRORS} more rows skipped", file=stderr)
    if not pairs:
        print("ragmon calibrate: no usable labelled rows (each row is a native trace plus "
              "'label': pass | fail | hard_fail | not_applicable)", file=stderr)  # fmt: skip
        return EXIT_FAIL
    result = calibrate(pairs, judge.name, judge.model, RUBRIC_ID)
    print(report(result), file=stdout)
    if errors:
        print(f"skipped rows: {errors}", file=stdout)
    if args.output is not None:
        result.save(args.output)
    return EXIT_OK


def _report_conventions(counts: dict[tuple[str, str], int], stderr: TextIO) -> None:
    """One line: traces per recognised convention, and what was not evaluated."""
    by, incomplete = by_convention(counts)
    parts = [f"{by.get(c, 0)} {c}" for c in OUTCOMES if by.get(c)]
    print(f"OTLP traces: {', '.join(parts) or 'none'}"
          + (f" ({incomplete} incomplete)" if incomplete else ""), file=stderr)  # fmt: skip


def _otlp(paths: Sequence[Path], fmt: str, stderr: TextIO) -> assembly.Conversion:
    messages = [m for p in paths for m in otlp.read_messages(p.read_bytes(), fmt)]
    result = assembly.convert(messages, fmt.replace("-", "_"))
    for index, reason, _ in result.bad_messages[:20]:
        print(f"bad OTLP message #{index} ({reason})", file=stderr)
    print(
        f"OTLP: {len(result.traces)} traces mapped, {result.count(UNRECOGNISED)} unrecognised, "
        f"{result.count(CONTENT_MISSING)} without captured content, {result.count(OWN)} of "
        f"ragmon's own skipped, {len(result.bad_messages)} bad messages",
        file=stderr,
    )
    return result


def cmd_convert(args: argparse.Namespace, stderr: TextIO) -> int:
    if not args.file.is_file():
        print(f"ragmon convert: no such file: {args.file}", file=stderr)
        return EXIT_USAGE
    if not _writable(args.output_jsonl, "convert", stderr):
        return EXIT_USAGE
    result = _otlp([args.file], args.fmt, stderr)
    if not result.traces and result.bad_messages:
        hint = _why_nothing([args.file], args.fmt)
        print(f"ragmon convert: no trace mapped{hint}", file=stderr)
        return EXIT_FAIL
    with args.output_jsonl.open("w", encoding="utf-8") as out:
        for trace in result.traces:
            record = {
                "schema": "ragmon.trace/v1",
                **trace.model_dump(mode="json", exclude_none=True),
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return EXIT_OK


def cmd_golden(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    output = getattr(args, "output", None)
    if output is not None and not _writable(output, f"golden {args.action}", stderr):
        return EXIT_USAGE
    if args.action == "export" and getattr(args, "set", None) is not None:
        return _golden_export_set(args, stdout, stderr)
    if args.dir is None:
        print(f"ragmon golden {args.action}: --dir is required (or --set for export)", file=stderr)
        return EXIT_USAGE
    if not args.dir.is_dir():
        print(f"ragmon golden: no such directory: {args.dir}", file=stderr)
        return EXIT_USAGE
    action = {"stats": _golden_stats, "export": _golden_export, "review": _golden_review,
              "publish": _golden_publish, "precision": _golden_precision}[args.action]  # fmt: skip
    return action(args, stdout, stderr)


def _decided_rows(golden_dir: Path, stderr: TextIO) -> list[dict[str, Any]]:
    """The candidate rows with the review log's decisions applied: the state the review
    page shows (``review.apply_decisions``)."""
    read = review.ReviewLog(golden_dir).read()
    for no, why in read.bad_lines:
        print(f"skipped unreadable decision at line {no}: {why}", file=stderr)
    return list(review.apply_decisions(load_rows(golden_dir), read.decisions).values())


def _golden_stats(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    print(golden_export.stats(_decided_rows(args.dir, stderr)), file=stdout)
    return EXIT_OK


def _golden_export(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    rows = _decided_rows(args.dir, stderr)
    status = args.status.strip().lower()
    if status not in (*golden_export.STATUSES, "any"):
        known = ", ".join((*golden_export.STATUSES, "any"))
        print(f"ragmon golden export: unknown --status {args.status!r} (one of {known})",
              file=stderr)  # fmt: skip
        return EXIT_USAGE
    wanted = {"reviewed": golden_export.REVIEWED, "any": None}.get(status, (status,))
    chosen = [r for r in rows if wanted is None or golden_export.status_of(r) in wanted]
    no_reference = [
        r for r in chosen if status == "reviewed" and not golden_export.has_reference(r)
    ]
    if no_reference:
        chosen = [r for r in chosen if golden_export.has_reference(r)]
        print(f"skipped {len(no_reference)} reviewed rows without a reference (fill "
              f"'reference' first), e.g. {no_reference[0]['id']}", file=stderr)  # fmt: skip
    with _output(args.output, stdout) as out:
        n = golden_export.export(chosen, args.format, out, args.dataset_name)
    print(f"exported {n} of {len(rows)} rows as {args.format}", file=stderr)
    if n == 0 and rows and status == "reviewed":
        print("no row is reviewed yet: accept rows on the review page (ragmon review) or with "
              "`ragmon golden review`; `ragmon golden publish` then writes the versioned golden "
              "set, which `golden export --set DIR/set` exports", file=stderr)  # fmt: skip
    return EXIT_OK


def _golden_set(path: Path, command: str, stderr: TextIO) -> LoadedSet | None:
    """A published golden set, or None after saying why on stderr."""
    from monitor.golden.probes import load_set

    try:
        return load_set(path)
    except (OSError, ValueError, review.ReviewError) as exc:
        detail = describe(exc) if isinstance(exc, OSError) else str(exc)
        print(f"ragmon {command}: {detail}", file=stderr)
        return None


@contextlib.contextmanager
def _output(path: Path | None, stdout: TextIO) -> Iterator[TextIO]:
    """The file at ``path`` (closed after), or stdout."""
    if path is None:
        yield stdout
        return
    with path.open("w", encoding="utf-8") as out:
        yield out


def _golden_export_set(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    golden = _golden_set(args.set, "golden export", stderr)
    if golden is None:
        return EXIT_USAGE
    with _output(args.output, stdout) as out:
        n = golden_export.export_set(golden.items.values(), args.format, out, args.dataset_name)
    print(f"exported {n} items of golden set {golden.version} as {args.format}", file=stderr)
    return EXIT_OK


def _golden_review(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    row = load_rows(args.dir).get(args.row)
    if row is None:
        print(f"ragmon golden review: no candidate row {args.row!r} in {args.dir}", file=stderr)
        return EXIT_USAGE
    if not args.reviewer:
        print("ragmon golden review: --reviewer is required (or set RAGMON_REVIEWER)",
              file=stderr)  # fmt: skip
        return EXIT_USAGE
    try:
        gold = {doc: int(grade) for doc, _, grade in (g.rpartition("=") for g in args.gold)}
    except ValueError:
        print(f"ragmon golden review: --gold takes DOC=GRADE, not {args.gold}", file=stderr)
        return EXIT_USAGE
    fields = {"reference": args.reference, "gold_docs": gold, "category": args.category,
              "expected": args.expect, "note": args.note, "after": args.after,
              "reason": args.reject}  # fmt: skip
    try:
        decision = review.decide(
            review.ReviewLog(args.dir), row, "accept" if args.accept else "reject",
            args.reviewer, **{k: v for k, v in fields.items() if v is not None},
        )  # fmt: skip
    except review.ReviewError as exc:
        print(f"ragmon golden review: {exc}", file=stderr)
        return EXIT_FAIL if isinstance(exc, review.ReviewConflict) else EXIT_USAGE
    print(f"{decision.action}ed {args.row} (decision {decision.id})", file=stdout)
    return EXIT_OK


def _golden_publish(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    read = review.ReviewLog(args.dir).read()
    for no, why in read.bad_lines:
        print(f"skipped unreadable decision at line {no}: {why}", file=stderr)
    items = review.golden_items(load_rows(args.dir), read.decisions)
    try:
        version, new = review.publish(items, args.out or args.dir / "set")
    except (OSError, review.ReviewError) as exc:
        print(f"ragmon golden publish: {exc}", file=stderr)
        return EXIT_FAIL
    state = "written" if new else "unchanged, not written again"
    print(f"golden set v{version.number:04d}: {len(items)} items, {version.path} ({state})",
          file=stdout)  # fmt: skip
    return EXIT_OK


def _golden_precision(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    rows = review.precision(review.ReviewLog(args.dir).read().decisions)
    if not rows:
        print("no reviewed flagged rows yet (accept, or reject as check_wrong)", file=stderr)
        return EXIT_OK
    print(f"{'check':<22} {'route':<16} {'right':>6} {'wrong':>6} {'precision':>10}  95% interval",
          file=stdout)  # fmt: skip
    for p in rows:
        low, high = p.interval()
        print(f"{p.check:<22} {p.route or '-':<16} {p.right:>6} {p.wrong:>6} "
              f"{p.estimate:>10.2f}  {low:.2f}-{high:.2f}", file=stdout)  # fmt: skip
    return EXIT_OK


def cmd_review(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from monitor.golden import web as review_web

    settings = _settings(args, "review", stderr)
    if settings is None:
        return EXIT_USAGE
    if not args.dir.is_dir():
        print(f"ragmon review: no such directory: {args.dir}", file=stderr)
        return EXIT_USAGE
    if not 0 <= args.port <= 65535:
        print(f"ragmon review: --port must be 0-65535, not {args.port}", file=stderr)
        return EXIT_USAGE
    if (args.tls_cert is None) != (args.tls_key is None):
        print("ragmon review: --tls-cert and --tls-key go together", file=stderr)
        return EXIT_USAGE
    g = settings.golden
    tls = (args.tls_cert, args.tls_key) if args.tls_cert is not None else g.review_tls
    token = g.review_token.get_secret_value() if g.review_token else None
    try:
        page = review_web.Background(args.dir, args.host, args.port, token, tls)
    except ConfigError as exc:
        print(f"ragmon review: {exc}", file=stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"ragmon review: cannot listen on {args.host}:{args.port}: {describe(exc)}",
              file=stderr)  # fmt: skip
        return EXIT_USAGE
    scheme = "https" if tls else "http"
    print(f"review page on {scheme}://{args.host}:{page.port}/ (Ctrl-C to stop)", file=stderr)
    try:
        page.server.run(sockets=[page.sock])  # uvicorn stops on SIGINT / SIGTERM
    except KeyboardInterrupt:
        pass
    finally:
        page.sock.close()
    return EXIT_OK


def cmd_probe(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from monitor.golden import probe_client
    from monitor.golden.probes import load_set

    try:
        template = json.loads(args.request_template.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        detail = describe(exc) if isinstance(exc, OSError) else str(exc)
        print(f"ragmon probe: --request-template: {detail}", file=stderr)
        return EXIT_USAGE
    golden = _golden_set(args.golden, "probe", stderr)
    if golden is None:
        return EXIT_USAGE
    prober = probe_client.Prober(args.endpoint, template, rate=args.rate, timeout=args.timeout,
                                 header=args.header)  # fmt: skip
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        while True:
            report = prober.run(golden.items.values(), stop)
            print(f"golden set {golden.version}: {report.line()}", file=stderr)
            if args.every is None or stop.wait(probe_client.next_delay(args.every)):
                return EXIT_FAIL if report.failed and args.every is None else EXIT_OK
            try:
                golden = load_set(args.golden)  # a newer version, if one was published
            except (OSError, ValueError, review.ReviewError) as exc:
                print(f"ragmon probe: keeping {golden.version}: {exc}", file=stderr)
    finally:
        prober.close()


def cmd_compare(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from monitor.golden.compare import compare

    if len(args.release) != 2 or args.release[0] == args.release[1]:
        print("ragmon compare: give --release twice, two different releases", file=stderr)
        return EXIT_USAGE
    if args.output_json is not None and not _writable(args.output_json, "compare", stderr):
        return EXIT_USAGE
    golden = _golden_set(args.golden, "compare", stderr)
    if golden is None:
        return EXIT_USAGE
    traces, bad = [], 0
    for path in args.files:
        try:
            lines = path.read_bytes().splitlines()
        except OSError as exc:
            print(f"ragmon compare: {describe(exc)}", file=stderr)
            return EXIT_USAGE
        for line in lines:
            if not line.strip():
                continue
            try:
                traces.append(RagTrace.model_validate_json(line))
            except ValueError:
                bad += 1
    if bad:
        print(f"skipped {bad} lines that are not ragmon.trace/v1 records", file=stderr)
    result = compare(traces, golden.items, args.release[0], args.release[1])
    if not result.metrics:
        print(f"ragmon compare: no golden probe answered under both {args.release[0]} and "
              f"{args.release[1]} (golden set {golden.version})", file=stderr)  # fmt: skip
        return EXIT_FAIL
    print(result.table(), file=stdout)
    if args.output_json:
        args.output_json.write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    return EXIT_OK


def cmd_config(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if args.action == "schema":
        json.dump(config_mod.Settings.model_json_schema(), stdout, indent=2)
        stdout.write("\n")
        return EXIT_OK
    settings = _settings(args, "config", stderr)
    if settings is None:
        return EXIT_USAGE
    if args.action == "show":
        yaml.safe_dump(settings.model_dump(mode="json"), stdout, sort_keys=False)
    else:
        print(f"ok: {args.config or 'built-in defaults'}", file=stdout)
    return EXIT_OK


def _run_metrics(settings: config_mod.Settings, stderr: TextIO) -> Metrics | None:
    """The daemon's metrics, with review precision and the judge calibration record."""
    metrics = registry.build_metrics(CollectorRegistry())
    registry.watch_reviews(settings, metrics)
    if settings.judge.calibration_file is not None:
        try:
            metrics.set_calibration(Calibration.load(settings.judge.calibration_file))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            print(f"ragmon run: cannot read judge.calibration_file: {exc}", file=stderr)
            return None
    return metrics


def cmd_run(args: argparse.Namespace, stderr: TextIO) -> int:
    settings = _settings(args, "run", stderr)
    if settings is None:
        return EXIT_USAGE
    configure_logging(settings.log.level, settings.log.format)
    log = structlog.get_logger("ragmon")
    metrics = _run_metrics(settings, stderr)
    if metrics is None:
        return EXIT_USAGE
    built = _build_run(settings, metrics, stderr)
    if built is None:
        return EXIT_USAGE
    pipeline, extras = built
    ready = threading.Event()
    try:
        server = MetricsServer(
            metrics.registry, settings.metrics.host, settings.metrics.port, ready=ready.is_set
        )
    except OSError as exc:
        where = f"{settings.metrics.host}:{settings.metrics.port}"
        print(f"ragmon run: cannot listen on {where}: {exc.strerror}", file=stderr)
        _close_all(extras)
        return EXIT_USAGE
    stop = threading.Event()
    _install_signal_handlers(stop, settings.shutdown_timeout_seconds, log)
    server.start()
    try:
        pipeline.start()
    except StartupError as exc:
        print(f"ragmon run: {exc}", file=stderr)
        _close_all([pipeline, server, *extras])
        return EXIT_USAGE
    log.info(
        "started",
        source=settings.source.type,
        metrics=f"http://{settings.metrics.host}:{server.port}/metrics",
        checks=pipeline.suite.names,
    )
    freeze_startup_heap()
    ready.set()
    server.ready = lambda: ready.is_set() and pipeline.source.ready()
    for extra in extras:
        extra.start()
    code = EXIT_OK
    try:
        stats = pipeline.run(stop)
        log.info("stopped", records=stats.records, traces=stats.traces,
                 dead_letters=stats.dead_letters, commits=stats.commits)  # fmt: skip
    except Exception:
        log.exception("pipeline_failed")
        code = EXIT_FAIL
        _start_watchdog(settings.shutdown_timeout_seconds, log)  # closing is bounded too
    finally:
        ready.clear()
        _close_all([pipeline, server, *extras])
    return code


def _build_run(
    settings: config_mod.Settings, metrics: Metrics, stderr: TextIO
) -> tuple[Pipeline, list[Any]] | None:
    """The pipeline, and the parts started once it runs (the review page, the daemon's own
    probes); None after saying on stderr why they cannot be built."""
    try:
        pipeline = registry.build_pipeline(settings, metrics)
        extras = [
            x for x in (_review_page(settings), registry.build_probe_loop(settings, metrics)) if x
        ]
    except StartupError as exc:
        print(f"ragmon run: {exc}", file=stderr)
        return None
    except OSError as exc:
        print(f"ragmon run: cannot set up the pipeline: {describe(exc)}", file=stderr)
        return None
    return pipeline, extras


def _close_all(parts: list[Any]) -> None:
    for part in parts:
        part.close()


def _review_page(settings: config_mod.Settings) -> Any:
    """The review page on its own port when golden.review_port is set (the config has
    checked that golden.dir is set too)."""
    g = settings.golden
    if g.review_port is None or g.dir is None:
        return None
    from monitor.golden.web import Background

    token = g.review_token.get_secret_value() if g.review_token else None
    try:
        return Background(g.dir, g.review_host, g.review_port, token, g.review_tls)
    except ConfigError as exc:
        raise ConfigError(f"golden.review_host: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"golden.review_port: {describe(exc)}") from exc


def _install_signal_handlers(stop: threading.Event, budget: float, log: Any) -> None:
    """First SIGTERM/SIGINT: stop polling, finish, commit, exit within ``budget`` seconds.
    A second SIGINT exits at once."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            if signum == signal.SIGINT:
                os._exit(130)
            return
        stop.set()
        log.info("stopping", signal=signal.Signals(signum).name, budget_seconds=budget)
        _start_watchdog(budget, log)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def _start_watchdog(budget: float, log: Any) -> None:
    """Exit the process (status 1) if it is still running ``budget`` seconds from now."""
    watchdog = threading.Timer(budget, _overrun, args=(log,))
    watchdog.daemon = True
    watchdog.start()


def _overrun(log: Any) -> None:
    log.error("shutdown_budget_exceeded")
    os._exit(EXIT_FAIL)


def cmd_eval_retrieval(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from monitor.golden import retrieval

    for what, path in (("qrels", args.qrels), ("run", args.run)):
        if not path.is_file() and not (what == "qrels" and path.is_dir()):
            print(f"ragmon eval-retrieval: no such {what} file: {path}", file=stderr)
            return EXIT_USAGE
    out = args.output_json
    if out is not None and str(out) != "-" and not _writable(out, "eval-retrieval", stderr):
        return EXIT_USAGE
    try:
        run = retrieval.read_run(args.run)
        if args.qrels.is_dir():  # a published golden set: its newest version
            golden = _golden_set(args.qrels, "eval-retrieval", stderr)
            if golden is None:
                return EXIT_USAGE
            qrels = {qid: {str(d["id"]): int(d["grade"]) for d in item.get("gold_docs") or []}
                     for qid, item in golden.items.items()}  # fmt: skip
        else:
            qrels = retrieval.read_qrels(args.qrels)
    except retrieval.TrecFormatError as exc:
        print(f"ragmon eval-retrieval: {exc}", file=stderr)
        return EXIT_USAGE
    result = retrieval.evaluate(qrels, run, args.k, args.chunk_separator,
                                complete=not args.only_retrieved)  # fmt: skip
    if result["unretrieved"]:
        print(f"{result['unretrieved']} judged queries have no retrieved document in the run: "
              "scored 0 in every metric (--only-retrieved leaves them out)",
              file=stderr)  # fmt: skip
    metrics = result["metrics"]
    assert isinstance(metrics, dict)
    if not metrics["queries"]:
        print("ragmon eval-retrieval: no query is in both the run and the qrels", file=stderr)
        return EXIT_FAIL
    text = json.dumps(result, indent=2, sort_keys=False)
    if args.output_json is not None and str(args.output_json) == "-":
        print(text, file=stdout)
        return EXIT_OK
    if args.output_json is not None:
        args.output_json.write_text(text + "\n", encoding="utf-8")
    print(f"{'metric':<16}{'value':>10}", file=stdout)
    for name, value in metrics.items():
        shown = f"{value:>10d}" if isinstance(value, int) else f"{value:>10.4f}"
        print(f"{name:<16}{shown}", file=stdout)
    skipped = len(run.keys() - qrels.keys())
    if skipped:
        print(f"{skipped} run queries have no qrels and were not scored", file=stderr)
    return EXIT_OK


def dispatch(args: argparse.Namespace) -> int:
    """Run the parsed command. Logging goes to stderr for every command (``run`` then sets
    the configured level and format); stdout carries only the command's output."""
    configure_logging("warning", "auto")
    if args.command == "run":
        return cmd_run(args, sys.stderr)
    if args.command == "replay":
        return cmd_replay(args, sys.stdout, sys.stderr)
    if args.command == "check":
        return cmd_check(sys.stdin.buffer, sys.stdout, sys.stderr, args.pretty)
    if args.command == "demo":
        return cmd_demo(args, sys.stdout, sys.stderr)
    if args.command == "schema":
        return cmd_schema(args.which, sys.stdout)
    if args.command == "golden":
        return cmd_golden(args, sys.stdout, sys.stderr)
    if args.command == "review":
        return cmd_review(args, sys.stdout, sys.stderr)
    if args.command == "probe":
        return cmd_probe(args, sys.stdout, sys.stderr)
    if args.command == "compare":
        return cmd_compare(args, sys.stdout, sys.stderr)
    if args.command == "calibrate":
        return cmd_calibrate(args, sys.stdout, sys.stderr)
    if args.command == "eval-retrieval":
        return cmd_eval_retrieval(args, sys.stdout, sys.stderr)
    if args.command == "convert":
        return cmd_convert(args, sys.stderr)
    return cmd_config(args, sys.stdout, sys.stderr)
