"""An agent's health per tool, from the spans of every trace (model-free): each tool's calls
by outcome, the seconds spent in them, and its repeated calls (the same tool with the same
arguments again within one trace: an agent's loop). The tool label is bounded: the first
``MAX_TOOLS`` tool names, later ones ``other``. The loops' lengths per trace are the input
histograms ``ragmon_input_repeated_calls`` and ``ragmon_input_longest_repeat``.
"""

from __future__ import annotations

from collections.abc import Mapping

from prometheus_client import CollectorRegistry, Counter

from monitor.core.labels import LabelLimiter

MAX_TOOLS = 32  # tool names kept as label values; later ones are "other"


class AgentMetrics:
    """``ragmon_agent_tool_*``: per tool name, added a flush at a time by the Prometheus
    sink."""

    def _define_agents(self, registry: CollectorRegistry) -> None:
        self.tool_labels = LabelLimiter(max_values=MAX_TOOLS)
        self.agent_tool_calls = Counter(
            "ragmon_agent_tool_calls",
            "An agent's tool calls (tool spans; not a framework's answer tool), per tool name "
            "(bounded) and outcome (ok, error).",
            ["tool", "outcome"], registry=registry,
        )  # fmt: skip
        self.agent_tool_seconds = Counter(
            "ragmon_agent_tool_seconds",
            "Seconds spent in an agent's tool calls (their spans' durations), per tool name: "
            "divided by ragmon_agent_tool_calls_total, the mean latency.",
            ["tool"], registry=registry,
        )  # fmt: skip
        self.agent_tool_repeats = Counter(
            "ragmon_agent_tool_repeats",
            "Tool calls with the tool and arguments of an earlier call in the same trace (an "
            "agent's loop), per tool name.",
            ["tool"], registry=registry,
        )  # fmt: skip

    def add_tools(self, counts: Mapping[str, list[float]]) -> None:
        """Add per tool name [calls, errors, seconds, repeats] (the sink's pending counts)."""
        for name, (calls, errors, seconds, repeats) in counts.items():
            tool = self.tool_labels(name)
            if calls - errors:
                self.agent_tool_calls.labels(tool, "ok").inc(calls - errors)
            if errors:
                self.agent_tool_calls.labels(tool, "error").inc(errors)
            self.agent_tool_seconds.labels(tool).inc(seconds)
            if repeats:
                self.agent_tool_repeats.labels(tool).inc(repeats)
