"""What a query set's answers reach, and what they keep reaching for: per document, the text no
question's context holds, and the chunks that turn up for many questions they do not answer.

Read from an :class:`~explorer.evaluation.coverage.EvalReport`, in either scope, at one ``k``
(default: the report's largest) or one token budget:

* *never retrieved*: the stretches of a document outside the context of every question that
  searched it (its own questions in document scope; every question in corpus scope), trimmed of
  white space, white-space-only stretches left out. ``never_fraction`` is their share of the
  document's text that is not white space (white space is neither reached nor missed: a page
  no question reaches is 100% never reached, whatever new lines end it). Text here cannot be
  the answer to any question of the set: either no question asks about it (the set is thin
  there) or retrieval never finds it (then it is worth a look).
* *always retrieved*: chunks among the hits of at least :data:`MIN_QUESTIONS` scored questions
  *and* of at least :data:`MIN_SHARE` of the scored questions that searched the document, counting
  only questions whose evidence the chunk does not overlap (*unrelated*). Such a chunk takes a
  place in the context of questions it does not answer — a table of contents, a glossary, a
  boilerplate paragraph that shares the words of every question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.errors import SettingsError
from explorer.retrieval.context import Span, union

if TYPE_CHECKING:
    from explorer.evaluation.coverage import EvalReport, QueryResult
    from explorer.workspace import Workspace

MIN_QUESTIONS = 3
"""A chunk is *always retrieved* when it is a hit of at least this many unrelated questions …"""
MIN_SHARE = 0.1
"""… and of at least this share of the scored questions that searched its document."""


@dataclass(frozen=True)
class FrequentChunk:
    """A chunk that many questions retrieve, most of them for nothing."""

    id: str
    index: int
    start: int
    end: int
    questions: int
    """Scored questions with it among their hits."""
    unrelated: int
    """Of those, the questions whose evidence it does not overlap."""

    def __post_init__(self) -> None:
        if not 0 <= self.unrelated <= self.questions:
            raise ValueError("unrelated questions are some of the questions")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "questions": self.questions,
            "unrelated": self.unrelated,
        }


@dataclass(frozen=True)
class DocumentReach:
    """One document's never-retrieved text and always-retrieved chunks over a query set."""

    doc: str
    length: int
    """Characters of the document text."""
    questions: int
    """Questions that searched it (scored or not)."""
    never: tuple[Span, ...]
    """Stretches no question's context reaches, in text order."""
    always: tuple[FrequentChunk, ...]
    """Chunks retrieved for many unrelated questions, most unrelated first."""

    content: int | None = None
    """Characters of the document text that are not white space (``None``: take ``length``)."""
    never_content: int | None = None
    """Of those, the characters in :attr:`never` (``None``: take the stretches' lengths)."""

    @property
    def never_fraction(self) -> float:
        """The share of the document's text (white space aside) in :attr:`never`."""
        total = self.length if self.content is None else self.content
        never = (
            sum(e - s for s, e in self.never) if self.never_content is None else self.never_content
        )
        return never / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "questions": self.questions,
            "never": [list(sp) for sp in self.never],
            "never_fraction": round(self.never_fraction, 4),
            "always": [c.to_json() for c in self.always],
        }


def _reached(
    r: QueryResult, k: int | None, budget: int | None
) -> tuple[list[tuple[str, Span]], list[tuple[str, int]]]:
    """One question's context and hits as ``(doc, span)`` and ``(doc, chunk index)``."""
    if budget is not None:
        whole, own = r.corpus_at_budget.get(budget), r.at_budget[budget]
    else:
        assert k is not None
        whole, own = r.corpus_at_k.get(k), r.at_k[k]
    if whole is not None:
        return [(d, (s, e)) for d, s, e in whole.context], [(h.doc, h.index) for h in whole.hits]
    name = r.query.doc
    return [(name, sp) for sp in own.context], [(name, h.index) for h in own.hits]


def never_reached(text: str, context: list[Span]) -> tuple[Span, ...]:
    """The stretches of ``text`` outside ``context``, trimmed of white space (none left empty)."""
    out = []
    at = 0
    for s, e in [*union(context), (len(text), len(text))]:
        a, b = at, max(at, s)
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
        at = max(at, e)
    return tuple(out)


_SPACE = re.compile(r"\s+")


def _content(text: str) -> int:
    """Characters of ``text`` that are not white space."""
    return len(text) - sum(len(m) for m in _SPACE.findall(text))


def retrieval_map(
    report: EvalReport,
    workspace: Workspace,
    *,
    k: int | None = None,
    budget: int | None = None,
    min_questions: int = MIN_QUESTIONS,
    min_share: float = MIN_SHARE,
) -> dict[str, DocumentReach]:
    """Each searched document's reach at ``k`` hits (default: the report's largest k) or, given
    instead, at a token ``budget`` of the report (see the module). ``workspace`` is the one the
    report was made in (for the texts and chunks)."""
    if k is not None and budget is not None:
        raise SettingsError("give a k or a token budget for the retrieval map, not both")
    if budget is None:
        k = max(report.ks) if k is None else k
        if k not in report.ks:
            raise SettingsError(f"the report has no answers at k={k}; it has {list(report.ks)}")
    elif budget not in report.budgets:
        raise SettingsError(
            f"the report has no answers at a budget of {budget}; it has {list(report.budgets)}"
        )
    corpus = report.scope == "corpus"
    names = report.documents or tuple(dict.fromkeys(r.query.doc for r in report.results))
    context: dict[str, list[Span]] = {n: [] for n in names}
    asked = dict.fromkeys(names, 0)
    scored = dict.fromkeys(names, 0)
    seen: dict[tuple[str, int], list[bool]] = {}  # per chunk: each question's "unrelated"
    chunks = {n: workspace.chunks(n, report.config) for n in names}
    for r in report.results:
        searched = names if corpus else (r.query.doc,)
        for n in searched:
            asked[n] += 1
            scored[n] += r.scored
        spans, hits = _reached(r, k, budget)
        for d, sp in spans:
            context.setdefault(d, []).append(sp)
        if not r.scored:
            continue
        evidence = [o for occ in r.located for o in occ]
        for d, i in hits:
            c = chunks[d][i]
            related = d == r.query.doc and any(s < c.end and c.start < e for s, e in evidence)
            seen.setdefault((d, i), []).append(not related)
    out: dict[str, DocumentReach] = {}
    for n in names:
        text = workspace.document(n).text
        floor = max(min_questions, math.ceil(min_share * scored[n]))
        always = []
        for (d, i), flags in seen.items():
            if d == n and sum(flags) >= floor:
                c = chunks[n][i]
                always.append(FrequentChunk(c.id, i, c.start, c.end, len(flags), sum(flags)))
        always.sort(key=lambda c: (-c.unrelated, c.index))
        never = never_reached(text, context[n])
        out[n] = DocumentReach(
            doc=n,
            length=len(text),
            questions=asked[n],
            never=never,
            always=tuple(always),
            content=_content(text),
            never_content=sum(_content(text[s:e]) for s, e in never),
        )
    return out


def retrieval_map_json(
    reach: Mapping[str, DocumentReach],
    *,
    k: int | None,
    budget: int | None,
    min_questions: int = MIN_QUESTIONS,
    min_share: float = MIN_SHARE,
) -> dict[str, Any]:
    """The map as JSON: where it was read (``k`` or ``budget``), the rule for "always", and
    each document's reach under ``documents``."""
    return {
        "k": k,
        "budget": budget,
        "always_rule": {"min_questions": min_questions, "min_share": min_share},
        "documents": {n: d.to_json() for n, d in reach.items()},
    }
