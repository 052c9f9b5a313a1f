"""Inputs and outputs as a Unix tool takes them: '-' and pipes, gzip told from its bytes, the
config's judge, output paths checked before any judge call, a full disk in one line."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

from tests.integration.conftest import RAGMON, clean_env, ragmon

CORPUS = Path(__file__).parents[1] / "otel_corpus"


def _demo(tmp_path: Path, count: int = 60) -> Path:
    path = tmp_path / "demo.jsonl"
    path.write_text(ragmon("demo", "--count", str(count)).stdout)
    return path


def test_replay_reads_stdin_pipes_and_gzip(tmp_path: Path) -> None:
    """'-' and /dev/stdin on a pipe, a gzip file (by its bytes, whatever its name), gzip on
    stdin, OTLP protobuf on a pipe: every trace is evaluated, none read twice."""
    native = _demo(tmp_path)
    raw = native.read_bytes()
    packed = tmp_path / "traces.data"  # no .gz: told from the magic bytes
    packed.write_bytes(gzip.compress(raw))
    cases = [
        (["replay", "-"], raw),
        (["replay", "/dev/stdin"], raw),
        (["replay", "--format", "native", "/dev/stdin"], raw),
        (["replay", str(packed)], None),
        (["replay", "-"], gzip.compress(raw)),
    ]
    for args, stdin in cases:
        out = subprocess.run([*RAGMON, *args], input=stdin, capture_output=True,
                             env=clean_env(), timeout=120)  # fmt: skip
        assert out.returncode == 0, (args, out.stderr.decode())
        assert b"traces evaluated: 60 " in out.stdout, args
    proto = (CORPUS / "langchain-openinference.otlp").read_bytes()
    out = subprocess.run([*RAGMON, "replay", "-"], input=gzip.compress(proto),
                         capture_output=True, env=clean_env(), timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    assert b"traces evaluated: 10 " in out.stdout


def test_a_cut_gzip_input_keeps_what_was_read_and_says_so(tmp_path: Path) -> None:
    """A gzip stream cut short: the traces before the cut are evaluated, the cut is named,
    and the exit status says the input was not read to its end."""
    native = _demo(tmp_path, 3000)
    packed = gzip.compress(native.read_bytes())
    cut = tmp_path / "cut.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    out = ragmon("replay", str(cut))
    assert out.returncode == 1
    assert "reading stopped after" in out.stderr and "cut.gz" in out.stderr
    evaluated = int(out.stdout.split("traces evaluated: ")[1].split()[0])
    assert 0 < evaluated < 3000


def test_replay_uses_the_configs_judge_and_the_flag_overrides_it(tmp_path: Path) -> None:
    """judge.backend in --config turns the judge on in replay; --judge none turns it off."""
    native = _demo(tmp_path)
    config = tmp_path / "ragmon.yaml"
    config.write_text("judge:\n  backend: heuristic\n")
    judged = ragmon("replay", "--config", str(config), str(native))
    assert judged.returncode == 0, judged.stderr
    assert "judge" in judged.stdout and "hard_fail" in judged.stdout
    plain = ragmon("replay", "--config", str(config), "--judge", "none", str(native))
    assert plain.returncode == 0 and "hard_fail" not in plain.stdout


def test_calibrate_refuses_an_unwritable_output_before_any_judge_call(tmp_path: Path) -> None:
    """-o where no file can be written stops at start (the OpenAI judge would be paid for
    each row): no row is judged (the server named is never reached)."""
    labels = tmp_path / "labels.jsonl"
    labels.write_text(ragmon("demo", "--count", "5", "--with-labels").stdout)
    out = ragmon("calibrate", "--labels", str(labels), "--judge", "openai",
                 "-o", "/proc/ragmon-calibration.json",
                 RAGMON_JUDGE__OPENAI__BASE_URL="http://127.0.0.1:9/v1")  # fmt: skip
    assert out.returncode == 2
    assert "cannot write /proc/ragmon-calibration.json" in out.stderr
    assert "line 1" not in out.stderr  # no row was tried


def test_outputs_dash_is_stdout_and_a_full_disk_is_one_line(tmp_path: Path) -> None:
    """convert --output-jsonl - writes to stdout (no file named '-'); a full disk ends demo
    and convert with one line and exit 2, not a traceback."""
    proto = CORPUS / "langchain-openinference.otlp"
    out = subprocess.run([*RAGMON, "convert", "--from", "otlp-proto", str(proto),
                          "--output-jsonl", "-"], capture_output=True, text=True,
                         env=clean_env(), cwd=tmp_path, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == 10 and not (tmp_path / "-").exists()
    for args in (["demo", "--count", "3000", "-o", "/dev/full"],
                 ["convert", "--from", "otlp-proto", str(proto), "--output-jsonl",
                  "/dev/full"]):  # fmt: skip
        full = ragmon(*args)
        assert full.returncode == 2, (args, full.stderr)
        assert "No space left on device" in full.stderr and "Traceback" not in full.stderr


def test_convert_reads_stdin_and_gzip_and_says_where_a_cut_file_stopped(tmp_path: Path) -> None:
    """`convert -` on a gzip pipe gives what the file gives; a gzip file cut short is exit 1
    naming where it stopped; native records read as OTLP are no trace, exit 1, with a hint."""
    spans = CORPUS / "langchain-openllmetry.otlp.jsonl"
    direct = ragmon("convert", str(spans), "--from", "otlp-json", "--output-jsonl", "-")
    assert direct.returncode == 0 and direct.stdout.count("\n") == 10, direct.stderr
    piped = subprocess.run([*RAGMON, "convert", "-", "--from", "otlp-json", "--output-jsonl",
                            "-"], input=gzip.compress(spans.read_bytes()), capture_output=True,
                           env=clean_env(), timeout=120)  # fmt: skip
    assert piped.returncode == 0 and piped.stdout.decode() == direct.stdout
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(spans.read_bytes())[:300])
    out = ragmon("convert", str(cut), "--from", "otlp-json", "--output-jsonl", "-")
    assert out.returncode == 1 and f"{cut} stopped after 300 bytes" in out.stderr
    native = ragmon("convert", str(_demo(tmp_path, 3)), "--from", "otlp-json",
                    "--output-jsonl", "-")  # fmt: skip
    assert native.returncode == 1 and "looks like native" in native.stderr


def test_calibrate_on_demo_labels_says_they_measure_the_wiring(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(ragmon("demo", "--count", "40", "--with-labels").stdout)
    out = ragmon("calibrate", "--labels", str(labels), "--judge", "heuristic")
    assert out.returncode == 0, out.stderr
    # 3 of the 40 have nothing to judge (empty retrievals): left out, said
    assert "37 of 37 labelled rows are `ragmon demo` traces" in out.stdout
    assert "left out: 3 labelled rows the daemon never judges" in out.stdout
    assert "checks the wiring, not the judge" in out.stdout


def test_a_fifo_output_is_opened_once(tmp_path: Path) -> None:
    """`--output-jsonl FIFO` with a reader on it: every line reaches the reader and the
    command ends (a FIFO opened twice gave the reader its end of file at the first close,
    and the second open then waited for a reader forever)."""
    import os
    import threading

    native = _demo(tmp_path, 20)
    for args in (("replay", str(native), "--output-jsonl"), ("demo", "--count", "20", "-o"),
                 ("convert", str(CORPUS / "langchain-openllmetry.otlp.jsonl"), "--from",
                  "otlp-json", "--output-jsonl")):  # fmt: skip
        fifo = tmp_path / f"{args[0]}.fifo"
        os.mkfifo(fifo)
        got: list[bytes] = []
        reader = threading.Thread(
            target=lambda f=fifo, g=got: g.append(f.read_bytes()), daemon=True
        )
        reader.start()
        out = subprocess.run([*RAGMON, *args, str(fifo)], capture_output=True, env=clean_env(),
                             timeout=60)  # fmt: skip
        reader.join(10)
        assert out.returncode == 0, (args, out.stderr.decode())
        assert got and got[0].count(b"\n") in (10, 20), args
