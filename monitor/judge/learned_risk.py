"""A risk learned from the judge's verdicts (``risk/3``): a weighted logistic regression over
the checks' evidence, trained online on the judged traces with their 1/p weights.

The static risk (``monitor.checks.risk``, ``risk/9``) is a noisy-or of chosen weights. The
judge already labels a weighted sample of the stream; :class:`LearnedRisk` fits its features
to those labels, one verdict at a time, and until it has seen ``min_verdicts`` verdicts it
answers the static risk unchanged (its prior). The features (:data:`FEATURES`):

* the static risk itself (its log-odds), so the model starts from it and learns corrections;
* the grounding gap (the share of the answer's content words missing from the context), and
  its largest value over the answer's sentences (one invented sentence in a long answer);
* the missing words weighted by their IDF, learned from the stream's own contexts (every
  trace scored adds its context's words to the counts): the IDF-weighted gap and the rarest
  missing word's IDF (a rare name or term not in the context weighs more than a common word);
* the flags of ``unsupported_numbers``, ``unsupported_names``, ``context_conflict``,
  ``empty_context``, ``citation`` and ``refusal`` (a refusal over a non-empty context: a
  possible false refusal);
* the answer's length (log of its content words);
* the naive lexical novelty: the share of the answer's words, stop words included, that are
  not words of the context (it carries what the content words leave out: "not", "never").

Agent and follow-up signals are not features yet (they arrive after the checks, on the
evaluation; not measured on labelled data here). No model file, no third-party learner: the
regression is a few lines of numpy (Adagrad steps on the weighted log-loss with a small L2
penalty); the word counts are a fixed array of hashed buckets, so memory is bounded whatever
the stream says. :meth:`save` and :meth:`load` keep the whole state in one ``.npz`` file
(beside the judge's verdict cache); a file of another version or shape, or learned over
another static risk (its weights are corrections to that prior), is not read (the scorer
starts again from its prior). No method raises on any trace.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

from monitor.checks.context import content_words, missing_words
from monitor.checks.risk import RISK_VERSION, SENTENCES
from monitor.checks.risk import risk as static_risk
from monitor.checks.view import TraceView
from monitor.core.model import CheckResult

RISK3_VERSION = "risk/3"
FEATURES = (
    "bias",
    "static_logit",
    "gap",
    "sentence_gap",
    "idf_gap",
    "rarest_missing",
    "unsupported_numbers",
    "unsupported_names",
    "context_conflict",
    "empty_context",
    "citation",
    "refusal",
    "log_words",
    "novelty",
)
_FLAGS = (
    "unsupported_numbers", "unsupported_names", "context_conflict", "empty_context", "citation",
    "refusal",
)  # fmt: skip
# each feature's place in the vector, by its name (never a number written in the code)
_AT = {name: i for i, name in enumerate(FEATURES)}
_BUCKETS = 1 << 18
MAX_WEIGHT = 1e4  # a 1/p weight counts at most this much (p below 0.01 % is capped)
_WORDS = re.compile(r"[a-z0-9]+")
Vector = npt.NDArray[np.float64]


def _bucket(word: str) -> int:
    return zlib.crc32(word.encode("utf-8")) & (_BUCKETS - 1)


class LearnedRisk:
    """The online scorer (see the module). ``min_verdicts``: the verdicts seen before the
    learned score replaces the prior; ``rate``: the Adagrad step; ``l2``: the penalty."""

    def __init__(self, min_verdicts: int = 200, rate: float = 0.2, l2: float = 1e-4) -> None:
        self.min_verdicts = min_verdicts
        self.rate = rate
        self.l2 = l2
        self.weights: Vector = np.zeros(len(FEATURES))
        self.weights[1] = 1.0  # the prior: the static risk's log-odds, as they are
        self.squares: Vector = np.full(len(FEATURES), 1e-8)
        self.verdicts = 0
        self.documents = 0
        self.df = np.zeros(_BUCKETS, dtype=np.uint32)

    # -- features ---------------------------------------------------------------------------

    def observe(self, view: TraceView) -> None:
        """Count the words of this trace's context once (the stream's document frequencies)."""
        try:
            words = {_bucket(w) for w in _WORDS.findall(view.context_text.lower())}
        except Exception:  # a trace never makes the scorer raise
            return
        if words:
            index = np.fromiter(words, dtype=np.int64, count=len(words))
            self.df[index] = np.minimum(self.df[index] + 1, np.iinfo(np.uint32).max - 1)
            self.documents += 1

    def features(self, checks: Mapping[str, CheckResult], view: TraceView) -> Vector:
        """The feature vector of one trace (:data:`FEATURES`); zeros where a part fails."""
        x = np.zeros(len(FEATURES))
        x[_AT["bias"]] = 1.0
        try:
            prior = min(max(static_risk(checks, view), 1e-3), 1 - 1e-3)
            x[_AT["static_logit"]] = math.log(prior / (1 - prior))
            self._grounding(view, x)
            for name in _FLAGS:
                result = checks.get(name)
                x[_AT[name]] = 1.0 if result is not None and result.flagged else 0.0
            if x[_AT["refusal"]] and not view.context_text.strip():
                x[_AT["refusal"]] = 0.0  # a refusal over no context is no false refusal
        except Exception:  # a trace never makes the scorer raise
            return x
        return x

    def _grounding(self, view: TraceView, x: Vector) -> None:
        words = content_words(view.answer)
        if not words:
            return
        missing = missing_words(view, words)
        x[_AT["gap"]] = len(missing) / len(words)
        sentence_gaps = []
        for sentence in SENTENCES.split(view.answer)[:64]:
            own = content_words(sentence)
            if len(own) >= 3:
                sentence_gaps.append(len(missing_words(view, own)) / len(own))
        x[_AT["sentence_gap"]] = max(sentence_gaps, default=x[_AT["gap"]])
        idf = {w: self._idf(w) for w in words}
        total = sum(idf.values())
        x[_AT["idf_gap"]] = sum(idf[w] for w in missing) / total if total else 0.0
        x[_AT["rarest_missing"]] = max((idf[w] for w in missing), default=0.0)
        x[_AT["log_words"]] = math.log1p(len(words))
        tokens = _WORDS.findall(view.answer.lower())
        context = set(_WORDS.findall(view.context_text.lower()))
        x[_AT["novelty"]] = (
            sum(1 for t in tokens if t not in context) / len(tokens) if tokens else 0.0
        )

    def _idf(self, word: str) -> float:
        """The word's IDF on the stream's contexts, scaled to [0, 1] by the largest one."""
        n = self.documents
        if n == 0:
            return 1.0
        df = int(self.df[_bucket(word)])
        return math.log((n + 1) / (df + 1)) / math.log(n + 1) if n else 1.0

    # -- scoring and learning ---------------------------------------------------------------

    @property
    def learned(self) -> bool:
        """Whether enough verdicts were seen for the learned score to replace the prior."""
        return self.verdicts >= self.min_verdicts

    def score(self, checks: Mapping[str, CheckResult], view: TraceView) -> float:
        """The trace's risk in [0, 1]: learned once :attr:`learned`, else the static risk."""
        try:
            if not self.learned:
                return static_risk(checks, view)
            return round(self.predict(self.features(checks, view)), 4)
        except Exception:  # a trace never makes the scorer raise
            return 0.0

    def predict(self, x: Vector) -> float:
        """The learned probability that the answer of features ``x`` is unfaithful."""
        z = float(np.clip(self.weights @ x, -30.0, 30.0))
        return 1.0 / (1.0 + math.exp(-z))

    def learn(self, x: Vector, unfaithful: bool, weight: float = 1.0) -> None:
        """One Adagrad step on a judged trace's features, its verdict and its 1/p weight."""
        if not (math.isfinite(weight) and weight > 0) or not np.all(np.isfinite(x)):
            return
        weight = min(weight, MAX_WEIGHT)
        grad = weight * (self.predict(x) - float(unfaithful)) * x + self.l2 * self.weights
        grad[1] = 0.0  # the prior's weight stays 1: the others learn its corrections
        self.squares += grad * grad
        self.weights -= self.rate * grad / np.sqrt(self.squares)
        self.verdicts += 1

    # -- persistence ------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write the whole state to ``path`` (``.npz``), replacing it atomically."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as fh:
            np.savez_compressed(
                fh,
                version=np.array(RISK3_VERSION),
                prior=np.array(RISK_VERSION),
                features=np.array(FEATURES),
                weights=self.weights,
                squares=self.squares,
                counts=np.array([self.verdicts, self.documents, self.min_verdicts]),
                settings=np.array([self.rate, self.l2]),
                df=self.df,
            )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, min_verdicts: int = 200) -> LearnedRisk:
        """The scorer saved at ``path``; a fresh one when the file is missing, damaged or
        of another version or feature set."""
        scorer = cls(min_verdicts=min_verdicts)
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["version"]) != RISK3_VERSION:
                    return scorer
                if "prior" not in data.files or str(data["prior"]) != RISK_VERSION:
                    return scorer  # learned as corrections to another static risk
                if tuple(str(f) for f in data["features"]) != FEATURES:
                    return scorer
                df = data["df"]
                if df.shape != (_BUCKETS,):
                    return scorer
                scorer.weights = data["weights"].astype(np.float64)
                scorer.squares = data["squares"].astype(np.float64)
                scorer.verdicts, scorer.documents, _ = (int(v) for v in data["counts"])
                scorer.rate, scorer.l2 = (float(v) for v in data["settings"])
                scorer.df = df.astype(np.uint32)
        except (OSError, ValueError, KeyError, EOFError, TypeError):
            return cls(min_verdicts=min_verdicts)
        return scorer
