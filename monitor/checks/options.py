"""The options a check declares (``options``), each a config section ``checks.<name>``
(the settings mount the sections from the checks' rows in ``monitor.components``).

In a module apart from the checks' logic, as the evidence types are (``evidence``): a
compiled build (mypyc) compiles the checks and keeps these pydantic models interpreted.
"""

from __future__ import annotations

from pydantic import Field

from monitor.core.model import ConfigSection


class ContextConflictOptions(ConfigSection):
    """``checks.context_conflict``: when two passages count as near-duplicates."""

    similarity: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="Jaccard similarity (of word trigrams, or of content words where higher) "
        "at which two passages are duplicates.",
    )


class GroundingOverlapOptions(ConfigSection):
    """``checks.grounding_overlap``: the shortest answer it scores."""

    min_words: int = Field(
        default=3, ge=1, description="Answers with fewer content words are not applicable."
    )
