"""The OTLP/HTTP receiver's section (``source.otlp_http``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, model_validator

from monitor.core.exposure import is_loopback
from monitor.sources.section import RecordFormat, SourceSection


class OtlpHttpSourceConfig(SourceSection):
    """An OTLP/HTTP receiver (POST /v1/traces, protobuf or JSON, optionally gzip), for
    small deployments that point their OTel SDK straight at ragmon. Accepted spans live in
    memory until evaluated: use Kafka where a crash must not lose any."""

    kind = "otlp_http"

    host: str = Field(
        default="127.0.0.1",
        description="Listen address. Loopback by default: anyone who can reach the port can "
        "inject traces that move the alerting rates; set 0.0.0.0 (as the deploy files do) "
        "only with bearer_token or a network policy in front.",
    )
    port: int = Field(default=4318, ge=0, le=65535, description="0 picks a free port.")
    max_body_bytes: int = Field(
        default=16 << 20, ge=1 << 10, description="Larger requests get 413."
    )
    max_queue: int = Field(
        default=1000, ge=1, description="Requests waiting for the pipeline; beyond it 503."
    )
    bearer_token: SecretStr | None = Field(
        default=None,
        description="When set, every request needs 'Authorization: Bearer <token>' (else "
        "401). Set it from the environment: RAGMON_SOURCE__OTLP_HTTP__BEARER_TOKEN.",
    )
    tls_cert_file: Path | None = Field(
        default=None, description="PEM certificate (chain): serve HTTPS. Needs tls_key_file."
    )
    tls_key_file: Path | None = Field(default=None, description="PEM private key.")
    allow_unauthenticated: bool = Field(
        default=False,
        description="Listen beyond loopback without bearer_token (a network policy or a proxy "
        "in front authenticates). Off: such a bind is refused at start-up.",
    )
    max_connections: int = Field(
        default=64, ge=1, le=10_000,
        description="Connections served at once; one more gets 503 and is closed.",
    )  # fmt: skip
    read_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600,
        description="Every read of a request (line, headers, body) and the wait for the next "
        "request on a keep-alive connection; past it the connection is closed.",
    )  # fmt: skip
    header_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600,
        description="The request line and headers, from their first byte: a client that "
        "trickles them slower is closed (the bearer token is read only after them).",
    )  # fmt: skip
    min_body_bytes_per_second: int = Field(
        default=65_536, ge=1,
        description="The body must arrive at this rate at least (after header_timeout_seconds "
        "of grace): a slower client is closed.",
    )  # fmt: skip

    @model_validator(mode="after")
    def _tls_pair(self) -> OtlpHttpSourceConfig:
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if self.bearer_token is not None and not self.bearer_token.get_secret_value().strip():
            raise ValueError("bearer_token is empty")
        return self

    def record_format(self) -> RecordFormat:
        """OTLP messages (each request's Content-Type decides protobuf or JSON)."""
        return "otlp_proto"

    def check_chosen(self) -> None:
        """A bind beyond loopback needs a token, or ``allow_unauthenticated``."""
        exposed = self.bearer_token is None and not is_loopback(self.host)
        if exposed and not self.allow_unauthenticated:
            raise ValueError(
                f"source.otlp_http.host is {self.host}, beyond this machine, without "
                "bearer_token: anyone who reaches the port can inject traces; set "
                "RAGMON_SOURCE__OTLP_HTTP__BEARER_TOKEN, bind to 127.0.0.1, or set "
                "source.otlp_http.allow_unauthenticated when something in front authenticates"
            )
