"""Human-labelled model summaries as a test bed for ``unsupported_numbers`` (development data).

Two public sets, read from where you unpacked them (nothing of them is committed here):

* XSum hallucinations (Maynez et al. 2020, ``google-research-datasets/xsum_hallucination_
  annotations``): 500 BBC articles x 5 systems, three annotators mark hallucinated spans.
  A summary is *hallucinated* when at least two of three annotators marked a span; the
  *human spans* are the union of every annotator's spans.
* FRANK (Pagnoni et al. 2021, ``artidoro/frank``): CNN/DM and XSum summaries with a
  per-summary factuality score; *hallucinated* means a score below 1 (some sentence has an
  error). No spans.

The articles of both sets are the per-article JSON files of FRANK's early
``data/articles-wbertscore-json`` folder (keys ``article`` and one per system).
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Systems in the XSum span set -> key of the summary in the article files.
_XSUM_SYSTEMS = {
    "BERTS2S": "BERTS2S",
    "TConvS2S": "TConvS2S",
    "PtGen": "PtGen",
    "TranS2S": "TranS2S",
}


@dataclass
class Summary:
    """One model summary of one article, with its human labels."""

    source: str  # "xsum-spans" or "frank-cnndm" / "frank-bbc"
    article: str
    summary: str
    hallucinated: bool
    spans: list[tuple[int, int]] = field(default_factory=list)  # [start, end) in ``summary``
    article_id: str = ""  # FRANK's hash of the article (its split files list them)


def _articles(articles_dir: Path) -> dict[str, dict[str, object]]:
    out = {}
    for path in sorted(articles_dir.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out[str(data.get("hash") or path.stem)] = data
    return out


def _locate(row: dict[str, str]) -> tuple[int, int]:
    """[start, end) of an annotator's span in the summary, or (-1, -1) for none.

    The csv's offsets drift by a character or two from the span text (and some spans carry a
    literal "\\n"), so the span text is searched for first and the offsets are the fallback.
    """
    start = int(row["hallucinated_span_start"])
    if start < 0:
        return -1, -1
    text = row["hallucinated_span"].replace("\\n", " ").strip()
    i = row["summary"].find(text) if text else -1
    if i >= 0:
        return i, i + len(text)
    return max(start - 1, 0), int(row["hallucinated_span_end"])


def xsum_spans(annotations_csv: Path, articles_dir: Path) -> Iterator[Summary]:
    """XSum summaries with human hallucination spans (majority label, union of spans)."""
    articles = _articles(articles_dir)
    marks: dict[tuple[str, str], list[tuple[str, int, int]]] = defaultdict(list)
    texts: dict[tuple[str, str], str] = {}
    with annotations_csv.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            key = (row["bbcid"], row["system"])
            texts[key] = row["summary"]
            marks[key].append((row["worker_id"], *_locate(row)))
    for (bbcid, system), rows in sorted(marks.items()):
        article = articles.get(bbcid)
        if article is None or system not in _XSUM_SYSTEMS:
            continue
        summary = texts[(bbcid, system)]
        workers_marking = {w for w, s, _ in rows if s >= 0}
        spans = sorted({(s, e) for _, s, e in rows if s >= 0})
        yield Summary(
            "xsum-spans", str(article["article"]), summary, len(workers_marking) >= 2, spans
        )


def frank(annotations_json: Path, articles_dir: Path) -> Iterator[Summary]:
    """FRANK summaries (CNN/DM and BBC) with a summary-level factuality label."""
    articles = _articles(articles_dir)
    for row in json.loads(annotations_json.read_text(encoding="utf-8")):
        article = articles.get(str(row["hash"]))
        if article is None or row["model_name"] not in article:
            continue
        yield Summary(
            f"frank-{row['dataset']}",
            str(article["article"]),
            str(article[row["model_name"]]),
            float(row["Factuality"]) < 1.0,
            article_id=str(row["hash"]),
        )
