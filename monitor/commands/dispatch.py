"""Runs the parsed command: the table from command name to the function that runs it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from monitor.commands.golden import cmd_compare, cmd_golden, cmd_probe, cmd_review
from monitor.commands.offline import (
    cmd_calibrate,
    cmd_check,
    cmd_config,
    cmd_convert,
    cmd_demo,
    cmd_schema,
)
from monitor.commands.replay import cmd_replay
from monitor.commands.retrieval import cmd_eval_retrieval
from monitor.commands.run import cmd_run
from monitor.log import configure as configure_logging

# Every command is a function of (parsed arguments, stdout, stderr) returning the exit status.
Command = Callable[[argparse.Namespace, TextIO, TextIO], int]
COMMANDS: dict[str, Command] = {
    "run": cmd_run,
    "replay": cmd_replay,
    "check": cmd_check,
    "demo": cmd_demo,
    "schema": cmd_schema,
    "convert": cmd_convert,
    "calibrate": cmd_calibrate,
    "golden": cmd_golden,
    "review": cmd_review,
    "probe": cmd_probe,
    "compare": cmd_compare,
    "config": cmd_config,
    "eval-retrieval": cmd_eval_retrieval,
}


def dispatch(args: argparse.Namespace) -> int:
    """Run the parsed command. Logging goes to stderr for every command (``run`` then sets
    the configured level and format); stdout carries only the command's output."""
    configure_logging("warning", "auto")
    return COMMANDS[args.command](args, sys.stdout, sys.stderr)
