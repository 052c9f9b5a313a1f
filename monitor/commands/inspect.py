"""``ragmon inspect``: a stored trace's evidence (or a session's turns) from the evaluation
store, for a terminal; ``--json`` prints the stored lines instead. Several stores (``--store``
more than once, a group's workers' files beside the path given) are read as one
(``monitor.golden.stores``); one that is missing or damaged is one line on stderr, the others
still read."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TextIO

from monitor.checks import evidence_of
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from monitor.core.lines import JsonObject
from monitor.core.store import StoreUnreadable
from monitor.golden.stores import EvaluationStores
from monitor.golden.traces import StoredSession, StoredTrace

_TRACE_ID = re.compile(r"[0-9a-fA-F]{32}")


def cmd_inspect(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Print the trace (or ``--session``) from the ``--store`` stores; 1 when no store has
    such an id, 2 when no store can be read or the arguments are wrong."""
    if (args.trace_id is None) == (args.session is None):
        print("ragmon inspect: give a TRACE_ID or --session ID (one of them)", file=stderr)
        return EXIT_USAGE
    if args.trace_id is not None and _TRACE_ID.fullmatch(args.trace_id) is None:
        print(f"ragmon inspect: {args.trace_id!r} is not a trace id (32 hexadecimal digits)",
              file=stderr)  # fmt: skip
        return EXIT_USAGE
    try:
        store = EvaluationStores(args.store)
    except StoreUnreadable as exc:
        print(f"ragmon inspect: {exc}", file=stderr)
        return EXIT_USAGE
    where = ", ".join(str(p) for p in store.paths)
    session: StoredSession | None = None
    trace: StoredTrace | None = None
    try:
        if args.session is not None:
            session = store.session(args.session)
        else:
            trace = store.trace(args.trace_id)
    except StoreUnreadable as exc:  # every store failed while read
        print(f"ragmon inspect: {exc}", file=stderr)
        return EXIT_USAGE
    finally:
        store.close()
    for problem in store.problems:
        print(f"ragmon inspect: {problem}; the other stores are read", file=stderr)
    if args.session is not None:
        if session is None:
            print(f"ragmon inspect: no session {args.session!r} in {where}", file=stderr)
            return EXIT_FAIL
        _print(session.lines(), args.json, lambda: _session_text(session), stdout)
    else:
        if trace is None:
            print(f"ragmon inspect: no trace {args.trace_id.lower()} in {where}", file=stderr)
            return EXIT_FAIL
        _print(trace.lines(), args.json, lambda: _trace_text(trace), stdout)
    return EXIT_OK


def _print(lines: list[JsonObject], as_json: bool, text: Callable[[], str], stdout: TextIO) -> None:
    if as_json:
        for line in lines:
            stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        stdout.write(text())


def when(seconds: float) -> str:
    """A trace's time for people."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _trace_text(t: StoredTrace) -> str:
    r, line = t.record, t.line
    out = [
        f"trace {t.trace_id}  {when(t.time)}  app {r.get('app') or '-'}  route "
        f"{r.get('route') or '-'}  release {r.get('release') or '-'}"
        + (f"  session {r['session_id']}" if r.get("session_id") else ""),
        f"question: {r.get('query', '')}",
        f"answer: {r.get('answer', '')}",
        "context:",
    ]
    for i, p in enumerate(r.get("context") or [], 1):
        out.append(f"  [{i}] {p.get('doc_id') or '-'}: {p.get('text', '')}")
    if not r.get("context"):
        out.append("  (no passage reached the model)")
    out.append("checks:")
    for name, c in sorted(
        (line.get("checks") or {}).items(), key=lambda nc: not nc[1].get("flagged")
    ):
        state = ("error" if c.get("error") else "flagged" if c.get("flagged")
                 else "passed" if c.get("applicable", True) else "not applicable")  # fmt: skip
        reason = evidence_of(name, c).explain() if c.get("flagged") else ""
        out.append(f"  {name:<20} {state}" + (f": {reason}" if reason else ""))
    judge = line.get("judge")
    if isinstance(judge, dict) and "verdict" in judge:
        out.append(f"judge: {judge['verdict']} (score {judge.get('score')}, {judge.get('judge')})")
        for c in judge.get("claims") or []:
            where = f" [passage {c['passage']}]" if c.get("passage") else ""
            out.append(f"  {c.get('label')}: {c.get('text')}{where}")
    elif isinstance(judge, dict) and "skipped" in judge:
        out.append(f"judge: not judged ({judge['skipped']})")
    if line.get("risk") is not None:
        out.append(f"risk: {line['risk']:.2f}")
    agent = {k.removeprefix("ragmon.agent."): v for k, v in (r.get("attributes") or {}).items()
             if k.startswith("ragmon.agent")}  # fmt: skip
    if agent:
        out.append("agent: " + ", ".join(f"{k} {v}" for k, v in sorted(agent.items())))
    if t.followup:
        f = t.followup["followup"]
        said = ", ".join(f["signals"]) or "no signal"
        out.append(f"follow-up: trace {f['by']}, {f['seconds']} s later: {said} "
                   f"(after a {f['after']} answer)")  # fmt: skip
    for s in t.sessions:
        o = s["session"]
        out.append(f"session {s['session_id']}: {o['outcome']} after {o['turns']} turns "
                   f"(closed by {o['closed_by']})")  # fmt: skip
    return "\n".join(out) + "\n"


def _session_text(s: StoredSession) -> str:
    out = [f"session {s.session_id}: {len(s.turns)} stored turns"]
    for i, t in enumerate(s.turns, 1):
        flagged = ", ".join(t.flagged) or "clean"
        out.append(f"  {i}. {when(t.time)}  trace {t.trace_id}  [{flagged}]")
        out.append(f"     question: {t.record.get('query', '')}")
        if t.followup:
            f = t.followup["followup"]
            out.append(f"     next turn said: {', '.join(f['signals']) or 'no signal'}")
    for line in s.outcomes:
        o = line["session"]
        out.append(f"outcome: {o['outcome']} after {o['turns']} turns (closed by "
                   f"{o['closed_by']}, {o['rephrases']} rephrases, "
                   f"{o['seconds_to_outcome']} s)")  # fmt: skip
    if not s.outcomes:
        out.append("outcome: not closed yet")
    return "\n".join(out) + "\n"
