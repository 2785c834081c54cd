"""A preset's published claim judged on the measures it names, at equal k and at equal budget.

A claim such as Chroma's "the OpenAI Assistants default gave below-average recall and among the
lowest precision and IoU" names its measures; :data:`CLAIM_MEASURES` lists them per preset. An
A/B of the preset against ours reads each of them on the same questions:

* at **equal k** (the largest k both runs have): coverage@k and each named measure
  (``recall``/``precision``/``iou`` of :mod:`explorer.evaluation.coverage`) per question;
* at **equal budget** (every context budget both runs have): coverage within the budget — what
  an LLM given that many tokens would hold, whatever the chunk size.

Each reading has a paired test (booleans: the exact test on the flipped questions; a measure
per question: the sign test on the questions where one side is larger, with a bootstrap
interval of the mean difference) and is *for* the claim, *against* it, or shows no detectable
difference. The verdict rests on the readings with a detectable difference and names them:
``agrees`` when all of them go the claim's way, ``disagrees`` when all go against it, ``mixed``
when both happen, ``no detectable difference`` when none is detectable. The verdict does not
depend on which k a page happens to show: it is read at the run's own largest k and budgets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.evaluation.compare import paired
from explorer.evaluation.coverage import EvalReport
from explorer.evaluation.presets import Preset, claim_for
from explorer.evaluation.stats import ALPHA, RESAMPLES, SEED, sign_test

CLAIM_MEASURES: Mapping[str, tuple[str, ...]] = {
    "openai-800-400": ("recall", "precision", "iou"),
    "chroma-recursive-200": ("recall", "precision", "iou"),
    "chroma-recursive-400": ("recall", "precision", "iou"),
}
"""The measures each checkable claim names (Chroma's report scores recall, precision and IoU)."""

VERDICTS = ("agrees", "no detectable difference", "disagrees", "mixed")


@dataclass(frozen=True)
class Reading:
    """One measure of the claim, the preset against ours on the same questions."""

    measure: str
    """``"precision@5"``, ``"coverage@5"``, ``"coverage@512 tokens"``."""
    basis: str
    """``"equal k"`` or ``"equal budget"``."""
    ours: float
    theirs: float
    p_value: float
    ci95: tuple[float, float]
    """95% interval of theirs − ours."""
    detectable: bool
    for_claim: bool | None
    """True: the difference goes the claim's way; False: against it; None: not detectable."""

    @property
    def difference(self) -> float:
        return self.theirs - self.ours

    def to_json(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "basis": self.basis,
            "ours": self.ours,
            "preset": self.theirs,
            "difference": self.difference,
            "p_value": self.p_value,
            "ci95": list(self.ci95),
            "reading": "no detectable difference"
            if self.for_claim is None
            else ("agrees" if self.for_claim else "disagrees"),
        }


@dataclass(frozen=True)
class ClaimJudgement:
    """The claim of ``preset`` (side ``side`` of the A/B) read on every measure it names."""

    preset: Preset
    side: str
    readings: tuple[Reading, ...]
    verdict: str
    """One of :data:`VERDICTS`."""

    @property
    def rests_on(self) -> tuple[Reading, ...]:
        """The readings the verdict rests on: those with a detectable difference."""
        return tuple(r for r in self.readings if r.detectable)

    def sentence(self) -> str:
        exp = self.preset.expectation
        assert exp is not None
        rests = self.rests_on
        if rests:
            on = "; ".join(
                f"{r.measure} ({r.basis}) {abs(r.difference) * 100:.0f} points "
                f"{'below' if r.difference < 0 else 'above'} ours, p {r.p_value:.3g}"
                for r in rests
            )
            why = f"it rests on {on}"
        else:
            why = "no measure it names differs detectably, at equal k or at equal budget"
        return (
            f"{self.preset.source.split(',')[0]} reported {self.preset.title}: {exp.reading}; "
            f"on these questions {self.verdict} — {why}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset.name,
            "claim": self.preset.claim,
            "expectation": self.preset.expectation.direction if self.preset.expectation else None,
            "measures": list(CLAIM_MEASURES.get(self.preset.name, ())),
            "verdict": self.verdict,
            "rests_on": [r.measure + " (" + r.basis + ")" for r in self.rests_on],
            "readings": [r.to_json() for r in self.readings],
            "sentence": self.sentence(),
        }


def mean_difference_interval(
    diffs: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """The bootstrap 95% interval of the mean of ``diffs`` (one per question)."""
    d = np.asarray(diffs, dtype=float)
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(resamples, len(d)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def _reading(
    measure: str, basis: str, ours: Sequence[float], theirs: Sequence[float], lower: bool
) -> Reading:
    diffs = [t - o for o, t in zip(ours, theirs, strict=True)]
    p = sign_test(sum(d < 0 for d in diffs), sum(d > 0 for d in diffs))
    lo, hi = mean_difference_interval(diffs)
    detectable = p < ALPHA and not lo <= 0 <= hi
    mean = float(np.mean(diffs))
    return Reading(
        measure=measure,
        basis=basis,
        ours=float(np.mean(ours)),
        theirs=float(np.mean(theirs)),
        p_value=p,
        ci95=(lo, hi),
        detectable=detectable,
        for_claim=((mean < 0) == lower) if detectable else None,
    )


def judge_claim(ra: EvalReport, rb: EvalReport) -> ClaimJudgement | None:
    """The claim of the preset one side of the A/B is (the other ours, see
    :func:`~explorer.evaluation.presets.claim_for`), read on the measures it names at equal k
    and at equal budget; ``None`` for any other pair or without a shared k."""
    found = claim_for(ra.config, rb.config)
    ks = [k for k in ra.ks if k in rb.ks]
    if found is None or not ks:
        return None
    p, side = found
    assert p.expectation is not None
    lower = p.expectation.direction == "lower"
    ours_r, theirs_r = (ra, rb) if side == "B" else (rb, ra)
    by_id = {r.query.id: r for r in theirs_r.results}
    pairs = [
        (o, by_id[o.query.id])
        for o in ours_r.results
        if o.query.id in by_id and o.scored and by_id[o.query.id].scored
    ]
    if not pairs:
        return None
    k = max(ks)
    readings = [
        _reading(
            f"coverage@{k}",
            "equal k",
            [float(o.covered_at_k[k]) for o, _ in pairs],
            [float(t.covered_at_k[k]) for _, t in pairs],
            lower,
        )
    ]
    for name in CLAIM_MEASURES.get(p.name, ()):
        field = f"{name}_at_k"
        readings.append(
            _reading(
                f"{name}@{k}",
                "equal k",
                [getattr(o, field)[k] for o, _ in pairs],
                [getattr(t, field)[k] for _, t in pairs],
                lower,
            )
        )
    comparisons = paired(ours_r, theirs_r)  # the exact test on the flips, as the A/B's
    for budget in (b for b in ra.budgets if b in rb.budgets):
        c = comparisons[f"{budget} tokens"]
        diff = c.difference
        detectable = c.winner is not None
        readings.append(
            Reading(
                measure=f"coverage@{budget} tokens",
                basis="equal budget",
                ours=c.coverage_a,
                theirs=c.coverage_b,
                p_value=c.p_value,
                ci95=c.ci95,
                detectable=detectable,
                for_claim=((diff < 0) == lower) if detectable else None,
            )
        )
    ways = {r.for_claim for r in readings if r.detectable}
    verdict = (
        VERDICTS[1]
        if not ways
        else VERDICTS[3]
        if ways == {True, False}
        else VERDICTS[0]
        if ways == {True}
        else VERDICTS[2]
    )
    return ClaimJudgement(p, side, tuple(readings), verdict)


def reading_rows(judgement: ClaimJudgement) -> list[dict[str, Any]]:
    """One row per reading, equal k and equal budget side by side in one table."""
    return [
        {
            "measure": r.measure,
            "read at": r.basis,
            "ours": round(r.ours, 3),
            "preset": round(r.theirs, 3),
            "preset − ours (points)": round(r.difference * 100, 1),
            "p": float(f"{r.p_value:.3g}"),
            "reading": "no detectable difference"
            if r.for_claim is None
            else ("for the claim" if r.for_claim else "against the claim"),
        }
        for r in judgement.readings
    ]
