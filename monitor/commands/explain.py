"""``ragmon explain``: what moved between two sets of evaluation lines, where, and why."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from monitor.commands.common import _output, _writable, is_stdout
from monitor.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, describe
from monitor.segments.explain import (
    InputShift,
    RateChange,
    SegmentChange,
    explain_rates,
    input_shifts,
)
from monitor.sources.inputs import Input, check_inputs


def _lines(path: Path, stderr: TextIO) -> list[dict[str, Any]] | None:
    """The evaluation lines of ``path`` ('-', gzip, pipes), or None after saying why; lines
    that are not evaluation lines are counted on stderr."""
    try:
        source = Input(path)
    except OSError as exc:
        print(f"ragmon explain: {describe(exc)}", file=stderr)
        return None
    out, bad = [], 0
    try:
        for raw in source.stream:
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                bad += 1
                continue
            if isinstance(line, dict) and isinstance(line.get("checks"), dict):
                out.append(line)
            else:
                bad += 1
    except (OSError, EOFError) as exc:
        print(
            f"ragmon explain: {source.name} ends early ({exc}); using the {len(out)} lines before",
            file=stderr,
        )
    finally:
        source.close()
    if bad:
        print(
            f"ragmon explain: {source.name}: skipped {bad} lines that are not evaluation lines",
            file=stderr,
        )
    if out and not any(line.get("segments") for line in out):
        print(
            f"ragmon explain: {source.name}: no line carries segments (written before "
            "segments existed, or with segments.enabled off): only overall rates",
            file=stderr,
        )
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f} pts"


def _findings(change: RateChange) -> Iterator[tuple[float, str]]:
    """(rank key, text) of each significant segment: a rate moved in it, or its share did."""
    for dimension, segments in change.dimensions.items():
        for s in segments:
            if not s.significant or s.cause is None:
                continue
            if s.cause in ("rate", "both") and s.rate_before is not None:
                assert s.rate_after is not None
                yield (
                    abs(s.rate_after - s.rate_before),
                    f"{dimension}={s.segment}: its rate {_pct(s.rate_before)} -> "
                    f"{_pct(s.rate_after)} (share {_pct(s.share_before)} -> "
                    f"{_pct(s.share_after)}), contribution {_pts(s.contribution)} [rate]",
                )
            if s.cause in ("mix", "both"):
                yield (
                    abs(s.mix),
                    f"{dimension}={s.segment}: its share {_pct(s.share_before)} -> "
                    f"{_pct(s.share_after)} at rate {_pct(s.rate_before)} -> "
                    f"{_pct(s.rate_after)}, contribution {_pts(s.contribution)} [mix]",
                )


def _table(rates: dict[str, RateChange], shifts: list[InputShift], top: int, out: TextIO) -> None:
    for name, change in rates.items():
        lo, hi = change.interval()
        moved = lo > 0 or hi < 0
        b, a = change.before, change.after
        print(
            f"{name}: {_pct(b.rate)} -> {_pct(a.rate)} ({_pts(change.change)}, 95% "
            f"{_pts(lo)} to {_pts(hi)}){'' if moved else ', no significant change'}; "
            f"{b.n} -> {a.n} traces",
            file=out,
        )
        findings = sorted(_findings(change), key=lambda f: -f[0])
        for _, text in findings[:top]:
            print(f"  where: {text}", file=out)
        if not findings:
            print("  where: no segment significant", file=out)
        if not moved and not findings:
            continue
        for dimension in change.dimensions:
            mix, rate = change.parts(dimension)
            segs: list[SegmentChange] = change.dimensions[dimension][:top]
            shown = ", ".join(
                f"{s.segment} {_pts(s.contribution)}{'*' if s.significant else ''}" for s in segs
            )
            print(
                f"  {dimension:<14} mix {_pts(mix):>10}  rate {_pts(rate):>10}   {shown}", file=out
            )
    if shifts:
        print("inputs, most moved first (Jensen-Shannon distance; PSI level):", file=out)
        for s in shifts[: max(top, 3)]:
            print(
                f"  {s.input:<14} median {s.before:g} -> {s.after:g}   JS {s.shift:.2f}, "
                f"PSI {s.psi:.2f} ({s.level})",
                file=out,
            )
    print(
        "(* significant: the interval excludes 0; [rate]: the segment's own rate moved, "
        "[mix]: its share of the traffic moved)",
        file=out,
    )


def cmd_explain(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon explain BEFORE AFTER``."""
    problem = check_inputs([args.before, args.after])
    if problem is not None:
        print(f"ragmon explain: {problem}", file=stderr)
        return EXIT_USAGE
    out = args.output_json
    if out is not None and not _writable(out, "explain", stderr):
        return EXIT_USAGE
    before = _lines(args.before, stderr)
    after = _lines(args.after, stderr) if before is not None else None
    if before is None or after is None:
        return EXIT_USAGE
    rates = explain_rates(before, after, args.check)
    if not rates:
        wanted = f" named {args.check}" if args.check else ""
        print(
            f"ragmon explain: no rate{wanted} is in both sets ({len(before)} and "
            f"{len(after)} evaluation lines)",
            file=stderr,
        )
        return EXIT_FAIL
    shifts = input_shifts(before, after)
    report = {
        "checks": {n: r.as_dict() for n, r in rates.items()},
        "inputs": [s.as_dict() for s in shifts],
    }
    if out is not None:
        with _output(out, stdout) as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        if is_stdout(out):
            return EXIT_OK
    _table(rates, shifts, args.top, stdout)
    return EXIT_OK
