"""The arguments of the golden-loop commands (golden, review, probe, compare,
eval-retrieval); light to import, as ``--help`` is."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from monitor.commands.arguments import (
    STORE_PATHS_HELP,
    TRAP_CATEGORIES,
    Commands,
    add_config_arg,
    cutoffs,
)
from monitor.golden import export as golden_export


def _gold_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=Path, required=True, help="the golden.dir of the daemon")


def _add_golden_review(actions: Commands) -> None:
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


def _add_golden_export(actions: Commands) -> None:
    """``ragmon golden export``: accepted rows as the file an evaluation tool loads."""
    exp = actions.add_parser(
        "export",
        help="write accepted rows for Ragas, DeepEval or Langfuse",
        description="Write the accepted candidate rows (accepted on the review page or with "
        "`golden review`, or ragmon.status set to 'accepted' by hand; 'reviewed' and "
        "'approved', earlier names, read the same) as the file Ragas (JSONL for "
        "EvaluationDataset.from_jsonl), DeepEval (a "
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
        default="accepted",
        help="export rows in this state (any case): accepted (with a reference; the "
        "default), rejected, needs_review, or any",
    )
    exp.add_argument("--dataset-name", default="ragmon-golden",
                     help="Langfuse dataset the items go to (default ragmon-golden)")  # fmt: skip
    exp.add_argument("--output", "-o", type=Path, help="file to write (default: stdout)")


def add_golden(sub: Commands) -> None:
    """The arguments of ``ragmon golden`` and its actions."""
    gold = sub.add_parser(
        "golden",
        help="review candidate golden rows, publish the golden set, export, precision",
        description="Candidate golden rows (written by the daemon to golden.dir) become the "
        "golden set through reviews: each decision is appended to golden.dir/reviews/"
        "reviews.jsonl (never rewritten), the set is published as versioned files, and the "
        "decisions measure each check's precision.",
    )
    actions = gold.add_subparsers(dest="action", metavar="ACTION", required=True)
    stats = actions.add_parser(
        "stats",
        help="rows and occurrences by reason, category, status",
        description="Count the candidate rows of golden.dir (each review decision applied) "
        "by reason, category and state (needs_review, accepted, rejected), with how many "
        "traces each reason stood for (occurrences).",
    )
    _gold_dir(stats)
    _add_golden_export(actions)
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
        description="Per check and route, the share of its flags that reviewers confirmed: "
        "an accept of a flagged row says the check was right, a reject as check_wrong that "
        "it was wrong (other rejects say nothing about the check); with the counts and a 95% "
        "Wilson interval. The same figures are on the review page's /metrics.",
    )
    _gold_dir(prec)


def add_review(sub: Commands) -> None:
    """The arguments of ``ragmon review``."""
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
    rev.add_argument("--store", type=Path, action="append", metavar="PATH",
                     help="the evaluation store the trace, session and search pages read "
                     "(default: the config's store.path), looked for at each request: "
                     + STORE_PATHS_HELP)  # fmt: skip
    add_config_arg(rev)


def _duration(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600}
    try:
        value = float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"a duration like 30s, 10m or 1h, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text!r}")
    return value


def add_probe(sub: Commands) -> None:
    """The arguments of ``ragmon probe``."""
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
    pr.add_argument("--rate", type=float, default=1.0,
                    help="requests per second at most (default 1)")  # fmt: skip
    pr.add_argument("--timeout", type=_duration, default=30.0, help="per request (default 30s)")
    pr.add_argument("--header", default="X-Ragmon-Golden-Id",
                    help="header carrying the id (default X-Ragmon-Golden-Id)")  # fmt: skip


def add_compare(sub: Commands) -> None:
    """The arguments of ``ragmon compare``."""
    cmp = sub.add_parser(
        "compare",
        help="two releases on the same golden probes, paired",
        description="Read native trace records (JSONL) carrying golden_id and release, score "
        "each probe as the daemon does (stage, recall, nDCG, MRR) and pair the probes "
        "answered under both releases: per metric both means, the mean difference B - A "
        "with a 95% paired bootstrap interval, an exact sign test, and the probes whose "
        "stage flipped between ok and a miss.",
    )
    cmp.add_argument("files", type=Path, nargs="+", metavar="FILE", help="native traces (JSONL)")
    cmp.add_argument("--golden", type=Path, required=True, help="the published golden set")
    cmp.add_argument("--release", action="append", required=True, metavar="RELEASE",
                     help="twice: the release A, then B")  # fmt: skip
    cmp.add_argument("--output-json", type=Path, help="also write the comparison as JSON")
    cmp.add_argument("--gate", type=Path, metavar="GATE.yaml",
                     help="a ship gate: rules per golden category and metric (no_drop, max, "
                     "min; examples/gate.yaml); exit 1 naming each failed rule and the probes "
                     "behind it")  # fmt: skip
    cmp.add_argument(
        "--junit",
        type=Path,
        metavar="FILE",
        help="with --gate: write the rules' outcomes as JUnit XML for CI",
    )
    cmp.add_argument("--judge", choices=("anthropic", "openai"),
                     help="also judge the two releases' answers pairwise on the same passages, "
                     "twice (both orders); a win counts only when both orders agree, else a "
                     "tie; the pairs whose preference changed with the order are listed "
                     "(position bias). Settings from the config's judge section")  # fmt: skip
    add_config_arg(cmp)


def add_eval_retrieval(sub: Commands) -> None:
    """The arguments of ``ragmon eval-retrieval``."""
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
    ev.add_argument("--k", type=cutoffs, default=[1, 3, 5, 10],
                    help="cut-offs, comma-separated (default 1,3,5,10)")  # fmt: skip
    ev.add_argument("--chunk-separator", default=None, metavar="SEP",
                    help="map chunk ids 'doc<SEP>chunk' to their document before scoring, "
                    "so a document counts once (e.g. '#')")  # fmt: skip
    ev.add_argument("--output-json", type=Path, help="also write the metrics and per-query "
                    "figures as JSON ('-': stdout instead of the table)")  # fmt: skip
