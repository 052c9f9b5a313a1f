"""The OTLP/HTTP receiver on a loopback port: what it accepts, what it refuses and how it
pushes back when the pipeline is behind."""

from __future__ import annotations

import gzip
import http.client
from collections.abc import Iterator

import pytest

from monitor.otlp_http import OtlpHttpSource


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
    assert len(bomb) < 1000 and post(source, bomb, **{"Content-Encoding": "gzip"})[0] == 400
    assert post(source, b"", path="/v1/logs")[0] == 404
    assert source.poll(10, 0.1) == []
    assert source.codes == [413, 415, 415, 400, 400, 404]  # type: ignore[attr-defined]
