"""Configuration of the checks (``checks``): which run, and each check's options, in a
section named as the check and of the options type the check declares (``options``): the
sections are derived from ``CHECK_TYPES``, so a setting cannot miss its check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, create_model, field_validator

from monitor.checks import CHECK_NAMES, CHECK_TYPES, CheckType
from monitor.core.model import ConfigSection as _Section


class _Checks(_Section):
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

    def runs(self, name: str) -> bool:
        """Whether the check ``name`` runs (``enabled`` unset: every check)."""
        return self.enabled is None or name in self.enabled

    def options_of(self, check: CheckType) -> _Section | None:
        """The options ``check`` declares, as configured (None: it has none)."""
        return None if check.options is None else getattr(self, check.name)

    @field_validator("enabled")
    @classmethod
    def _known(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            unknown = [n for n in v if n not in CHECK_NAMES]
            if unknown:
                raise ValueError(f"unknown check {unknown}; known: {list(CHECK_NAMES)}")
        return v


def _sections() -> dict[str, Any]:
    return {
        c.name: (c.options, Field(default_factory=c.options, description=c.options.__doc__))
        for c in CHECK_TYPES
        if c.options is not None
    }


if TYPE_CHECKING:
    ChecksConfig = _Checks
else:
    ChecksConfig = create_model(
        "ChecksConfig", __base__=_Checks, __doc__=_Checks.__doc__, **_sections()
    )
