"""A/B statistics against brute-force references: the exact test by enumeration in fractions,
the bootstrap interval against the exact bootstrap distribution and a slow bootstrap, the
sample size against the exact power it promises."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.evaluation.stats import (
    NO_DIFFERENCE,
    PairedComparison,
    StatsError,
    bootstrap_interval,
    compare_by_question,
    compare_paired,
    compare_to_best,
    holm,
    questions_needed,
    sign_test,
)


def outcomes(a_only: int, b_only: int, both: int, neither: int) -> tuple[list[bool], list[bool]]:
    a = [True] * a_only + [False] * b_only + [True] * both + [False] * neither
    b = [False] * a_only + [True] * b_only + [True] * both + [False] * neither
    return a, b


# --------------------------------------------------------------------------- the exact test


def enumerated_p(a_only: int, b_only: int) -> Fraction:
    """Every way the discordant questions could have fallen, each as likely under "no
    difference": the share at least as far from an even split as the one observed."""
    d = a_only + b_only
    far = abs(Fraction(b_only) - Fraction(d, 2))
    hits = sum(abs(sum(s) - Fraction(d, 2)) >= far for s in itertools.product((0, 1), repeat=d))
    return Fraction(hits, 2**d)


def binomial_p(a_only: int, b_only: int) -> Fraction:
    """The same sum over binomial(d, 1/2) outcomes, exactly, for larger ``d``."""
    d = a_only + b_only
    far = abs(Fraction(b_only) - Fraction(d, 2))
    hits = sum(math.comb(d, i) for i in range(d + 1) if abs(i - Fraction(d, 2)) >= far)
    return Fraction(hits, 2**d)


@given(a_only=st.integers(0, 7), b_only=st.integers(0, 7))
def test_sign_test_equals_enumerating_every_outcome(a_only: int, b_only: int) -> None:
    assert sign_test(a_only, b_only) == pytest.approx(
        float(enumerated_p(a_only, b_only)), rel=1e-12
    )


@given(a_only=st.integers(0, 300), b_only=st.integers(0, 300))
def test_sign_test_equals_the_exact_binomial_sum(a_only: int, b_only: int) -> None:
    p = sign_test(a_only, b_only)
    assert p == pytest.approx(float(binomial_p(a_only, b_only)), rel=1e-12, abs=1e-300)
    assert p == sign_test(b_only, a_only)
    assert (p == 1.0) == (abs(a_only - b_only) <= 1)


def test_sign_test_golden_values() -> None:
    assert sign_test(0, 0) == 1.0  # no discordant question: nothing to tell them apart
    assert sign_test(0, 5) == 2 / 32
    assert sign_test(2, 10) == 2 * (1 + 12 + 66) / 4096
    with pytest.raises(StatsError, match="whole numbers"):
        sign_test(-1, 3)
    with pytest.raises(StatsError, match="whole numbers"):
        sign_test(True, 3)


# --------------------------------------------------------------------------- the interval


def exact_bootstrap_cdf(a_only: int, b_only: int, n: int) -> dict[int, Fraction]:
    """P(S ≤ s) for S = (B-only) − (A-only) questions in a resample of ``n`` questions drawn
    with replacement: the bootstrap with infinitely many resamples, in fractions."""
    pa, pb = Fraction(a_only, n), Fraction(b_only, n)
    p0 = 1 - pa - pb
    pmf: dict[int, Fraction] = {}
    for i in range(n + 1):  # i A-only questions, j B-only questions
        for j in range(n + 1 - i):
            ways = math.comb(n, i) * math.comb(n - i, j)
            pr = ways * pa**i * pb**j * p0 ** (n - i - j)
            if pr:
                pmf[j - i] = pmf.get(j - i, Fraction(0)) + pr
    cdf, total = {}, Fraction(0)
    for s in range(-n, n + 1):
        total += pmf.get(s, Fraction(0))
        cdf[s] = total
    return cdf


def is_quantile(cdf: dict[int, Fraction], s: int, q: float, eps: float) -> bool:
    """``s`` is the ``q`` quantile of the exact distribution, up to ``eps`` of probability: at
    least ``q`` lies at or below it, and less than ``q`` below it."""
    below = cdf.get(s - 1, Fraction(0))
    return float(cdf[s]) >= q - eps and float(below) <= q + eps


@given(data=st.data(), n=st.integers(1, 30))
def test_the_interval_is_the_exact_bootstrap_quantiles(data: st.DataObject, n: int) -> None:
    """With 10,000 resamples each end lies where the exact bootstrap distribution puts 2.5% and
    97.5% of its mass, to within 0.01 (six standard errors of a Monte Carlo share)."""
    a_only = data.draw(st.integers(0, n))
    b_only = data.draw(st.integers(0, n - a_only))
    lo, hi = bootstrap_interval(a_only, b_only, n, seed=data.draw(st.integers(0, 2**32)))
    cdf = exact_bootstrap_cdf(a_only, b_only, n)
    s_lo, s_hi = round(lo * n), round(hi * n)
    assert is_quantile(cdf, s_lo, 0.025, 0.01) and is_quantile(cdf, s_hi, 0.975, 0.01)
    assert lo <= (b_only - a_only) / n <= hi, "the interval holds the observed difference"


def slow_bootstrap(
    a: list[bool], b: list[bool], *, resamples: int, seed: int
) -> tuple[float, float]:
    """The textbook paired bootstrap: resample questions, one by one, in pure Python."""
    rng = random.Random(seed)
    n = len(a)
    d = [int(y) - int(x) for x, y in zip(a, b, strict=True)]
    sums = sorted(sum(d[rng.randrange(n)] for _ in range(n)) for _ in range(resamples))
    return sums[math.ceil(0.025 * resamples) - 1] / n, sums[math.ceil(0.975 * resamples) - 1] / n


@pytest.mark.parametrize(("a_only", "b_only", "both", "neither"), [(3, 8, 15, 4), (0, 4, 20, 1),
                                                                   (10, 10, 5, 15)])  # fmt: skip
def test_resampling_counts_is_resampling_questions(
    a_only: int, b_only: int, both: int, neither: int
) -> None:
    """The fast interval draws how many questions of each kind a resample holds; the slow one
    draws the questions. Both land on the exact bootstrap quantiles."""
    a, b = outcomes(a_only, b_only, both, neither)
    n = len(a)
    cdf = exact_bootstrap_cdf(a_only, b_only, n)
    slow = slow_bootstrap(a, b, resamples=4000, seed=7)
    fast = compare_paired(a, b).ci95
    for lo, hi in (slow, fast):
        assert is_quantile(cdf, round(lo * n), 0.025, 0.01)
        assert is_quantile(cdf, round(hi * n), 0.975, 0.01)
    assert abs(slow[0] - fast[0]) <= 2 / n and abs(slow[1] - fast[1]) <= 2 / n


def test_the_interval_covers_the_true_difference_about_95_times_in_100() -> None:
    """Questions drawn from a known population (10% A only, 15% B only: B − A = 0.05), 200 a
    set, 400 sets: the share of intervals holding 0.05 is near 95%."""
    rng = np.random.default_rng(1)
    held = 0
    for rep in range(400):
        kinds = rng.choice(3, size=200, p=[0.10, 0.15, 0.75])  # A only, B only, tie
        lo, hi = bootstrap_interval(int((kinds == 0).sum()), int((kinds == 1).sum()), 200, seed=rep)
        held += lo <= 0.05 <= hi
    assert 0.91 <= held / 400 <= 0.985


def test_the_interval_is_reproducible_and_its_seed_matters() -> None:
    assert bootstrap_interval(7, 12, 61, seed=3) == bootstrap_interval(7, 12, 61, seed=3)
    ends = {bootstrap_interval(7, 12, 61, seed=s, resamples=200) for s in range(20)}
    assert len(ends) > 1
    with pytest.raises(StatsError, match="resamples"):
        bootstrap_interval(1, 1, 5, resamples=0)
    with pytest.raises(StatsError, match="do not fit"):
        bootstrap_interval(4, 4, 5)


# --------------------------------------------------------------------------- verdicts


@given(st.lists(st.booleans(), min_size=1, max_size=120))
def test_a_configuration_against_itself_is_no_detectable_difference(covered: list[bool]) -> None:
    c = compare_paired(covered, covered)
    assert c.p_value == 1.0 and c.ci95 == (0.0, 0.0)
    assert c.verdict == NO_DIFFERENCE and c.winner is None and c.questions_needed is None
    assert c.a_only == c.b_only == () and c.difference == 0.0


@given(
    a=st.integers(0, 40), b=st.integers(0, 40), both=st.integers(0, 40), neither=st.integers(0, 9)
)
def test_the_verdict_names_a_side_only_when_test_and_interval_agree(
    a: int, b: int, both: int, neither: int
) -> None:
    xs, ys = outcomes(a, b, both, neither)
    if not xs:
        return
    c = compare_paired(xs, ys)
    assert (len(c.a_only), len(c.b_only), c.both, c.neither) == (a, b, both, neither)
    lo, hi = c.ci95
    if c.winner is None:
        assert c.verdict == NO_DIFFERENCE
        assert c.p_value >= 0.05 or lo <= 0 <= hi
    else:
        assert c.p_value < 0.05 and not lo <= 0 <= hi
        assert c.winner == ("B" if b > a else "A")
        assert c.verdict.startswith(f"{c.winner} better (p ")
    mirrored = compare_paired(ys, xs)
    assert mirrored.p_value == c.p_value
    assert mirrored.difference == -c.difference


def test_verdicts_on_sixty_questions() -> None:
    a, b = outcomes(0, 15, 30, 15)
    c = compare_paired(a, b)
    assert c.verdict == "B better (p < 0.001)" and c.ci95[0] > 0
    a, b = outcomes(10, 2, 30, 18)
    assert compare_paired(a, b).verdict == "A better (p = 0.039)"
    # five flips, all one way: the interval excludes zero, the exact test does not reject
    # (p = 2/32); the cautious one wins
    a, b = outcomes(0, 5, 40, 15)
    c = compare_paired(a, b)
    assert c.ci95[0] > 0 and c.p_value == 0.0625
    assert c.verdict == NO_DIFFERENCE
    assert c.questions_needed == questions_needed(5 / 60, 5 / 60) and c.questions_needed > 60


def test_the_json_form() -> None:
    c = compare_by_question(
        {"q1": True, "q2": False, "q3": True, "q4": False},
        {"q1": True, "q2": True, "q3": False, "q4": False},
    )
    out = c.to_json()
    assert out["flips"] == {"a_only": ["q3"], "b_only": ["q2"]}
    assert (out["p_value"], out["verdict"], out["ci95"][0] <= 0 <= out["ci95"][1]) == (
        1.0,
        NO_DIFFERENCE,
        True,
    )
    assert (out["coverage_a"], out["coverage_b"], out["difference"]) == (0.5, 0.5, 0.0)
    assert out["questions_needed"] is None and out["questions"] == 4


def test_bad_outcomes_are_refused() -> None:
    with pytest.raises(StatsError, match="pair them"):
        compare_paired([True], [True, False])
    with pytest.raises(StatsError, match="at least one question"):
        compare_paired([], [])
    with pytest.raises(StatsError, match="covered"):
        compare_paired([True, 0.5], [True, True])  # type: ignore[list-item]
    with pytest.raises(StatsError, match="covered"):
        compare_paired(["yes"], [True])  # type: ignore[list-item]
    with pytest.raises(StatsError, match="different questions"):
        compare_by_question({"q1": True}, {"q2": True})
    with pytest.raises(StatsError, match="once"):
        compare_paired([True, True], [True, True], ids=["q", "q"])
    with pytest.raises(StatsError, match="flip both ways"):
        PairedComparison(n=2, both=0, a_only=("q",), b_only=("q",), ci95=(0.0, 0.0))
    assert compare_paired(np.array([True, False]), np.array([1, 0])).p_value == 1.0  # type: ignore[arg-type]


# --------------------------------------------------------------------------- questions needed


def exact_power(n: int, discordance: float, difference: float) -> float:
    """The chance that the exact test rejects at 0.05 on ``n`` questions, if a question is
    discordant with probability ψ and, when it is, favours B with probability (ψ + δ) / 2ψ."""
    q = (discordance + difference) / (2 * discordance)
    power = 0.0
    for d in range(n + 1):
        p_d = math.comb(n, d) * discordance**d * (1 - discordance) ** (n - d)
        if p_d < 1e-15:
            continue
        for b in range(d + 1):
            if sign_test(d - b, b) < 0.05:
                power += p_d * math.comb(d, b) * q**b * (1 - q) ** (d - b)
    return power


def test_questions_needed_by_the_formula() -> None:
    # (1.959964·√0.2 + 0.841621·√0.19)² / 0.01 = 154.6…
    assert questions_needed(0.2, 0.1) == 155
    assert questions_needed(0.2, -0.1) == 155
    assert questions_needed(0.1, 0.0) is None
    with pytest.raises(StatsError, match="difference"):
        questions_needed(0.1, 0.2)


@pytest.mark.parametrize(("discordance", "difference"), [(0.2, 0.1), (0.15, 0.1), (0.3, -0.08)])
def test_questions_needed_give_the_exact_test_about_80_percent_power(
    discordance: float, difference: float
) -> None:
    n = questions_needed(discordance, difference)
    assert n is not None
    assert 0.7 <= exact_power(n, discordance, difference) <= 0.9
    assert exact_power(n // 2, discordance, difference) < 0.7


# --------------------------------------------------------------------------- a sweep


def test_holm_against_a_worked_example() -> None:
    # sorted 0.01, 0.03, 0.04 → 3·0.01, max(0.03, 2·0.03), max(0.06, 1·0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([]) == [] and holm([0.5]) == [0.5] and holm([0.6, 0.7]) == [1.0, 1.0]


def test_a_sweep_marks_what_is_not_distinguishable_from_the_best() -> None:
    close, best = outcomes(0, 3, 45, 12)  # close: 45 of 60; best: 48 of 60
    far = [True] * 25 + [False] * 35
    sweep = compare_to_best({"close": close, "best": best, "far": far, "same": best})
    assert sweep.best == "best"
    assert sweep.tied == ("best", "close", "same")
    assert sweep.worse("far") and not sweep.worse("close") and not sweep.worse("same")
    assert sweep.vs_best["far"].winner == "B"
    ps = [sweep.vs_best[n].p_value for n in ("close", "far", "same")]
    assert [sweep.adjusted_p[n] for n in ("close", "far", "same")] == pytest.approx(holm(ps))
    out = sweep.to_json()
    assert out["tied"] == ["best", "close", "same"] and out["versus_best"]["far"]["worse"]


def test_holm_keeps_a_chance_difference_from_counting() -> None:
    """Alone, 12 flips against 2 rejects (p = 0.013); among five comparisons it does not."""
    best = [True] * 50 + [False] * 10
    worse = [False] * 12 + [True] * 38 + [True] * 2 + [False] * 8
    others = {f"same{i}": best for i in range(4)}
    assert compare_paired(worse, best).winner == "B"
    sweep = compare_to_best({"best": best, "worse": worse, **others})
    assert not sweep.worse("worse") and "worse" in sweep.tied
