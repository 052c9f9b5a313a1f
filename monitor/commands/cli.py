"""The ``ragmon`` command line. Nothing imports this module."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

from monitor.errors import EXIT_OK
from monitor.golden import export as golden_export
from monitor.sources import demo
from monitor.version import ragmon_version

TRAP_CATEGORIES = ("answerable", "unanswerable", "near_miss", "multi_hop", "stale_policy")

DESCRIPTION = """\
ragmon watches a live RAG assistant through its traces: model-free checks on every trace
(unsupported numbers, refusals, citations, empty or conflicting context, grounding overlap),
a sampled LLM judge, Prometheus metrics, candidate golden rows and evaluation lines for
offline analysis. `ragmon COMMAND --help` explains each command.

commands:
  run        the daemon; with no source configured it evaluates built-in demo traffic
  replay     evaluate trace files (native JSONL or OTLP spans) offline and print a summary table
  check      evaluate one trace read from stdin and print its evaluation line
  demo       print synthetic traces with known, labelled failure modes (JSONL)
  schema     print the JSON Schema of the native trace record (ragmon.trace/v1)
  convert    assemble OTLP span files into native traces (what ragmon understood)
  calibrate  measure the judge against human labels (agreement, kappa, confusion matrix)
  golden     review candidate golden rows, publish the golden set, export it, check precision
  review     the review page in a browser: candidate rows into the golden set
  probe      send the golden set's questions to your application (golden probes)
  compare    two releases on the same golden probes, paired (differences, intervals, flips)
  config     validate, show or describe the configuration
  eval-retrieval  recall@k, precision@k, nDCG@k and MRR of a TREC run (trec_eval's definitions)

Output files (-o, --output, --output-jsonl, --output-json) are overwritten (replay takes
--append); their parent directories are created.
"""


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, 0 or more, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number, 0 or more, not {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _cutoffs(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        msg = f"{text!r} is not a comma-separated list of integers"
        raise argparse.ArgumentTypeError(msg) from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError("cut-offs must be 1 or more")
    return ks


def _add_config_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        "-c",
        type=Path,
        default=os.environ.get("RAGMON_CONFIG_FILE") or None,
        help="YAML config file (default: $RAGMON_CONFIG_FILE, else built-in defaults); "
        "RAGMON_* environment variables override it, e.g. RAGMON_METRICS__PORT=9500",
    )


_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _add_run(sub: _Commands) -> None:
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
    _add_config_arg(run)


def _add_replay(sub: _Commands) -> None:
    replay = sub.add_parser(
        "replay",
        help="evaluate trace files offline (native JSONL or OTLP)",
        description="Evaluate native ragmon.trace/v1 records (one JSON object per line). "
        "Prints a per-check summary with 95% Wilson intervals. Bad lines are counted and "
        "reported with their line numbers; they do not stop the run.",
    )
    replay.add_argument("files", nargs="+", type=Path, metavar="FILE")
    replay.add_argument(
        "--output-jsonl",
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
        "--format",
        choices=("auto", "native", "otlp-json", "otlp-proto"),
        default="auto",
        help="auto (default): told apart by each file's first bytes; native: ragmon.trace/v1 "
        "JSONL; otlp-json: one OTLP/JSON "
        "ExportTraceServiceRequest per line; otlp-proto: 4-byte big-endian length + "
        "ExportTraceServiceRequest, repeated (OpenInference spans are assembled per trace)",
    )
    replay.add_argument(
        "--judge",
        choices=("none", "heuristic", "anthropic", "openai"),
        default="none",
        help="also judge faithfulness (anthropic: key from ANTHROPIC_API_KEY, model and "
        "base URL from the config's judge section; openai: an OpenAI-compatible server, "
        "judge.openai's model and base URL, key from OPENAI_API_KEY)",
    )
    replay.add_argument(
        "--sample-rate",
        type=float,
        default=None,
        help="share of traces to judge, decided by trace id (default 1.0: all); needs --judge",
    )
    _add_config_arg(replay)
    replay.add_argument(
        "--golden-dir",
        type=Path,
        help="also write candidate golden rows (deduplicated, PII-redacted) to this directory",
    )
    replay.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: only on a terminal)",
    )


def _add_check(sub: _Commands) -> None:
    chk = sub.add_parser(
        "check",
        help="evaluate one trace from stdin",
        description="Read one native trace (JSON) from stdin and print its evaluation line "
        "(one line of JSON, as replay --output-jsonl writes). Exits 2 with a one-line reason "
        "if the trace is invalid.",
    )
    chk.add_argument("--pretty", action="store_true", help="indent the JSON for reading")


def _add_demo(sub: _Commands) -> None:
    dem = sub.add_parser(
        "demo",
        help="print synthetic traces (JSONL)",
        description="Print realistic synthetic traces of a support assistant, each with a "
        "known failure mode in attributes['ragmon.demo.failure_mode']: "
        + ", ".join(demo.FAILURE_MODES)
        + ".",
    )
    dem.add_argument("--count", type=_non_negative, default=100,
                     help="traces to print (0: forever, paced at --rate, 50 a second unless "
                     "given)")  # fmt: skip
    dem.add_argument("--seed", type=int, default=7, help="same seed, same traces")
    dem.add_argument("--rate", type=_non_negative_float, default=None,
                     help="traces per second (default: no pacing for a count, 50 for "
                     "--count 0; 0: no pacing)")  # fmt: skip
    dem.add_argument("--output", "-o", type=Path,
                     help="file to write, overwritten (default: stdout)")  # fmt: skip
    dem.add_argument(
        "--with-labels",
        action="store_true",
        help="add the human-equivalent verdict as 'label' (input for ragmon calibrate)",
    )


def _add_calibrate(sub: _Commands) -> None:
    cal = sub.add_parser(
        "calibrate",
        help="measure the judge against human labels",
        description="Run the judge over labelled traces (JSONL: a native trace plus 'label': "
        "pass | fail | hard_fail | not_applicable) and print agreement, Cohen's kappa, the "
        "confusion matrix and hard-fail sensitivity/specificity with 95% Wilson intervals. "
        "--output writes the calibration record that `ragmon run` exports as "
        "ragmon_judge_calibration_* (judge.calibration_file).",
    )
    cal.add_argument("--labels", type=Path, required=True, help="labelled traces (JSONL)")
    cal.add_argument("--judge", choices=("heuristic", "anthropic", "openai"), default="heuristic")
    cal.add_argument("--output", "-o", type=Path,
                     help="write the calibration record (JSON; overwritten)")  # fmt: skip
    _add_config_arg(cal)


def _add_schema(sub: _Commands) -> None:
    sch = sub.add_parser("schema", help="print a JSON Schema", description="Print a JSON Schema.")
    sch.add_argument("which", choices=("trace", "config"),
                     help="trace: the native ragmon.trace/v1 record; config: the configuration "
                     "(the same as `ragmon config schema`)")  # fmt: skip


def _add_convert(sub: _Commands) -> None:
    conv = sub.add_parser(
        "convert",
        help="turn OTLP span files into native traces",
        description="Assemble the spans of OTLP files per trace, map them (OpenInference "
        "layout) to native ragmon.trace/v1 records and write them as JSONL, so you can see "
        "what ragmon understood from your spans. The recognised convention is in "
        "attributes['ragmon.convention'].",
    )
    conv.add_argument("file", type=Path, metavar="FILE")
    conv.add_argument("--from", dest="fmt", choices=("otlp-json", "otlp-proto"), required=True)
    conv.add_argument("--output-jsonl", type=Path, required=True,
                      help="the native records, one per line (overwritten)")  # fmt: skip


def _gold_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=Path, required=True, help="the golden.dir of the daemon")


def _add_golden_review(actions: _Commands) -> None:
    rev = actions.add_parser(
        "review",
        help="accept or reject one candidate row (appends a decision)",
        description="Record a decision on a candidate row. An accept needs a reference answer "
        "(--reference) unless --expect refuse; a reject needs a reason: check_wrong (the check "
        "flagged a good answer: counts against the check's precision), duplicate, not_useful "
        "or other. A row decided before needs --after with the id of the decision you saw, "
        "so a decision made meanwhile by someone else is never overwritten.",
    )
    _gold_dir(rev)
    rev.add_argument("--row", required=True, help="the candidate row id")
    what = rev.add_mutually_exclusive_group(required=True)
    what.add_argument("--accept", action="store_true", help="into the golden set")
    what.add_argument(
        "--reject",
        choices=("check_wrong", "duplicate", "not_useful", "other"),
        metavar="REASON",
        help="check_wrong, duplicate, not_useful or other",
    )
    rev.add_argument(
        "--reviewer",
        default=os.environ.get("RAGMON_REVIEWER") or os.environ.get("USER"),
        help="who decides (default $RAGMON_REVIEWER, else $USER)",
    )
    rev.add_argument("--reference", help="the reference answer (replaces the row's)")
    rev.add_argument(
        "--gold",
        action="append",
        default=[],
        metavar="DOC=GRADE",
        help="a gold document among the row's passages, graded 0-3 (repeatable)",
    )
    rev.add_argument("--category", choices=TRAP_CATEGORIES, help="trap category")
    rev.add_argument("--expect", choices=("answer", "refuse"), help="expected behaviour")
    rev.add_argument("--note", help="free text kept with the decision")
    rev.add_argument("--after", help="id of the row's latest decision you decided on")


def _add_golden(sub: _Commands) -> None:
    gold = sub.add_parser(
        "golden",
        help="review candidate golden rows, publish the golden set, export, precision",
        description="Candidate golden rows (written by the daemon to golden.dir) become the "
        "golden set through reviews: each decision is appended to golden.dir/reviews/"
        "reviews.jsonl (never rewritten), the set is published as versioned files, and the "
        "decisions measure each check's precision.",
    )
    actions = gold.add_subparsers(dest="action", metavar="ACTION", required=True)
    stats = actions.add_parser("stats", help="rows and occurrences by reason, category, status")
    _gold_dir(stats)
    exp = actions.add_parser(
        "export",
        help="write reviewed rows for Ragas, DeepEval or Langfuse",
        description="Write reviewed rows (ragmon.status set to 'reviewed' or 'approved' by a "
        "person) as the file Ragas (JSONL for EvaluationDataset.from_jsonl), DeepEval (a "
        "JSON array for add_goldens_from_json_file) or Langfuse (JSONL of "
        "create_dataset_item arguments) loads.",
    )
    exp.add_argument("--dir", type=Path, help="the golden.dir of the daemon (candidate rows)")
    exp.add_argument(
        "--set",
        type=Path,
        help="export a published golden set instead (a version file or its directory: the "
        "newest), the gold documents as Ragas reference_contexts / DeepEval context",
    )
    exp.add_argument("--format", choices=golden_export.FORMATS, required=True)
    exp.add_argument(
        "--status",
        default="reviewed",
        help="export rows with this status (any case): reviewed (reviewed or approved, with "
        "a reference; the default), approved, needs_review, rejected, or any",
    )
    exp.add_argument("--dataset-name", default="ragmon-golden",
                     help="Langfuse dataset the items go to (default ragmon-golden)")  # fmt: skip
    exp.add_argument("--output", "-o", type=Path, help="file to write (default: stdout)")
    _add_golden_review(actions)
    pub = actions.add_parser(
        "publish",
        help="write the accepted rows as the next golden-set version",
        description="Write every row whose latest decision is an accept as the next version "
        "golden-vNNNN-<sha256 prefix>.jsonl (schema ragmon.golden/v1) in --out. A version is "
        "never rewritten; unchanged content writes nothing.",
    )
    _gold_dir(pub)
    pub.add_argument("--out", type=Path, help="golden-set directory (default: DIR/set)")
    prec = actions.add_parser(
        "precision",
        help="each check's precision measured by the reviews (95%% Wilson interval)",
    )
    _gold_dir(prec)


def _add_review(sub: _Commands) -> None:
    rev = sub.add_parser(
        "review",
        help="the review page: candidate rows into the golden set, in a browser",
        description="Serve the review page over golden.dir's candidate rows: a queue filtered "
        "by state, reason, category, route, release and check; each row with its query, "
        "context and answer, the check evidence marked; accept (reference, graded gold "
        "documents, trap category, expected behaviour) or reject with a reason; keyboard "
        "shortcuts (press ?). Decisions go to golden.dir/reviews/reviews.jsonl; /metrics "
        "serves each check's reviewed precision. Binding beyond loopback needs a token "
        "(RAGMON_REVIEW_TOKEN, or golden.review_token in --config): reviewers log in with it "
        "(or send it as a bearer token); serve it over TLS there (--tls-cert/--tls-key, or "
        "golden.review_tls_cert_file/review_tls_key_file). A port in use is exit 2.",
    )
    _gold_dir(rev)
    rev.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    rev.add_argument("--port", type=int, default=8900, help="port (default 8900)")
    rev.add_argument("--tls-cert", type=Path, help="PEM certificate (chain): serve HTTPS")
    rev.add_argument("--tls-key", type=Path, help="PEM private key of --tls-cert")
    _add_config_arg(rev)


def _duration(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600}
    try:
        value = float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"a duration like 30s, 10m or 1h, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text!r}")
    return value


def _add_probe(sub: _Commands) -> None:
    pr = sub.add_parser(
        "probe",
        help="send the golden set's questions to your application (golden probes)",
        description="POST each golden question to the application's endpoint, one at a time, "
        "with the item's id in a header and in W3C baggage (ragmon.golden_id) so the "
        "application's trace carries it; the daemon (golden.set_path) then scores the "
        "retrieval and the stage that missed. The request body is a JSON template whose "
        'string values "{query}" and "{golden_id}" are filled in. Without --every: one run, '
        "exit 1 if any request failed.",
    )
    pr.add_argument("--golden", type=Path, required=True,
                    help="a published golden set: a version file or its directory")  # fmt: skip
    pr.add_argument("--endpoint", required=True, help="the application's URL to POST to")
    pr.add_argument("--request-template", type=Path, required=True,
                    help='JSON body, e.g. {"question": "{query}"}')  # fmt: skip
    pr.add_argument("--every", type=_duration, help="repeat every period (e.g. 10m), jittered")
    pr.add_argument("--rate", type=float, default=1.0, help="requests per second at most")
    pr.add_argument("--timeout", type=_duration, default=30.0, help="per request (default 30s)")
    pr.add_argument("--header", default="X-Ragmon-Golden-Id", help="header carrying the id")


def _add_compare(sub: _Commands) -> None:
    cmp = sub.add_parser(
        "compare",
        help="two releases on the same golden probes, paired",
        description="Read native trace records (JSONL) carrying golden_id and release, score "
        "each probe as the daemon does (stage, recall, nDCG, MRR) and pair the probes "
        "answered under both releases: per metric both means, the mean difference B - A "
        "with a 95%% paired bootstrap interval, an exact sign test, and the probes whose "
        "stage flipped between ok and a miss.",
    )
    cmp.add_argument("files", type=Path, nargs="+", metavar="FILE", help="native traces (JSONL)")
    cmp.add_argument("--golden", type=Path, required=True, help="the published golden set")
    cmp.add_argument("--release", action="append", required=True, metavar="RELEASE",
                     help="twice: the release A, then B")  # fmt: skip
    cmp.add_argument("--output-json", type=Path, help="also write the comparison as JSON")
    cmp.add_argument("--judge", choices=("anthropic", "openai"),
                     help="also judge the two releases' answers pairwise on the same passages, "
                     "twice (both orders); a win counts only when both orders agree, else a "
                     "tie; the pairs whose preference changed with the order are listed "
                     "(position bias). Settings from the config's judge section")  # fmt: skip
    _add_config_arg(cmp)


def _add_eval_retrieval(sub: _Commands) -> None:
    ev = sub.add_parser(
        "eval-retrieval",
        help="score a retrieval run against relevance labels (trec_eval's definitions)",
        description="Score a TREC run (qid Q0 docid rank score tag) against TREC qrels (qid "
        "iter docid grade; grade 0 not relevant, 1-3 relevant) with trec_eval's definitions: "
        "ranking by score, ties in descending docid order; precision@k, recall@k, nDCG@k "
        "(gain = grade), MRR, over every judged query (trec_eval -c: a query the run "
        "retrieved nothing for scores 0, and is counted on stderr); plus each query's first-hit "
        "rank and the share of queries with zero recall at k. Prints a table; --output-json "
        "writes {metrics, per_query}.",
    )
    ev.add_argument("--qrels", type=Path, required=True,
                    help="TREC qrels, or a published golden set (a version file, or the "
                    "directory `ragmon golden publish` writes: its newest version)")  # fmt: skip
    ev.add_argument(
        "--only-retrieved",
        action="store_true",
        help="average over the queries in both files only (trec_eval without -c)",
    )
    ev.add_argument("--run", type=Path, required=True, help="the ranked results (TREC run)")
    ev.add_argument("--k", type=_cutoffs, default=[1, 3, 5, 10],
                    help="cut-offs, comma-separated (default 1,3,5,10)")  # fmt: skip
    ev.add_argument("--chunk-separator", default=None, metavar="SEP",
                    help="map chunk ids 'doc<SEP>chunk' to their document before scoring, "
                    "so a document counts once (e.g. '#')")  # fmt: skip
    ev.add_argument("--output-json", type=Path, help="also write the metrics and per-query "
                    "figures as JSON ('-': stdout instead of the table)")  # fmt: skip


def _add_config(sub: _Commands) -> None:
    cfg = sub.add_parser(
        "config",
        help="validate, show or describe the configuration",
        description="validate: load and check the config, exit 2 naming any bad key. "
        "show: print the effective config (file + environment + defaults) as YAML. "
        "schema: print the config's JSON Schema.",
    )
    cfg.add_argument("action", choices=("validate", "show", "schema"))
    _add_config_arg(cfg)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragmon",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=ragmon_version())
    # the commands are listed once, in DESCRIPTION (argparse would list them a second time)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                help=argparse.SUPPRESS)  # fmt: skip
    for add in (
        _add_run,
        _add_replay,
        _add_check,
        _add_demo,
        _add_calibrate,
        _add_schema,
        _add_convert,
        _add_golden,
        _add_review,
        _add_probe,
        _add_compare,
        _add_eval_retrieval,
        _add_config,
    ):
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        from monitor.commands.dispatch import dispatch  # the heavy imports, once the args are good

        return dispatch(args)
    except BrokenPipeError:
        # `ragmon … | head` closed the pipe: stop quietly, as a Unix tool does. Python would
        # otherwise report the failed flush of stdout at exit; point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
