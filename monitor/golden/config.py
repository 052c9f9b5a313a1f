"""Configuration of the golden loop: candidate rows and the review page (``golden``) and
the daemon's own probes (``probes``).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator

from monitor.core.model import ConfigSection as _Section
from monitor.golden.rows import DEFAULT_REASONS, FOLLOWUP_REASONS, JUDGE_REASONS, SESSION_REASONS


class GoldenConfig(_Section):
    """Candidate golden rows for review (off unless ``dir`` is set)."""

    dir: Path | None = Field(default=None, description="Directory of row segments; None: off.")
    topic: str | None = Field(
        default=None,
        description=(
            "Kafka topic (compacted) for rows keyed by row id and writer; uses the kafka "
            "connection."
        ),
    )
    reasons: list[str] = Field(
        default_factory=lambda: list(DEFAULT_REASONS),
        description="Flagged checks, judge verdicts and what a conversation's next turn said "
        "(user_said_wrong, user_escalated, user_rephrased) and how a conversation ended "
        "(session_abandoned, session_escalated) that make a row, in priority order (the first "
        "names it).",
    )
    set_path: Path | None = Field(
        default=None,
        description="A published golden set (a version file, or the directory `ragmon golden "
        "publish` writes; its newest version is used and a newer one picked up): traces with "
        "a golden_id are scored against it (retrieval metrics and the stage that missed).",
    )
    review_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="Also serve the review page (ragmon review) from the daemon on this port; "
        "needs dir. None: off.",
    )
    review_host: str = Field(
        default="127.0.0.1",
        description="Address of the review page; beyond loopback it needs review_token.",
    )
    review_token: SecretStr | None = Field(
        default=None,
        description="Token reviewers log in with (also accepted as a bearer token); needed "
        "beyond loopback, by the daemon's page and by `ragmon review`. Prefer the environment: "
        "RAGMON_REVIEW_TOKEN (or RAGMON_GOLDEN__REVIEW_TOKEN).",
    )
    review_tls_cert_file: Path | None = Field(
        default=None,
        description="PEM certificate (chain): serve the review page over HTTPS (the session "
        "cookie is then Secure). Needs review_tls_key_file.",
    )
    review_tls_key_file: Path | None = Field(default=None, description="PEM private key.")
    max_rows: int = Field(default=10_000, ge=1, description="Rows kept in memory for dedup.")
    max_examples: int = Field(default=5, ge=1, le=100, description="Trace ids kept per row.")
    segment_max_bytes: int = Field(default=8 << 20, ge=1 << 10)
    segment_max_age_seconds: float = Field(default=3600.0, gt=0)
    pii_patterns: dict[str, str] = Field(
        default_factory=dict,
        description="Extra redaction patterns: name -> regex (placeholder [REDACTED:NAME]).",
    )

    @model_validator(mode="after")
    def _review_page(self) -> GoldenConfig:
        if (self.review_tls_cert_file is None) != (self.review_tls_key_file is None):
            raise ValueError("review_tls_cert_file and review_tls_key_file go together")
        if self.review_port is not None and self.dir is None:
            raise ValueError("review_port needs dir (the rows to review)")
        if self.review_token is not None and not self.review_token.get_secret_value().strip():
            raise ValueError("review_token is empty")
        return self

    @property
    def review_tls(self) -> tuple[Path, Path] | None:
        """The review page's (certificate, key), or None to serve plain HTTP."""
        if self.review_tls_cert_file is None or self.review_tls_key_file is None:
            return None
        return self.review_tls_cert_file, self.review_tls_key_file

    @field_validator("reasons")
    @classmethod
    def _known_reasons(cls, v: list[str]) -> list[str]:
        from monitor.checks import CHECK_NAMES

        known = (*CHECK_NAMES, *JUDGE_REASONS, *FOLLOWUP_REASONS.values(),
                 *SESSION_REASONS.values())  # fmt: skip
        unknown = [n for n in v if n not in known]
        if unknown:
            raise ValueError(f"unknown reason {unknown}; known: {list(known)}")
        return v

    @field_validator("pii_patterns")
    @classmethod
    def _compiles(cls, v: dict[str, str]) -> dict[str, str]:
        for name, pattern in v.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {name!r} does not compile: {exc}") from exc
        return v


class ProbesConfig(_Section):
    """Golden probes sent by the daemon itself (as ``ragmon probe --every``); off while
    ``endpoint`` is None. The questions come from ``golden.set_path``."""

    endpoint: str | None = Field(default=None, description="The application's URL to POST to.")
    request_template: Path | None = Field(
        default=None,
        description='JSON body; string values "{query}" and "{golden_id}" are filled in.',
    )
    every_seconds: float = Field(default=600.0, gt=0, description="A run every period (±10 %).")
    rate_per_second: float = Field(default=1.0, gt=0, description="Requests per second at most.")
    timeout_seconds: float = Field(default=30.0, gt=0)
    header: str = Field(default="X-Ragmon-Golden-Id", description="Header carrying the id.")
