"""The OTLP/HTTP receiver on a loopback port: what it accepts, what it refuses and how it
pushes back when the pipeline is behind."""

from __future__ import annotations

import gzip
import http.client
import json
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from google.rpc.status_pb2 import Status
from pydantic import ValidationError

from monitor.core.errors import SourceError
from monitor.sources.otlp_http import OtlpHttpSource
from monitor.sources.otlp_http_config import OtlpHttpSourceConfig


@pytest.fixture
def source() -> Iterator[OtlpHttpSource]:
    codes: list[int] = []
    src = OtlpHttpSource("127.0.0.1", 0, max_body_bytes=1000, max_queue=2, on_request=codes.append)
    src.start()
    src.codes = codes  # type: ignore[attr-defined]
    yield src
    src.close()


def post(
    src: OtlpHttpSource,
    body: bytes,
    ctype: str = "application/x-protobuf",
    path: str = "/v1/traces",
    **headers: str,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", src.port, timeout=5)
    conn.request("POST", path, body=body, headers={"Content-Type": ctype, **headers})
    resp = conn.getresponse()
    out = resp.status, dict(resp.getheaders()), resp.read()
    conn.close()
    return out


def test_accepts_protobuf_and_gzip_json_and_queues_them_in_order(source: OtlpHttpSource) -> None:
    status, headers, body = post(source, b"\x0a\x00")
    assert (status, body, headers["Content-Type"]) == (200, b"", "application/x-protobuf")
    status, _, body = post(source, gzip.compress(b"{}"), "application/json; charset=utf-8",
                           **{"Content-Encoding": "gzip"})  # fmt: skip
    assert (status, body) == (200, b"{}")
    records = source.poll(10, 0.5)
    assert [r.value for r in records] == [b"\x0a\x00", b"{}"]
    assert [r.headers for r in records] == [
        (("content-type", b"application/x-protobuf"),),
        (("content-type", b"application/json"),),
    ]
    assert [r.position.offset for r in records] == [0, 1]


def test_full_queue_answers_503_with_retry_after(source: OtlpHttpSource) -> None:
    assert post(source, b"")[0] == 200
    assert post(source, b"")[0] == 200
    status, headers, _ = post(source, b"")
    assert status == 503 and headers["Retry-After"] == "1"
    assert len(source.poll(10, 0.5)) == 2
    assert post(source, b"")[0] == 200  # room again once the pipeline took them


def test_refusals(source: OtlpHttpSource) -> None:
    assert post(source, b"x" * 1001)[0] == 413
    assert post(source, b"{}", "text/plain")[0] == 415
    assert post(source, b"{}", **{"Content-Encoding": "br"})[0] == 415
    assert post(source, b"not gzip", **{"Content-Encoding": "gzip"})[0] == 400
    bomb = gzip.compress(b"\0" * 100_000)  # under the body limit, far over it unpacked
    assert len(bomb) < 1000 and post(source, bomb, **{"Content-Encoding": "gzip"})[0] == 413
    assert post(source, b"", path="/v1/logs")[0] == 404
    assert source.poll(10, 0.1) == []
    assert source.codes == [413, 415, 415, 400, 413, 404]  # type: ignore[attr-defined]


def test_an_error_answers_a_status_in_the_requests_content_type(source: OtlpHttpSource) -> None:
    """OTLP/HTTP: a 4xx/5xx body is a google.rpc.Status, protobuf-encoded for a protobuf
    request (what a stock exporter parses), JSON for a JSON one."""
    status, headers, body = post(source, b"x" * 1001)
    assert (status, headers["Content-Type"]) == (413, "application/x-protobuf")
    parsed = Status.FromString(body)
    assert (parsed.code, parsed.message) == (413, "body over 1000 bytes")
    status, headers, body = post(source, b"x" * 1001, "application/json")
    assert (status, headers["Content-Type"]) == (413, "application/json")
    assert json.loads(body) == {"code": 413, "message": "body over 1000 bytes"}
    status, headers, body = post(source, b"{}", "text/plain")
    assert (status, headers["Content-Type"]) == (415, "application/json")


def test_a_port_in_use_is_a_source_error_naming_the_address(source: OtlpHttpSource) -> None:
    """The second receiver on a taken port fails to start with one readable line."""
    second = OtlpHttpSource("127.0.0.1", source.port)
    with pytest.raises(
        SourceError, match=rf"cannot listen for OTLP/HTTP on 127.0.0.1:{source.port}"
    ):
        second.start()


def test_loopback_is_the_default_address() -> None:
    assert OtlpHttpSource().host == "127.0.0.1"
    assert OtlpHttpSourceConfig().host == "127.0.0.1"


@pytest.fixture
def guarded() -> Iterator[OtlpHttpSource]:
    codes: list[int] = []
    src = OtlpHttpSource("127.0.0.1", 0, on_request=codes.append, bearer_token="s3cret-token")
    src.start()
    src.codes = codes  # type: ignore[attr-defined]
    yield src
    src.close()


def test_bearer_token_is_required_and_refusals_are_counted(guarded: OtlpHttpSource) -> None:
    status, headers, _ = post(guarded, b"\x0a\x00")
    assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
    assert post(guarded, b"\x0a\x00", Authorization="Bearer wrong")[0] == 401
    assert post(guarded, b"\x0a\x00", Authorization="s3cret-token")[0] == 401  # no scheme
    assert post(guarded, b"\x0a\x00", Authorization="Bearer s3cret-token")[0] == 200
    assert guarded.codes == [401, 401, 401, 200]  # type: ignore[attr-defined]
    assert [r.value for r in guarded.poll(10, 0.5)] == [b"\x0a\x00"]  # only the authorised one


def test_an_empty_token_or_half_a_tls_pair_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="bearer_token is empty"):
        OtlpHttpSourceConfig(bearer_token=" ")
    with pytest.raises(ValidationError, match="go together"):
        OtlpHttpSourceConfig(tls_cert_file=tmp_path / "cert.pem")


def test_tls_serves_https_to_a_client_that_trusts_the_certificate(tmp_path: Path) -> None:
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
    cert.private_key_pem.write_to_path(str(key_file))
    src = OtlpHttpSource("127.0.0.1", 0, tls=(cert_file, key_file))
    src.start()
    try:
        client = ssl.create_default_context()
        ca.configure_trust(client)
        conn = http.client.HTTPSConnection("127.0.0.1", src.port, timeout=5, context=client)
        conn.request("POST", "/v1/traces", body=b"\x0a\x00",
                     headers={"Content-Type": "application/x-protobuf"})  # fmt: skip
        assert conn.getresponse().status == 200
        conn.close()
        plain = http.client.HTTPConnection("127.0.0.1", src.port, timeout=5)
        with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
            plain.request(
                "POST", "/v1/traces", body=b"", headers={"Content-Type": "application/json"}
            )
            plain.getresponse()
    finally:
        src.close()


def test_an_unreadable_certificate_is_a_source_error(tmp_path: Path) -> None:
    src = OtlpHttpSource("127.0.0.1", 0, tls=(tmp_path / "none.pem", tmp_path / "none.key"))
    with pytest.raises(SourceError, match="cannot load the OTLP/HTTP TLS certificate"):
        src.start()


def test_bearer_scheme_is_case_insensitive() -> None:
    """RFC 9110 section 11.1: "bearer tok" is the same credential as "Bearer tok"."""
    src = OtlpHttpSource("127.0.0.1", 0, bearer_token="tok")
    src.start()
    try:
        for header in ("Bearer tok", "bearer tok", "BEARER  tok"):
            assert post(src, b"", Authorization=header)[0] == 200, header
        assert post(src, b"", Authorization="bearer wrong")[0] == 401
        assert post(src, b"", Authorization="Basic tok")[0] == 401
    finally:
        src.close()


def test_after_stop_intake_requests_get_503_and_the_queue_is_kept(source: OtlpHttpSource) -> None:
    """A graceful stop: what was accepted stays for the pipeline; new requests are told to
    retry (elsewhere) and their connection is closed."""
    assert post(source, b"\x0a\x00")[0] == 200
    source.stop_intake()
    status, headers, _ = post(source, b"\x0a\x01")
    assert status == 503 and headers["Retry-After"] == "1" and headers["Connection"] == "close"
    assert [r.value for r in source.poll(10, 0.1)] == [b"\x0a\x00"]
    assert source.poll(10, 0.0) == [] and not source.replays_unfinished


def test_slow_clients_cannot_pile_up_threads() -> None:
    """Thirty clients that each send half a request line: at most ``max_connections`` are
    served at once (each new one closes the one waiting longest for its headers), every one
    is closed or answered 503, and a real exporter is served after."""
    import socket
    import threading
    import time

    src = OtlpHttpSource("127.0.0.1", 0, max_connections=5, read_timeout=0.5)
    src.start()
    before = threading.active_count()
    slow = []
    try:
        for _ in range(30):
            s = socket.create_connection(("127.0.0.1", src.port), timeout=5)
            s.sendall(b"POST /v1/tra")
            slow.append(s)
            assert threading.active_count() - before <= 5
        time.sleep(0.2)
        assert threading.active_count() - before <= 5
        for s in slow:
            s.settimeout(3)
            data = s.recv(200)  # closed (made room, or the read timeout) or 503
            assert data == b"" or data.startswith(b"HTTP/1.1 503"), data
        deadline = time.monotonic() + 5
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() == before
        assert post(src, b"\x0a\x00")[0] == 200
    finally:
        for s in slow:
            s.close()
        src.close()


def trickle(port: int, stop: object, chunk: bytes = b"P", every: float = 0.3) -> None:
    """A client that sends one byte of its headers per ``every`` seconds (well inside the
    read timeout) until the server closes it or ``stop`` is set."""
    import socket
    import threading
    import time

    assert isinstance(stop, threading.Event)
    line = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 10_000
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            for byte in line:
                if stop.is_set():
                    return
                s.sendall(bytes([byte]))
                time.sleep(every)
    except OSError:
        return  # closed by the server: what should happen


def test_trickling_clients_in_every_slot_do_not_lock_out_an_exporter() -> None:
    """Every slot held by a client sending one header byte per 0.3 s (the read timeout never
    fires, the bearer token is not read yet): a well-formed, authenticated export still gets
    its 200 at once, since the longest-waiting trickler is closed to make room; and a
    trickler is closed at the header deadline even with no one waiting for its slot."""
    import threading
    import time

    src = OtlpHttpSource(
        "127.0.0.1", 0, read_timeout=5.0, header_timeout=1.5, bearer_token="t"
    )  # fmt: skip  (the default 64 slots)
    src.start()
    stop = threading.Event()
    clients = [threading.Thread(target=trickle, args=(src.port, stop)) for _ in range(64)]
    try:
        for c in clients:
            c.start()
        time.sleep(0.8)  # every slot taken
        t0 = time.monotonic()
        status, _, _ = post(src, b"\x0a\x00", Authorization="Bearer t")
        assert status == 200 and time.monotonic() - t0 < 1.0
        for c in clients:  # the header deadline closes the rest: each thread ends
            c.join(timeout=4.0)
        assert not any(c.is_alive() for c in clients)
    finally:
        stop.set()
        src.close()


def test_a_connection_without_room_reads_its_503_not_a_reset() -> None:
    """Every slot busy past its headers (slow bodies, within their rate): a new client is
    answered 503 with Retry-After after its request was read, so it reads the answer
    instead of a reset or a broken pipe."""
    import socket

    src = OtlpHttpSource("127.0.0.1", 0, max_connections=2, read_timeout=5.0,
                         min_body_rate=1)  # fmt: skip
    src.start()
    busy = []
    try:
        for _ in range(2):  # headers complete, the body still to come
            s = socket.create_connection(("127.0.0.1", src.port), timeout=5)
            s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      b"application/x-protobuf\r\nContent-Length: 100\r\n\r\n")  # fmt: skip
            busy.append(s)
        import time

        time.sleep(0.3)
        for _ in range(10):
            status, headers, _ = post(src, b"\x0a\x00" * 2000)
            assert status == 503 and headers["Retry-After"] == "1"
    finally:
        for s in busy:
            s.close()
        src.close()
