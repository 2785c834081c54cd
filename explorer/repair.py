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
    now = workspace.ask(
        doc, question, evidence, config=config, k=k, budget=budget, edits=tuple(edits)
    )
    if now.verdict is None or now.complete:
        return None
    d = workspace.document(doc)
    chunks = workspace.chunks(d, config, edits=edits)
    for tried in (candidates(d, chunks, now), crowding(now)):
        best: Repair | None = None
        for edit in tried:
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
    return None
