"""The review page's guards, through Starlette's test client: the login gate and its cookie,
bearer tokens, CSRF tokens, security headers, the refusal to bind beyond loopback without
a token, and a decision posted on a stale state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from monitor.core.errors import ConfigError
from monitor.golden import review
from monitor.golden import serve as review_serve
from monitor.golden import web as review_web
from sinks.segments import SegmentWriter

ROW = {
    "id": "r1",
    "user_input": "How long is the refund window?",
    "response": "I cannot find that. Refunds take 45 days [7].",
    "reference": None,
    "retrieved_contexts": ["Refunds take 30 days."],
    "retrieved_context_ids": ["policy-1"],
    "ragmon": {
        "reason": "refusal", "reasons": ["refusal"], "category": "unanswerable", "route": "billing",
        "release": "r1", "count": 1, "first_seen": "t", "last_seen": "t", "trace_id": "t1",
        "examples": ["t1"],
        "checks": {
            "refusal": {"flagged": True, "evidence": {"phrase": "I cannot find"}},
            "unsupported_numbers": {"flagged": True, "evidence": {"numbers": ["45"]}},
            "citation": {"flagged": True, "evidence": {"invalid": ["7"]}},
        },
    },
}  # fmt: skip


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    writer = SegmentWriter(tmp_path, "golden")
    writer.start()
    writer.put(ROW)
    writer.flush()
    writer.close()
    return tmp_path


def csrf(client: TestClient) -> str:
    body = client.get("/row/r1").text
    return body.split('name="csrf" value="')[1].split('"')[0]


def form(client: TestClient, **extra: str) -> dict[str, Any]:
    return {
        "csrf": csrf(client),
        "action": "accept",
        "reviewer": "ana",
        "reference": "30 days.",
        **extra,
    }


def test_open_on_loopback_with_security_headers(golden: Path) -> None:
    client = TestClient(review_web.build_app(golden))
    resp = client.get("/")
    assert resp.status_code == 200 and "How long is the refund window?" in resp.text
    csp = resp.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
    assert (
        resp.headers["x-frame-options"] == "DENY"
        and resp.headers["x-content-type-options"] == "nosniff"
    )


def test_evidence_is_marked_in_the_answer(golden: Path) -> None:
    body = TestClient(review_web.build_app(golden)).get("/row/r1").text
    assert '<mark class="refusal" title="refusal">I cannot find</mark>' in body
    assert '<mark class="number" title="number">45</mark>' in body
    assert '<mark class="citation" title="citation">7</mark>' in body


def test_a_post_without_the_csrf_token_is_refused(golden: Path) -> None:
    client = TestClient(review_web.build_app(golden))
    resp = client.post(
        "/row/r1/decide", data={**form(client), "csrf": "forged"}, follow_redirects=False
    )
    assert resp.status_code == 403
    assert not review.ReviewLog(golden).path.exists()
    ok = client.post("/row/r1/decide", data=form(client), follow_redirects=False)
    assert ok.status_code == 303 and review.ReviewLog(golden).latest()["r1"].reviewer == "ana"


def test_a_stale_decision_is_a_conflict_not_an_overwrite(golden: Path) -> None:
    client = TestClient(review_web.build_app(golden))
    stale = form(client)  # the page as it was before anyone decided
    review.decide(review.ReviewLog(golden), ROW, "reject", "bo", reason="duplicate")
    posted = client.post("/row/r1/decide", data=stale, follow_redirects=False)
    assert posted.status_code == 303  # redirect after POST: a reload does not post again
    resp = client.get(posted.headers["location"])
    assert resp.status_code == 200 and "bo rejected this row" in resp.text
    assert " UTC, after the version you were looking at" in resp.text  # a time for people
    assert "after=" not in resp.text and "--after" not in resp.text  # no CLI syntax
    assert review.ReviewLog(golden).latest()["r1"].reviewer == "bo"


def test_after_a_decision_the_next_row_is_the_one_after_not_the_top(tmp_path: Path) -> None:
    """In a queue of three, deciding the middle row goes on to the third, not to the first
    (which the reviewer had passed over)."""
    writer = SegmentWriter(tmp_path, "golden")
    writer.start()
    for i in (1, 2, 3):
        writer.put({**ROW, "id": f"r{i}", "ragmon": {**ROW["ragmon"], "count": 10 - i}})
    writer.flush()
    writer.close()
    client = TestClient(review_web.build_app(tmp_path))
    resp = client.post("/row/r2/decide", data=form(client), follow_redirects=False)
    assert resp.status_code == 303 and resp.headers["location"] == "/row/r3"
    last = client.post("/row/r3/decide", data=form(client), follow_redirects=False)
    assert last.headers["location"] == "/row/r1"  # past the end: the first still open


def test_the_icon_is_served_and_evidence_reads_as_text(golden: Path) -> None:
    client = TestClient(review_web.build_app(golden, token="s3cret"))
    icon = client.get("/favicon.ico")  # no login needed, no 404 in the console
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")
    body = TestClient(review_web.build_app(golden)).get("/row/r1").text
    evidence = body.split('id="evidence"')[1].split("</section>")[0]
    assert "figures not in the context: 45" in evidence and "{" not in evidence
    assert "<dt>numbers</dt><dd>45</dd>" in evidence


def test_a_refused_decision_redirects_to_the_page_with_the_reason_and_the_draft(
    golden: Path,
) -> None:
    """A refused accept answers 303 to the row's page (reloading it shows the page; it
    re-posted the form before), which says why and keeps the reference typed; the notice
    is signed: a hand-made one shows nothing, nor one for another row."""
    client = TestClient(review_web.build_app(golden))
    posted = client.post("/row/r1/decide", data=form(client, **{"grade:nope": "2",
                         "reference": "Within 30 days."}), follow_redirects=False)  # fmt: skip
    assert posted.status_code == 303
    page = client.get(posted.headers["location"])
    assert page.status_code == 200 and "not among the row" in page.text
    assert ">Within 30 days.</textarea>" in page.text
    notice = posted.headers["location"].split("notice=")[1]
    forged = client.get("/row/r1?notice=" + notice.replace("%2E", ".")[:-4] + "abcd")
    assert "not among the row" not in forged.text and 'role="alert">' not in forged.text
    import base64
    import json

    made = base64.urlsafe_b64encode(json.dumps({"row": "r1", "error": "pwned"}).encode())
    assert "pwned" not in client.get(f"/row/r1?notice={made.decode()}.00").text


def test_with_a_token_the_page_needs_a_login_or_a_bearer(golden: Path) -> None:
    client = TestClient(review_web.build_app(golden, token="s3cret"))
    assert client.get("/", follow_redirects=False).headers["location"] == "/login"
    assert client.get("/metrics").status_code == 401
    assert client.post("/row/r1/decide", data={"csrf": "x"}).status_code == 401
    assert client.get("/", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert (
        client.get(
            "/", headers={"Authorization": "Bearer wrong"}, follow_redirects=False
        ).status_code
        == 303
    )
    csrf = login_csrf(client)
    assert client.post("/login", data={"token": "wrong", "csrf": csrf}).status_code == 401
    # a login without the form's CSRF token (a forged login form elsewhere) is refused
    assert client.post("/login", data={"token": "s3cret"}).status_code == 403
    resp = client.post("/login", data={"token": "s3cret", "csrf": csrf}, follow_redirects=False)
    cookie = resp.headers["set-cookie"]
    assert resp.status_code == 303 and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "s3cret" not in cookie and "Secure" not in cookie  # plain HTTP here
    assert client.get("/").status_code == 200  # the cookie is enough from now on
    assert (
        client.post("/row/r1/decide", data=form(client), follow_redirects=False).status_code == 303
    )


def login_csrf(client: TestClient) -> str:
    page = client.get("/login").text
    return page.split('name="csrf" value="')[1].split('"')[0]


def test_bearer_scheme_is_case_insensitive(golden: Path) -> None:
    """RFC 9110 section 11.1: "bearer", "BEARER" and "Bearer" are the same scheme."""
    client = TestClient(review_web.build_app(golden, token="s3cret"))
    for scheme in ("bearer", "BEARER", "Bearer"):
        resp = client.get("/metrics", headers={"Authorization": f"{scheme} s3cret"})
        assert resp.status_code == 200, scheme


def test_over_tls_the_session_cookie_is_secure(golden: Path) -> None:
    client = TestClient(review_web.build_app(golden, token="s3cret", secure=True))
    resp = client.post("/login", data={"token": "s3cret", "csrf": login_csrf(client)},
                       follow_redirects=False)  # fmt: skip
    assert "Secure" in resp.headers["set-cookie"]


def test_binding_beyond_loopback_needs_a_token() -> None:
    with pytest.raises(ConfigError, match="RAGMON_REVIEW_TOKEN"):
        review_serve.check_bind("0.0.0.0", None)
    review_serve.check_bind("0.0.0.0", "t")
    review_serve.check_bind("127.0.0.1", None)
    review_serve.check_bind("::1", None)


def test_a_trace_id_leads_to_the_row_it_went_into(tmp_path: Path) -> None:
    """/trace/<id> (where a Grafana exemplar links): the first trace, an example or the
    newest occurrence of a row redirect to it; anything else is a 404; the gate applies."""
    first, newest = "a" * 32, "b" * 32
    meta = {**ROW["ragmon"], "examples": [first], "recent_trace_ids": [first, newest]}
    row = {**ROW, "source_trace_id": first, "ragmon": meta}
    writer = SegmentWriter(tmp_path, "golden")
    writer.start()
    writer.put(row)
    writer.flush()
    writer.close()
    client = TestClient(review_web.build_app(tmp_path))
    for trace_id in (first, newest, newest.upper()):
        got = client.get(f"/trace/{trace_id}", follow_redirects=False)
        assert got.status_code == 303 and got.headers["location"] == "/row/r1"
    assert client.get(f"/trace/{'c' * 32}").status_code == 404
    assert client.get("/trace/not-a-trace-id").status_code == 404
    gated = TestClient(review_web.build_app(tmp_path, token="s3cret"))
    assert gated.get(f"/trace/{first}", follow_redirects=False).status_code in (302, 303, 401)
    assert gated.get(f"/trace/{first}", follow_redirects=False).headers.get("location") != "/row/r1"
