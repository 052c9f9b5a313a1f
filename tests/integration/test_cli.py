"""The command line, run as a user runs it: a separate process, real files, real stdin."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from monitor.checks import CHECK_NAMES
from monitor.sources import demo
from tests.integration.conftest import CONSOLE_SCRIPT, candidate_rows, clean_env, ragmon

COMMANDS = (
    "run", "replay", "check", "demo", "schema", "convert", "calibrate", "golden", "review",
    "probe", "compare", "config", "eval-retrieval",
)  # fmt: skip


def test_console_script_help_explains_every_command() -> None:
    """The installed `ragmon` entry point lists and explains each command."""
    out = subprocess.run([str(CONSOLE_SCRIPT), "--help"], capture_output=True, text=True,
                         env=clean_env(), check=True).stdout  # fmt: skip
    for command in COMMANDS:
        assert f"\n  {command} " in out, command


SUBCOMMANDS = tuple(f"golden {a}" for a in ("stats", "export", "review", "publish",
                                             "precision")) + tuple(
    f"config {a}" for a in ("validate", "show", "schema"))  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS + SUBCOMMANDS)
def test_each_command_has_help(command: str) -> None:
    """`ragmon COMMAND --help` works and describes the command itself (not its parent's
    help), and no '%%' escape shows literally."""
    result = ragmon(*command.split(), "--help")
    assert result.returncode == 0
    assert "usage: ragmon " + command in result.stdout
    head = result.stdout.split("\n\n")
    assert len(head) > 2 and not head[1].startswith(("options:", "positional")), result.stdout
    assert "%%" not in result.stdout


def test_config_given_before_the_action_is_kept(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("judge:\n  backend: bogus\n")
    for args in (("config", "-c", str(bad), "validate"), ("config", "validate", "-c", str(bad))):
        out = ragmon(*args)
        assert out.returncode == 2 and "judge.backend" in out.stderr, args


def test_check_prints_the_evaluation_contract() -> None:
    """One trace on stdin gives the documented evaluation line on stdout."""
    record = demo.generate(0)
    record["answer"] = "1. Refunds take 45 days [9]. The context does not mention gift cards."
    result = ragmon("check", stdin=json.dumps(record).encode())
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout)
    assert line["trace_id"] == record["trace_id"]
    assert set(line["checks"]) == set(CHECK_NAMES)
    for check in line["checks"].values():
        assert set(check) >= {"flagged", "evidence"}
    assert line["checks"]["unsupported_numbers"]["evidence"]["numbers"] == ["45"]
    assert line["checks"]["refusal"]["evidence"]["phrase"] == "The context does not mention"
    assert line["checks"]["citation"]["evidence"]["invalid"] == ["9"]
    assert line["checks"]["citation"]["flagged"] is True


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b"{not json", "invalid_json"),
        (b'{"trace_id": "abc"}', "trace_id: must be 32 hex characters"),  # no pydantic prefix
        (b"", "stdin is empty"),
        (b" \n", "stdin is empty"),
        (
            b'{"trace_id": "' + b"ab" * 16 + b'"}\n{"trace_id": "' + b"cd" * 16 + b'"}\n',
            "check reads one trace; use ragmon replay -",
        ),
        (b'{"trace_id": "' + b"ab" * 16 + b'", "context": [{"doc_id": 3}]}', "context.0"),
    ],
)
def test_check_rejects_bad_input_in_one_line(stdin: bytes, message: str) -> None:
    """Invalid input exits 2 with one line naming the problem, never a traceback."""
    result = ragmon("check", stdin=stdin)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_replay_summary_output_and_bad_lines(tmp_path: Path) -> None:
    """Replay evaluates every good line, reports bad ones by line number and summarises."""
    src = tmp_path / "traces.jsonl"
    lines = [json.dumps(demo.generate(i)) for i in range(300)]
    lines.insert(10, "{broken")
    lines.insert(50, '{"trace_id": 42}')
    lines.insert(51, "")
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "evals.jsonl"
    result = ragmon("replay", str(src), "--output-jsonl", str(out))
    assert result.returncode == 0, result.stderr
    assert f"{src} line 11 (invalid_json)" in result.stderr
    assert f"{src} line 51 (invalid_record): trace_id" in result.stderr
    evaluations = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(evaluations) == 300
    assert {e["trace_id"] for e in evaluations} == {
        json.loads(x)["trace_id"] for x in lines if x.startswith('{"schema')
    }
    refusals = sum(e["checks"]["refusal"]["flagged"] for e in evaluations)
    table = result.stdout
    assert "95% CI (Wilson)" in table
    row = next(r for r in table.splitlines() if r.startswith("refusal "))
    assert row.split()[1] == str(refusals)
    assert "traces evaluated: 300   bad records: 2" in table


def test_replay_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    """A file that does not exist is named and exits 2."""
    result = ragmon("replay", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 2
    assert "no such file" in result.stderr


def test_demo_emits_every_failure_mode() -> None:
    """Demo traffic is valid native JSON and covers each labelled failure mode."""
    result = ragmon("demo", "--count", "400", "--seed", "3")
    assert result.returncode == 0
    records = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(records) == 400
    modes = {r["attributes"]["ragmon.demo.failure_mode"] for r in records}
    assert modes == set(demo.FAILURE_MODES)
    again = ragmon("demo", "--count", "400", "--seed", "3").stdout
    assert again == result.stdout  # deterministic


def test_schema_trace_is_the_published_schema() -> None:
    """`ragmon schema trace` prints the JSON Schema with the documented fields."""
    schema = json.loads(ragmon("schema", "trace").stdout)
    assert schema["title"] == "ragmon.trace/v1"
    assert {"trace_id", "query", "context", "answer", "retrieved"} <= set(schema["properties"])


def test_config_validate_names_bad_keys(tmp_path: Path) -> None:
    """`config validate` accepts a good file and names the bad key of a bad one."""
    good = tmp_path / "good.yaml"
    good.write_text("metrics:\n  port: 9500\n")
    assert ragmon("config", "validate", "--config", str(good)).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("metrics:\n  prot: 9500\n")
    result = ragmon("config", "validate", "--config", str(bad))
    assert result.returncode == 2
    assert "metrics.prot: unknown key" in result.stderr


def test_config_show_applies_environment() -> None:
    """`config show` prints the effective config, environment overrides included."""
    result = ragmon("config", "show", RAGMON_METRICS__PORT="9511")
    assert result.returncode == 0
    assert "port: 9511" in result.stdout


def test_golden_rows_from_replay_to_export(tmp_path: Path) -> None:
    """replay --golden-dir writes rows; stats summarise them; reviewed rows export in each
    format and unreviewed ones do not."""
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(300)))
    golden = tmp_path / "golden"
    assert ragmon("replay", str(src), "--golden-dir", str(golden)).returncode == 0
    stats = ragmon("golden", "stats", "--dir", str(golden))
    assert stats.returncode == 0 and "needs_review" in stats.stdout
    nothing = ragmon("golden", "export", "--dir", str(golden), "--format", "ragas")
    assert nothing.stdout == "" and "exported 0 of" in nothing.stderr
    # a reviewer approves one row: edit the segment holding it
    seg = sorted(golden.glob("golden-*.jsonl"))[-1]
    lines = seg.read_text().splitlines()
    row = json.loads(lines[0])
    row["ragmon"]["status"] = "reviewed"
    row["reference"] = "Refunds are possible within 30 days."
    seg.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    for fmt in ("ragas", "deepeval", "langfuse"):
        out = ragmon("golden", "export", "--dir", str(golden), "--format", fmt)
        assert out.returncode == 0, out.stderr
        items = (
            json.loads(out.stdout)
            if fmt == "deepeval"
            else [json.loads(x) for x in out.stdout.splitlines()]
        )
        assert len(items) == 1
        assert "Refunds are possible within 30 days." in json.dumps(items[0])


def test_calibrate_and_export_through_run(tmp_path: Path) -> None:
    """demo --with-labels → calibrate → the record is exported by `ragmon run`."""
    import signal
    import time
    import urllib.request

    labels = tmp_path / "labels.jsonl"
    labels.write_text(ragmon("demo", "--count", "300", "--with-labels").stdout)
    record = tmp_path / "cal.json"
    result = ragmon("calibrate", "--labels", str(labels), "--output", str(record))
    assert result.returncode == 0, result.stderr
    assert "Cohen's kappa" in result.stdout and record.exists()
    from tests.integration.conftest import RAGMON, clean_env, free_port

    port = free_port()
    proc = subprocess.Popen(
        [*RAGMON, "run"],
        env=clean_env(
            RAGMON_JUDGE__CALIBRATION_FILE=str(record),
            RAGMON_METRICS__PORT=str(port),
            RAGMON_METRICS__HOST="127.0.0.1",
        ),
        stderr=subprocess.DEVNULL,
    )
    try:
        body = ""
        for _ in range(50):
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert 'ragmon_judge_calibration{judge="heuristic",measure="kappa"' in body
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_convert_and_replay_otlp_files(tmp_path: Path) -> None:
    """`ragmon convert` writes native records from an OTLP proto stream; `replay --format`
    evaluates the same file directly."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    from tests.unit.test_otlp import proto_stream, spans

    src = tmp_path / "spans.bin"
    src.write_bytes(proto_stream(*(encode_spans(spans()).SerializeToString() for _ in range(3))))
    out = tmp_path / "native.jsonl"
    result = ragmon("convert", str(src), "--from", "otlp-proto", "--output-jsonl", str(out))
    assert result.returncode == 0, result.stderr
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(records) == 3 and records[0]["schema"] == "ragmon.trace/v1"
    assert records[0]["attributes"]["ragmon.convention"] == "openinference"
    replay = ragmon("replay", str(src), "--format", "otlp-proto")
    assert replay.returncode == 0, replay.stderr
    assert "traces evaluated: 3" in replay.stdout
    native = ragmon("replay", str(out))
    assert native.stdout == replay.stdout  # the converted records evaluate identically


def test_golden_review_publish_and_precision(tmp_path: Path) -> None:
    """From candidate rows to a published golden set through `golden review`: an accept with
    a reference and a graded gold document, a reject as check_wrong, a conflicting decision
    refused (exit 1), precision per check, and a second publish that writes nothing."""
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(300)))
    golden = tmp_path / "golden"
    assert ragmon("replay", str(src), "--golden-dir", str(golden)).returncode == 0
    rows = [
        json.loads(x)
        for p in sorted(golden.glob("golden-*.jsonl"))
        for x in p.read_text().splitlines()
    ]
    first, second = rows[0], rows[1]
    doc = first["retrieved_context_ids"][0]
    empty = ragmon("golden", "publish", "--dir", str(golden))  # nothing accepted yet
    assert empty.returncode == 1 and "no version is written" in empty.stderr
    assert not (golden / "set").exists()
    ok = ragmon("golden", "review", "--dir", str(golden), "--row", first["id"], "--accept",
                "--reference", "Refunds within 30 days.", "--gold", f"{doc}=3",
                "--category", "answerable", "--reviewer", "ana")  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    decision = ok.stdout.split("decision ")[1].rstrip(")\n")
    bad = ragmon("golden", "review", "--dir", str(golden), "--row", second["id"],
                 "--reject", "check_wrong", "--reviewer", "bo")  # fmt: skip
    assert bad.returncode == 0, bad.stderr
    late = ragmon("golden", "review", "--dir", str(golden), "--row", first["id"],
                  "--reject", "not_useful", "--reviewer", "cy")  # fmt: skip
    assert late.returncode == 1 and "decided by ana" in late.stderr
    nogold = ragmon(
        "golden",
        "review",
        "--dir",
        str(golden),
        "--row",
        first["id"],
        "--accept",
        "--reference",
        "x",
        "--gold",
        "nope=2",
        "--after",
        decision,
        "--reviewer",
        "cy",
    )
    assert nogold.returncode == 2 and "not among the row's passages" in nogold.stderr
    prec = ragmon("golden", "precision", "--dir", str(golden))
    assert prec.returncode == 0
    reasons = {first["ragmon"]["reason"], second["ragmon"]["reason"]}
    assert all(r in prec.stdout for r in reasons), prec.stdout
    pub = ragmon("golden", "publish", "--dir", str(golden))
    assert pub.returncode == 0 and "v0001: 1 items" in pub.stdout, pub.stdout + pub.stderr
    (item,) = [
        json.loads(x)
        for x in next((golden / "set").glob("golden-v0001-*.jsonl")).read_text().splitlines()
    ]
    assert item["reference"] == "Refunds within 30 days." and item["gold_docs"] == [
        {"id": doc, "grade": 3}
    ]
    again = ragmon("golden", "publish", "--dir", str(golden))
    assert "unchanged" in again.stdout and len(list((golden / "set").iterdir())) == 1
    text = first["retrieved_contexts"][0]
    deepeval = ragmon("golden", "export", "--set", str(golden / "set"), "--format", "deepeval")
    assert deepeval.returncode == 0, deepeval.stderr
    (golden_item,) = json.loads(deepeval.stdout)
    assert golden_item["context"] == [text] and golden_item["input"] == first["user_input"]
    assert golden_item["expected_output"] == "Refunds within 30 days."
    ragas = ragmon("golden", "export", "--set", str(golden / "set"), "--format", "ragas")
    sample = json.loads(ragas.stdout)
    assert sample["reference_contexts"] == [text] and sample["reference_context_ids"] == [doc]
    lf = ragmon("golden", "export", "--set", str(golden / "set"), "--format", "langfuse",
                "--dataset-name", "probes")  # fmt: skip
    assert json.loads(lf.stdout)["dataset_name"] == "probes"
    nodir = ragmon("golden", "export", "--format", "ragas")
    assert nodir.returncode == 2 and "--dir is required" in nodir.stderr


@pytest.mark.parametrize("action", ["stats", "export", "review", "publish", "precision"])
def test_each_golden_action_has_help(action: str) -> None:
    result = ragmon("golden", action, "--help")
    assert result.returncode == 0 and "--dir" in result.stdout, result.stderr


def test_review_refuses_to_bind_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    out = ragmon("review", "--dir", str(tmp_path), "--host", "0.0.0.0")
    assert out.returncode == 2 and "RAGMON_REVIEW_TOKEN" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_stats_and_export_read_the_review_decisions(tmp_path: Path) -> None:
    """A row accepted and one rejected through the decision log (what the review page
    writes) are accepted and rejected for `golden stats` and `golden export --dir` too (the
    page's words); the accepted row exports with the reference the reviewer gave."""
    golden, rows = candidate_rows(tmp_path)
    before = ragmon("golden", "export", "--dir", str(golden), "--format", "ragas")
    assert "0 of" in before.stderr and "ragmon review" in before.stderr  # the hint
    for row, verdict in ((rows[0], ["--accept", "--reference", "Thirty days."]),
                         (rows[1], ["--reject", "duplicate"])):  # fmt: skip
        done = ragmon("golden", "review", "--dir", str(golden), "--row", row["id"], *verdict,
                      "--reviewer", "ana")  # fmt: skip
        assert done.returncode == 0, done.stderr
    stats = ragmon("golden", "stats", "--dir", str(golden)).stdout
    counts = dict(line.split() for line in stats.split("status")[1].splitlines()[1:4] if line)
    assert counts == {"needs_review": str(len(rows) - 2), "accepted": "1", "rejected": "1"}
    out = ragmon("golden", "export", "--dir", str(golden), "--format", "ragas")
    assert "exported 1 of" in out.stderr, out.stderr
    (sample,) = [json.loads(x) for x in out.stdout.splitlines()]  # JSONL, one row
    assert sample["reference"] == "Thirty days."


def test_a_row_accepted_as_expected_to_refuse_is_exported_to_every_tool(tmp_path: Path) -> None:
    """`golden review --accept --expect refuse` needs no reference, and `golden export
    --dir` keeps the row (it was "skipped ... without a reference", the trap rows a team
    most needs): each tool gets the refusal as its reference text, and the behaviour in its
    metadata where it has one."""
    from monitor.golden.export import REFUSAL_REFERENCE

    golden, rows = candidate_rows(tmp_path)
    done = ragmon("golden", "review", "--dir", str(golden), "--row", rows[0]["id"],
                  "--accept", "--expect", "refuse", "--category", "unanswerable",
                  "--reviewer", "ana")  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = {}
    for fmt in ("ragas", "deepeval", "langfuse"):
        out = ragmon("golden", "export", "--dir", str(golden), "--format", fmt)
        assert "exported 1 of" in out.stderr and "skipped" not in out.stderr, out.stderr
        text = out.stdout.strip()
        got[fmt] = json.loads(text)[0] if text.startswith("[") else json.loads(text)
    assert got["ragas"]["reference"] == REFUSAL_REFERENCE
    assert got["deepeval"]["expected_output"] == REFUSAL_REFERENCE
    assert got["deepeval"]["additional_metadata"]["expected"] == "refuse"
    assert got["langfuse"]["expected_output"] == REFUSAL_REFERENCE
    assert got["langfuse"]["metadata"]["expected"] == "refuse"


def _summary_rate(stdout: str, check: str) -> tuple[float, float, float]:
    """(rate, low, high) of ``check``'s row of the replay summary."""
    row = next(x for x in stdout.splitlines() if x.startswith(check + " "))
    rate, lo, hi = re.findall(r"([\d.]+)%", row)
    return float(rate) / 100, float(lo) / 100, float(hi) / 100


def test_a_tail_sampled_stream_reads_the_traffics_rate(tmp_path: Path) -> None:
    """A tail sampler kept every refused trace and a tenth of the rest, and said so in each
    trace's `sample_rate`: replay's refusal rate (weighted by adjusted count) has the whole
    traffic's rate inside its interval; the same traces without `sample_rate` (what ragmon
    read of them before) give a rate several times too high."""
    import random

    traces = [demo.generate(i) for i in range(3000)]
    src, out = tmp_path / "all.jsonl", tmp_path / "all-evals.jsonl"
    src.write_text("".join(json.dumps(t) + "\n" for t in traces))
    assert ragmon("replay", str(src), "--output-jsonl", str(out)).returncode == 0
    refused = {x["trace_id"] for x in map(json.loads, out.read_text().splitlines())
               if x["checks"]["refusal"]["flagged"]}  # fmt: skip
    truth = len(refused) / len(traces)
    rng = random.Random(4)
    kept = []
    for t in traces:
        if t["trace_id"] in refused:
            kept.append({**t, "sample_rate": 1.0})
        elif rng.random() < 0.1:
            kept.append({**t, "sample_rate": 0.1})
    sampled, plain = tmp_path / "sampled.jsonl", tmp_path / "plain.jsonl"
    sampled.write_text("".join(json.dumps(t) + "\n" for t in kept))
    plain.write_text("".join(json.dumps({k: v for k, v in t.items() if k != "sample_rate"})
                         + "\n" for t in kept))  # fmt: skip
    weighted = ragmon("replay", str(sampled))
    unweighted = ragmon("replay", str(plain))
    assert weighted.returncode == 0 and unweighted.returncode == 0, weighted.stderr
    rate, lo, hi = _summary_rate(weighted.stdout, "refusal")
    naive, _, _ = _summary_rate(unweighted.stdout, "refusal")
    print(f"\ntail-sampled: traffic {truth:.1%}; weighted {rate:.1%} [{lo:.1%}, {hi:.1%}] "
          f"over {len(kept)} kept traces; unweighted {naive:.1%}")  # fmt: skip
    assert lo <= truth <= hi
    assert naive > 3 * truth
    assert "sampled upstream" in weighted.stdout
