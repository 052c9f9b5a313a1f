"""The review page in a real browser: Playwright driving Debian's chromium against
`ragmon review` serving candidate rows made by `ragmon replay` from demo traffic and from a
trace whose text is an XSS attempt."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.sources import demo
from tests import export_libs
from tests.integration.conftest import RAGMON, clean_env, free_port, ragmon

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# no background traffic: this machine's network is closed, and the test needs none
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
XSS = {
    "query": "<script>alert('q')</script> refund window?",
    "answer": "There is no information about that. <img src=x onerror=alert('a')> "
    "[click](javascript:alert('l')) <script>alert('s')</script>",
    "passage": "<iframe src=javascript:alert('p')></iframe> Refunds take <b>30 days</b>.",
}


def xss_trace() -> dict[str, object]:
    trace = demo.generate(0)
    trace.update(trace_id="5" * 32, query=XSS["query"], answer=XSS["answer"], route="billing")
    trace["context"] = [{"doc_id": "evil-doc", "text": XSS["passage"]}]
    return trace


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium not found: `make test` installs Debian's chromium")
    tmp = tmp_path_factory.mktemp("review")
    src = tmp / "traces.jsonl"
    traces = [demo.generate(i) for i in range(300)] + [xss_trace()]
    src.write_text("".join(json.dumps(t) + "\n" for t in traces))
    golden = tmp / "golden"
    assert ragmon("replay", str(src), "--golden-dir", str(golden)).returncode == 0
    port = free_port()
    proc = subprocess.Popen(
        [*RAGMON, "review", "--dir", str(golden), "--port", str(port)],
        env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError(
                    f"review page did not start: {proc.communicate()[1]}"
                ) from None
            time.sleep(0.1)
    try:
        yield url, golden
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def metric(url: str, check: str, bound: str) -> float | None:
    body = urllib.request.urlopen(f"{url}/metrics", timeout=5).read().decode()
    want = f'ragmon_check_review_precision{{bound="{bound}",check="{check}",route="billing"}} '
    for line in body.splitlines():
        if line.startswith(want):
            return float(line.split()[-1])
    return None


def test_filter_accept_reject_publish_and_precision(
    site: tuple[str, Path], browser: object
) -> None:
    """Filter the queue to refusals, open the first row with the keyboard, accept it with an
    edited reference and a gold document, reject the next as "check was wrong"; the
    precision on /metrics moves to 1 of 2, and the published golden set holds the row."""
    url, golden = site
    page = browser.new_page()  # type: ignore[attr-defined]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    shots = os.environ.get("RAGMON_SCREENSHOTS")
    page.goto(url)
    page.select_option("select[name=reason]", "refusal")
    page.click("form.filters button")
    page.wait_for_url("**reason=refusal**")  # the filtered queue, its script loaded
    reasons = page.locator("#queue tbody tr td:nth-child(2)").all_inner_texts()
    assert reasons and set(reasons) == {"refusal"}
    if shots:
        page.screenshot(path=f"{shots}/review-queue.png", full_page=True)
    page.keyboard.press("j")
    page.keyboard.press("k")
    page.keyboard.press("Enter")
    page.wait_for_url("**/row/**")
    first_id = page.url.split("/row/")[1].split("?")[0]
    assert page.locator("mark.refusal").count() >= 1  # the refusal cue marked in place
    doc = page.locator("#passages select").first.get_attribute("data-doc")
    page.locator("#passages select").first.select_option("3")
    page.fill("#reviewer", "ana")
    page.keyboard.press("Escape")
    page.keyboard.press("e")
    page.keyboard.type("Refunds are possible within 30 days.")
    page.keyboard.press("Escape")
    page.select_option("#category", "answerable")
    if shots:
        page.screenshot(path=f"{shots}/review-row.png", full_page=True)
    page.keyboard.press("a")
    page.wait_for_url(lambda u: first_id not in u)
    assert "/row/" in page.url  # straight on to the next row of the queue
    assert metric(url, "refusal", "estimate") == 1.0
    second = page.url
    page.keyboard.press("x")  # reject: the check was wrong
    page.wait_for_url(lambda u: u != second)
    assert metric(url, "refusal", "estimate") == 0.5
    assert not dialogs
    pub = ragmon("golden", "publish", "--dir", str(golden))
    assert pub.returncode == 0, pub.stderr
    (item,) = [
        json.loads(x)
        for x in next((golden / "set").glob("golden-v*.jsonl")).read_text().splitlines()
    ]
    assert item["id"] == first_id and item["reference"] == "Refunds are possible within 30 days."
    assert item["gold_docs"] == [{"id": doc, "grade": 3}] and item["category"] == "answerable"
    assert item["reviewer"] == "ana"
    # the published set as Ragas and DeepEval load it
    files = []
    for fmt, name in (("ragas", "set.jsonl"), ("deepeval", "set.json")):
        files.append((fmt, golden / name))
        out = ragmon("golden", "export", "--set", str(golden / "set"), "--format", fmt,
                     "--output", str(golden / name))  # fmt: skip
        assert out.returncode == 0, out.stderr
    ragas, deepeval = export_libs.load(*files)
    (sample,) = ragas["samples"]
    assert sample["reference"] == item["reference"] and sample["reference_context_ids"] == [doc]
    (g,) = deepeval["samples"]
    assert g["expected_output"] == item["reference"]
    assert g["context"] == [item["gold_passages"][0]["text"]]


def test_trace_text_renders_as_text(site: tuple[str, Path], browser: object) -> None:
    """Script tags, onerror images, javascript: links and iframes from a trace show as the
    characters they are: no element is created from them and no dialog opens."""
    url, _ = site
    page = browser.new_page()  # type: ignore[attr-defined]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{url}/?state=any")
    page.get_by_text("refund window?").first.click()
    page.wait_for_url("**/row/**")
    main = page.locator("main")
    assert main.locator("script, img, iframe, b").count() == 0
    assert main.locator("a[href^='javascript']").count() == 0
    assert XSS["query"] in page.locator("#query").inner_text()
    answer = page.locator("#answer").inner_text()
    assert "<img src=x onerror=alert('a')>" in answer and "<script>alert('s')</script>" in answer
    assert XSS["passage"] in page.locator("#passages").inner_text()
    page.wait_for_timeout(300)
    assert not dialogs


@pytest.mark.parametrize("width", [1400, 900])
def test_the_page_fits_its_width_and_says_what_reject_records(
    site: tuple[str, Path], browser: object, width: int
) -> None:
    """At 1400 and 900 px: no filter label is wrapped away from its dropdown, the evidence
    stays inside the page, times read as minutes in UTC, and the reject button names the
    reason it will record (changed with the reason, not fixed at "check was wrong")."""
    url, _ = site
    page = browser.new_page(viewport={"width": width, "height": 900})  # type: ignore[attr-defined]
    failed: list[str] = []  # nothing the pages load may fail (a missing /favicon.ico did)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    page.goto(f"{url}/?state=any")
    for label in page.locator("form.filters label").all():
        box, select = label.bounding_box(), label.locator("select, input").first.bounding_box()
        assert box is not None and select is not None
        assert select["y"] < box["y"] + 20, label.inner_text()  # on the label's first line
    page.locator("#queue tbody tr a").first.click()
    page.wait_for_url("**/row/**")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{overflow}px wider than the window"
    meta = page.locator("section.meta p").inner_text()
    assert "UTC" in meta and not re.search(r"\dT\d|:\d\d\.\d", meta)  # no raw ISO times
    assert "check was wrong" in page.locator("#reject").inner_text()
    page.select_option("#reason", "duplicate")
    assert "duplicate" in page.locator("#reject").inner_text()
    assert not page.locator("#evidence pre").count()  # the evidence reads as text, not JSON
    shots = os.environ.get("RAGMON_SCREENSHOTS")
    if shots:
        page.screenshot(path=f"{shots}/review-row-{width}.png", full_page=True)
    page.wait_for_timeout(300)  # the icon request comes after the load
    page.close()
    assert failed == [], failed


def flagged_exemplars(port: int, enough: int, seconds: float = 60.0) -> dict[str, str]:
    """Trace id -> check of the exemplars on the daemon's flagged check counts (its /metrics
    as OpenMetrics, asked every 1.5 s, past a commit: what an exemplar names is flushed),
    once ``enough`` are there or ``seconds`` have passed."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    exemplars: dict[str, str] = {}
    deadline = time.monotonic() + seconds
    while len(exemplars) < enough and time.monotonic() < deadline:
        time.sleep(1.5)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/metrics",
            headers={"Accept": "application/openmetrics-text; version=1.0.0"},
        )
        try:
            body = urllib.request.urlopen(request, timeout=5).read().decode()
        except OSError:
            continue
        for family in text_string_to_metric_families(body):
            for s in family.samples:
                flagged = s.labels.get("result") == "flagged"
                if family.name == "ragmon_check_results" and flagged and s.exemplar:
                    exemplars[s.exemplar.labels["trace_id"]] = s.labels["check"]
    return exemplars


def test_a_flagged_counts_exemplar_opens_its_candidate_row(tmp_path: Path, browser: object) -> None:
    """The daemon on demo traffic with golden rows and its own review page: the exemplar of
    a flagged check count on /metrics (OpenMetrics, what Prometheus stores and Grafana links
    from) names a trace id, and /trace/<id> in the browser opens that trace's row."""

    port, page_port = free_port(), free_port()
    env = clean_env(RAGMON_METRICS__HOST="127.0.0.1", RAGMON_METRICS__PORT=str(port),
                    RAGMON_GOLDEN__DIR=str(tmp_path / "golden"),
                    RAGMON_GOLDEN__REVIEW_PORT=str(page_port),
                    RAGMON_SOURCE__DEMO__RATE_PER_SECOND="400")  # fmt: skip
    proc = subprocess.Popen([*RAGMON, "run"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        exemplars = set(flagged_exemplars(port, enough=1))
        assert exemplars, "no exemplar on the flagged check counts"
        page = browser.new_page()  # type: ignore[attr-defined]
        opened = []
        for trace_id in sorted(exemplars):
            response = page.goto(f"http://127.0.0.1:{page_port}/trace/{trace_id}")
            if response is not None and response.ok and "/row/" in page.url:
                opened.append(trace_id)
                assert page.locator("h1, h2").first.is_visible()
        page.close()
        # each exemplar is the newest flagged trace of its label set; the rows keep each
        # row's newest trace, so a later trace of the same row may have taken its place
        assert opened, f"none of {len(exemplars)} exemplars led to a row"
        print(f"\n{len(opened)} of {len(exemplars)} exemplars opened their row")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_row_page_guides_a_reviewer(site: tuple[str, Path], browser: object) -> None:
    """On a context-conflict row: the suggested trap category is chosen in the form (it
    showed "-"), the two passages' conflicting statements stand side by side (they were a
    raw dump of figures), `x` with no reviewer name says so and stays (it did nothing
    visible), and a refused accept lands on a page whose reload posts nothing again."""
    url, _ = site
    page = browser.new_page()  # type: ignore[attr-defined]
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(f"{url}/?state=any&reason=context_conflict")
    page.locator("#queue tbody tr a").first.click()
    page.wait_for_url("**/row/**")
    suggested = page.locator(".meta p").inner_text().split("suggested category ")[1].strip()
    options = page.locator("#category option").all_inner_texts()
    if suggested in options:
        assert page.locator("#category").input_value() == suggested
    cells = page.locator("#evidence table.conflicts td")
    assert cells.count() >= 2
    first, second = cells.nth(0).inner_text(), cells.nth(1).inner_text()
    assert first.strip() and second.strip() and first != second
    assert "first_states" not in page.locator("#evidence").inner_text()
    here = page.url
    page.keyboard.press("x")
    page.wait_for_timeout(300)
    assert page.url == here and page.locator("#need-reviewer").is_visible() and not posts
    page.fill("#reviewer", "ana")
    page.fill("#reference", "")
    page.select_option("#expected", "")
    page.click("#accept")
    page.wait_for_load_state()
    assert "needs a reference answer" in page.locator("p.error").first.inner_text()
    assert len(posts) == 1 and "notice=" in page.url
    page.reload()
    page.wait_for_load_state()
    assert len(posts) == 1  # the reload is a GET
    assert "needs a reference answer" in page.locator("p.error").first.inner_text()
