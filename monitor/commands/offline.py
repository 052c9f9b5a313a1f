"""The one-shot tools: ``check``, ``demo``, ``schema``, ``calibrate``, ``convert``, ``config``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import yaml

from monitor import config as config_mod
from monitor import registry
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, StartupError, describe
from monitor.core.model import DeadLetter, RagTrace, error_text
from monitor.core.record import TraceRecord
from monitor.core.verdict import RELEVANCE, VERDICTS
from monitor.ingest import conversion
from monitor.ingest.conventions import CONTENT_MISSING, OWN, UNRECOGNISED
from monitor.judge.calibration import agreement_line, calibrate, report
from monitor.judge.stage import Judge, judgeable
from monitor.pipeline import evaluate
from monitor.sources import SourcePosition, SourceRecord, demo, framing
from monitor.sources.inputs import HEAD_BYTES, Input, check_inputs

if TYPE_CHECKING:
    pass
from monitor.commands.common import (
    _SHOWN_ERRORS,
    _open_output,
    _output,
    _settings,
    _writable,
    is_stdout,
)
from monitor.commands.replay import _why_nothing


def cmd_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon check``: evaluate one trace from stdin and print its evaluation line."""
    raw = sys.stdin.buffer.read().strip()
    pretty = args.pretty
    if not raw:
        print("ragmon check: stdin is empty: check reads one trace (a JSON object) from "
              "standard input, e.g. ragmon demo --count 1 | ragmon check", file=stderr)  # fmt: skip
        return EXIT_USAGE
    if _values(raw) > 1:
        print("ragmon check: stdin holds more than one JSON value: check reads one trace; "
              "use ragmon replay - for a file of traces (one per line)", file=stderr)  # fmt: skip
        return EXIT_USAGE
    settings = config_mod.Settings()
    record = SourceRecord(SourcePosition("stdin", 0, 0), raw)
    (decoded,), _ = registry.build_decoder(settings, fmt="native").feed(record)
    item = decoded.item
    if isinstance(item, DeadLetter):
        print(f"ragmon check: invalid trace ({item.reason}): {item.detail}", file=stderr)
        return EXIT_USAGE
    assert isinstance(item, RagTrace)  # a native record decodes to a trace or a dead letter
    suite, segmenter = registry.build_suite(settings), registry.build_segmenter(settings)
    try:
        evaluation = evaluate(item, suite, segmenter)
    except Exception as exc:  # the daemon dead-letters it (evaluation_failed): say it here
        print(f"ragmon check: evaluating the trace failed, a bug of ragmon's (please report "
              f"it): {error_text(exc)}", file=stderr)  # fmt: skip
        return EXIT_FAIL
    json.dump(evaluation.to_line(), stdout, ensure_ascii=False, indent=2 if pretty else None)
    stdout.write("\n")
    return EXIT_OK


def _relevance_labels(row: dict[str, object]) -> tuple[str | None, list[str] | None]:
    """A labelled row's ``answer_relevance`` (relevant, partial, irrelevant) and
    ``context_relevance`` (relevant or irrelevant per passage), taken out of the row;
    ``ValueError`` for a value outside them."""
    answer = row.pop("answer_relevance", None)
    if answer is not None and answer not in RELEVANCE:
        raise ValueError(f"answer_relevance {answer!r} is not one of {RELEVANCE}")
    per_passage = row.pop("context_relevance", None)
    if per_passage is not None and (
        not isinstance(per_passage, list) or any(p not in ("relevant", "irrelevant")
                                                 for p in per_passage)
    ):  # fmt: skip
        raise ValueError("context_relevance must list 'relevant' or 'irrelevant' per passage")
    return answer, per_passage


def _values(raw: bytes, most: int = 2) -> int:
    """How many JSON values ``raw`` starts with, up to ``most`` (0 when the first is not
    JSON: the decoder then says why)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return 0
    decoder, n, at = json.JSONDecoder(), 0, 0
    while n < most and at < len(text):
        try:
            _, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return n
        n += 1
        while end < len(text) and text[end].isspace():
            end += 1
        at = end
    return n


def cmd_demo(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon demo``: print synthetic traces with labelled failure modes."""
    out = stdout
    if args.output is not None:
        opened = _open_output(args.output, "demo", stderr, stdout=stdout)
        if opened is None:
            return EXIT_USAGE
        out = opened
    rate = args.rate if args.rate is not None else (50.0 if args.count == 0 else 0.0)
    try:
        i = 0
        while args.count == 0 or i < args.count:
            record = demo.generate(i, args.seed)
            line = {**record, "label": demo.gold_label(record)} if args.with_labels else record
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            i += 1
            if rate > 0:
                out.flush()
                time.sleep(1.0 / rate)
    finally:
        if out is not stdout:
            out.close()
    return EXIT_OK


def cmd_schema(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon schema``: print the JSON Schema of the native trace record."""
    model = TraceRecord if args.which == "trace" else config_mod.Settings
    json.dump(model.model_json_schema(), stdout, indent=2)
    stdout.write("\n")
    return EXIT_OK


@dataclass
class _Judged:
    """What ``calibrate`` gathered from the labelled rows: (label, verdict) pairs, answer
    relevance per trace and context relevance per passage where a row labels them, the
    rows skipped (a bad row or a failed call), the ``ragmon demo`` rows among them, and the
    rows the daemon would never judge, by label (left out of the measure)."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    relevance: list[tuple[str, str]] = field(default_factory=list)
    passages: list[tuple[str, str]] = field(default_factory=list)
    errors: int = 0
    synthetic: int = 0
    unjudged: dict[str, int] = field(default_factory=dict)


def _judged_labels(text: str, judge: Judge, labels: Path, stderr: TextIO) -> _Judged:
    """Each labelled row of ``text`` judged by ``judge``; a bad row or a failed call is
    counted and its first lines said on ``stderr``."""
    got = _Judged()
    for lineno, line in enumerate(text.split("\n"), 1):  # a label's text may hold U+2028
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or "label" not in data:
                raise ValueError("no 'label' field")
            label = data.pop("label")
            if label not in VERDICTS:
                raise ValueError(f"label {label!r} is not one of {VERDICTS}")
            said_relevance, said_passages = _relevance_labels(data)
            trace = RagTrace.from_data(data)
            if not judgeable(trace):  # the daemon skips it (not_judgeable): no verdict
                got.unjudged[label] = got.unjudged.get(label, 0) + 1
                continue
            verdict = judge.judge(trace).fitted(len(trace.context), 1.0)
            got.synthetic += demo.FAILURE_MODE in trace.attributes
        except Exception as exc:  # a bad row or a failed call: counted, reported, skipped
            got.errors += 1
            if got.errors <= _SHOWN_ERRORS:
                first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
                print(f"{labels} line {lineno}: {first}", file=stderr)
            continue
        got.pairs.append((label, verdict.verdict))
        if said_relevance is not None and verdict.answer_relevance is not None:
            got.relevance.append((said_relevance, verdict.answer_relevance))
        rated = verdict.context_relevance
        if said_passages is not None and rated is not None and len(said_passages) == len(rated):
            got.passages.extend(zip(said_passages, rated, strict=True))
    return got


def cmd_calibrate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon calibrate``: measure the judge against human labels."""
    settings = _settings(args, "calibrate", stderr)
    if settings is None:
        return EXIT_USAGE
    if not args.labels.is_file():
        print(f"ragmon calibrate: no such file: {args.labels}", file=stderr)
        return EXIT_USAGE
    if args.output is not None and not _writable(args.output, "calibrate", stderr):
        return EXIT_USAGE
    backend = args.judge or settings.judge.backend  # the flag overrides the config
    backend = "heuristic" if backend == "none" else backend
    try:
        judge = registry.build_judge(settings, backend)
    except StartupError as exc:
        print(f"ragmon calibrate: {exc}", file=stderr)
        return EXIT_USAGE
    try:
        text = args.labels.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = describe(exc) if isinstance(exc, OSError) else "not UTF-8 text"
        print(f"ragmon calibrate: cannot read {args.labels}: {why}", file=stderr)
        return EXIT_USAGE
    judged = _judged_labels(text, judge, args.labels, stderr)
    pairs, relevance, passages = judged.pairs, judged.relevance, judged.passages
    errors, synthetic, unjudged = judged.errors, judged.synthetic, judged.unjudged
    if errors > _SHOWN_ERRORS:
        print(f"... and {errors - _SHOWN_ERRORS} more rows skipped", file=stderr)
    left = _unjudged_line(unjudged)
    if not pairs:
        print("ragmon calibrate: no usable labelled rows (each row is a native trace plus "
              "'label': pass | fail | hard_fail | not_applicable)"
              + (f"; {left}" if left else ""), file=stderr)  # fmt: skip
        return EXIT_FAIL
    result = calibrate(pairs, *registry.judge_identity(settings, backend))
    shown = stderr if is_stdout(args.output) else stdout  # `-o -`: the record on stdout
    print(report(result), file=shown)
    for metric, got, unit in (("answer relevance", relevance, "traces"),
                              ("context relevance", passages, "passages")):  # fmt: skip
        print(agreement_line(metric, got, unit), file=shown)
    if left:
        print(left, file=shown)
    if errors:
        print(f"skipped rows: {errors}", file=shown)
    if synthetic:
        print(f"note: {synthetic} of {len(pairs)} labelled rows are `ragmon demo` traces: "
              "templated text whose labels follow the failure modes the heuristic judge was "
              "written for, so this agreement checks the wiring, not the judge. Measure on "
              "people's labels of your own traffic.", file=shown)  # fmt: skip
    if args.output is not None:
        with _output(args.output, stdout) as out:
            out.write(result.to_json())
    return EXIT_OK


def _unjudged_line(unjudged: dict[str, int]) -> str:
    """The labelled rows left out because the daemon never judges such a trace, or ""."""
    if not unjudged:
        return ""
    labels = ", ".join(f"{n} {label}" for label, n in sorted(unjudged.items()))
    return (f"left out: {sum(unjudged.values())} labelled rows the daemon never judges "
            f"(no answer or no context text, content redacted, or assembled incomplete: "
            f"not_judgeable), labelled {labels}")  # fmt: skip


def _otlp(data: bytes, fmt: str, name: str, stderr: TextIO) -> conversion.Conversion:
    result = conversion.convert(list(framing.read_messages(data, fmt)), fmt.replace("-", "_"))
    unit = "line" if fmt == "otlp-json" else "message"
    for index, reason, detail, _ in result.bad_messages[:20]:  # as replay says it
        print(f"bad record at {name} {unit} {index} ({reason}): {detail}", file=stderr)
    print(
        f"OTLP: {len(result.traces)} traces mapped, {result.count(UNRECOGNISED)} unrecognised, "
        f"{result.count(CONTENT_MISSING)} without captured content, {result.count(OWN)} of "
        f"ragmon's own skipped, {len(result.bad_messages)} bad messages",
        file=stderr,
    )
    return result


def cmd_convert(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon convert``: assemble OTLP span files into native traces."""
    wrong = check_inputs([args.file])
    if wrong is not None:
        print(f"ragmon convert: {wrong}", file=stderr)
        return EXIT_USAGE
    if not _writable(args.output_jsonl, "convert", stderr):
        return EXIT_USAGE
    source = Input(args.file)  # '-', a pipe, a FIFO or gzip: read once, front to back
    try:
        data, failed = source.stream.read(), source.failed
    except (OSError, EOFError) as exc:  # a gzip stream cut short
        failed = str(exc)
    finally:
        source.close()
    if failed is not None:
        print(f"ragmon convert: {source.name} stopped after {source.done} bytes: {failed}",
              file=stderr)  # fmt: skip
        return EXIT_FAIL
    fmt = args.fmt if args.fmt != "auto" else framing.sniff_format(data[:HEAD_BYTES])
    if fmt != "otlp-json" and fmt != "otlp-proto":  # native records, or nothing at all
        what = "native records" if fmt == "native" else "nothing but whitespace"
        print(f"ragmon convert: {source.name} holds {what}, not OTLP spans: nothing to "
              "convert (ragmon replay evaluates native records)", file=stderr)  # fmt: skip
        return EXIT_FAIL
    result = _otlp(data, fmt, source.name, stderr)
    if not result.traces:
        hint = _why_nothing([data[:HEAD_BYTES]], fmt,
                            "convert reads OTLP spans; give --from the other OTLP format, or "
                            "use ragmon replay for native records")  # fmt: skip
        print(f"ragmon convert: no trace mapped{hint}", file=stderr)
        return EXIT_FAIL
    with _output(args.output_jsonl, stdout) as out:
        for trace in result.traces:
            record = {
                "schema": "ragmon.trace/v1",
                **trace.to_record().model_dump(mode="json", exclude_none=True),
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return EXIT_OK


def cmd_config(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon config``: validate, show or describe the configuration."""
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
