"""``ragmon explain``: what moved between two sets of evaluation lines, where, and why."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO, cast

from monitor.commands.common import _output, _writable, is_stdout
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, describe
from monitor.core.lines import EvaluationLine, FollowupLine, Line
from monitor.segments.causes import Cause
from monitor.segments.changes import SegmentChange
from monitor.segments.explain import FOLLOWUP, RateChange, explain_rates, observations
from monitor.segments.shifts import InputShift, input_shifts
from monitor.segments.windows import split
from monitor.sources.inputs import Input, check_inputs


def _lines(path: Path, stderr: TextIO) -> list[Line] | None:
    """The evaluation lines of ``path`` ('-', gzip, pipes) and the follow-up lines among
    them, or None after saying why; lines that are neither are counted on stderr."""
    try:
        source = Input(path)
    except OSError as exc:
        print(f"ragmon explain: {describe(exc)}", file=stderr)
        return None
    out: list[Line] = []
    bad = traces = 0
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
                out.append(cast(EvaluationLine, line))  # checked: an object with checks
            elif isinstance(line, dict) and isinstance(line.get("followup"), dict):
                out.append(cast(FollowupLine, line))  # checked: an object with a follow-up
            elif isinstance(line, dict) and isinstance(line.get("session"), dict):
                continue  # a closed session's outcome line: no rate of a trace's segments
            else:
                bad += 1
                traces += isinstance(line, dict) and ("answer" in line or "context" in line)
    except (OSError, EOFError) as exc:
        print(
            f"ragmon explain: {source.name} ends early ({exc}); using the {len(out)} lines before",
            file=stderr,
        )
    finally:
        source.close()
    if bad and not out and traces:
        print(
            f"ragmon explain: {source.name} holds traces, not evaluation lines: evaluate them "
            f"first (`ragmon replay {source.name} --output-jsonl evaluations.jsonl`), then "
            "explain the evaluation lines",
            file=stderr,
        )
        return None
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


def _cause(c: Cause) -> str:
    """One sentence for a cause: what moved in it, and its part of the change."""
    if c.kind == "rate":
        moved = f"its rate {_pct(c.rate_before)} -> {_pct(c.rate_after)} [rate]"
    elif c.kind == "applicability":
        moved = (f"the check applies to {_pct(c.checkable_before)} -> {_pct(c.checkable_after)} "
                 "of its traces [applicability]")  # fmt: skip
    else:
        moved = f"its share of the traffic {_pct(c.share_before)} -> {_pct(c.share_after)} [mix]"
    return f"{c.name}: {moved}, contribution {_pts(c.contribution)}"


def _following(cause: str, how: str, cs: list[Cause]) -> str:
    """One line for the segments that follow ``cause`` in one way (``Cause.relation``)."""
    names = ", ".join(c.name for c in cs)
    if how == "counterpart":  # shares of one dimension add up to one
        return f"the other side of {cause}'s share (one dimension's shares add up to 1): {names}"
    if how == "stand_in":  # each has a move, gone once the cause's dimension is held fixed
        held = cause.split("=", 1)[0]
        return f"follows {cause} (their move vanishes with {held} held fixed): {names}"
    return f"follows {cause}, no move of its own (they moved as all traffic did): {names}"


def _informative(segments: list[SegmentChange]) -> bool:
    """More than one segment holds 5 % of the traffic in either period (one value for
    nearly everything, such as a single app, tells nothing of where)."""
    return sum(max(s.share_before, s.share_after) >= 0.05 for s in segments) > 1


def _table(rates: dict[str, RateChange], shifts: list[InputShift], top: int, out: TextIO) -> None:
    def moved(change: RateChange) -> bool:
        lo, hi = change.interval()
        return lo > 0 or hi < 0

    ordered = sorted(rates.values(), key=lambda c: (not moved(c), -abs(c.change), c.name))
    for change in ordered:
        lo, hi = change.interval()
        b, a = change.before, change.after
        # a follow-up rate is a share of a conversation's pairs of turns, not of traces
        unit = "pairs" if change.name.startswith(FOLLOWUP) else "traces"
        counted = f"{b.n} -> {a.n} {unit}"
        if change.carried is not None and change.carried != (b.n, a.n):
            # some traces it did not apply to: say of how many, so a rate over fewer reads so
            counted = (f"{b.n} of {change.carried[0]} -> {a.n} of {change.carried[1]} "
                       "traces it applies to")  # fmt: skip
        head = (f"{change.name}: {_pct(b.rate)} -> {_pct(a.rate)} ({_pts(change.change)}, 95% "
                f"{_pts(lo)} to {_pts(hi)}), {counted}")  # fmt: skip
        if not moved(change):
            print(f"{head}: no significant change", file=out)
            continue
        print(head, file=out)
        # every cause, whatever --top (a follower names its cause: it must be printed)
        causes = [c for c in change.causes if c.explained_by is None]
        for c in causes:
            print(f"  cause: {_cause(c)}", file=out)
        followers: dict[tuple[str, str], list[Cause]] = {}
        for c in change.causes:
            if c.explained_by is not None:
                followers.setdefault((c.explained_by, c.relation or ""), []).append(c)
        for (cause, how), cs in followers.items():
            print(f"  {_following(cause, how, cs)}", file=out)
        if not causes:
            print("  where: no segment stands out: the change is spread evenly", file=out)
        informative = {d: segs for d, segs in change.dimensions.items() if _informative(segs)}
        for dimension, segs in informative.items():
            if not any(s.significant for s in segs):
                continue
            mix, rate = change.parts(dimension)
            shown = ", ".join(f"{s.segment} {_pts(s.contribution)}{'*' if s.significant else ''}"
                              for s in segs[:top])  # fmt: skip
            print(f"  {dimension:<13} mix {_pts(mix):>10}, rate {_pts(rate):>10}: {shown}",
                  file=out)  # fmt: skip
    if shifts:
        print("inputs, most moved first (Jensen-Shannon distance; PSI level):", file=out)
        for s in shifts[: max(top, 3)]:
            print(f"  {s.input:<14} median {s.before:.3g} -> {s.after:.3g}   JS {s.shift:.2f}, "
                  f"PSI {s.psi:.2f} ({s.level})", file=out)  # fmt: skip
    print("(* significant: the interval excludes 0. [rate]: the segment's own rate moved; "
          "[mix]: its share of the traffic moved; [applicability]: the share of its traces "
          "the check applies to moved (a dimension's mix holds both). mix + rate = the change, "
          "per dimension.)",
          file=out)  # fmt: skip


def _window(args: argparse.Namespace) -> tuple[float, float | None] | str:
    """(since, until) of ``--since``/``--until`` (until None: to the end), or why not."""
    from monitor.sources.history import parse_time  # only for a window: it brings Kafka's client

    if args.after is not None:
        return ("--since/--until split one file into two periods; two files are the two "
                "periods already: give one file, or no --since/--until")  # fmt: skip
    if args.since is None:
        what = "--until needs --since" if args.until is not None else "one file needs --since"
        return (f"{what} (the lines before --since are the period before, those from "
                "--since to --until the period after), or give two files")  # fmt: skip
    try:
        since = parse_time(args.since)
        until = None if args.until is None else parse_time(args.until)
    except ValueError as exc:
        return f"--since/--until: {exc}"
    if until is not None and since >= until:
        return "--since must be before --until"
    return since, until


def _stamp(t: float | None) -> str:
    return "-" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _periods(
    path: Path, since: float, until: float | None, stderr: TextIO
) -> tuple[list[Line], list[Line]] | int:
    """The two periods of one file's lines (``--since``/``--until``), or the exit status
    after saying why there are not two."""
    lines = _lines(path, stderr)
    if lines is None:
        return EXIT_USAGE
    got = split(lines, since, until)
    name = "standard input" if str(path) == "-" else str(path)
    if got.untimed:
        print(f"ragmon explain: {name}: left out {got.untimed} lines with no time (written "
              "before evaluation lines had one, or of traces without a timestamp)",
              file=stderr)  # fmt: skip
    if got.later:
        print(f"ragmon explain: {name}: left out {got.later} lines at or after --until",
              file=stderr)  # fmt: skip
    end = "the end" if until is None else _stamp(until)
    print(f"ragmon explain: {name}: before {_stamp(since)}: {len(got.before)} lines; "
          f"{_stamp(since)} to {end}: {len(got.after)} lines", file=stderr)  # fmt: skip
    if not got.before or not got.after:
        which = "before --since" if not got.before else "from --since on"
        span = (f"its lines' times: {_stamp(got.first)} to {_stamp(got.last)}"
                if got.first is not None else "no line has a time")  # fmt: skip
        print(f"ragmon explain: {name}: no evaluation line {which} ({span})", file=stderr)
        return EXIT_FAIL
    return got.before, got.after


def cmd_explain(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon explain BEFORE AFTER``, or ``ragmon explain FILE --since T [--until T]``."""
    window: tuple[float, float | None] | None = None
    if args.after is None or args.since is not None or args.until is not None:
        asked = _window(args)
        if isinstance(asked, str):
            print(f"ragmon explain: {asked}", file=stderr)
            return EXIT_USAGE
        window = asked
    problem = check_inputs([args.before] if args.after is None else [args.before, args.after])
    if problem is not None:
        print(f"ragmon explain: {problem}", file=stderr)
        return EXIT_USAGE
    out = args.output_json
    if out is not None and not _writable(out, "explain", stderr):
        return EXIT_USAGE
    if window is not None:
        periods = _periods(args.before, window[0], window[1], stderr)
        if isinstance(periods, int):
            return periods
        before, after = periods
    else:
        got = _lines(args.before, stderr)
        other = _lines(args.after, stderr) if got is not None else None
        if got is None or other is None:
            return EXIT_USAGE
        before, after = got, other
    if args.check:
        known = observations(before).keys() & observations(after).keys()
        unknown = [c for c in args.check if c not in known]
        if unknown:
            print(f"ragmon explain: --check {unknown[0]}: not a rate of both sets; their "
                  f"rates: {', '.join(sorted(known)) or 'none'}", file=stderr)  # fmt: skip
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
