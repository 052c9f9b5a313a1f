"""The arguments of the core commands (run, replay, check, demo, calibrate, schema, convert,
config) and the argument types every command shares; light to import, as ``--help`` is."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from monitor.sources import demo
from monitor.sources.framing import spelled_format

TRAP_CATEGORIES = ("answerable", "unanswerable", "near_miss", "multi_hop", "stale_policy")


def record_format(*names: str) -> Callable[[str], str]:
    """An argparse type for a record format: the one of ``names`` (the command's own) the
    text names, written either way (``otlp-json`` or ``otlp_json``, any case; the help
    shows the config's spelling, ``otlp_json``)."""

    def pick(text: str) -> str:
        for name in names:
            if spelled_format(name) == spelled_format(text):
                return name
        shown = ", ".join(str(spelled_format(n)) for n in names)
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {shown})")

    return pick


def non_negative(text: str) -> int:
    """An argument type: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, 0 or more, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def non_negative_float(text: str) -> float:
    """An argument type: a number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number, 0 or more, not {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def cutoffs(text: str) -> list[int]:
    """An argument type: comma-separated cut-offs, each 1 or more."""
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        msg = f"{text!r} is not a comma-separated list of integers"
        raise argparse.ArgumentTypeError(msg) from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError("cut-offs must be 1 or more")
    return ks


def add_config_arg(p: argparse.ArgumentParser, inherited: bool = False) -> None:
    """``--config``/``-c``, defaulting to ``$RAGMON_CONFIG_FILE``; ``inherited``: a
    subcommand's copy of its parent's, with no default of its own (so ``ragmon config -c F
    validate`` keeps F)."""
    p.add_argument(
        "--config",
        "-c",
        type=Path,
        default=argparse.SUPPRESS if inherited else os.environ.get("RAGMON_CONFIG_FILE") or None,
        help="YAML config file (default: $RAGMON_CONFIG_FILE, else built-in defaults); "
        "RAGMON_* environment variables override it, e.g. RAGMON_METRICS__PORT=9500",
    )


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_run(sub: Commands) -> None:
    """The arguments of ``ragmon run``."""
    run = sub.add_parser(
        "run",
        help="run the daemon (metrics on :9464/metrics, /healthz, /readyz)",
        description="Consume traces from the configured source, run the checks on every "
        "trace and export Prometheus metrics. The default source is built-in demo traffic, "
        "so this works with no external service. Other sources (source.type): jsonl files; "
        "kafka, with native records or OTLP spans as the OTel Collector's kafkaexporter "
        "writes them (source.kafka.format otlp_proto|otlp_json); otlp_http, a receiver for "
        "POST /v1/traces on :4318. OTLP spans are assembled per trace (source.assembly). "
        "SIGTERM or SIGINT stop it gracefully within shutdown_timeout_seconds; a second "
        "SIGINT exits at once.",
    )
    add_config_arg(run)
    run.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="run N daemons of the Kafka source's consumer group under this process (auto: "
        "one per core it may use), so that the checks use every core; it restarts a worker "
        "that dies (with backoff; exit 1 when one keeps failing; exit 2 with its one line "
        "when one cannot start), stops them all on SIGTERM, "
        'and serves one /metrics (each worker\'s series labelled worker="<i>"), /healthz '
        "and /readyz (ready when every worker is). Each worker writes its own file beside "
        "output.evaluations_jsonl and dead_letters_jsonl (evaluations.worker-0.jsonl, ...); "
        "the judge's budget stays the group's. Refused for sources a group cannot share and "
        "with golden.dir, probes.endpoint, batch mode or conversations paired in memory "
        "(sessions.topic unset) (default: 1, no parent)",
    )


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _workers(value: str) -> int:
    """``--workers``: a count of at least 1, or ``auto``."""
    if value == "auto":
        return _cores()
    if not value.isdecimal() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r}: a count of at least 1, or auto")
    return int(value)


def add_replay(sub: Commands) -> None:
    """The arguments of ``ragmon replay``."""
    replay = sub.add_parser(
        "replay",
        help="evaluate trace files offline (native JSONL or OTLP)",
        description="Evaluate trace files offline: native ragmon.trace/v1 records (one JSON "
        "object per line) or OTLP spans (OTLP/JSON lines or length-prefixed protobuf, in any "
        "convention the daemon reads), gzip-compressed or not; '-' reads standard input, "
        "and pipes work. Prints a per-check summary with 95% Wilson intervals. Bad records "
        "are counted and reported with where they were; they do not stop the run.",
    )
    replay.add_argument("files", nargs="+", type=Path, metavar="FILE")
    _replay_outputs(replay)
    replay.add_argument(
        "--format",
        type=record_format("auto", "native", "otlp-json", "otlp-proto"),
        metavar="{auto,native,otlp_json,otlp_proto}",
        default="auto",
        help="auto (default): told apart by each file's first bytes; native: ragmon.trace/v1 "
        "JSONL; otlp_json: one OTLP/JSON "
        "ExportTraceServiceRequest per line; otlp_proto: 4-byte big-endian length + "
        "ExportTraceServiceRequest, repeated (OpenInference spans are assembled per trace)",
    )
    replay.add_argument(
        "--judge",
        choices=("none", "heuristic", "anthropic", "openai"),
        default=None,
        help="also judge faithfulness (default: the config's judge.backend; none: no judge "
        "even when the config names one; anthropic: key from ANTHROPIC_API_KEY, model and "
        "base URL from the config's judge section; openai: an OpenAI-compatible server, "
        "judge.openai's model and base URL, key from OPENAI_API_KEY)",
    )
    replay.add_argument(
        "--sample-rate",
        type=float,
        default=None,
        help="share of traces to judge, decided by trace id (default: judge.sampling, as the "
        "daemon samples, with the same decision per trace); needs a judge",
    )
    add_config_arg(replay)
    replay.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: only on a terminal)",
    )


def _replay_outputs(replay: argparse.ArgumentParser) -> None:
    """Where ``ragmon replay`` writes besides its summary: evaluation lines, candidate golden
    rows, the evaluation store."""
    replay.add_argument(
        "--output-jsonl",
        "-o",
        type=Path,
        help="write one evaluation line per trace to this file, overwriting it ('-': stdout, "
        "and the summary goes to stderr)",
    )
    replay.add_argument(
        "--append",
        action="store_true",
        help="append to --output-jsonl instead of overwriting it",
    )
    replay.add_argument(
        "--golden-dir",
        type=Path,
        help="also write candidate golden rows (deduplicated, PII-redacted) to this directory",
    )
    replay.add_argument(
        "--store",
        type=Path,
        help="also write every evaluation, follow-up and session outcome to this evaluation "
        "store (SQLite; created if missing, a trace already there replaced)",
    )


STORE_PATHS_HELP = (
    "PATH itself when it exists, and the files of run --workers beside it, <stem>.worker-<i>"
    "<suffix> (evaluations.db: evaluations.worker-0.db, evaluations.worker-1.db, ...), read "
    "as one store; --store more than once reads several stores as one"
)


def add_inspect(sub: Commands) -> None:
    """The arguments of ``ragmon inspect``."""
    ins = sub.add_parser(
        "inspect",
        help="print a stored trace's evidence, or a session's turns, from the store",
        description="Print what the evaluation store (store.path, replay --store) holds of a "
        "trace: its question, packed context, answer, each check's result, the judge's "
        "verdict and claims, its risk, an agent's steps, the follow-up it got and its "
        "session's outcome; or, with --session, the session's turns in order. Exits 1 with "
        "one line when the store has no such id, 2 when the store cannot be read. Several "
        "stores are read as one (the trace written last of one held twice; a session's turns, "
        "follow-ups and outcomes from all); one of them missing or damaged is one line on "
        "stderr and the others are read.",
    )
    ins.add_argument("trace_id", nargs="?", metavar="TRACE_ID")
    ins.add_argument("--store", type=Path, required=True, action="append", metavar="PATH",
                     help="the store to read: " + STORE_PATHS_HELP)  # fmt: skip
    ins.add_argument("--session", metavar="ID", help="a session's turns instead of a trace")
    ins.add_argument(
        "--json",
        action="store_true",
        help="print the stored lines (evaluation, follow-up, session) as JSONL",
    )


def add_check(sub: Commands) -> None:
    """The arguments of ``ragmon check``."""
    chk = sub.add_parser(
        "check",
        help="evaluate one trace from stdin",
        description="Read one native trace (JSON) from stdin and print its evaluation line "
        "(one line of JSON, as replay --output-jsonl writes). Exits 2 with a one-line reason "
        "if the trace is invalid.",
    )
    chk.add_argument("--pretty", action="store_true", help="indent the JSON for reading")


def add_demo(sub: Commands) -> None:
    """The arguments of ``ragmon demo``."""
    dem = sub.add_parser(
        "demo",
        help="print synthetic traces (JSONL)",
        description="Print realistic synthetic traces of a support assistant, each with a "
        "known failure mode in attributes['ragmon.demo.failure_mode']: "
        + ", ".join(demo.FAILURE_MODES)
        + ".",
    )
    dem.add_argument("--count", type=non_negative, default=100,
                     help="traces to print (0: forever, paced at --rate, 50 a second unless "
                     "given)")  # fmt: skip
    dem.add_argument("--seed", type=int, default=7, help="same seed, same traces")
    dem.add_argument("--rate", type=non_negative_float, default=None,
                     help="traces per second (default: no pacing for a count, 50 for "
                     "--count 0; 0: no pacing)")  # fmt: skip
    dem.add_argument("--output", "-o", type=Path,
                     help="file to write, overwritten (default: stdout)")  # fmt: skip
    dem.add_argument(
        "--with-labels",
        action="store_true",
        help="add the human-equivalent verdict as 'label' (input for ragmon calibrate)",
    )


def add_calibrate(sub: Commands) -> None:
    """The arguments of ``ragmon calibrate``."""
    cal = sub.add_parser(
        "calibrate",
        help="measure the judge against human labels",
        description="Run the judge over labelled traces (JSONL: a native trace plus 'label': "
        "pass | fail | hard_fail | not_applicable) and print agreement, Cohen's kappa, the "
        "confusion matrix and hard-fail sensitivity/specificity with 95% Wilson intervals. "
        "Traces the daemon never judges (no answer or no context text, content redacted, "
        "assembled incomplete: not_judgeable) are left out of the measure and counted by "
        "label in the report. --output writes the calibration record that `ragmon run` "
        "exports as ragmon_judge_calibration_* (judge.calibration_file).",
    )
    cal.add_argument("--labels", type=Path, required=True, help="labelled traces (JSONL)")
    cal.add_argument("--judge", choices=("heuristic", "anthropic", "openai"),
                     help="the judge to measure (default: the config's judge.backend, as "
                     "`run` and `replay` use it; heuristic when that is none)")  # fmt: skip
    cal.add_argument("--output", "-o", type=Path,
                     help="write the calibration record (JSON; overwritten)")  # fmt: skip
    add_config_arg(cal)


def add_schema(sub: Commands) -> None:
    """The arguments of ``ragmon schema``."""
    sch = sub.add_parser("schema", help="print a JSON Schema", description="Print a JSON Schema.")
    sch.add_argument("which", choices=("trace", "config"),
                     help="trace: the native ragmon.trace/v1 record; config: the configuration "
                     "(the same as `ragmon config schema`)")  # fmt: skip


def add_convert(sub: Commands) -> None:
    """The arguments of ``ragmon convert``."""
    conv = sub.add_parser(
        "convert",
        help="turn OTLP span files into native traces",
        description="Assemble the spans of an OTLP file per trace, map them (OpenInference, "
        "OTel GenAI in its current and its legacy form, or OpenLLMetry, told from the spans) "
        "to native ragmon.trace/v1 records and write them as JSONL, so you can see what "
        "ragmon understood from your spans. The recognised convention is in "
        "attributes['ragmon.convention'].",
    )
    conv.add_argument("file", type=Path, metavar="FILE",
                      help="the OTLP file; '-' is standard input; gzip is unpacked")  # fmt: skip
    conv.add_argument("--from", "--format", dest="fmt", default="auto",
                      type=record_format("auto", "otlp-json", "otlp-proto"),
                      metavar="{auto,otlp_json,otlp_proto}",
                      help="auto (default): told from the file's first bytes, as replay "
                      "tells it")  # fmt: skip
    conv.add_argument("--output-jsonl", "-o", type=Path, default=Path("-"),
                      help="the native records, one per line (overwritten; default '-', "
                      "stdout)")  # fmt: skip


def add_config(sub: Commands) -> None:
    """The arguments of ``ragmon config``."""
    cfg = sub.add_parser(
        "config",
        help="validate, show or describe the configuration",
        description="validate: load and check the config, exit 2 naming any bad key. "
        "show: print the effective config (file + environment + defaults) as YAML. "
        "schema: print the config's JSON Schema. `ragmon config ACTION --help` explains each.",
    )
    actions = cfg.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_, description in (
        ("validate", "load and check the config",
         "Load the config file (if any), the RAGMON_* environment and the defaults, and check "
         "them: exit 0 when valid, exit 2 with one line per bad key naming it."),
        ("show", "print the effective config as YAML",
         "Print the effective config (file + environment + defaults) as YAML; secrets "
         "(API keys, tokens) are masked."),
        ("schema", "print the config's JSON Schema",
         "Print the JSON Schema of the config file (every key, its type, default and "
         "description), e.g. for an editor's YAML language server."),
    ):  # fmt: skip
        add_config_arg(actions.add_parser(name, help=help_, description=description), True)
    add_config_arg(cfg)


def add_explain(sub: Commands) -> None:
    """The arguments of ``ragmon explain``."""
    ex = sub.add_parser(
        "explain",
        help="what moved between two sets of evaluation lines, where, and why",
        description="Read two sets of evaluation lines (what the daemon, replay or check "
        "wrote: native JSON lines with segments and inputs; '-' is stdin, gzip is read; or "
        "one file and --since, its lines before and after a time) and, "
        "for each check's flagged rate, the judge's hard-fail rate and each follow-up "
        "signal's share of a conversation's pairs of turns, split the change per "
        "segment dimension into mix (the traffic's composition changed) and rate (a "
        "segment's own rate changed), the causes first (a rate, mix or applicability move, "
        "and what only follows them): an exact decomposition (mix + rate = change), segments "
        "ranked by contribution, each with a Bonferroni-widened 95% interval, 'significant' "
        "only where it excludes 0. Then the measured inputs whose distributions moved most "
        "(ranked by Jensen-Shannon distance, with the population stability index's level). "
        "Exit 0; 1 when the two sets share no rate or a period of one file holds no line.",
    )
    ex.add_argument("before", type=Path, metavar="BEFORE", help="evaluation lines before")
    ex.add_argument(
        "after",
        type=Path,
        nargs="?",
        metavar="AFTER",
        help="evaluation lines after (none: BEFORE is one file split by --since)",
    )
    ex.add_argument(
        "--since",
        metavar="TIME",
        help="one file, two periods: its lines before TIME against those from TIME on, by "
        "each line's timestamp (the trace's time); RFC 3339 with a zone "
        "(2026-12-01T00:00:00Z), Unix seconds, or a duration before now (-1h, -7d)",
    )
    ex.add_argument(
        "--until",
        metavar="TIME",
        help="with --since: the period after ends here (default: the file's end); the same forms",
    )
    ex.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="NAME",
        help="only this rate (a check's name, judge_hard_fail, or followup_<signal>); repeatable",
    )
    ex.add_argument(
        "--top",
        type=non_negative,
        default=3,
        help="segments shown per rate and dimension in the table (default 3; inputs: at "
        "least 3); every cause and follower is printed whatever N",
    )
    ex.add_argument(
        "--output-json",
        type=Path,
        metavar="OUT",
        help="also write the whole report as JSON ('-': stdout instead of the table)",
    )


def add_rescore(sub: Commands) -> None:
    """The arguments of ``ragmon rescore``."""
    rs = sub.add_parser(
        "rescore",
        help="evaluate a window of a Kafka topic's history again, with the current definition",
        description="Read the topics between two record times without joining a consumer "
        "group and without committing (every partition assigned, sought by timestamp), run "
        "the current checks (not the judge) and write evaluation lines and an OpenMetrics "
        "file of the counters for `promtool tsdb create-blocks-from openmetrics`, labelled "
        'with each check\'s evaluator version and source="rescore", so old and new '
        "definitions sit side by side in Prometheus. --dry-run reports the traces in the "
        "window and what the configured judge would take of them (calls, tokens, cost). "
        "Exit 1 when the window holds no trace.",
    )
    rs.add_argument(
        "--since",
        required=True,
        metavar="TIME",
        help="RFC 3339 with a zone (2026-12-01T00:00:00Z), Unix seconds, or -2h/-7d",
    )
    rs.add_argument("--until", default="0s", metavar="TIME", help="the same (default: now)")
    rs.add_argument(
        "--topic",
        action="append",
        metavar="TOPIC",
        help="topics to read (default source.kafka.topics); repeatable",
    )
    rs.add_argument(
        "--format",
        type=record_format("native", "otlp_proto", "otlp_json"),
        metavar="{native,otlp_proto,otlp_json}",
        help="record encoding (default source.kafka.format)",
    )
    rs.add_argument(
        "--output-jsonl", type=Path, metavar="OUT", help="evaluation lines ('-': stdout)"
    )
    rs.add_argument(
        "--openmetrics",
        type=Path,
        metavar="OUT",
        help="the counters per step, as an OpenMetrics file for promtool",
    )
    rs.add_argument(
        "--step",
        type=non_negative_float,
        default=60.0,
        help="seconds per sample of the OpenMetrics counters (default 60)",
    )
    rs.add_argument(
        "--dry-run",
        action="store_true",
        help="count the window and estimate the judge's share and cost; write nothing",
    )
    add_config_arg(rs)
