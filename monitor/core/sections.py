"""The configuration sections several parts of ragmon share: the base of every section
(unknown keys refused, values frozen), the Kafka connection the source and the Kafka sinks
use, the daemon's ``metrics`` endpoint and label bounds, and its own ``output``.

Each component's own section lives next to the component; ``monitor.config`` composes them
with these. This module imports nothing of ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator


class ConfigSection(BaseModel):
    """Base of every configuration section: unknown keys are errors, values are frozen. Each
    component's section lives next to the component; ``monitor.config`` composes them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class KafkaConnection(ConfigSection):
    """How to reach the Kafka cluster; shared by the source and the Kafka sinks."""

    bootstrap_servers: list[str] = Field(
        default_factory=lambda: ["127.0.0.1:9092"], min_length=1, description="host:port list."
    )
    client_id: str = "ragmon"
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = Field(default=None, description="Prefer the env var.")
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_password: SecretStr | None = None
    bootstrap_timeout_seconds: float = Field(
        default=30.0, gt=0, le=600, description="Startup fails if the cluster is not reached."
    )
    request_timeout_ms: int = Field(default=30_000, ge=1000)

    @model_validator(mode="after")
    def _sasl_complete(self) -> KafkaConnection:
        sasl = self.security_protocol.startswith("SASL")
        if sasl and self.sasl_mechanism is None:
            raise ValueError(f"security_protocol {self.security_protocol} needs sasl_mechanism")
        if not sasl and self.sasl_mechanism is not None:
            raise ValueError("sasl_mechanism is set but security_protocol is not SASL_*")
        if self.sasl_mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and (
            self.sasl_username is None or self.sasl_password is None
        ):
            raise ValueError(
                f"sasl_mechanism {self.sasl_mechanism} needs sasl_username and sasl_password"
            )
        return self

    def client_kwargs(self) -> dict[str, object]:
        """kafka-python keyword arguments for the connection and security settings (the
        source's consumer and the sinks' producers use the same)."""
        kw: dict[str, Any] = {
            "bootstrap_servers": list(self.bootstrap_servers),
            "client_id": self.client_id,
            "security_protocol": self.security_protocol,
        }
        if self.sasl_mechanism is not None:
            kw["sasl_mechanism"] = self.sasl_mechanism
        if self.sasl_username is not None:
            kw["sasl_plain_username"] = self.sasl_username
        if self.sasl_password is not None:
            kw["sasl_plain_password"] = self.sasl_password.get_secret_value()
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            value = getattr(self, name)
            if value is not None:
                kw[name] = str(value)
        if self.ssl_password is not None:
            kw["ssl_password"] = self.ssl_password.get_secret_value()
        return kw


# The sections several parts read: the daemon's /metrics endpoint and its label bounds (the
# Prometheus sink, the golden probes, the review precision), and the daemon's own outputs
# (the JSONL and Kafka dead-letter sinks, the pipeline's flushes, the redaction of lines).


class MetricsConfig(ConfigSection):
    """``metrics``: the /metrics endpoint and the bounds on its labels."""

    host: str = Field(default="0.0.0.0", description="Address of /metrics, /healthz, /readyz.")
    port: int = Field(default=9464, ge=0, le=65535, description="0 picks a free port.")
    routes: list[str] = Field(
        default_factory=list,
        description="Route label allow-list. Empty: the first max_label_values routes seen.",
    )
    apps: list[str] = Field(
        default_factory=list,
        description="App label allow-list. Empty: the first max_label_values apps seen.",
    )
    max_label_values: int = Field(
        default=50, ge=1, le=1000, description="Bound on distinct app/route label values."
    )


class OutputConfig(ConfigSection):
    """``output``: evaluation and dead-letter files and topic."""

    evaluations_jsonl: Path | None = Field(
        default=None, description="Append one evaluation line per trace to this file."
    )
    dead_letters_jsonl: Path | None = Field(
        default=None, description="Append dead letters (reason, source position, raw bytes) here."
    )
    dead_letters_topic: str | None = Field(
        default=None,
        description="Kafka topic for dead letters: the raw bytes as value, reason and source "
        "position in headers (uses the top-level kafka connection).",
    )
    sink_flush_attempts: int = Field(
        default=3, ge=1, le=20, description="Flush tries before the daemon stops uncommitted."
    )
    redact_pii: bool = Field(
        default=True,
        description="Redact PII (the golden-row detectors and golden.pii_patterns) in the "
        "evidence and judge claims of evaluation lines written to files and stdout.",
    )


def revealed(secret: SecretStr | None) -> str | None:
    """A secret's value for the part that uses it (None when unset)."""
    return secret.get_secret_value() if secret is not None else None
