"""Configuration of the checks (``checks``): which run, and each check's options in a
section named as the check (its fields are the check's constructor arguments).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from monitor.model import ConfigSection as _Section


class ContextConflictConfig(_Section):
    """``checks.context_conflict``: when two passages count as near-duplicates."""

    similarity: float = Field(
        default=0.5, gt=0, le=1, description="Trigram Jaccard at which two passages are duplicates."
    )


class GroundingOverlapConfig(_Section):
    """``checks.grounding_overlap``: the shortest answer it scores."""

    min_words: int = Field(
        default=3, ge=1, description="Answers with fewer content words are not applicable."
    )


class ChecksConfig(_Section):
    """``checks``: which checks run, and each check's options."""

    enabled: list[str] | None = Field(
        default=None, description="Check names to run (None: all checks)."
    )
    memo_bytes: int = Field(
        default=0,
        ge=0,
        description="Cap, in bytes, of the per-passage analysis kept across traces (0: off, "
        "the default: measured on skewed retrieval it cost more than it saved).",
    )
    context_conflict: ContextConflictConfig = ContextConflictConfig()
    grounding_overlap: GroundingOverlapConfig = GroundingOverlapConfig()

    @field_validator("enabled")
    @classmethod
    def _known(cls, v: list[str] | None) -> list[str] | None:
        from monitor.checks import CHECK_NAMES

        if v is not None:
            unknown = [n for n in v if n not in CHECK_NAMES]
            if unknown:
                raise ValueError(f"unknown check {unknown}; known: {list(CHECK_NAMES)}")
        return v
