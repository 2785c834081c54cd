"""Suggest a repair: the smallest what-if edit that makes a missed answer complete.

When the evidence of a question is not all in the retrieved context — typically because its
phrases fall in different chunks, or a phrase is cut by a boundary — one edit to the chunking
often mends it: merging the chunk that holds the missing phrase with its neighbour, or splitting
a long chunk so the phrase is in a smaller, better-ranked one. :func:`suggest_repair` tries the
few edits near the evidence, each through the one answer path (:meth:`Workspace.ask`), and
returns the one that makes the verdict complete at the smallest cost in context tokens::

    repair = suggest_repair(ws, "refund-policy.md", question, evidence, config=cfg, k=2)
    if repair is not None:
        print(repair.sentence())   # "merge chunk 3 with the next: complete, +83 tokens ..."
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.answer import DEFAULT_K, Answer
from explorer.chunking.edits import Edit, snap
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import EditError

if TYPE_CHECKING:
    from explorer.workspace import Workspace

MAX_TRIES = 12
"""Candidate edits tried at most (each is one answer)."""


@dataclass(frozen=True)
class Repair:
    """One edit that makes the verdict complete, and what the context then costs."""

    edit: Edit
    tokens_before: int
    """cl100k tokens of the context without the edit."""
    tokens_after: int
    """cl100k tokens of the context with it."""
    answer: Answer
    """The answer with the edit applied."""

    @property
    def cost(self) -> int:
        """Tokens the context gains (negative: it shrinks)."""
        return self.tokens_after - self.tokens_before

    def sentence(self) -> str:
        sign = "+" if self.cost >= 0 else "−"
        return (
            f"{self.edit.describe()}: complete, {sign}{abs(self.cost):,} tokens of context "
            f"({self.tokens_after:,} in all)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "edit": self.edit.to_json(),
            "description": self.edit.describe(),
            "cost_tokens": self.cost,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
        }


def candidates(doc: Document, chunks: Sequence[Chunk], answer: Answer) -> list[Edit]:
    """The edits worth trying for ``answer``'s missing evidence, most promising first: merges of
    the chunks holding (or cutting) a missing phrase with their neighbours, then splits of a
    chunk holding one at the sentence ends nearest it (see :func:`crowding` for drops)."""
    n = len(chunks)
    hits = [h.index for h in answer.hits]
    merges: list[int] = []
    splits: list[int] = []
    for e in answer.evidence:
        if not e.found or e.covered:
            continue
        held = list(e.chunk_indices)
        if not held:  # cut by a boundary: the chunks each occurrence touches
            for s, end in e.spans[:3]:
                touched = [c.index for c in chunks if c.start < end and s < c.end]
                if len(touched) >= 2:
                    merges.extend(range(touched[0], touched[-1]))
            continue
        for m in held[:3]:
            near = sorted(hits, key=lambda h: abs(h - m))
            if near and near[0] < m:
                merges.append(m - 1)
            elif near and near[0] > m:
                merges.append(m)
            merges.extend([m - 1, m])
            span = next((sp for sp in e.spans if chunks[m].start <= sp[0] < chunks[m].end), None)
            if span is not None:
                for at in (span[0], span[1]):
                    p = snap(doc, chunks, m, at)
                    if p is not None:
                        splits.append(p)
    out: list[Edit] = []
    for i in merges:
        edit = Edit("merge", i) if 0 <= i < n - 1 else None
        if edit is not None and edit not in out:
            out.append(edit)
    for p in splits:
        edit = Edit("split", p)
        if edit not in out:
            out.append(edit)
    return out[:MAX_TRIES]


def crowding(answer: Answer) -> list[Edit]:
    """Drops worth trying when no merge or split mends ``answer``: each hit that holds no
    evidence phrase takes a place (of the top k, or of the budget) that a missing one needs."""
    holding = {i for e in answer.evidence for i in e.chunk_indices}
    return [Edit("drop", h.index) for h in answer.hits if h.index not in holding][:MAX_TRIES]


def suggest_repair(
    workspace: Workspace,
    doc: str | Document,
    question: str,
    evidence: Sequence[str],
    *,
    config: Config,
    edits: Sequence[Edit] = (),
    k: int | None = DEFAULT_K,
    budget: int | None = None,
) -> Repair | None:
    """The one edit (after ``edits``) that makes the answer to ``question`` complete at the
    smallest cost in context tokens, or ``None`` when the answer is complete already, has no
    evidence, or no single edit near the evidence mends it. Merges and splits are tried first;
    dropping a hit that crowds the evidence out is suggested only when none of them works (it
    takes text out of the index for every question)."""
    found = repair_or_move(
        workspace, doc, question, evidence, config=config, edits=edits, k=k, budget=budget,
        moves=False,
    )  # fmt: skip
    return found if isinstance(found, Repair) else None


def repair_or_move(
    workspace: Workspace,
    doc: str | Document,
    question: str,
    evidence: Sequence[str],
    *,
    config: Config,
    edits: Sequence[Edit] = (),
    k: int | None = DEFAULT_K,
    budget: int | None = None,
    moves: bool = True,
) -> Repair | NoRepair | None:
    """As :func:`suggest_repair`; where no single edit mends the answer, what was tried and
    (with ``moves``) the next move that completes it, each checked by answering with it."""
    now = workspace.ask(
        doc, question, evidence, config=config, k=k, budget=budget, edits=tuple(edits)
    )
    if now.verdict is None or now.complete:
        return None
    d = workspace.document(doc)
    chunks = workspace.chunks(d, config, edits=edits)
    tried: list[Edit] = []
    for edits_to_try in (candidates(d, chunks, now), crowding(now)):
        best: Repair | None = None
        for edit in edits_to_try:
            tried.append(edit)
            try:
                after = workspace.ask(
                    doc, question, evidence, config=config, k=k, budget=budget,
                    edits=(*edits, edit),
                )  # fmt: skip
            except EditError:
                continue
            if not after.complete:
                continue
            repair = Repair(edit, now.tokens, after.tokens, after)
            if best is None or repair.cost < best.cost:
                best = repair
        if best is not None:
            return best
    move = None
    if moves:
        for candidate in next_moves(now, config=config, total=len(d.text)):
            after = workspace.ask(
                doc, question, evidence, config=candidate.config, k=candidate.k,
                budget=candidate.budget, edits=tuple(edits),
            )  # fmt: skip
            if after.complete:
                move = dataclasses.replace(candidate, answer=after)
                break
    return NoRepair(tuple(tried), move, now)


@dataclass(frozen=True)
class Move:
    """A change of k, the token budget or a setting, with the answer it gives."""

    description: str
    """``"raise k to 5"``, ``"raise the budget to 1,024 tokens"``, ``"turn on Fill to budget"``."""
    k: int | None
    budget: int | None
    config: Config
    answer: Answer | None = None
    """The answer under the move (set once it was checked)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "k": self.k,
            "budget": self.budget,
            "config": self.config.to_json(),
            "checked": self.answer is not None and self.answer.complete,
            "tokens": None if self.answer is None else self.answer.tokens,
        }


@dataclass(frozen=True)
class NoRepair:
    """No single edit completes the answer: the edits tried, and the next move that does
    (``None``: none of the moves tried does)."""

    tried: tuple[Edit, ...]
    move: Move | None
    answer: Answer
    """The answer as it is (incomplete)."""

    def sentence(self) -> str:
        merges = sum(e.kind == "merge" for e in self.tried)
        splits = sum(e.kind == "split" for e in self.tried)
        drops = sum(e.kind == "drop" for e in self.tried)
        parts = [
            f"{n} {word}{'s' if n != 1 else ''}"
            for n, word in ((merges, "merge"), (splits, "split"), (drops, "drop"))
            if n
        ]
        what = f"tried {_and(parts)} near the evidence" if parts else "no edit near it to try"
        out = f"No single edit completes it ({what})."
        if self.move is None:
            return out + " Neither does raising k, the budget, or widening the hits."
        tokens = self.move.answer.tokens if self.move.answer is not None else 0
        return out + f" What does: {self.move.description} (checked: complete, {tokens:,} tokens)."

    def to_json(self) -> dict[str, Any]:
        return {
            "edit": None,
            "description": self.sentence(),
            "single_edit": False,
            "tried": [e.to_json() for e in self.tried],
            "next_move": None if self.move is None else self.move.to_json(),
        }


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


BUDGET_STEPS = 6
"""How many doublings of the budget are tried at most."""


def next_moves(answer: Answer, *, config: Config, total: int) -> list[Move]:
    """The moves worth checking for an incomplete ``answer``, least change first: k raised to
    the rank its missing evidence needs, the budget raised (doubled, then lifted), both; then
    filling the budget, one neighbour each side, the whole section (``total``: characters of
    the document, which bound the budgets worth trying)."""
    k, budget = answer.k, answer.budget
    needed = max(
        (e.reached_at or e.best_rank or 0 for e in answer.evidence if e.found and not e.covered),
        default=0,
    )
    out: list[Move] = []
    new_k = needed if k is not None and needed > k else None
    budgets: list[int | None] = []
    if budget is not None:
        step = budget
        for _ in range(BUDGET_STEPS):
            step *= 2
            budgets.append(step)
            if step > total:  # a token is at least a character: past the whole document
                break
        budgets.append(None)
    if new_k is not None:
        out.append(Move(f"raise k to {new_k}", new_k, budget, config))
    for b in budgets:
        what = "lift the budget" if b is None else f"raise the budget to {b:,} tokens"
        out.append(Move(what, k, b, config))
    if new_k is not None:
        for b in budgets:
            what = "lift the budget" if b is None else f"the budget to {b:,} tokens"
            out.append(Move(f"raise k to {new_k} and {what}", new_k, b, config))
    if budget is not None and not config.fill:
        out.append(Move("turn on Fill to budget", k, budget, config.replace(fill=True)))
    if not config.section and config.neighbours < 1:
        out.append(Move("widen each hit by one neighbour", k, budget, config.replace(neighbours=1)))
    if not config.section:
        out.append(Move("widen each hit to its section", k, budget, config.replace(section=True)))
    return out
