"""The evaluation store's pages in a real browser (Playwright driving Debian's chromium):
a flagged trace opened from a Grafana exemplar of the daemon's /metrics with its evidence
marked; a planted conversation's session page with its signals and outcome; the search
with counts; trace text shown as text; the security headers; no script errors."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.test_review_page import CHROMIUM, FLAGS, XSS, flagged_exemplars
from tests.integration.conftest import RAGMON, clean_env, free_port, ragmon

CTX = [{"doc_id": "fees", "text": "The refund fee is 15 euros. Refunds take 5 days."}]
A, B, C = "a" * 32, "b" * 32, "c" * 32


def _wait(url: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError(f"the page did not start: {proc.communicate()[1]}") from None
            time.sleep(0.1)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("chromium not found: `make test` installs Debian's chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``ragmon review --store`` over a store ``ragmon replay --store`` made from a planted
    conversation (a flagged answer, then "talk to a human") and a hostile trace."""
    tmp = tmp_path_factory.mktemp("store")
    rows = [
        {"trace_id": A, "timestamp": "2026-12-01T10:00:00Z", "route": "billing",
         "session_id": "conv-1", "query": "How much is the refund fee?", "context": CTX,
         "answer": "The refund fee is 25 euros."},
        {"trace_id": B, "timestamp": "2026-12-01T10:00:30Z", "route": "billing",
         "session_id": "conv-1", "query": "That's wrong. Let me talk to a human agent please.",
         "context": CTX, "answer": "I can't help with that."},
        {"trace_id": C, "timestamp": "2026-12-01T11:00:00Z", "route": "billing",
         "query": XSS["query"], "answer": XSS["answer"],
         "context": [{"doc_id": "evil-doc", "text": XSS["passage"]}]},
    ]  # fmt: skip
    src = tmp / "traces.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = tmp / "store.db"
    assert ragmon("replay", str(src), "--store", str(store)).returncode == 0
    (tmp / "golden").mkdir()
    port = free_port()
    proc = subprocess.Popen(
        [*RAGMON, "review", "--dir", str(tmp / "golden"), "--store", str(store), "--port",
         str(port)], env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    _wait(url, proc)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _watch(page: object) -> list[str]:
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)  # type: ignore[attr-defined]
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: failed.append(str(e)))  # type: ignore[attr-defined]
    page.on("dialog", lambda d: (failed.append(f"dialog {d.message}"), d.dismiss()))  # type: ignore[attr-defined]
    return failed


def test_a_session_page_shows_the_turns_their_signals_and_the_outcome(
    site: str, browser: object
) -> None:
    """Then the keyboard opens the first turn, whose page marks the unsupported figure in
    the answer and the context's own figures, and says what the next turn said."""
    page = browser.new_page()  # type: ignore[attr-defined]
    failed = _watch(page)
    response = page.goto(f"{site}/session/conv-1")
    assert response is not None and response.ok
    rows = page.locator("#queue tbody tr")
    assert rows.count() == 2
    assert A in rows.nth(0).inner_html() and B in rows.nth(1).inner_html()  # in order
    assert "escalation" in rows.nth(0).locator(".signals").inner_text()
    assert "escalated" in page.locator("#outcome-1").inner_text()
    page.keyboard.press("Enter")  # the first turn is selected
    page.wait_for_url(f"**/trace/{A}")
    assert page.locator("#answer mark.number").inner_text() == "25 euros"
    assert page.locator("#passages mark.figure").all_inner_texts() == ["15", "5"]
    assert "unsupported_numbers" in page.locator("#flagged").inner_text()
    assert "escalation" in page.locator("#followup").inner_text()
    page.wait_for_timeout(300)
    page.close()
    assert failed == [], failed


def test_the_search_counts_and_lists_the_matching_traces(site: str, browser: object) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    failed = _watch(page)
    page.goto(f"{site}/search")
    assert page.locator("#total").inner_text() == "3"
    page.select_option("select[name=check]", "refusal")
    page.click("form.filters button")
    page.wait_for_url("**check=refusal**")
    assert page.locator("#total").inner_text() == "2"  # B and the hostile trace refuse
    assert "refusal 2" in page.locator("#by-check").inner_text()
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_url("**/trace/**")
    page.wait_for_timeout(300)
    page.close()
    assert failed == [], failed


def test_trace_text_renders_as_text_under_the_security_headers(site: str, browser: object) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    failed = _watch(page)
    response = page.goto(f"{site}/trace/{C}")
    assert response is not None and response.ok
    headers = response.headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    main = page.locator("main")
    assert main.locator("script, img, iframe, b").count() == 0
    assert main.locator("a[href^='javascript']").count() == 0
    assert XSS["query"] in page.locator("#query").inner_text()
    assert XSS["passage"] in page.locator("#passages").inner_text()
    page.wait_for_timeout(300)
    page.close()
    assert failed == [], failed


def test_a_flagged_exemplar_opens_its_trace_with_the_evidence(
    tmp_path: Path, browser: object
) -> None:
    """The daemon on demo traffic with store.path and its review page: every exemplar of a
    flagged check count on /metrics (what Grafana links from) opens its trace's page from
    the store, that check flagged in its evidence; a flagged figure is marked."""

    port, page_port = free_port(), free_port()
    env = clean_env(RAGMON_METRICS__HOST="127.0.0.1", RAGMON_METRICS__PORT=str(port),
                    RAGMON_GOLDEN__DIR=str(tmp_path / "golden"),
                    RAGMON_GOLDEN__REVIEW_PORT=str(page_port),
                    RAGMON_STORE__PATH=str(tmp_path / "store.db"),
                    RAGMON_SOURCE__DEMO__RATE_PER_SECOND="400")  # fmt: skip
    proc = subprocess.Popen([*RAGMON, "run"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        exemplars = flagged_exemplars(port, enough=3)
        assert exemplars, "no exemplar on the flagged check counts"
        time.sleep(1.5)  # the next commit: every exemplar's trace is stored
        page = browser.new_page()  # type: ignore[attr-defined]
        failed = _watch(page)
        marked = 0
        for trace_id, check in sorted(exemplars.items()):
            response = page.goto(f"http://127.0.0.1:{page_port}/trace/{trace_id}")
            assert response is not None and response.ok, trace_id
            assert trace_id in page.locator("h1").inner_text()  # its own page, not a row
            flagged = page.locator("#evidence dt.flagged").all_inner_texts()
            assert any(x.startswith(check) for x in flagged), (check, flagged)
            marked += page.locator("#answer mark, #passages mark").count() > 0
        page.close()
        assert marked > 0
        assert failed == [], failed
        print(f"\n{len(exemplars)} exemplars opened their trace, {marked} with marks")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
