"""The gap between the two scopes, question by question: covered when each question ranks only
its own document, and when it competes with the whole corpus — and, where the corpus loses it,
which sibling documents took the places of the right one (crowding: no anchor or boundary
shows it; only the corpus's ranking does)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from explorer.evaluation.coverage import EvalReport


@dataclass(frozen=True)
class ScopeGap:
    """One question in both scopes at ``k``: covered in each, and the other documents among the
    corpus's top k (each with how many of those hits it holds, most first)."""

    id: str
    doc: str
    query: str
    k: int
    in_document: bool
    in_corpus: bool
    crowding: tuple[tuple[str, int], ...]

    @property
    def lost(self) -> bool:
        """Covered on its own document, missed in the corpus: the siblings crowded it out."""
        return self.in_document and not self.in_corpus

    def crowding_text(self, *, most: int = 3) -> str:
        """The siblings in the corpus's top k, as a line (``""`` when there are none)."""
        shown = [f"{doc} ({n})" for doc, n in self.crowding[:most]]
        if len(self.crowding) > most:
            shown.append(f"+{len(self.crowding) - most} more")
        return ", ".join(shown)


def scope_gaps(corpus: EvalReport, document: EvalReport, *, k: int) -> list[ScopeGap]:
    """Each question of two reports of one query set (one in corpus scope, with its whole
    answers; one in document scope), in the corpus report's order, lost ones first."""
    if corpus.scope != "corpus" or document.scope != "document":
        raise ValueError("scope_gaps takes a corpus-scope report and a document-scope report")
    alone = {r.query.id: r for r in document.results}
    gaps = []
    for r in corpus.results:
        own = alone.get(r.query.id)
        if own is None or not r.scored:
            continue
        whole = r.corpus_at_k.get(k)
        others = Counter(h.doc for h in (whole.hits if whole is not None else ()))
        others.pop(r.query.doc, None)
        gaps.append(
            ScopeGap(
                id=r.query.id,
                doc=r.query.doc,
                query=r.query.query,
                k=k,
                in_document=own.covered_at_k[k],
                in_corpus=r.covered_at_k[k],
                crowding=tuple(sorted(others.items(), key=lambda x: (-x[1], x[0]))),
            )
        )
    return sorted(gaps, key=lambda g: not g.lost)


def gap_json(gaps: list[ScopeGap]) -> list[dict[str, Any]]:
    """The gaps as JSON rows."""
    return [
        {
            "id": g.id,
            "doc": g.doc,
            "covered_document_scope": g.in_document,
            "covered_corpus_scope": g.in_corpus,
            "crowded_by": [{"doc": d, "hits": n} for d, n in g.crowding],
        }
        for g in gaps
    ]
