"""Honest A/B statistics on paired per-question outcomes.

Two configurations answer the same questions; each question is covered or not under A and
under B. Only the *discordant* questions (covered by one of the two) say anything about which is
better, and with 40–80 questions a difference of a few points is usually noise. For one pair of
outcome lists :func:`compare_paired` gives:

* the **flips**: the questions only A covers and those only B covers;
* an **exact two-sided sign test** on the discordant questions (the exact McNemar test): under
  "no difference" each discordant question is as likely to favour A as B, so the number that
  favour B is binomial(d, 1/2); the p-value is twice the smaller tail, at most 1, and 1 when
  there is no discordant question (:func:`sign_test`);
* a **paired bootstrap 95% interval** for the coverage difference B − A: questions are resampled
  with replacement (a fixed seed, 10,000 resamples by default) and the 2.5th and 97.5th
  percentiles of the resampled differences are taken (:func:`bootstrap_interval`);
* a **verdict**: "A better" or "B better" (with the p-value) only when the exact test rejects at
  α = 0.05 *and* the interval excludes zero; otherwise "no detectable difference". When the two
  disagree the cautious one wins. In practice that is the exact test: with few discordant
  questions a percentile bootstrap interval is too narrow and can exclude zero while p ≥ 0.05
  (5 flips all one way: p = 0.0625), and on 20 to 80 questions no split of the flips gives
  p < 0.05 with an interval that reaches zero;
* the **questions needed** to tell the two apart, at α = 0.05 with power 0.8, if the observed
  discordance rate and difference were the true ones (:func:`questions_needed`).

:func:`compare_to_best` does the same for a sweep: every configuration against the best one,
with Holm's correction for the number of comparisons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import NormalDist
from typing import Any, Literal

from explorer.errors import StatsError

ALPHA = 0.05
POWER = 0.8
RESAMPLES = 10_000
SEED = 0
NO_DIFFERENCE = "no detectable difference"

Winner = Literal["A", "B"]


# --------------------------------------------------------------------------- the pieces


@lru_cache(maxsize=4096, typed=True)
def sign_test(a_only: int, b_only: int) -> float:
    """Exact two-sided sign test on the discordant pairs (exact McNemar test).

    ``min(1, 2 · P(X ≤ min(a_only, b_only)))`` with ``X ~ binomial(a_only + b_only, 1/2)``,
    computed exactly in integers; 1 when there is no discordant pair.
    """
    for x in (a_only, b_only):
        if isinstance(x, bool) or not isinstance(x, int) or x < 0:
            raise StatsError(f"flip counts are whole numbers, 0 or more, got {x!r}")
    d = a_only + b_only
    if d == 0:
        return 1.0
    tail = sum(math.comb(d, i) for i in range(min(a_only, b_only) + 1))
    return min(1.0, 2 * tail / (1 << d))


def bootstrap_interval(
    a_only: int,
    b_only: int,
    n: int,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Paired percentile bootstrap interval for the coverage difference B − A.

    Each question contributes +1 (B only), −1 (A only) or 0 to the difference; resampling ``n``
    questions with replacement draws how many of each kind a resample holds, which is a
    multinomial draw — the same distribution as resampling indices, at a cost that does not
    grow with ``n``. The ends are the ``(1 − level)/2`` and ``(1 + level)/2`` quantiles of the
    resampled differences, each the smallest resampled value whose share of resamples at or
    below it reaches the level (so an end is always a value a resample took).
    """
    import numpy as np

    if n < 1 or min(a_only, b_only) < 0 or a_only + b_only > n:
        raise StatsError(f"{a_only} + {b_only} flips do not fit in {n} questions")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise StatsError(f"resamples must be a whole number above 0, got {resamples!r}")
    if not 0 < level < 1:
        raise StatsError(f"the level must be between 0 and 1, got {level!r}")
    ties = n - a_only - b_only
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, [a_only / n, ties / n, b_only / n], size=resamples)
    diffs = np.sort((counts[:, 2] - counts[:, 0]).astype(np.int64))

    def quantile(q: float) -> float:
        k = math.ceil(round(q * resamples, 6))  # 0.025 · 10,000 is 250, not 250.00000000000003
        return float(diffs[min(max(k, 1), resamples) - 1]) / n

    return quantile((1 - level) / 2), quantile((1 + level) / 2)


def questions_needed(
    discordance: float, difference: float, *, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """Questions needed to tell two configurations apart with McNemar's test (Connor, 1987).

    ``n = (z₁₋α/₂ · √ψ + z_power · √(ψ − δ²))² / δ²`` with ψ the share of discordant questions and
    δ the coverage difference B − A (``b_only/n − a_only/n``). ``None`` when δ is 0: at no
    difference no number of questions is enough. The formula rests on a normal approximation;
    the exact test is a little more cautious, so at this ``n`` its power is nearer 0.75–0.8.
    """
    if not 0 <= abs(difference) <= discordance <= 1:
        raise StatsError(f"need |difference| ≤ discordance ≤ 1, got {difference}, {discordance}")
    if difference == 0:
        return None
    z_a = NormalDist().inv_cdf(1 - alpha / 2)
    z_b = NormalDist().inv_cdf(power)
    root = z_a * math.sqrt(discordance) + z_b * math.sqrt(max(0.0, discordance - difference**2))
    return math.ceil(root**2 / difference**2 - 1e-9)


def _format_p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


# --------------------------------------------------------------------------- one comparison


@dataclass(frozen=True)
class PairedComparison:
    """A and B on the same ``n`` questions; ``a_only``/``b_only`` name the flipped questions."""

    n: int
    both: int
    """Questions both configurations cover."""
    a_only: tuple[str, ...]
    b_only: tuple[str, ...]
    ci95: tuple[float, float]
    """Bootstrap 95% interval for coverage(B) − coverage(A)."""
    resamples: int = RESAMPLES
    seed: int = SEED
    alpha: float = ALPHA

    def __post_init__(self) -> None:
        if self.n < 1:
            raise StatsError("an A/B needs at least one question")
        if self.both < 0 or self.both + len(self.a_only) + len(self.b_only) > self.n:
            raise StatsError(
                f"{self.both} + {len(self.a_only)} + {len(self.b_only)} questions do not fit "
                f"in {self.n}"
            )
        if set(self.a_only) & set(self.b_only):
            raise StatsError("a question cannot flip both ways")
        lo, hi = self.ci95
        if not -1 <= lo <= hi <= 1:
            raise StatsError(f"the interval must be within [-1, 1] and ordered, got {self.ci95}")
        if not 0 < self.alpha < 1:
            raise StatsError(f"alpha must be between 0 and 1, got {self.alpha}")

    @property
    def neither(self) -> int:
        return self.n - self.both - len(self.a_only) - len(self.b_only)

    @property
    def coverage_a(self) -> float:
        return (self.both + len(self.a_only)) / self.n

    @property
    def coverage_b(self) -> float:
        return (self.both + len(self.b_only)) / self.n

    @property
    def difference(self) -> float:
        """coverage(B) − coverage(A)."""
        return (len(self.b_only) - len(self.a_only)) / self.n

    @property
    def discordance(self) -> float:
        """The share of questions that one configuration covers and the other does not."""
        return (len(self.a_only) + len(self.b_only)) / self.n

    @property
    def p_value(self) -> float:
        return sign_test(len(self.a_only), len(self.b_only))

    @property
    def winner(self) -> Winner | None:
        """ "A" or "B" when the exact test rejects at ``alpha`` and the interval excludes 0."""
        lo, hi = self.ci95
        if self.p_value >= self.alpha or lo <= 0 <= hi:
            return None
        return "B" if lo > 0 else "A"

    @property
    def verdict(self) -> str:
        w = self.winner
        return NO_DIFFERENCE if w is None else f"{w} better ({_format_p(self.p_value)})"

    @property
    def questions_needed(self) -> int | None:
        """At the observed discordance and difference (α = 0.05, power 0.8); ``None`` when the
        two configurations have the same coverage."""
        return questions_needed(self.discordance, self.difference)

    def to_json(self) -> dict[str, Any]:
        return {
            "questions": self.n,
            "coverage_a": self.coverage_a,
            "coverage_b": self.coverage_b,
            "difference": self.difference,
            "flips": {"a_only": list(self.a_only), "b_only": list(self.b_only)},
            "p_value": self.p_value,
            "ci95": list(self.ci95),
            "verdict": self.verdict,
            "winner": self.winner,
            "questions_needed": self.questions_needed,
            "resamples": self.resamples,
            "seed": self.seed,
        }


def _as_bool(x: object, where: str) -> bool:
    """True, False, 1, 0 (or numpy's booleans); anything else is a mistake."""
    if not isinstance(x, str | bytes):
        try:
            if x == 1 or x == 0:
                return bool(x)
        except (TypeError, ValueError):  # an array: not one outcome
            pass
    raise StatsError(f"{where}: an outcome is covered (True) or not (False), got {x!r}")


def compare_paired(
    a: Sequence[bool],
    b: Sequence[bool],
    *,
    ids: Sequence[str] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    alpha: float = ALPHA,
) -> PairedComparison:
    """Compare A and B on the same questions: ``a[i]`` and ``b[i]`` say whether question ``i``
    (named ``ids[i]``, by default its number) is covered under A and under B."""
    if len(a) != len(b):
        raise StatsError(f"A has {len(a)} outcomes and B {len(b)}: pair them by question")
    if len(a) == 0:
        raise StatsError("an A/B needs at least one question")
    names = [str(i) for i in range(len(a))] if ids is None else [str(i) for i in ids]
    if len(names) != len(a) or len(set(names)) != len(names):
        raise StatsError("ids must name each question once")
    pairs = [(_as_bool(x, "A"), _as_bool(y, "B")) for x, y in zip(a, b, strict=True)]
    a_only = tuple(q for q, (x, y) in zip(names, pairs, strict=True) if x and not y)
    b_only = tuple(q for q, (x, y) in zip(names, pairs, strict=True) if y and not x)
    ci = bootstrap_interval(len(a_only), len(b_only), len(a), resamples=resamples, seed=seed)
    return PairedComparison(
        n=len(a),
        both=sum(x and y for x, y in pairs),
        a_only=a_only,
        b_only=b_only,
        ci95=ci,
        resamples=resamples,
        seed=seed,
        alpha=alpha,
    )


def compare_by_question(
    a: Mapping[str, bool],
    b: Mapping[str, bool],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    alpha: float = ALPHA,
) -> PairedComparison:
    """:func:`compare_paired` on outcomes keyed by question id (both must hold the same ids)."""
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))
        raise StatsError(
            f"A and B were run on different questions ({', '.join(map(str, only[:5]))}"
            f"{' …' if len(only) > 5 else ''}); run both on the same query set"
        )
    ids = sorted(a)
    return compare_paired(
        [a[q] for q in ids],
        [b[q] for q in ids],
        ids=ids,
        resamples=resamples,
        seed=seed,
        alpha=alpha,
    )


# --------------------------------------------------------------------------- a sweep


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the adjusted p-values, in the given order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


@dataclass(frozen=True)
class SweepComparison:
    """Every configuration of a sweep against the best one (highest coverage; the first such
    in the given order). ``vs_best[name]`` has A = that configuration and B = the best."""

    best: str
    vs_best: Mapping[str, PairedComparison]
    adjusted_p: Mapping[str, float] = field(default_factory=dict)
    """Holm-adjusted p-values of the comparisons with the best."""
    alpha: float = ALPHA

    def __post_init__(self) -> None:
        if self.best in self.vs_best:
            raise StatsError("the best configuration is not compared with itself")
        if set(self.adjusted_p) != set(self.vs_best):
            raise StatsError("every comparison with the best needs its adjusted p-value")

    def worse(self, name: str) -> bool:
        """Is ``name`` distinguishably worse than the best? (Holm-adjusted test below alpha and
        the interval above zero.)"""
        if name == self.best:
            return False
        c = self.vs_best[name]
        return self.adjusted_p[name] < self.alpha and c.ci95[0] > 0

    @property
    def tied(self) -> tuple[str, ...]:
        """The best and every configuration not distinguishable from it, best first."""
        return (self.best, *(n for n in self.vs_best if not self.worse(n)))

    def to_json(self) -> dict[str, Any]:
        return {
            "best": self.best,
            "tied": list(self.tied),
            "versus_best": {
                name: {
                    **c.to_json(),
                    "p_adjusted": self.adjusted_p[name],
                    "worse": self.worse(name),
                }
                for name, c in self.vs_best.items()
            },
        }


def compare_to_best(
    outcomes: Mapping[str, Sequence[bool]],
    *,
    ids: Sequence[str] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    alpha: float = ALPHA,
) -> SweepComparison:
    """Which configurations of a sweep are not distinguishable from the best?

    ``outcomes[name][i]`` says whether configuration ``name`` covers question ``i``. The best is
    chosen after looking, which flatters it; Holm's correction covers the number of
    comparisons, not that choice, so read "worse" as "worse on these questions".
    """
    if not outcomes:
        raise StatsError("a sweep needs at least one configuration")
    coverage = {name: sum(map(bool, o)) for name, o in outcomes.items()}
    best = max(coverage, key=lambda name: coverage[name])  # the first of equals
    vs_best = {
        name: compare_paired(
            o, outcomes[best], ids=ids, resamples=resamples, seed=seed, alpha=alpha
        )
        for name, o in outcomes.items()
        if name != best
    }
    adjusted = holm([c.p_value for c in vs_best.values()])
    return SweepComparison(
        best=best,
        vs_best=vs_best,
        adjusted_p=dict(zip(vs_best, adjusted, strict=True)),
        alpha=alpha,
    )
