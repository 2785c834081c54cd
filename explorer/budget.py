"""What each hit costs of an answer's token budget, and what the budget (or ``k``) left out.

:func:`budget_use` follows :func:`explorer.answer.answer`'s rule with the corpus's own pieces and
costs (:meth:`~explorer.corpus.Corpus.pieces_in`, :meth:`~explorer.corpus.Corpus.cost_in`), so
its figures are the answer's: hits are taken in rank order; each costs the tokens it *adds* to
its document's context (a hit whose text an earlier hit's piece already holds, or that merges
with it, costs only what is new); the first hit that would pass the budget stops the ranking;
``fill`` then spends what is left on the text around the hits. The app's budget table and the
``budget_use`` field of ``explorer query``'s JSON are both made from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from explorer.answer import Answer, CorpusAnswer
from explorer.corpus import Corpus
from explorer.errors import SettingsError
from explorer.retrieval.context import ContextPiece
from explorer.retrieval.scoring import Hit

Why = Literal["budget", "stopped", "k"]
"""Why a hit was left out: its context would pass the budget (``budget``); it would fit, but the
hit before it did not and the ranking stops at the first that does not (``stopped``); it ranks
below ``k`` (``k``)."""

BELOW = 3
"""How many chunks below the cut a budget's account shows."""


@dataclass(frozen=True)
class BudgetLine:
    """One ranked chunk's part in the budget: taken, or left out and why."""

    rank: int
    doc: str
    index: int
    """The chunk's index in its document."""
    chunk_tokens: int
    """cl100k tokens of the chunk itself."""
    cost: int
    """Tokens it adds (taken) or would add (left out) to the context of the hits taken, with its
    neighbours, section or table header as the configuration widens it, less what is already in."""
    used: int
    """Tokens of the hits' context after it is taken; for a hit left out, before it (what the
    hits taken use)."""
    why: Why | None = None
    """``None``: taken."""

    def __post_init__(self) -> None:
        if self.rank < 1 or self.cost < 0 or self.used < 0 or self.chunk_tokens < 0:
            raise SettingsError(f"a budget line needs a rank ≥ 1 and counts ≥ 0, got {self}")

    @property
    def taken(self) -> bool:
        return self.why is None

    def to_json(self, *, with_doc: bool) -> dict[str, Any]:
        return {
            "rank": self.rank,
            **({"doc": self.doc} if with_doc else {}),
            "chunk": self.index,
            "chunk_tokens": self.chunk_tokens,
            "cost": self.cost,
            "used": self.used,
            "taken": self.taken,
            "left_out": self.why,
        }


@dataclass(frozen=True)
class BudgetUse:
    """An answer's account of its tokens: each hit's cost, the chunks just below the cut, and
    what ``fill`` added."""

    budget: int | None
    k: int | None
    lines: tuple[BudgetLine, ...]
    """The hits taken, then up to :data:`BELOW` chunks left out, in rank order."""
    hits_tokens: int
    """Tokens of the hits' context (before any filling)."""
    tokens: int
    """Tokens the LLM receives (after filling)."""
    documents: int = 1

    @property
    def taken(self) -> tuple[BudgetLine, ...]:
        return tuple(x for x in self.lines if x.taken)

    @property
    def left_out(self) -> tuple[BudgetLine, ...]:
        return tuple(x for x in self.lines if not x.taken)

    @property
    def filled(self) -> int:
        """Tokens ``fill`` spent on the text around the hits."""
        return self.tokens - self.hits_tokens

    @property
    def left(self) -> int | None:
        """Tokens of the budget unspent (``None`` without a budget)."""
        return None if self.budget is None else self.budget - self.tokens

    def to_json(self) -> dict[str, Any]:
        several = self.documents > 1
        return {
            "budget": self.budget,
            "k": self.k,
            "hits_tokens": self.hits_tokens,
            "filled": self.filled,
            "tokens": self.tokens,
            "left": self.left,
            "lines": [x.to_json(with_doc=several) for x in self.lines],
        }


def budget_use(corpus: Corpus, answer: Answer | CorpusAnswer, *, below: int = BELOW) -> BudgetUse:
    """The account of ``answer``'s tokens (see the module). ``corpus`` is the one it was answered
    from; an :class:`Answer` is a corpus of one document's whole answer."""
    if isinstance(answer, CorpusAnswer):
        hits = [(h.doc, h.hit) for h in answer.hits]
        taken = len(answer.hits)
        after = [(h.doc, h.hit) for h in answer.ranking[taken : taken + below]]
        documents = len(answer.documents)
    else:
        if len(corpus.names) != 1:
            raise SettingsError(
                "a document's answer is accounted on a corpus of that one document; "
                "give the corpus's answer instead"
            )
        name = corpus.names[0]
        hits = [(name, h) for h in answer.hits]
        taken = len(answer.hits)
        after = [(name, h) for h in answer.ranking[taken : taken + below]]
        documents = 1
    per: dict[str, list[Hit]] = {}
    costs: dict[str, int] = {}
    spent = 0
    lines: list[BudgetLine] = []
    for doc, h in hits:
        added, trial, cost = _added(corpus, per, costs, doc, h)
        spent += added
        per[doc], costs[doc] = trial, cost
        lines.append(BudgetLine(h.rank, doc, h.index, _own(corpus, doc, h), added, spent))
    by_k = answer.k is not None and taken >= answer.k
    stopped = False
    for doc, h in after:
        added, _, _ = _added(corpus, per, costs, doc, h)
        why: Why
        if answer.budget is None or by_k:
            why = "k"
        elif spent + added > answer.budget:
            why, stopped = "budget", True
        else:
            why = "stopped" if stopped else "budget"
        lines.append(BudgetLine(h.rank, doc, h.index, _own(corpus, doc, h), added, spent, why))
    return BudgetUse(
        budget=answer.budget,
        k=answer.k,
        lines=tuple(lines),
        hits_tokens=spent,
        tokens=answer.tokens,
        documents=documents,
    )


def _added(
    corpus: Corpus, per: dict[str, list[Hit]], costs: dict[str, int], doc: str, h: Hit
) -> tuple[int, list[Hit], int]:
    """What taking ``h`` adds to its document's context: the tokens, its hits, their cost."""
    trial = [*per.get(doc, []), h]
    pieces: Sequence[ContextPiece] = corpus.pieces_in(doc, trial)
    cost = corpus.cost_in(doc, pieces)
    return cost - costs.get(doc, 0), trial, cost


def _own(corpus: Corpus, doc: str, h: Hit) -> int:
    c = corpus.chunks_of(doc)[h.index]
    return corpus.units(doc).size(c.start, c.end)
