"""The ``ragmon`` command line: the one table of commands, the parser built from it, and
``main``. Light to import: a command's module (and what it needs) is imported once its
arguments have parsed. Nothing imports this module."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO, cast

from monitor.commands import arguments as a
from monitor.commands import golden_arguments as g
from monitor.core.errors import EXIT_OK, EXIT_USAGE, describe
from monitor.core.version import ragmon_version

_DESCRIPTION = """\
ragmon watches a live RAG assistant through its traces: model-free checks on every trace
(unsupported numbers, refusals, citations, empty or conflicting context, grounding overlap),
a sampled LLM judge, Prometheus metrics, candidate golden rows and evaluation lines for
offline analysis. `ragmon COMMAND --help` explains each command.

commands:
{commands}

Output files (-o, --output, --output-jsonl, --output-json) are overwritten (replay takes
--append); their parent directories are created.
"""


@dataclass(frozen=True)
class Command:
    """One command: its name, its line in ``ragmon --help``, what adds its arguments, and the
    ``"module:function"`` that runs it (``(args, stdout, stderr) -> exit status``)."""

    name: str
    summary: str
    add_arguments: Callable[[a.Commands], None]
    run: str


COMMANDS: tuple[Command, ...] = (
    Command("run", "the daemon; with no source configured it evaluates built-in demo traffic",
            a.add_run, "monitor.commands.run:cmd_run"),
    Command("replay", "evaluate trace files (native JSONL or OTLP spans) offline and print a "
            "summary table", a.add_replay, "monitor.commands.replay:cmd_replay"),
    Command("inspect", "print a stored trace's evidence or a session's turns from the "
            "evaluation store", a.add_inspect, "monitor.commands.inspect:cmd_inspect"),
    Command("check", "evaluate one trace read from stdin and print its evaluation line",
            a.add_check, "monitor.commands.offline:cmd_check"),
    Command("demo", "print synthetic traces with known, labelled failure modes (JSONL)",
            a.add_demo, "monitor.commands.offline:cmd_demo"),
    Command("schema", "print the JSON Schema of the native trace record (ragmon.trace/v1)",
            a.add_schema, "monitor.commands.offline:cmd_schema"),
    Command("convert", "assemble OTLP span files into native traces (what ragmon understood)",
            a.add_convert, "monitor.commands.offline:cmd_convert"),
    Command("calibrate", "measure the judge against human labels (agreement, kappa, confusion "
            "matrix)", a.add_calibrate, "monitor.commands.offline:cmd_calibrate"),
    Command("golden", "review candidate golden rows, publish the golden set, export it, check "
            "precision", g.add_golden, "monitor.commands.golden:cmd_golden"),
    Command("review", "the review page in a browser: candidate rows into the golden set",
            g.add_review, "monitor.commands.golden:cmd_review"),
    Command("probe", "send the golden set's questions to your application (golden probes)",
            g.add_probe, "monitor.commands.golden:cmd_probe"),
    Command("compare", "two releases on the same golden probes, paired (differences, "
            "intervals, flips)", g.add_compare, "monitor.commands.golden:cmd_compare"),
    Command("explain", "what moved between two sets of evaluation lines: per segment, mix "
            "and rate, with intervals; inputs that shifted", a.add_explain,
            "monitor.commands.explain:cmd_explain"),
    Command("rescore", "evaluate a window of a Kafka topic's history again (no group, no "
            "commit): evaluation lines and OpenMetrics for Prometheus's backfill",
            a.add_rescore, "monitor.commands.rescore:cmd_rescore"),
    Command("config", "validate, show or describe the configuration",
            a.add_config, "monitor.commands.offline:cmd_config"),
    Command("eval-retrieval", "recall@k, precision@k, nDCG@k and MRR of a TREC run "
            "(trec_eval's definitions)", g.add_eval_retrieval,
            "monitor.commands.retrieval:cmd_eval_retrieval"),
)  # fmt: skip

DESCRIPTION = _DESCRIPTION.format(
    commands="\n".join(f"  {c.name:<10} {c.summary}" for c in COMMANDS)
)


class _Parser(argparse.ArgumentParser):
    """An argument a command does not take is refused by that command's own parser, with
    its usage (argparse leaves unknown arguments to the top parser, which shows its own)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command in ``COMMANDS`` (its subparsers are of its class)."""
    parser = _Parser(
        prog="ragmon",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=ragmon_version())
    # the commands are listed once, in DESCRIPTION (argparse would list them a second time)
    sub = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                              help=argparse.SUPPRESS),
    )  # fmt: skip
    for command in COMMANDS:
        command.add_arguments(sub)
    return parser


def runner(name: str) -> Callable[[argparse.Namespace, TextIO, TextIO], int]:
    """The function that runs command ``name`` (its module imported now)."""
    module, _, function = next(c.run for c in COMMANDS if c.name == name).partition(":")
    return getattr(importlib.import_module(module), function)  # type: ignore[no-any-return]


def dispatch(args: argparse.Namespace, stderr: TextIO | None = None) -> int:
    """Run the parsed command. Logging goes to stderr for every command (``run`` then sets
    the configured level and format); stdout carries only the command's output."""
    from monitor.core.log import configure as configure_logging

    configure_logging("warning", "auto")
    return runner(args.command)(args, sys.stdout, sys.stderr if stderr is None else stderr)


_TIME_OPTIONS = ("--since", "--until")
_DURATION_BEFORE_NOW = re.compile(r"-\d+(?:\.\d+)?[smhd]")


def _joined_times(argv: Sequence[str]) -> list[str]:
    """``--since -2h`` as ``--since=-2h``: argparse takes a value that starts with a dash
    for an option of its own (``expected one argument``), but a duration before now is
    written that way (``rescore --help``)."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in _TIME_OPTIONS and _DURATION_BEFORE_NOW.fullmatch(arg):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None, stderr: TextIO | None = None) -> int:
    """Parse ``argv`` and run the command; the exit status. The command's own lines (why it
    cannot start) go to ``stderr``, standard error unless given (a worker of ``run
    --workers`` says them to its parent); log lines and argparse's go to standard error."""
    args = build_parser().parse_args(_joined_times(sys.argv[1:] if argv is None else argv))
    stderr = sys.stderr if stderr is None else stderr
    try:
        status = dispatch(args, stderr)  # the heavy imports, once the arguments are good
        sys.stdout.flush()  # a write error on stdout (a full disk) is reported here, not at exit
        return status
    except BrokenPipeError:
        # `ragmon … | head` closed the pipe: stop quietly, as a Unix tool does. Python would
        # otherwise report the failed flush of stdout at exit.
        _drop_stdout()
        return EXIT_OK
    except OSError as exc:
        # the machine, not the input: a full disk (ENOSPC), a quota, an I/O error while an
        # output was written. One line that says so, as for an unwritable path at start.
        print(f"ragmon {args.command}: {describe(exc)}", file=stderr)
        _drop_stdout()
        return EXIT_USAGE


def _drop_stdout() -> None:
    """Point stdout at /dev/null: what is still buffered for it cannot be written."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
