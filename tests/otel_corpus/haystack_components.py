"""Haystack components of the corpus pipeline. A module of their own: Haystack reads a
component's ``run`` annotations as types (so no ``from __future__ import annotations``
here), and the OpenInference instrumentation wraps them by their module path."""

from typing import Any

from haystack import Document, component


@component
class Packer:
    """What the app packs from the retrieved documents, by ``choose(doc ids) -> doc ids``."""

    def __init__(self, choose: Any) -> None:
        self.choose = choose

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        keep = self.choose([d.meta["doc_id"] for d in documents])
        by_id = {d.meta["doc_id"]: d for d in documents}
        return {"documents": [by_id[i] for i in keep]}


@component
class FakeGenerator:
    """Answers with the answer of the first known question the prompt contains."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    @component.output_types(replies=list[str])
    def run(self, prompt: str) -> dict[str, Any]:
        reply = next((a for q, a in self.answers.items() if q in prompt), "I don't know.")
        return {"replies": [reply]}


VOCABULARY = ("refund", "days", "shipping", "express", "fee", "electronics", "gift", "card",
              "warranty", "return", "standard", "cash")  # fmt: skip


def embed(text: str) -> list[float]:
    """A deterministic bag-of-stems embedding over a small vocabulary (unit length)."""
    words = text.lower()
    vector = [float(words.count(stem)) for stem in VOCABULARY]
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


@component
class FakeTextEmbedder:
    """A query embedder: ``embed`` of the text."""

    @component.output_types(embedding=list[float])
    def run(self, text: str) -> dict[str, Any]:
        return {"embedding": embed(text)}
