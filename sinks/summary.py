"""``SummarySink``: per-check counts for the end-of-replay table, with Wilson intervals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from monitor.checks import output_of
from monitor.checks.risk import RISK
from monitor.checks.shadow import check_pairs, verdict_pair
from monitor.core.model import (
    FOLLOWUP_READER,
    OUTCOMES,
    SESSION_OUTCOMES,
    DeadLetter,
    Evaluation,
    Followup,
    SessionOutcome,
    error_type,
)
from monitor.core.stats import PairedFlags, wilson
from sinks import SinkBase


@dataclass
class CheckTally:
    """One check's counts over a run: flagged, applicable, scored."""

    flagged: int = 0
    applicable: int = 0
    score_sum: float = 0.0
    scored: int = 0
    # weighted by each trace's adjusted count (sampled upstream: 1 / sample_rate)
    flagged_w: float = 0.0
    applicable_w: float = 0.0
    applicable_w2: float = 0.0  # sum of squared weights: the effective sample size

    def weighted_rate(self) -> tuple[float, float, float]:
        """The flagged rate weighted by adjusted count, and its 95 % Wilson interval over
        the effective sample size (Kish: (sum w)^2 / sum w^2), which a few heavy traces make
        small: a rate estimated from 100 traces that each stand for 1,000 is not as sure as
        one from 100,000 traces."""
        rate = self.flagged_w / self.applicable_w
        n_eff = self.applicable_w**2 / self.applicable_w2
        n = max(1, round(n_eff))
        lo, hi = wilson(round(rate * n), n)
        return rate, lo, hi


# Skip reasons that mean the judge was asked, or would have been, and could not answer.
JUDGE_FAILURES = frozenset({"circuit_open", "paused"})


class SummarySink(SinkBase):
    """Counts flagged/applicable traces per check and keeps the first bad records."""

    name = "summary"

    def __init__(self, check_names: list[str], keep_dead_letters: int = 20) -> None:
        self.tallies = {name: CheckTally() for name in check_names}
        self.traces = 0
        self.weighted = False  # a trace was sampled upstream (its adjusted count is not 1)
        self.dead_letter_count = 0
        self.followup_pairs = 0
        self.followup_signals: dict[str, int] = {}
        # by what the checks made of the first turn's answer (refusal, flagged, clean):
        # its pairs and their signals
        self.followups_after: dict[str, tuple[int, dict[str, int]]] = {}
        self.sessions: dict[str, int] = {}  # closed sessions by outcome
        self.sessions_closed_by: dict[str, int] = {}
        self.dead_letters: list[DeadLetter] = []
        self._keep = keep_dead_letters
        self.verdicts: dict[str, tuple[int, float]] = {}  # verdict -> (count, sum of weights)
        self.verdict_squares = 0.0  # the sum of the applicable verdicts' squared weights
        self.judge_skips: dict[str, int] = {}
        self.calibration: Any = None  # a judge Calibration, for the corrected hard-fail rate
        self.shadowed = 0  # traces the shadow candidate ran on
        self.shadow: dict[str, PairedFlags] = {}  # check -> live and shadow outcomes
        self.shadow_judged: dict[tuple[str, str], int] = {}  # (live, shadow) verdicts
        self.check_errors: dict[tuple[str, str], int] = {}  # (check, exception type): raised

    def write(self, evaluation: Evaluation) -> None:
        """Tally the evaluation (a judge-only line adds its verdict, not a trace)."""
        self._check_open()
        self.traces += not evaluation.judge_only
        weight = evaluation.trace.adjusted_count
        self.weighted = self.weighted or weight != 1.0
        for name, result in evaluation.checks.items():
            tally = self.tallies.setdefault(name, CheckTally())
            if result.applicable:
                tally.applicable += 1
                tally.flagged += result.flagged
                tally.applicable_w += weight
                tally.applicable_w2 += weight * weight
                tally.flagged_w += weight if result.flagged else 0.0
            elif result.error is not None:  # it raised (a bug): said below the table
                key = (name, result.error_type or "")
                self.check_errors[key] = self.check_errors.get(key, 0) + 1
            if result.score is not None:
                tally.score_sum += result.score
                tally.scored += 1
        if evaluation.risk_error is not None:  # computing the risk raised: said as a check's
            key = (RISK, error_type(evaluation.risk_error))
            self.check_errors[key] = self.check_errors.get(key, 0) + 1
        shadow = evaluation.shadow
        self.shadowed += shadow is not None and shadow.checks is not None
        for name, live, cand in check_pairs(evaluation):
            self.shadow.setdefault(name, PairedFlags()).add(live, cand)
        verdicts = verdict_pair(evaluation)
        if verdicts is not None:
            self.shadow_judged[verdicts] = self.shadow_judged.get(verdicts, 0) + 1
        if evaluation.judge is not None:
            n, w = self.verdicts.get(evaluation.judge.verdict, (0, 0.0))
            self.verdicts[evaluation.judge.verdict] = (n + 1, w + evaluation.judge.weight)
            if evaluation.judge.verdict != "not_applicable":
                self.verdict_squares += evaluation.judge.weight**2
        elif evaluation.judge_skipped is not None:
            reason = evaluation.judge_skipped
            self.judge_skips[reason] = self.judge_skips.get(reason, 0) + 1

    def shadow_table(self) -> str:
        """The shadow candidate against the live checks on the same traces: per check the
        traces both judged, agreement, flips each way (f→p: flagged live, passed by the
        shadow; p→f the other way), both flagged shares and the paired difference with its
        95 % interval and sign test."""
        head = (f"{'shadow: check':<22} {'both':>7} {'agree':>7} {'f→p':>6} {'p→f':>6} "
                f"{'live':>7} {'shadow':>7} {'diff':>7}  95% interval   sign p")  # fmt: skip
        rows = [f"shadow candidate on {self.shadowed} of {self.traces} traces", head]
        for name, p in self.shadow.items():
            if not p.both:
                rows.append(f"{name:<22} {0:>7}  (no trace both applied to)")
                continue
            down, up = p.flips
            a, b = p.shares()
            d, lo, hi, pv = p.difference()
            rows.append(
                f"{name:<22} {p.both:>7} {p.agreement:>7.2%} {down:>6} {up:>6} {a:>7.2%} "
                f"{b:>7.2%} {d:>+7.2%}  {lo:+.2%} .. {hi:+.2%}  {pv:.3g}"
            )
        return "\n".join(rows)

    def shadow_judge_line(self) -> str:
        """The shadow judge against the live one on the traces both judged: agreement, and
        each disagreement (live -> shadow)."""
        verdicts = ("pass", "fail", "hard_fail", "not_applicable")
        both = {k: n for k, n in self.shadow_judged.items() if k[1] in verdicts}
        n = sum(both.values())
        same = sum(v for (a, b), v in both.items() if a == b)
        moved = ", ".join(f"{a} -> {b} {v}" for (a, b), v in sorted(both.items()) if a != b)
        skipped = sum(self.shadow_judged.values()) - n
        line = f"shadow judge on {n} judged traces: agreement {same / n if n else 0:.2%}"
        if moved:
            line += f"; {moved}"
        return line + (f"; {skipped} not judged by it" if skipped else "")

    def write_followup(self, followup: Followup) -> None:
        """Count the pair and its signals."""
        self._check_open()
        self.followup_pairs += 1
        pairs, signals = self.followups_after.get(followup.turn.outcome, (0, {}))
        self.followups_after[followup.turn.outcome] = (pairs + 1, signals)
        for signal in followup.signals:
            self.followup_signals[signal] = self.followup_signals.get(signal, 0) + 1
            signals[signal] = signals.get(signal, 0) + 1
        if followup.error is not None:  # the signals unread: said as a check that raised
            raised = (FOLLOWUP_READER, followup.error)
            self.check_errors[raised] = self.check_errors.get(raised, 0) + 1

    def write_session(self, outcome: SessionOutcome) -> None:
        """Tally the closed session by its outcome and what closed it."""
        self._check_open()
        self.sessions[outcome.outcome] = self.sessions.get(outcome.outcome, 0) + 1
        by = self.sessions_closed_by
        by[outcome.closed_by] = by.get(outcome.closed_by, 0) + 1

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """Count the dead letter by reason."""
        self._check_open()
        self.dead_letter_count += 1
        if len(self.dead_letters) < self._keep:
            self.dead_letters.append(letter)

    def judge_failures(self) -> dict[str, int]:
        """Sampled traces the judge could not judge, by why (errors by kind, an open
        breaker, a paused judge)."""
        return {k: v for k, v in self.judge_skips.items()
                if k in JUDGE_FAILURES or k.startswith("error:")}  # fmt: skip

    @property
    def judged(self) -> int:
        """Traces the judge gave a verdict on."""
        return sum(n for n, _ in self.verdicts.values())

    def table(self) -> str:
        """A fixed-width table: check, flagged, applicable, rate and its 95% Wilson interval."""
        head = f"{'check':<22} {'flagged':>8} {'of':>8} {'rate':>8}   {'95% CI (Wilson)':<17}"
        rows = [head, "-" * len(head)]
        for name, t in self.tallies.items():
            if output_of(name) == "score":  # a continuous signal reports its mean
                if not t.scored:
                    rows.append(f"{name:<22} {'-':>8} {0:>8} {'no data':>8}")
                    continue
                mean = t.score_sum / t.scored
                rows.append(f"{name:<22} {'-':>8} {t.scored:>8} {'mean':>8}   {mean:.3f}")
                continue
            if not t.applicable:  # no trace it applied to: no rate, no interval (not 0 %)
                rows.append(f"{name:<22} {'-':>8} {0:>8} {'no data':>8}")
                continue
            if self.weighted:  # sampled upstream: the population's rate, not the sample's
                rate, lo, hi = t.weighted_rate()
            else:
                rate = t.flagged / t.applicable if t.applicable else 0.0
                lo, hi = wilson(t.flagged, t.applicable)
            rows.append(
                f"{name:<22} {t.flagged:>8} {t.applicable:>8} {rate:>8.2%}   [{lo:.2%}, {hi:.2%}]"
            )
            if output_of(name) == "both" and t.scored:  # a verdict with a score: both rows
                mean = t.score_sum / t.scored
                rows.append(f"{'  mean score':<22} {'-':>8} {t.scored:>8} {'mean':>8}   {mean:.3f}")
        rows.append("-" * len(head))
        if self.verdicts or self.judge_skips:
            rows.extend(self._judge_rows())
        if self.shadowed:
            rows.append(self.shadow_table())
        if self.shadow_judged:
            rows.append(self.shadow_judge_line())
        if self.weighted:
            rows.append(
                "(traces sampled upstream: each counts its adjusted count, 1/sample_rate; "
                "rates and intervals are the traffic's, over the effective sample size)"
            )
        if self.followup_pairs:
            rows.extend(self._followup_rows())
        if self.sessions:
            n = sum(self.sessions.values())
            shares = ", ".join(f"{k} {self.sessions[k]} ({self.sessions[k] / n:.1%})"
                               for k in SESSION_OUTCOMES if k in self.sessions)  # fmt: skip
            closed = ", ".join(f"{k} {v}" for k, v in sorted(self.sessions_closed_by.items()))
            rows.append(f"sessions closed: {n}; {shares} (closed by {closed})")
        if self.check_errors:
            said = ", ".join(f"{check} {n} ({kind})"
                             for (check, kind), n in sorted(self.check_errors.items()))  # fmt: skip
            rows.append(f"check errors (a bug of ragmon's, not counted in the rates): {said}")
        rows.append(f"traces evaluated: {self.traces}   bad records: {self.dead_letter_count}")
        return "\n".join(rows)

    def _followup_rows(self) -> list[str]:
        """The pairs and each signal's share, then the same after each kind of answer (the
        rephrases after a refusal are the headline)."""

        def said(pairs: int, signals: dict[str, int]) -> str:
            shares = ", ".join(f"{k} {v} ({v / pairs:.1%})" for k, v in sorted(signals.items()))
            return f"{pairs} pair{'' if pairs == 1 else 's'} of turns; {shares or 'no signal'}"

        rows = [f"follow-ups: {said(self.followup_pairs, self.followup_signals)}"]
        for after in OUTCOMES:
            if after in self.followups_after:
                rows.append(f"  after {after}: {said(*self.followups_after[after])}")
        return rows

    def _judge_rows(self) -> list[str]:
        """Verdicts with their weighted (Horvitz–Thompson) share among applicable verdicts."""
        applicable = {k: v for k, v in self.verdicts.items() if k != "not_applicable"}
        total_w = sum(w for _, w in applicable.values())
        # the weights differ (1/p): the interval is Wilson's at Kish's effective sample size,
        # (sum w)^2 / sum w^2, as for any weighted share (Korn and Graubard)
        n_eff = total_w**2 / self.verdict_squares if self.verdict_squares else 0.0
        head = (f"{'judge verdict':<22} {'judged':>8} {'est. share':>11}   "
                f"{'95% CI (Wilson, Kish n)':<23}")  # fmt: skip
        rows = [head, "-" * len(head)]
        for verdict in ("pass", "fail", "hard_fail", "not_applicable"):
            n, w = self.verdicts.get(verdict, (0, 0.0))
            if verdict != "not_applicable" and total_w:  # none of a verdict is 0 %, bounded
                share = w / total_w
                lo, hi = wilson(round(share * n_eff), max(1, round(n_eff)))
                rows.append(f"{verdict:<22} {n:>8} {share:>10.2%}    [{lo:.2%}, {hi:.2%}]")
            else:
                rows.append(f"{verdict:<22} {n:>8} {'-':>10}")
        if self.calibration is not None and total_w:
            raw = applicable.get("hard_fail", (0, 0.0))[1] / total_w
            corrected = self.calibration.corrected_rate(raw)
            if corrected is not None:
                rows.append(
                    f"hard_fail corrected for the judge's calibrated error rates "
                    f"(Rogan-Gladen): {corrected:.2%} (raw {raw:.2%})"
                )
        skipped = ", ".join(
            f"{k} {v}"
            for k, v in sorted(self.judge_skips.items())
            if k not in JUDGE_FAILURES and not k.startswith("error:")
        )
        rows.append(f"not judged: {skipped or 'none'}")
        failed = self.judge_failures()
        if failed:
            rows.append("judge failed: " + ", ".join(f"{k} {v}" for k, v in sorted(failed.items())))
        rows.append("-" * len(head))
        return rows
