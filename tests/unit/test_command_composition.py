"""One way to build a component: a command states what differs (its source, its outputs,
its judge and sampling) and the registry builds the parts from the component rows. This
test finds, in ``monitor/commands/``, every call of a source, sink or decoder class, built by
hand instead, and every class of such a shape a command module defines for itself (an AST
scan of the command modules).

A class has a part's shape by what it is, wherever it is defined (every module of
``monitor/`` and ``sinks/``, the command modules too): a source (``start`` and ``poll``, or a
``SourceDefaults``), a sink (a ``SinkBase``, or ``write``, ``flush`` and ``close``), a decoder
(``feed`` and ``due``, or a ``...Decoder`` of one record), or a subclass of one of these."""

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
TREES = (ROOT / "monitor", ROOT / "sinks")

BASES = {"SinkBase", "SourceDefaults"}  # a class built on one of these is a part
SHAPES = ({"start", "poll"}, {"write", "flush", "close"}, {"feed", "due"})  # methods it defines


def _classes(*packages: object) -> list[type]:
    out: list[type] = []
    for package in packages:
        path = package.__path__  # type: ignore[attr-defined]
        for info in pkgutil.iter_modules(path, package.__name__ + "."):  # type: ignore[attr-defined]
            module = importlib.import_module(info.name)
            out += [c for _, c in inspect.getmembers(module, inspect.isclass)
                    if c.__module__ == module.__name__ and Protocol not in c.__mro__]  # fmt: skip
    return out


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def shaped(sources: dict[str, str]) -> set[str]:
    """The classes defined in ``sources`` (module text by name) that have a part's shape:
    by their bases or the methods they define, and every subclass of one, to a fixed point
    (not a ``Protocol``, which only declares the shape)."""
    defined: dict[str, tuple[set[str], set[str]]] = {}
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                bases = {_base_name(b) for b in node.bases}
                methods = {f.name for f in node.body
                           if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}  # fmt: skip
                if "Protocol" not in bases:
                    defined[node.name] = (bases, methods)
    found = {name for name, (bases, methods) in defined.items()
             if bases & BASES or any(shape <= methods for shape in SHAPES)
             or name.endswith("Decoder")}  # fmt: skip
    while True:
        more = {name for name, (bases, _) in defined.items() if bases & found} - found
        if not more:
            return found
        found |= more


def _texts(*roots: Path) -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for root in roots for p in sorted(root.rglob("*.py"))}  # fmt: skip


def components() -> set[str]:
    """The names of every source, sink and decoder class of ragmon: those the component
    packages define (imported: ``start`` and ``poll``; a ``SinkBase``; ``feed`` and ``due``,
    or a ``...Decoder``) and every class of such a shape in ``monitor/`` and ``sinks/``
    (the judge's estimate, a command's own sink)."""
    found = _classes(monitor.sources, sinks, monitor.ingest, monitor.sessions)
    imported = {c.__name__ for c in found
                if (hasattr(c, "start") and hasattr(c, "poll")) or issubclass(c, SinkBase)
                or (hasattr(c, "feed") and hasattr(c, "due"))
                or c.__name__.endswith("Decoder")}  # fmt: skip
    return imported | shaped(_texts(*TREES))


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


def defined_by_hand(source: str, names: set[str]) -> set[str]:
    """The classes of a part's shape ``source`` defines: its own (by bases or methods), or
    a subclass of one of ``names``."""
    own = shaped({"module": source})
    subclasses = {node.name for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.ClassDef)
                  and {_base_name(b) for b in node.bases} & names}  # fmt: skip
    return own | subclasses


def test_the_scan_knows_the_parts() -> None:
    names = components()
    assert {"JsonlSink", "SummarySink", "GoldenRowSink", "StoreSink", "JsonlSource",
            "OtlpFileSource", "KafkaSource", "KafkaWindow", "NativeDecoder", "OtlpAssembler",
            "WithSessions", "TapSink"} <= names  # fmt: skip


def test_the_scan_finds_a_part_built_by_hand() -> None:
    planted = "from sinks.jsonl import JsonlSink\n\ndef cmd(a):\n    return [JsonlSink(a)]\n"
    assert built_by_hand(planted, components()) == {"JsonlSink"}


PLANTED = {
    # rescore's own sink before it became a row of COMMAND: a SinkBase in the command
    "sink base": "from sinks import SinkBase\nclass _Would(SinkBase):\n"
                 "    def write(self, e): pass\n",
    # a sink by its methods alone, not built on the base
    "sink shape": "class _Tally:\n    def write(self, e): pass\n    def flush(self): pass\n"
                  "    def close(self): pass\n",
    "source shape": "class _Feed:\n    name = 'feed'\n    def start(self): pass\n"
                    "    def poll(self, n, t): return []\n",
    "subclass": "from sinks.jsonl import JsonlSink\nclass _Mine(JsonlSink):\n    pass\n",
}  # fmt: skip


def test_the_scan_finds_a_part_a_command_defines() -> None:
    names = components()
    for case, text in PLANTED.items():
        assert len(defined_by_hand(text, names)) == 1, case
    assert defined_by_hand("class _Progress:\n    def close(self): pass\n", names) == set()


def test_no_command_builds_or_defines_a_source_sink_or_decoder() -> None:
    """None is excepted: replay and rescore state their source and outputs to
    ``registry.build_command``, which builds them from the component rows (rescore's judge
    estimate too: a row of ``COMMAND``)."""
    names = components()
    found = {(p.name, n) for p in sorted(COMMANDS.glob("*.py"))
             for text in [p.read_text(encoding="utf-8")]
             for n in built_by_hand(text, names) | defined_by_hand(text, names)}  # fmt: skip
    assert found == set(), "built or defined by hand, not by the registry's rows"
