"""One way to build a component: a command states what differs (its source, its outputs,
its judge and sampling) and the registry builds the parts from the component rows. This
test finds every call in ``monitor/commands/`` of a source, sink or decoder class, built by
hand instead (an AST scan of the command modules)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Protocol

import monitor.ingest
import monitor.sessions
import monitor.sources
import sinks
from sinks import SinkBase

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ROOT / "monitor" / "commands"



def _classes(*packages: object) -> list[type]:
    out: list[type] = []
    for package in packages:
        path = package.__path__  # type: ignore[attr-defined]
        for info in pkgutil.iter_modules(path, package.__name__ + "."):  # type: ignore[attr-defined]
            module = importlib.import_module(info.name)
            out += [c for _, c in inspect.getmembers(module, inspect.isclass)
                    if c.__module__ == module.__name__ and Protocol not in c.__mro__]  # fmt: skip
    return out


def components() -> set[str]:
    """The names of every source (``start`` and ``poll``), sink (a ``SinkBase``) and decoder
    (``feed`` and ``due``: a ``RecordDecoder``, or a ``...Decoder`` of one record) class of
    ragmon."""
    found = _classes(monitor.sources, sinks, monitor.ingest, monitor.sessions)
    return {c.__name__ for c in found
            if (hasattr(c, "start") and hasattr(c, "poll")) or issubclass(c, SinkBase)
            or (hasattr(c, "feed") and hasattr(c, "due"))
            or c.__name__.endswith("Decoder")}  # fmt: skip


def built_by_hand(source: str, names: set[str]) -> set[str]:
    """The classes among ``names`` that ``source`` calls (``Name(...)``, ``mod.Name(...)``)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name in names:
                out.add(name)
    return out


def test_the_scan_knows_the_parts() -> None:
    names = components()
    assert {"JsonlSink", "SummarySink", "GoldenRowSink", "StoreSink", "JsonlSource",
            "OtlpFileSource", "KafkaSource", "NativeDecoder", "OtlpAssembler",
            "WithSessions"} <= names  # fmt: skip


def test_the_scan_finds_a_part_built_by_hand() -> None:
    planted = "from sinks.jsonl import JsonlSink\n\ndef cmd(a):\n    return [JsonlSink(a)]\n"
    assert built_by_hand(planted, components()) == {"JsonlSink"}


def test_no_command_builds_a_source_sink_or_decoder_by_hand() -> None:
    """None is excepted: replay and rescore state their source and outputs to
    ``registry.build_command``, which builds them from the component rows."""
    names = components()
    found = {(p.name, n) for p in sorted(COMMANDS.glob("*.py"))
             for n in built_by_hand(p.read_text(encoding="utf-8"), names)}  # fmt: skip
    assert found == set(), "built by hand, not by the registry's rows"
