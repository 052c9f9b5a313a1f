"""What every source's configuration section is (``source.<kind>``): a ``SourceSection`` says
which source it configures (``kind``), what its records are (``record_format``), whether they
are read again after a restart (``rereads``) and which rules hold when it is the chosen source
(``check_chosen``). Each source's section is in a module of its own beside the source (its
module stays free of pydantic, or of its client library, until the source is built); the
component table (``monitor.components``) mounts it under ``source``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from monitor.core.model import ConfigSection as _Section

RecordFormat = Literal["native", "otlp_proto", "otlp_json"]


class SourceSection(_Section):
    """What every source's section has: how many records the pipeline takes per poll and
    how often it commits what is finished (the same settings for every source)."""

    kind: ClassVar[str]  # the source's name: its source.type and its section's key
    rereads: ClassVar[bool] = False  # a record is read again, with its time, after a restart

    max_poll_records: int = Field(
        default=500, ge=1, le=100_000, description="Records the pipeline takes per poll."
    )
    commit_interval_seconds: float = Field(
        default=1.0, gt=0, le=300, description="How often finished offsets are committed."
    )

    def record_format(self) -> RecordFormat:
        """How this source's records are encoded (which decoder reads them)."""
        return "native"

    def check_chosen(self) -> None:
        """Rules that hold only when this is the chosen source; ``ValueError`` names the
        setting to change."""
