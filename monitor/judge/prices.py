"""What a judge call costs: USD per million tokens, by kind of token."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prices:
    """USD per million tokens."""

    input: float = 0.10
    output: float = 0.50
    cache_read: float = 0.01
    cache_write: float = 0.125

    def cost(self, inp: int, out: int, cache_read: int, cache_write: int) -> float:
        """USD for one call with these token counts."""
        return (
            inp * self.input + out * self.output
            + cache_read * self.cache_read + cache_write * self.cache_write
        ) / 1e6  # fmt: skip
