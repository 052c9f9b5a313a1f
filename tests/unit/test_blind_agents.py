"""The agent readers on spans of frameworks the readers were not written against (the blind
agent corpora, issue 73: ``tests/otel_corpus/blind/open``, LlamaIndex's ``FunctionAgent``,
AutoGen AgentChat's ``AssistantAgent``, Agno's ``Agent`` and Haystack's ``Agent`` under their
OpenInference instrumentations; ``blind2/open``, LangGraph's prebuilt ReAct agent, CrewAI,
PydanticAI, smolagents, Strands and Semantic Kernel on other apps). The sealed parts are
never read here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.otel_corpus import FORMATS, HERE, converted, differences, truth

OPEN = HERE / "blind" / "open"
READ = ("llamaindex-agent-openinference", "autogen-agentchat-openinference",
        "agno-openinference", "haystack-agent-openinference")  # fmt: skip
OPEN2 = HERE / "blind2" / "open"
READ2 = ("langgraph-react-openinference", "crewai-openinference", "pydantic-ai-genai",
         "smolagents-openinference", "strands-genai")  # fmt: skip


def test_llamaindex_tool_output_is_read_through_to_its_content() -> None:
    """LlamaIndex's TOOL span records the whole ``ToolOutput`` (llama-index-core: blocks,
    tool_name, raw_input, raw_output, is_error); the model is given its ``content``, the text
    blocks joined by lines."""
    from monitor.ingest.conventions.openinference import _tool_result

    blocks = [{"text": "1. a (doc_id: x)"}, {"block_type": "image", "url": "u"},
              {"block_type": "text", "text": "2. b (doc_id: y)"}]  # fmt: skip
    output = {"blocks": blocks, "tool_name": "search", "raw_output": "…", "is_error": False}
    assert _tool_result(json.dumps(output)) == "1. a (doc_id: x)\n2. b (doc_id: y)"
    assert _tool_result('{"blocks": [], "note": "no tool_name"}') == (
        '{"blocks": [], "note": "no tool_name"}')  # fmt: skip


def test_autogen_function_results_are_tool_messages_of_their_own() -> None:
    """AutoGen's instrumentation writes a ``FunctionExecutionResultMessage`` as a message of
    role ``function`` whose results are ``llm.input_messages.{i}.function.{j}`` JSON objects:
    each is one tool message, with its call id."""
    from monitor.ingest.conventions.openinference import _input_messages

    def one(content: str, call: str) -> str:
        return json.dumps({"name": "search", "content": content, "call_id": call})

    attrs = {
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "q",
        "llm.input_messages.1.message.role": "function",
        "llm.input_messages.1.function.1": one("[b]", "c2"),
        "llm.input_messages.1.function.0": one("[a]", "c1"),
    }
    assert _input_messages(attrs) == [
        {"role": "user", "content": "q"},
        {"role": "function", "content": "[a]", "tool_call_id": "c1", "name": "search",
         "is_error": False},
        {"role": "function", "content": "[b]", "tool_call_id": "c2", "name": "search",
         "is_error": False},
    ]  # fmt: skip


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize(
    ("part", "stack"), [(OPEN, s) for s in READ] + [(OPEN2, s) for s in READ2],
    ids=[f"blind-{s}" for s in READ] + [f"blind2-{s}" for s in READ2],
)  # fmt: skip
def test_the_open_blind_traces_are_read_exactly(part: Path, stack: str, fmt: str) -> None:
    """Both blind corpora's open parts (the sealed ones are scored by bench/otel_blind.py)."""
    got = converted(stack, fmt, part)
    wrong = {
        e["case"]: p for t, e in truth(stack, part).items() if (p := differences(e, got.get(t)))
    }
    assert not wrong


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_semantic_kernel_without_content_is_counted_missing(fmt: str) -> None:
    """Semantic Kernel's default diagnostics put no message, argument or result on a span:
    every trace is counted ``content_missing``, none evaluated on a guess."""
    from monitor.ingest import conversion
    from monitor.sources import framing

    stack = "semantic-kernel-genai"
    data = (OPEN2 / f"{stack}{FORMATS[fmt]}").read_bytes()
    result = conversion.convert(list(framing.read_messages(data, fmt)), fmt.replace("-", "_"))
    assert not result.traces
    assert result.count("content_missing") == len(truth(stack, OPEN2))


def test_a_tool_that_raised_gives_the_model_its_error_text_as_a_passage() -> None:
    """LlamaIndex's ``FunctionAgent``: a tool that raises leaves its TOOL span in Error with
    no output, and the agent hands the model the exception's text as the tool message. The
    policy (docs, "A tool that fails"): what the model was given, read as any result (free
    text: one passage of unknown id), the call counted as a tool error; not retrieved."""
    from monitor.core.model import AGENT_INPUTS
    from monitor.ingest.conventions import map_spans
    from monitor.ingest.otlp import Span

    def span(sid: str, parent: str, start: int, kind: str, **attrs: object) -> Span:
        return Span("a" * 32, sid * 16, parent * 16 if parent else "", sid, start, start + 1,
                    {"openinference.span.kind": kind, **attrs}, error=kind == "TOOL")  # fmt: skip

    user = {"llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "is the store open"}  # fmt: skip
    called = "llm.output_messages.0.message.tool_calls.0.tool_call."
    asked = {f"{called}id": "c1", f"{called}function.name": "search"}
    error = "search backend unavailable: connection refused"
    spans = [
        span("1", "", 0, "CHAIN", **{"input.value": "AgentWorkflowStartEvent()"}),
        span("2", "1", 1, "LLM", **user, **asked, **{"llm.model_name": "m"}),
        span("3", "1", 3, "TOOL", **{"tool.name": "search", "input.value": '{"query": "open"}'}),
        span("4", "1", 5, "LLM", **user, **{
            "llm.model_name": "m",
            "llm.input_messages.1.message.role": "assistant",
            "llm.input_messages.1.message.tool_calls.0.tool_call.id": "c1",
            "llm.input_messages.2.message.role": "tool",
            "llm.input_messages.2.message.tool_call_id": "c1",
            "llm.input_messages.2.message.content": error,
            "llm.output_messages.0.message.content": "I could not look that up."}),
    ]  # fmt: skip
    trace = map_spans(spans).trace
    assert trace is not None
    assert trace.query == "is the store open"
    assert [(p.doc_id, p.text) for p in trace.context] == [(None, error)]
    assert trace.retrieved == []
    assert trace.attributes[AGENT_INPUTS["tool_errors"]] == 1


def test_malformed_function_results_are_skipped_without_a_crash() -> None:
    """A function result that is not a JSON object with text content is no tool message."""
    from monitor.ingest.conventions.openinference import _input_messages

    attrs: dict[str, object] = {
        "llm.input_messages.0.message.role": "function",
        "llm.input_messages.0.function.0": "not json",
        "llm.input_messages.0.function.1": '["a list"]',
        "llm.input_messages.0.function.2": '{"content": 3, "call_id": 4}',
        "llm.input_messages.0.function.x": '{"content": "no index"}',
        "llm.input_messages.0.function.3": '{"content": "kept", "call_id": 5}',
    }
    assert _input_messages(attrs) == [{"role": "function", "content": "kept", "tool_call_id": 5,
                                       "name": None, "is_error": False}]  # fmt: skip


def _haystack(messages: list[str]) -> list[object]:
    """Haystack's Agent run as its instrumentation records it: two CHAIN spans, the
    messages only as ``ChatMessage`` reprs in the agent's JSON output."""
    from monitor.ingest.otlp import Span

    def span(sid: str, parent: str, start: int, name: str, output: str) -> Span:
        return Span("b" * 32, sid * 16, parent * 16 if parent else "", name, start, start + 10,
                    {"openinference.span.kind": "CHAIN", "output.value": output})  # fmt: skip

    agent = json.dumps({"messages": messages, "step_count": 2})
    return [span("1", "", 0, "Pipeline.run", json.dumps({"agent": json.loads(agent)})),
            span("2", "1", 1, "Agent.run", agent)]  # fmt: skip


def _chat(role: str, *parts: str, model: str = "") -> str:
    meta = f"{{'model': '{model}'}}" if model else "{}"
    return (f"ChatMessage(_role=<ChatRole.{role.upper()}: '{role}'>, _content=[{', '.join(parts)}],"
            f" _name=None, _meta={meta})")  # fmt: skip


def _call(call: str, query: str) -> str:
    return f"ToolCall(tool_name='search', arguments={{'query': {query!r}}}, id={call!r})"


def test_haystack_agent_messages_read_from_their_reprs() -> None:
    """The answer is the last assistant text, the question the user message before it, the
    context every tool result of the request (the earlier turn's first, each once), the
    retrieved documents this turn's; a failed call (``error=True``) is a tool error, its
    text what the model was given; the work is counted from the messages (no span says it)."""
    from monitor.core.model import AGENT_INPUTS
    from monitor.ingest.conventions import map_spans

    def result(call: str, query: str, text: str, error: bool = False) -> str:
        return f"ToolCallResult(result={text!r}, origin={_call(call, query)}, error={error})"

    error = "Failed to invoke Tool `search` with parameters {'query': 'fees'}. Error: timeout"
    messages = [
        _chat("system", 'TextContent(text="Answer from search\'s results.")'),
        _chat("user", "TextContent(text='can gift cards be refunded')"),
        _chat("assistant", _call("c1", "gift cards")),
        _chat("tool", result("c1", "gift cards", '[{"doc_id": "gc", "content": "No refunds."}]')),
        _chat("assistant", "TextContent(text='No [1].')"),
        _chat("user", 'TextContent(text="and what\'s the fee")'),
        _chat("assistant", _call("c2", "fees"), _call("c3", "fees"), model="m-1"),
        _chat("tool", result("c2", "fees", error, error=True)),
        _chat("tool", result("c3", "fees", "1. A $25 fee applies. (doc_id: fees)")),
        _chat("assistant", "TextContent(text='A $25 fee [2].')", model="m-2"),
    ]
    trace = map_spans(_haystack(messages)).trace  # type: ignore[arg-type]
    assert trace is not None
    assert trace.query == "and what's the fee"
    assert (trace.answer, trace.model) == ("A $25 fee [2].", "m-2")
    assert [(p.doc_id, p.text) for p in trace.context] == [
        ("gc", "No refunds."),
        (None, error),
        ("fees", "A $25 fee applies."),
    ]
    assert [d.doc_id for d in trace.retrieved] == ["fees"]
    work = {k: trace.attributes[v] for k, v in AGENT_INPUTS.items()}
    assert work == {"model_calls": 2, "tool_calls": 2, "retrieval_calls": 2, "agent_steps": 1,
                    "tool_errors": 1, "repeated_calls": 1, "longest_repeat": 2}  # fmt: skip


@pytest.mark.parametrize("broken", [
    "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text='cut",
    "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text=x == y)])",
])  # fmt: skip
def test_a_haystack_repr_that_is_not_read_leaves_the_trace_unread(broken: str) -> None:
    """One message the reader cannot read: no trace (never a guess at the rest), no crash."""
    from monitor.ingest.conventions import map_spans

    messages = [broken, _chat("assistant", _call("c1", "q")),
                _chat("tool", f"ToolCallResult(result='x', origin={_call('c1', 'q')})"),
                _chat("assistant", "TextContent(text='a')")]  # fmt: skip
    assert map_spans(_haystack(messages)).convention == "unrecognised"  # type: ignore[arg-type]
    messages[0] = _chat("user", "TextContent(text='q')")
    assert map_spans(_haystack(messages)).trace is not None  # type: ignore[arg-type]


def test_autogen_marks_a_failed_calls_result_and_it_counts_as_a_tool_error() -> None:
    """AutoGen's instrumentation leaves a raising tool's span without an error status; the
    function result it hands the model says ``is_error``: that call failed."""
    from monitor.core.model import AGENT_INPUTS
    from monitor.ingest.conventions import map_spans
    from monitor.ingest.otlp import Span

    def span(sid: str, start: int, kind: str, **attrs: object) -> Span:
        return Span("c" * 32, sid * 16, "1" * 16 if sid != "1" else "", sid, start, start + 1,
                    {"openinference.span.kind": kind, **attrs})  # fmt: skip

    user = {"llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "price match?"}  # fmt: skip
    called = "llm.output_messages.0.message.tool_calls.0.tool_call."
    failed = json.dumps({"name": "search", "content": "index down", "call_id": "c1",
                         "is_error": True})  # fmt: skip
    spans = [
        span("1", 0, "AGENT"),
        span("2", 1, "LLM", **user, **{"llm.model_name": "m", f"{called}id": "c1",
                                       f"{called}function.name": "search"}),
        span("3", 3, "TOOL", **{"tool.name": "search", "output.value": "index down"}),
        span("4", 5, "LLM", **user, **{
            "llm.model_name": "m", "llm.input_messages.1.message.role": "function",
            "llm.input_messages.1.function.0": failed,
            "llm.output_messages.0.message.content": "I could not search."}),
    ]  # fmt: skip
    trace = map_spans(spans).trace
    assert trace is not None
    assert trace.attributes[AGENT_INPUTS["tool_errors"]] == 1
    assert trace.attributes["ragmon.agent.tools"]["search"]["errors"] == 1


def test_crewai_task_messages_on_its_agent_span_are_the_conversation() -> None:
    """CrewAI (openinference-instrumentation-crewai 1.1, crewai 1.15): no LLM span; the task's
    AGENT span records its ``TaskOutput``, whose ``messages`` are what the model was sent;
    TOOL spans beside it. The question is the kickoff's input (not the task's template), the
    answer the crew's output (its ``raw``), each result once by its call id; the steps and
    model calls come from the messages, the tool calls and their loops from the TOOL spans."""
    from monitor.core.model import AGENT_INPUTS
    from monitor.ingest.conventions import map_spans
    from monitor.ingest.otlp import Span

    def span(sid: str, parent: str, start: int, kind: str, **attrs: object) -> Span:
        return Span("d" * 32, sid * 16, parent * 16 if parent else "", sid, start, start + 5,
                    {"openinference.span.kind": kind, **attrs})  # fmt: skip

    def called(*ids: str) -> dict[str, object]:
        return {"role": "assistant", "content": "", "tool_calls": [
            {"id": i, "type": "function",
             "function": {"name": "search_help", "arguments": '{"query": "fee"}'}}
            for i in ids]}  # fmt: skip

    result = '{"hits": [{"url": "https://h/fees", "snippet": "A $25 fee applies."}]}'
    messages = [
        {"role": "system", "content": "You are Help desk."},
        {"role": "user", "content": "\nCurrent Task: what is the fee\n\nThis is the expected"
                                    " criteria for your final answer: An answer."},
        called("c1", "c2"),
        {"role": "tool", "content": result, "tool_call_id": "c1", "name": "search_help"},
        {"role": "tool", "content": result, "tool_call_id": "c2", "name": "search_help"},
        # (a model without native tool calls answers in CrewAI's ReAct text; the crew's
        # output, ``raw``, is the answer)
        {"role": "assistant", "content": "Thought: I know.\nFinal Answer: A $25 fee [1]."},
    ]  # fmt: skip
    task = {"description": "what is the fee", "raw": "A $25 fee [1].", "messages": messages}
    tool = {"tool.name": "search_help", "input.value": '{"query": "fee"}', "output.value": result}
    spans = [
        span("1", "", 0, "CHAIN", **{"input.value": '{"question": "what is the fee"}',
                                     "output.value": json.dumps({"raw": "A $25 fee [1].",
                                                                 "tasks_output": [task]})}),
        span("2", "1", 1, "AGENT", **{"output.value": json.dumps(task)}),
        span("3", "2", 2, "TOOL", **tool), span("4", "2", 3, "TOOL", **tool),
    ]  # fmt: skip
    trace = map_spans(spans).trace
    assert trace is not None
    assert (trace.query, trace.answer) == ("what is the fee", "A $25 fee [1].")
    assert [(p.doc_id, p.text) for p in trace.context] == [("https://h/fees", "A $25 fee applies.")]
    assert [d.doc_id for d in trace.retrieved] == ["https://h/fees"]
    work = {k: trace.attributes[v] for k, v in AGENT_INPUTS.items()}
    assert work == {"model_calls": 2, "tool_calls": 2, "retrieval_calls": 2, "agent_steps": 1,
                    "tool_errors": 0, "repeated_calls": 1, "longest_repeat": 2}  # fmt: skip


@pytest.mark.parametrize("state", [
    {"messages": [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "a"},
                  {"role": "user", "content": "and the fee"}]},  # CrewAI's Agent.kickoff
    {"messages": [["user", "and the fee"]], "remaining_steps": 10},  # LangGraph's input
    {"messages": [{"type": "human", "data": {"content": "and the fee"}}]},  # serialized
])  # fmt: skip
def test_the_question_is_what_the_user_typed_not_the_frameworks_template(
    state: dict[str, object],
) -> None:
    """An agent run on a message list: the question is the last message the user typed, as
    the root's input records it, not the model's copy wrapped in the framework's template
    (CrewAI's "Current Task: …"); with no such message, the model's last user message."""
    from monitor.ingest.conventions.openinference import _question
    from monitor.ingest.otlp import Span

    templated: list[dict[str, object]] = [
        {"role": "user", "content": "\nCurrent Task: and the fee"}
    ]
    root = Span("e" * 32, "1" * 16, "", "agent", 0, 1, {"input.value": json.dumps(state)})
    assert _question(root, templated) == "and the fee"
    empty = Span("e" * 32, "1" * 16, "", "agent", 0, 1, {"input.value": '{"messages": []}'})
    assert _question(empty, templated) == "\nCurrent Task: and the fee"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12)
    | st.sampled_from(["user", "assistant", "tool", "ChatMessage(", "search_help", "c1"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "name", "function",
                         "arguments", "id", "type", "messages", "text"]), inner, max_size=5),
    max_leaves=25,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(messages=st.lists(_json, max_size=6))
def test_any_recorded_messages_map_or_are_declined_never_raise(messages: list[object]) -> None:
    """An agent span's recorded ``messages`` of any shape: a trace or an outcome, no error."""
    from monitor.ingest.conventions import map_spans
    from monitor.ingest.otlp import Span

    output = json.dumps({"messages": messages})
    spans = [Span("f" * 32, "1" * 16, "", "agent", 0, 9,
                  {"openinference.span.kind": "AGENT", "output.value": output})]  # fmt: skip
    map_spans(spans)


def test_smolagents_failed_call_is_its_error_observation_of_this_turn() -> None:
    """smolagents hands a failed call back as a ``tool-response`` message ("Error:\\n…") that
    no TOOL span recorded (the tool's span failed, no output), while its ``final_answer``
    TOOL span has one: the error text is this turn's result (it was read as history when
    the search for known results inside the message clobbered the message's index)."""
    from monitor.core.model import AGENT_INPUTS
    from monitor.ingest.conventions import map_spans
    from monitor.ingest.otlp import Span

    def span(sid: str, parent: str, start: int, kind: str, attrs: dict[str, object],
             error: bool = False) -> Span:  # fmt: skip
        return Span("9" * 32, sid * 16, parent * 16 if parent else "", sid, start, start + 1,
                    {"openinference.span.kind": kind, **attrs}, error=error)  # fmt: skip

    def said(i: int, role: str, text: str) -> dict[str, object]:
        head = f"llm.input_messages.{i}.message."
        return {f"{head}role": role, f"{head}contents.0.message_content.text": text}

    error = "Error executing tool 'search_help': RuntimeError: index down"
    answer = "I could not search the help centre."
    asked = {**said(0, "system", "You are an expert assistant."), "llm.model_name": "m",
             **said(1, "user", "New task:\nis my order eligible")}  # fmt: skip
    spans = [
        span("1", "", 0, "AGENT", {"input.value": '{"task": "is my order eligible"}',
                                   "output.value": answer}),
        span("2", "1", 1, "LLM", asked),
        span("3", "1", 3, "TOOL", {"tool.name": "search_help"}, error=True),
        span("4", "1", 5, "LLM", {**asked, **said(2, "tool-response", "Error:\n" + error)}),
        span("5", "1", 7, "TOOL", {"tool.name": "final_answer", "output.value": answer}),
    ]  # fmt: skip
    trace = map_spans(spans).trace
    assert trace is not None
    assert trace.query == "is my order eligible"
    assert [(p.doc_id, p.text) for p in trace.context] == [(None, error)]
    assert trace.attributes[AGENT_INPUTS["tool_errors"]] == 1
