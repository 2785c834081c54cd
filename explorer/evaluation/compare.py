"""Comparing two configurations: where their boundaries differ, how deep each evidence phrase
ranks, which questions flip, and every averaged measure side by side.

* **Boundaries.** A chunk *boundary* is the offset where a chunk starts.
  :func:`compare_boundaries` sorts the starts of two chunkings of one document into those only
  in A, only in B and in both.
* **Ranks.** :func:`phrase_ranks` says, for each evidence phrase of a query, how many of the
  top hits it takes before the phrase lies wholly inside the retrieved text — so "covered at k"
  is exactly "every located phrase has a rank of at most k".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.chunking.records import Chunk
from explorer.errors import SettingsError
from explorer.evaluation.coverage import EvalReport, QueryResult
from explorer.evaluation.stats import PairedComparison, compare_by_question
from explorer.retrieval.context import Span


@dataclass(frozen=True)
class Boundaries:
    """Chunk start offsets of two chunkings of one document, sorted into three sets."""

    only_a: tuple[int, ...]
    only_b: tuple[int, ...]
    both: tuple[int, ...]


def chunk_starts(chunks: Iterable[Chunk]) -> tuple[int, ...]:
    """The sorted, distinct offsets where the chunks start."""
    return tuple(sorted({c.start for c in chunks}))


def compare_boundaries(a: Iterable[Chunk], b: Iterable[Chunk]) -> Boundaries:
    """Where chunks start only under A, only under B, and under both."""
    sa, sb = set(chunk_starts(a)), set(chunk_starts(b))
    return Boundaries(
        only_a=tuple(sorted(sa - sb)),
        only_b=tuple(sorted(sb - sa)),
        both=tuple(sorted(sa & sb)),
    )


def _covered_from(span: Span, ranked: Sequence[Span]) -> int | None:
    """The fewest top-ranked spans whose union holds ``span`` whole (``None``: never).

    Touching spans merge, so this is the largest, over the characters of ``span``, of the best
    rank of a span holding that character.
    """
    s, e = span
    best = [0] * (e - s)  # 0: no span holds this character yet
    for rank, (cs, ce) in enumerate(ranked, 1):
        lo, hi = max(cs, s), min(ce, e)
        for p in range(lo - s, hi - s):
            if best[p] == 0:
                best[p] = rank
    if not best or 0 in best:
        return None
    return max(best)


def phrase_ranks(result: QueryResult) -> tuple[int | None, ...]:
    """For each evidence phrase: how many top hits it takes to hold it whole.

    The phrase's best occurrence counts; ``None`` when the phrase was not located (or, rarely,
    no prefix of the ranking holds it, e.g. it spans the white space between two chunks).
    With neighbours, a hit brings its neighbours too, as in the evaluation.
    """
    out: list[int | None] = []
    for occurrences in result.located:
        ranks = [r for r in (_covered_from(o, result.chunk_spans) for o in occurrences) if r]
        out.append(min(ranks) if ranks else None)
    return tuple(out)


def needed_rank(result: QueryResult) -> int | None:
    """The fewest top hits that hold every located phrase (``None``: never, or nothing located).

    ``result.covered_at_k[k]`` is ``needed_rank(result) <= k``.
    """
    ranks = [r for r, occ in zip(phrase_ranks(result), result.located, strict=True) if occ]
    if not ranks or any(r is None for r in ranks):
        return None
    return max(r for r in ranks if r is not None)


def cut_phrases(located: Sequence[Sequence[Span]], chunks: Sequence[Chunk]) -> tuple[bool, ...]:
    """For each phrase: is every occurrence crossed by a boundary (no one chunk holds it)?

    A phrase that was not located is not cut.
    """
    out = []
    for occurrences in located:
        whole = any(c.start <= s and e <= c.end for s, e in occurrences for c in chunks)
        out.append(bool(occurrences) and not whole)
    return tuple(out)


MAX_VALUES = 12
"""The most sizes (or overlaps) one sweep takes: the grid grows as their product."""


def parse_int_list(text: str, *, name: str, minimum: int = 0) -> tuple[int, ...]:
    """``"64, 128, 256"`` or ``"128:512:128"`` (start:stop:step, stop included) as integers.

    Raises :class:`SettingsError` with a message that says what to type.
    """
    values: list[int] = []
    hint = f'write {name} as "128, 256, 512" or as start:stop:step, e.g. "128:512:128"'
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if ":" in part:
                bits = [int(x) for x in part.split(":")]
                if len(bits) != 3 or bits[2] <= 0 or bits[1] < bits[0]:
                    raise ValueError(part)
                values.extend(range(bits[0], bits[1] + 1, bits[2]))
            else:
                values.append(int(part))
        except ValueError:
            raise SettingsError(f"{name}: cannot read {part!r}; {hint}") from None
    if not values:
        raise SettingsError(f"{name}: no values given; {hint}")
    low = min(values)
    if low < minimum:
        raise SettingsError(f"{name}: {low} is below the smallest allowed value, {minimum}")
    if len(set(values)) > MAX_VALUES:
        raise SettingsError(f"{name}: {len(set(values))} values; use at most {MAX_VALUES}")
    return tuple(sorted(set(values)))


def best_cell(
    reports: Sequence[EvalReport], *, k: int | None = None, budget: int | None = None
) -> int:
    """The cell with the highest coverage at ``budget`` tokens (when given) or at ``k``; ties go
    to the cell with the smaller index (fewer tokens), then the earlier one."""
    if not reports:
        raise ValueError("no cells")
    if (k is None) == (budget is None):
        raise ValueError("give k or a budget")

    def coverage(r: EvalReport) -> float:
        if budget is not None:
            return r.coverage_at_budget.get(budget, 0.0)
        assert k is not None
        return r.coverage_at_k.get(k, 0.0)

    return min(
        range(len(reports)),
        key=lambda n: (-coverage(reports[n]), reports[n].index_tokens, n),
    )


def paired(a: EvalReport, b: EvalReport) -> dict[str, PairedComparison]:
    """A against B on the questions both score, at every k (``"k=5"``) and budget
    (``"512 tokens"``) the reports share: flips, the exact paired test, the bootstrap interval
    and the verdict (see :mod:`explorer.evaluation.stats`)."""
    by_id = {r.query.id: r for r in b.results}
    pairs = [(ra, by_id[ra.query.id]) for ra in a.results if ra.query.id in by_id]
    pairs = [(ra, rb) for ra, rb in pairs if ra.scored and rb.scored]
    out: dict[str, PairedComparison] = {}
    for k in (k for k in a.ks if k in b.ks):
        out[f"k={k}"] = compare_by_question(
            {ra.query.id: ra.covered_at_k[k] for ra, _ in pairs},
            {rb.query.id: rb.covered_at_k[k] for _, rb in pairs},
        )
    for budget in (x for x in a.budgets if x in b.budgets):
        out[f"{budget} tokens"] = compare_by_question(
            {ra.query.id: ra.covered_at_budget[budget] for ra, _ in pairs},
            {rb.query.id: rb.covered_at_budget[budget] for _, rb in pairs},
        )
    return out
