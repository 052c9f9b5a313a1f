"""The golden loop on the command line: ``golden``, ``review``, ``probe``, ``compare``."""

from __future__ import annotations

import argparse
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from monitor.commands.common import _golden_set, _output, _settings, _writable
from monitor.commands.signals import StopOnSignal
from monitor.config import revealed
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, ConfigError, describe
from monitor.core.lines import GoldenItem, GoldenRow
from monitor.core.model import RagTrace
from monitor.golden import export as golden_export
from monitor.golden import precision as golden_precision
from monitor.golden import review
from monitor.golden.stored import load_rows

if TYPE_CHECKING:
    from monitor.golden.compare import Pairwise
    from monitor.golden.gate import Gate


def cmd_golden(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon golden``: review, publish, export, stats or precision of candidate rows."""
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


def _decided_rows(golden_dir: Path, stderr: TextIO) -> list[GoldenRow]:
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
    if status in golden_export.ACCEPTED:  # "reviewed", "approved": earlier names
        status = "accepted"
    if status not in (*golden_export.STATES, "any"):
        known = ", ".join((*golden_export.STATES, "any"))
        print(f"ragmon golden export: unknown --status {args.status!r} (one of {known})",
              file=stderr)  # fmt: skip
        return EXIT_USAGE
    chosen = [r for r in rows if status == "any" or golden_export.status_of(r) == status]
    no_reference = [
        r for r in chosen if status == "accepted" and not golden_export.has_reference(r)
    ]
    if no_reference:
        chosen = [r for r in chosen if golden_export.has_reference(r)]
        print(f"skipped {len(no_reference)} accepted rows without a reference (fill "
              f"'reference' first, or accept as expected to refuse), e.g. "
              f"{no_reference[0]['id']}", file=stderr)  # fmt: skip
    with _output(args.output, stdout) as out:
        n = golden_export.export(chosen, args.format, out, args.dataset_name)
    print(f"exported {n} of {len(rows)} rows as {args.format}", file=stderr)
    if n == 0 and rows and status == "accepted":
        print("no row is accepted yet: accept rows on the review page (ragmon review) or with "
              "`ragmon golden review`; `ragmon golden publish` then writes the versioned golden "
              "set, which `golden export --set DIR/set` exports", file=stderr)  # fmt: skip
    return EXIT_OK


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
        return EXIT_FAIL  # as inspect's unknown id: asked, and not there
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
    items, repeats = review.split_repeats(review.accepted_items(load_rows(args.dir),
                                                                read.decisions))  # fmt: skip
    for item in repeats:
        print(f"left out {item['id']}: it asks the question of a later accepted row "
              f"({review.question_key(item)[:60]!r})", file=stderr)  # fmt: skip
    if not items:
        print("ragmon golden publish: no row is accepted yet, so no version is written: "
              "accept rows on the review page (ragmon review) or with `ragmon golden review`",
              file=stderr)  # fmt: skip
        return EXIT_FAIL
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
    rows = golden_precision.precision(review.ReviewLog(args.dir).read().decisions)
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
    """``ragmon review``: serve the review page until interrupted."""
    from monitor.golden import serve as review_serve

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
    token = revealed(g.review_token)
    try:
        from sinks.store import StoreConfig

        store = args.store if args.store is not None else settings.of(StoreConfig).path
        page = review_serve.Background(args.dir, args.host, args.port, token, tls, store)
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
    """``ragmon probe``: the golden set's questions to the application, once or periodically."""
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
    signals = StopOnSignal(stop).install()  # stop.wait below: a handler must not set it
    try:
        while True:
            report = prober.run(golden.items.values(), stop)
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            print(f"{stamp} golden set {golden.version}: {report.line()}", file=stderr)
            if args.every is None or stop.wait(probe_client.next_delay(args.every)):
                return EXIT_FAIL if report.failed and args.every is None else EXIT_OK
            try:
                golden = load_set(args.golden)  # a newer version, if one was published
            except (OSError, ValueError, review.ReviewError) as exc:
                print(f"ragmon probe: keeping {golden.version}: {exc}", file=stderr)
    finally:
        prober.close()
        signals.close()


def _read_traces(files: list[Path], stderr: TextIO) -> list[RagTrace] | None:
    """The native trace records of ``files``; lines that are not one are counted and said;
    None after saying that a file cannot be read."""
    traces, bad = [], 0
    for path in files:
        try:
            lines = path.read_bytes().splitlines()
        except OSError as exc:
            print(f"ragmon compare: {describe(exc)}", file=stderr)
            return None
        for line in lines:
            if not line.strip():
                continue
            try:
                traces.append(RagTrace.from_json(line))
            except ValueError:
                bad += 1
    if bad:
        print(f"skipped {bad} lines that are not ragmon.trace/v1 records", file=stderr)
    return traces


def cmd_compare(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon compare``: two releases on the same golden probes, paired."""
    from monitor.golden.compare import compare

    if len(args.release) != 2 or args.release[0] == args.release[1]:
        print("ragmon compare: give --release twice, two different releases", file=stderr)
        return EXIT_USAGE
    if args.output_json is not None and not _writable(args.output_json, "compare", stderr):
        return EXIT_USAGE
    golden = _golden_set(args.golden, "compare", stderr)
    if golden is None:
        return EXIT_USAGE
    gate = None
    if args.gate is not None:
        gate = _gate(args.gate, stderr)
        if gate is None:
            return EXIT_USAGE
    if args.junit is not None and (gate is None or not _writable(args.junit, "compare", stderr)):
        if gate is None:
            print("ragmon compare: --junit writes the gate's outcomes: give --gate", file=stderr)
        return EXIT_USAGE
    traces = _read_traces(args.files, stderr)
    if traces is None:
        return EXIT_USAGE
    result = compare(traces, golden.items, args.release[0], args.release[1])
    if not result.metrics:
        print(f"ragmon compare: no golden probe answered under both {args.release[0]} and "
              f"{args.release[1]} (golden set {golden.version})", file=stderr)  # fmt: skip
        return EXIT_FAIL
    print(result.table(), file=stdout)
    report = result.as_dict()
    if args.judge is not None:
        pairs = _pairwise(args, traces, golden.items, stderr)
        if pairs is None:
            return EXIT_USAGE
        print(pairs.table(args.release[0], args.release[1]), file=stdout)
        report["pairwise"] = pairs.as_dict()
    status = EXIT_OK
    if gate is not None:
        from monitor.golden.gate import run_gate

        categories = {gid: str(i.get("category") or "") for gid, i in golden.items.items()}
        outcome = run_gate(gate, result, categories)
        print(outcome.table(), file=stdout)
        report["gate"] = outcome.as_dict()
        if args.junit is not None:
            args.junit.write_bytes(outcome.junit())
        status = EXIT_FAIL if outcome.failed else EXIT_OK
    if args.output_json:
        args.output_json.write_text(json.dumps(report, indent=2) + "\n")
    return status


def _gate(path: Path, stderr: TextIO) -> Gate | None:
    """The gate file's rules, or None after saying why they cannot be used."""
    from monitor.checks import CheckSuite
    from monitor.golden.compare import metrics_of
    from monitor.golden.gate import GateError, load_gate

    try:
        return load_gate(path, metrics_of(CheckSuite()))
    except GateError as exc:
        print(f"ragmon compare: {exc}", file=stderr)
        return None


def _pairwise(args: argparse.Namespace, traces: list[RagTrace], items: dict[str, GoldenItem],
              stderr: TextIO) -> Pairwise | None:  # fmt: skip
    """The pairwise judgement with --judge (its settings from the config), or None after
    saying why not."""
    from monitor import registry
    from monitor.core.errors import JudgeError, StartupError
    from monitor.golden.compare import pairwise

    settings = _settings(args, "compare", stderr)
    if settings is None:
        return None
    try:
        judge: Any = registry.build_judge(settings, args.judge)
    except StartupError as exc:
        print(f"ragmon compare: {exc}", file=stderr)
        return None
    try:
        return pairwise(traces, items, args.release[0], args.release[1], judge.structured)
    except JudgeError as exc:
        print(f"ragmon compare: the pairwise judge failed ({exc.kind}): {exc}", file=stderr)
        return None
    finally:
        judge.close()
