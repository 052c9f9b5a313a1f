"""The command line at its edges, as a new user meets them: pipes closed early, wrong or
empty input, arguments that do not fit together, a judge with no key. Each ends with one
line on stderr and an honest exit status, never a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from monitor.sources import demo
from tests.integration.conftest import RAGMON, candidate_rows, clean_env, ragmon

CORPUS = Path(__file__).resolve().parents[1] / "otel_corpus"


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize(
    "args", [("demo", "--count", "0"), ("schema", "trace"), ("config", "show")]
)
def test_a_reader_that_stops_early_ends_the_command_quietly(args: tuple[str, ...]) -> None:
    """`ragmon … | head -c 10`: the writer stops without a BrokenPipeError traceback."""
    proc = subprocess.Popen([*RAGMON, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=clean_env())  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()  # what head does after its bytes
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) in (0, 1)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(20)))
    return path


def test_replay_of_an_empty_file_says_so_and_fails(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    result = ragmon("replay", str(empty))
    assert result.returncode == 1
    assert "no trace evaluated: the input is empty" in result.stderr
    assert result.stdout == ""  # no table of zeros


def test_replay_of_a_directory_names_it(tmp_path: Path) -> None:
    result = ragmon("replay", str(tmp_path))
    assert result.returncode == 2 and f"is a directory: {tmp_path}" in result.stderr


def test_replay_tells_the_formats_apart_by_their_first_bytes() -> None:
    """OTLP protobuf and OTLP/JSON files replay without --format."""
    for name in ("openai-genai.otlp", "openai-genai.otlp.jsonl"):
        result = ragmon("replay", str(CORPUS / name))
        assert result.returncode == 0, result.stderr
        assert "traces evaluated: 10   bad records: 0" in result.stdout


def test_replay_with_the_wrong_format_names_the_right_one(traces: Path) -> None:
    result = ragmon("replay", "--format", "otlp-json", str(traces))
    assert result.returncode == 1
    assert "read as otlp-json, but the input looks like native" in result.stderr
    no_traceback(result)


def test_output_jsonl_dash_is_stdout_and_the_summary_moves_to_stderr(traces: Path) -> None:
    result = ragmon("replay", str(traces), "--output-jsonl", "-")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 20 and all("checks" in line for line in lines)
    assert "traces evaluated: 20" in result.stderr
    assert not Path("-").exists()


def test_sample_rate_without_a_judge_is_refused(traces: Path) -> None:
    result = ragmon("replay", str(traces), "--sample-rate", "0.5")
    assert result.returncode == 2 and "--sample-rate needs a judge" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("run",),
        ("replay", "--judge", "anthropic", "TRACES"),
        ("calibrate", "--judge", "anthropic", "--labels", "TRACES"),
    ],
)
def test_the_anthropic_judge_without_a_key_is_one_line_at_start(
    args: tuple[str, ...], traces: Path
) -> None:
    argv = [str(traces) if a == "TRACES" else a for a in args]
    result = ragmon(*argv, RAGMON_JUDGE__BACKEND="anthropic", RAGMON_METRICS__PORT="0",
                    ANTHROPIC_API_KEY="")  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "no API key is set: export ANTHROPIC_API_KEY" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_bad_environment_value_names_its_variable() -> None:
    result = ragmon("config", "validate", RAGMON_METRICS__PORT="abc")
    assert result.returncode == 2
    assert "invalid configuration (environment)" in result.stderr
    assert "metrics.port (from RAGMON_METRICS__PORT)" in result.stderr


def test_negative_demo_count_is_a_usage_error() -> None:
    result = ragmon("demo", "--count", "-5")
    assert result.returncode == 2 and "must be 0 or more" in result.stderr


def test_schema_config_is_the_config_schema() -> None:
    result = ragmon("schema", "config")
    assert result.returncode == 0
    assert json.loads(result.stdout) == json.loads(ragmon("config", "schema").stdout)


def test_calibrate_caps_the_errors_it_prints(traces: Path) -> None:
    """Unlabelled rows: ten reported, the rest counted, and what a row needs."""
    result = ragmon("calibrate", "--labels", str(traces))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert sum("no 'label' field" in line for line in lines) == 10
    assert "... and 10 more rows skipped" in result.stderr
    assert "'label': pass | fail | hard_fail | not_applicable" in lines[-1]


def test_eval_retrieval_scores_a_trec_run_and_writes_json(tmp_path: Path) -> None:
    qrels, run, out = tmp_path / "qrels", tmp_path / "run", tmp_path / "out.json"
    qrels.write_text("q1 0 refunds#0 2\nq1 0 fees#0 1\nq2 0 shipping 1\nq4 0 nothing 0\n")
    run.write_text("q1 Q0 refunds#2 1 0.9 bm25\nq1 Q0 pricing#0 2 0.8 bm25\n"
                   "q2 Q0 returns 1 0.9 bm25\nq3 Q0 x 1 1 bm25\n")  # fmt: skip
    result = ragmon("eval-retrieval", "--qrels", str(qrels), "--run", str(run), "--k", "1,3",
                    "--chunk-separator", "#", "--output-json", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "1 run queries have no qrels" in result.stderr
    assert "1 judged queries have no relevant document (unanswerable)" in result.stderr
    data = json.loads(out.read_text())
    assert data["metrics"]["queries"] == 2
    assert data["metrics"]["precision@1"] == 0.5 and data["metrics"]["recall@1"] == 0.25
    assert data["per_query"]["q1"]["first_hit_rank"] == 1
    assert data["unanswerable"] == 1 and "q4" not in data["per_query"]
    bad = ragmon("eval-retrieval", "--qrels", str(run), "--run", str(run))
    assert bad.returncode == 2 and "want 4 (qid iter docid grade)" in bad.stderr


def test_golden_export_reads_status_in_any_case_and_refuses_what_it_cannot_export(
    tmp_path: Path,
) -> None:
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(200)))
    golden = tmp_path / "golden"
    replay = ragmon("replay", str(src), "--golden-dir", str(golden))
    assert replay.returncode == 0 and "candidate golden rows:" in replay.stderr
    seg = sorted(golden.glob("golden-*.jsonl"))[-1]
    rows = [json.loads(x) for x in seg.read_text().splitlines()]
    rows[0]["ragmon"]["status"] = " Reviewed "  # as a person may type it
    rows[0]["reference"] = "Refunds are possible within 30 days."
    rows[1]["ragmon"]["status"] = "REVIEWED"  # but no reference
    seg.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = ragmon("golden", "export", "--dir", str(golden), "--format", "langfuse",
                 "--dataset-name", "support-golden")  # fmt: skip
    assert out.returncode == 0, out.stderr
    (item,) = [json.loads(x) for x in out.stdout.splitlines()]
    assert item["dataset_name"] == "support-golden" and item["id"] == rows[0]["id"]
    assert "skipped 1 accepted rows without a reference" in out.stderr
    bogus = ragmon("golden", "export", "--dir", str(golden), "--format", "ragas",
                   "--status", "bogus")  # fmt: skip
    assert bogus.returncode == 2 and "unknown --status 'bogus'" in bogus.stderr


def test_evaluation_lines_carry_no_raw_pii_unless_told(tmp_path: Path) -> None:
    """A card number the answer invents shows in the evidence as [REDACTED:CARD]; with
    output.redact_pii false it is written as it was."""
    record = demo.generate(0)
    record["answer"] = "Your card 4111 1111 1111 1111 was charged $45 [1]."
    src = tmp_path / "t.jsonl"
    src.write_text(json.dumps(record) + "\n")
    out = ragmon("replay", str(src), "--judge", "heuristic", "--output-jsonl", "-")
    assert out.returncode == 0, out.stderr
    assert "4111" not in out.stdout and "[REDACTED:CARD]" in out.stdout
    raw = ragmon("replay", str(src), "--output-jsonl", "-", RAGMON_OUTPUT__REDACT_PII="false")
    # the figures as read: the card number is one figure (three or more spaced digit groups)
    assert raw.returncode == 0 and '"4111 1111 1111 1111"' in raw.stdout


def test_help_lists_each_command_once() -> None:
    out = ragmon("--help").stdout
    for command in ("replay", "eval-retrieval", "golden"):
        assert out.count(f"\n  {command} ") == 1, command


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("demo", "-o", "{tmp}"), "is a directory"),
        (("convert", "{otlp}", "--from", "otlp-proto", "--output-jsonl", "{tmp}"),
         "is a directory"),
        (("calibrate", "--labels", "{labels}", "-o", "{tmp}"), "is a directory"),
        (("config", "validate", "--config", "{binary}"), "not UTF-8 text"),
        (("eval-retrieval", "--qrels", "{binary}", "--run", "{binary}"), "not UTF-8 text"),
        (("review", "--dir", "{tmp}", "--port", "99999"), "--port must be 0-65535"),
        (("demo", "--count", "abc"), "a whole number, 0 or more, not 'abc'"),
    ],
)  # fmt: skip
def test_bad_paths_and_values_are_one_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    binary = tmp_path / "binary"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe\x00")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({**demo.generate(0), "label": "pass"}) + "\n")
    fill = {"tmp": str(tmp_path), "binary": str(binary), "labels": str(labels),
            "otlp": str(CORPUS / "openai-genai.otlp")}  # fmt: skip
    result = ragmon(*(a.format(**fill) for a in args))
    no_traceback(result)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    usage = "--count" in args  # argparse prints its usage lines before the error
    assert usage or len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_review_on_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = ragmon("review", "--dir", str(tmp_path), "--port", str(taken.getsockname()[1]))
    no_traceback(result)
    assert result.returncode == 2 and "in use" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_output_files_are_overwritten_and_their_directories_created(tmp_path: Path) -> None:
    """One behaviour for every output file: missing directories are created, an existing
    file is overwritten; replay appends only with --append."""
    traces = tmp_path / "deep" / "er" / "t.jsonl"
    assert ragmon("demo", "--count", "5", "-o", str(traces)).returncode == 0
    assert ragmon("demo", "--count", "3", "-o", str(traces)).returncode == 0
    assert len(traces.read_text().splitlines()) == 3
    out = tmp_path / "new" / "evals.jsonl"
    for _ in range(2):
        assert ragmon("replay", str(traces), "--output-jsonl", str(out)).returncode == 0
    assert len(out.read_text().splitlines()) == 3
    assert ragmon("replay", str(traces), "--output-jsonl", str(out), "--append").returncode == 0
    assert len(out.read_text().splitlines()) == 6


def test_convert_of_the_wrong_format_fails_with_a_hint(tmp_path: Path) -> None:
    """Protobuf read as OTLP/JSON maps nothing: exit 1 with the format hint, as replay."""
    result = ragmon("convert", str(CORPUS / "openai-genai.otlp"), "--from", "otlp-json",
                    "--output-jsonl", str(tmp_path / "out.jsonl"))  # fmt: skip
    no_traceback(result)
    assert result.returncode == 1 and "looks like otlp-proto" in result.stderr, result.stderr


def test_demo_into_head_exits_0_and_check_prints_one_line() -> None:
    done = subprocess.run(["bash", "-o", "pipefail", "-c",
                           f"{' '.join(RAGMON)} demo | head -1"], capture_output=True, text=True,
                          env=clean_env(), timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = ragmon("check", stdin=done.stdout.encode()).stdout
    assert len(line.strip().splitlines()) == 1 and json.loads(line)["checks"]
    assert len(ragmon("check", "--pretty", stdin=done.stdout.encode()).stdout.splitlines()) > 5


def test_eval_retrieval_reads_a_published_set_and_scores_empty_retrievals(
    tmp_path: Path,
) -> None:
    """--qrels takes the golden-set directory `golden publish` writes; a judged query the
    run retrieved nothing for scores 0 and is counted on stderr."""
    golden, rows = candidate_rows(tmp_path)
    rows = [r for r in rows if r["retrieved_context_ids"]]
    for row in rows[:2]:
        doc = row["retrieved_context_ids"][0]
        assert ragmon("golden", "review", "--dir", str(golden), "--row", row["id"], "--accept",
                      "--reference", "r", "--gold", f"{doc}=2",
                      "--reviewer", "ana").returncode == 0  # fmt: skip
    assert ragmon("golden", "publish", "--dir", str(golden)).returncode == 0
    first = rows[0]
    run = tmp_path / "run.txt"
    run.write_text(f"{first['id']} Q0 {first['retrieved_context_ids'][0]} 1 1.0 r\n")
    result = ragmon("eval-retrieval", "--qrels", str(golden / "set"), "--run", str(run),
                    "--k", "1", "--output-json", "-")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "1 judged queries have no retrieved document" in result.stderr
    metrics = json.loads(result.stdout)["metrics"]
    assert metrics["queries"] == 2 and metrics["recall@1"] == 0.5
    only = ragmon("eval-retrieval", "--qrels", str(golden / "set"), "--run", str(run), "--k",
                  "1", "--output-json", "-", "--only-retrieved")  # fmt: skip
    assert json.loads(only.stdout)["metrics"]["recall@1"] == 1.0


@pytest.mark.parametrize("target", ["/dev/null", "/dev/stdout"])
def test_evaluations_to_a_device_or_a_pipe_are_written_not_fsynced(
    tmp_path: Path, target: str
) -> None:
    """`--output-jsonl /dev/null`, or /dev/stdout when stdout is a pipe: fsync does not apply
    to them (it fails there), so the lines are written and flushed and replay exits 0."""
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(5)))
    done = ragmon("replay", str(src), "--judge", "none", "--output-jsonl", target)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if target == "/dev/stdout":  # the pipe the test reads
        lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
        assert len(lines) == 5


def test_explain_names_its_rates_and_asks_for_evaluation_lines(tmp_path: Path) -> None:
    """`explain --check nosuch` is a usage error (exit 2) with the rates as plain names, not
    a Python list and exit 1; trace files instead of evaluation lines say what to run
    first; --help names the measure the output ranks by."""
    src, evals = tmp_path / "traces.jsonl", tmp_path / "evals.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(40)))
    assert ragmon("replay", str(src), "--output-jsonl", str(evals)).returncode == 0
    wrong = ragmon("explain", str(evals), str(evals), "--check", "nosuch")
    assert wrong.returncode == 2 and "[" not in wrong.stderr
    assert "--check nosuch" in wrong.stderr
    assert "refusal, unsupported_names, unsupported_numbers" in wrong.stderr
    raw = ragmon("explain", str(src), str(src))
    assert raw.returncode == 2 and "ragmon replay" in raw.stderr and "--output-jsonl" in raw.stderr
    said = ragmon("explain", "--help").stdout
    assert "Jensen-Shannon" in said.replace("\n", " ")


def test_a_bad_otlp_message_is_told_alike_by_convert_and_replay(tmp_path: Path) -> None:
    """`convert` names the problem of a bad message as `replay` does (it said only the
    reason's label), and a gzip file cut short is said once (it was said twice: a JSON log
    line and a plain one)."""
    bad = tmp_path / "spans.json"
    bad.write_text("{bad json\n")
    conv = ragmon("convert", "--from", "otlp-json", "--output-jsonl", "-", str(bad))
    rep = ragmon("replay", "--format", "otlp-json", str(bad))
    said = f"bad record at {bad} line 1 (invalid_otlp_json): Expecting property name"
    assert said in conv.stderr and said in rep.stderr
    import gzip

    cut = tmp_path / "traces.jsonl.gz"
    cut.write_bytes(
        gzip.compress(b"".join(demo.generate_bytes(i) + b"\n" for i in range(50)))[:-30]
    )
    result = ragmon("replay", str(cut))
    assert result.stderr.count("end-of-stream marker") == 1, result.stderr


def test_a_subcommand_refuses_an_unknown_flag_with_its_own_usage(tmp_path: Path) -> None:
    """`golden review … --nosuch`: the subcommand's usage and error, not the top-level one;
    the accept error names the flag that exists (`--expect refuse`)."""
    result = ragmon("golden", "review", "--dir", str(tmp_path), "--row", "r", "--accept",
                    "--nosuch")  # fmt: skip
    assert result.returncode == 2
    assert "usage: ragmon golden review" in result.stderr and "--nosuch" in result.stderr
    golden, rows = candidate_rows(tmp_path, traces=60)
    bare = next(r for r in rows if not r.get("reference"))
    refused = ragmon("golden", "review", "--dir", str(golden), "--row", bare["id"],
                     "--accept", "--reviewer", "ana")  # fmt: skip
    assert refused.returncode == 2 and "--expect refuse" in refused.stderr, refused.stderr
    assert "expected=refuse" not in refused.stderr
