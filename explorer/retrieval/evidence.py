"""The evidence check: do the retrieved chunks hold the phrases the answer needs?

A phrase is *located* in the document text ignoring case, white space and the joins the
project inserts itself: a line break in the document matches a space in the phrase, and so does
the `` | `` that separates table cells in PDF and pipe-table text (a phrase copied from a table
row, ``Monthly 175.00``, is found in ``Monthly | 175.00``, and ``a | b`` in ``a b``), as do dot
leaders standing between words (``AFM revisions $85`` in ``AFM revisions ....... | $85``). Curly and
straight quotes and the dash family match each other, and typographic ligatures match their
letters (``ﬁ`` and ``fi``, ``ﬂ``, ``ﬀ``, ``ﬃ``, ``ﬄ``, ``ﬅ``/``ﬆ`` and ``st``). The spans are
exact offsets into the text, from the phrase's first character to its last. In a Markdown
document a phrase is also found as the rendered page shows it (inline code without backticks,
emphasis without markers, link text without its URL, table cells, entities decoded), its span
then covering the markup between its first character and its last. An occurrence is
*covered* when it lies wholly inside the union of the retrieved spans, so a phrase straddling two
retrieved neighbours counts. A phrase that cannot be located is reported as "not found" and is
neither covered nor missed.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Protocol

from explorer.chunking.records import Chunk
from explorer.retrieval.context import Span as Span
from explorer.retrieval.context import union as union

if TYPE_CHECKING:
    from explorer.documents.markdown_view import Rendered

_FAMILIES = ("'‘’`", '"“”', "-‐‑–—")
"""Characters that match each other: single quotes and apostrophes, double quotes, dashes."""
_EQUIVALENT = {ch: family for family in _FAMILIES for ch in family}

LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
"""Typographic ligatures and the letters they stand for: each matches its letters."""
_LIGATURE = re.compile("[" + "".join(LIGATURES) + "]")

SEPARATOR = re.compile(r"\|+|\.{2,}|…+")
"""A word of these only, standing in white space, is a join rather than text: the ``|`` that
separates table cells (``" | "``) and the dot leaders that run a table's first cell or a
contents entry on to the next (``AFM revisions ...... | $85``)."""
_GAP = rf"\s+(?:(?:{SEPARATOR.pattern})\s+)*+"
"""Between two words: white space, and all the separators standing in it (possessive: a
separator is never given back to be read as the start of the next word)."""


def phrase_words(phrase: str) -> list[str]:
    """The words of a phrase: split at white space, ligatures spelled out, separators dropped."""
    words = _LIGATURE.sub(lambda m: LIGATURES[m[0]], phrase).split()
    return [w for w in words if not SEPARATOR.fullmatch(w)]


@lru_cache(maxsize=1024)
def phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """A regex for ``phrase`` in text whose ligatures are spelled out (see :func:`locate`):
    case, white space runs, cell separators and quote/dash styles ignored."""
    words = phrase_words(phrase)
    if not words:
        return None
    parts = []
    for word in words:
        parts.append(
            "".join(
                f"[{re.escape(_EQUIVALENT[ch])}]" if ch in _EQUIVALENT else re.escape(ch)
                for ch in word
            )
        )
    return re.compile(_GAP.join(parts), re.IGNORECASE)


@lru_cache(maxsize=4)
def _spelled_out(text: str) -> tuple[str, array[int] | None]:
    """``text`` with its ligatures spelled out, and each character's offset in ``text``
    (``None`` when it has no ligature: the text is its own spelling)."""
    if _LIGATURE.search(text) is None:
        return text, None
    out: list[str] = []
    origin = array("q")
    for i, ch in enumerate(text):
        letters = LIGATURES.get(ch, ch)
        out.append(letters)
        origin.extend([i] * len(letters))
    return "".join(out), origin


def locate(phrase: str, text: str, rendered: Rendered | None = None) -> list[Span]:
    """Every occurrence of ``phrase`` in ``text`` as ``(start, end)``; empty when not found.

    Occurrences may overlap ("aa" twice in "aaa"): each is a place the evidence could be read.
    At most one occurrence starts at a position, as the phrase starts and ends with a word. A
    ligature in the text is matched whole or not at all, so every span is exact. With
    ``rendered`` (a Markdown document's page text, see
    :func:`explorer.documents.markdown_view.rendered_text`), the phrase is also looked for as
    the reader sees it, and each occurrence there is the source span from its first character to
    its last, the markup between them included.
    """
    spans = _locate(phrase, text)
    if rendered is not None:
        seen = set(spans)
        for a, b in _locate(phrase, rendered.text):
            span = rendered.source_span(a, b)
            if span not in seen and span[0] < span[1]:
                seen.add(span)
                spans.append(span)
        spans.sort()
    return spans


def _locate(phrase: str, text: str) -> list[Span]:
    pattern = phrase_pattern(phrase)
    if pattern is None:
        return []
    spelled, origin = _spelled_out(text)
    spans: list[Span] = []
    m = pattern.search(spelled)
    while m is not None:
        s, e = m.span()
        if origin is None:
            spans.append((s, e))
        elif (s == 0 or origin[s - 1] != origin[s]) and (
            e == len(spelled) or origin[e] != origin[e - 1]
        ):
            span = (origin[s], origin[e - 1] + 1)
            if not spans or spans[-1] != span:
                spans.append(span)
        m = pattern.search(spelled, s + 1)
    return spans


Match = Literal["exact", "rendered", "loose"]
"""How a phrase was found: as written in the source; as written on the rendered page (markup
stands between its words in the source); or only ignoring case, quote and dash styles,
ligatures or table separators (white space never counts)."""


def match_kind(
    phrase: str, text: str, spans: Sequence[Span], rendered: Rendered | None = None
) -> Match:
    """How ``phrase`` matched at ``spans`` (see :data:`Match`); line breaks and runs of white
    space count as one space, as on a page."""
    wanted = " ".join(phrase.split())
    if any(" ".join(text[s:e].split()) == wanted for s, e in spans):
        return "exact"
    if rendered is not None and wanted in rendered.spaced:
        return "rendered"
    return "loose"


def covered_by(span: Span, merged: Sequence[Span]) -> bool:
    """Is ``span`` wholly inside one of the merged spans?"""
    i = bisect.bisect_right(merged, (span[0], float("inf"))) - 1
    return i >= 0 and merged[i][0] <= span[0] and span[1] <= merged[i][1]


CutBy = Literal["k", "budget", "both", "not retrieved"]
"""What keeps a phrase out of the context: the constraint whose relaxing alone would bring its
chunk in. ``"k"``: lifting k alone would (the budget has room for it); ``"budget"``: lifting the
token budget alone would (its chunk is within the top k); ``"both"``: neither alone does, both
must grow; ``"not retrieved"``: no chunk holds it whole (it is cut by a boundary)."""


@dataclass(frozen=True)
class Evidence:
    """What the check found for one phrase."""

    phrase: str
    spans: tuple[Span, ...]
    """Every occurrence in the document text."""
    covered: bool
    """An occurrence lies wholly inside the retrieved context."""
    chunk_ids: tuple[str, ...]
    """Chunks that wholly hold an occurrence (retrieved or not), best-ranked first."""
    chunk_indices: tuple[int, ...]
    best_rank: int | None
    """The best rank of a chunk that wholly holds an occurrence (over the full ranking)."""
    cut_by_boundary: bool
    """Every occurrence is crossed by a chunk boundary: no single chunk holds it whole."""
    doc: str | None = None
    """In a corpus, the document it counts in (``None``: found in none, or a single document)."""
    cut_by: CutBy | None = None
    """For a phrase found but not covered, what kept it out (set by the answer rule)."""
    match: Match | None = None
    """How it was found (``None``: not found)."""
    reached_at: int | None = None
    """For a phrase found but not covered, the rank from which the top hits' context would hold
    it, with no limit but the rank (its best chunk's rank, or sooner where neighbours or two
    retrieved neighbours hold it; ``None``: none does, or it is covered). Set by the answer
    rule; :meth:`Limits.cut` judges it."""

    @property
    def found(self) -> bool:
        return bool(self.spans)


class Ranked(Protocol):
    """A ranked chunk as the check reads it (a :class:`~explorer.retrieval.scoring.Hit`, or a
    corpus's hit of the document)."""

    @property
    def rank(self) -> int: ...

    @property
    def index(self) -> int: ...


def check(
    phrases: Sequence[str],
    text: str,
    chunks: Sequence[Chunk],
    ranking: Sequence[Ranked],
    *,
    context: Sequence[Span],
    known: Sequence[Span | None] = (),
    rendered: Rendered | None = None,
) -> list[Evidence]:
    """Check each phrase against the document, the chunks, their full ranking and the context.

    ``context`` is the retrieved text as spans (the top-k hits, possibly expanded to neighbours).
    ``known[i]``, when given, is where phrase ``i`` is known to be (a query set's ``spans``): it is
    the phrase's only occurrence when the text there matches it. ``rendered``: a Markdown
    document's page text, where a phrase copied from the page is found too (see :func:`locate`).
    """
    merged = union(context)
    rank_of = {h.index: h.rank for h in ranking}
    starts = [c.start for c in chunks]
    results = []
    for i, phrase in enumerate(phrases):
        phrase = phrase.strip()
        if not phrase:
            continue
        spans = locate(phrase, text, rendered)
        given = known[i] if i < len(known) else None
        if given is not None and given in spans:
            spans = [given]
        holders: list[Chunk] = []
        held: set[int] = set()  # their indices: a phrase found thousands of times stays linear
        for s, e in spans:
            # starts and ends both increase, so the holders are the chunks just before the
            # first one starting after s, back to the first whose end falls short of e
            j = bisect.bisect_right(starts, s) - 1
            while j >= 0 and chunks[j].end >= e:
                if j not in held:
                    held.add(j)
                    holders.append(chunks[j])
                j -= 1
        holders.sort(key=lambda c: (rank_of.get(c.index, len(chunks) + 1), c.index))
        ranks = [rank_of[c.index] for c in holders if c.index in rank_of]
        results.append(
            Evidence(
                phrase=phrase,
                spans=tuple(spans),
                covered=any(covered_by(sp, merged) for sp in spans),
                chunk_ids=tuple(c.id for c in holders),
                chunk_indices=tuple(c.index for c in holders),
                best_rank=min(ranks) if ranks else None,
                cut_by_boundary=bool(spans) and not holders,
                match=match_kind(phrase, text, spans, rendered) if spans else None,
            )
        )
    return results


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd`` …"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Limits:
    """What bounded an answer's hits: the top ``k``, the token ``budget``, how many hits were
    taken, and, with a budget, the tokens it had left after them and what the next candidate's
    context would have added (``None``: there was no next candidate within ``k``).

    ``reach``: with a budget that did not run out within the top ``k``, how many hits it would
    take were ``k`` lifted, counted as far as the worst-ranked missing phrase's chunk needs
    (``None``: not counted — no budget, it ran out within ``k``, or nothing was missing there).
    """

    k: int | None
    budget: int | None
    taken: int
    left: int | None = None
    next_cost: int | None = None
    reach: int | None = None

    def within_k(self, rank: int) -> bool:
        """Would lifting the budget alone bring a chunk at ``rank`` in?"""
        return self.k is None or rank <= self.k

    def within_budget(self, rank: int) -> bool:
        """Would lifting ``k`` alone bring a chunk at ``rank`` in? Hits are taken in rank order
        until the first that would overflow, so a budget that ran out within ``k``
        (``next_cost`` set) reaches no further; one that did not reaches ``reach``."""
        if self.budget is None:
            return True
        if self.next_cost is not None:
            return rank <= self.taken
        return self.reach is None or rank <= self.reach

    def cut(self, rank: int | None) -> CutBy:
        """What keeps a chunk at ``rank`` (``None``: no chunk holds the phrase whole) out: the
        constraint whose relaxing alone would bring it in, ``"both"`` when neither alone does."""
        if rank is None or rank <= self.taken:
            return "not retrieved"
        k, budget = self.within_k(rank), self.within_budget(rank)
        if k and not budget:
            return "budget"
        if budget and not k:
            return "k"
        return "both"


VerdictKind = Literal["complete", "incomplete", "unchecked"]


@dataclass(frozen=True)
class Verdict:
    """Whether the context holds every evidence phrase, as a value: its kind, and each phrase
    with where it is and what kept it out. :meth:`sentence` words it, where it is shown.

    ``name_documents``: the phrases' documents are named (a corpus of several); a phrase not
    found is missing from ``absent_from``.
    """

    evidence: tuple[Evidence, ...]
    limits: Limits | None = None
    name_documents: bool = False
    absent_from: str = "the document"

    def __post_init__(self) -> None:
        if not self.evidence:
            raise ValueError("a verdict needs at least one evidence phrase")

    @property
    def missing(self) -> tuple[Evidence, ...]:
        """Phrases found in the document but not inside the context."""
        return tuple(e for e in self.evidence if e.found and not e.covered)

    @property
    def absent(self) -> tuple[Evidence, ...]:
        """Phrases not found in the document (neither covered nor missed)."""
        return tuple(e for e in self.evidence if not e.found)

    @property
    def kind(self) -> VerdictKind:
        """``complete``: every phrase is in the context; ``incomplete``: a phrase found in the
        document is not; ``unchecked``: none is missing, but some phrase was not found."""
        if self.missing:
            return "incomplete"
        return "unchecked" if self.absent else "complete"

    @property
    def complete(self) -> bool:
        return self.kind == "complete"

    @property
    def covered(self) -> bool:
        """Every phrase found in the document lies in the context, and one was found: what an
        evaluation counts as covered (a phrase not found is neither a hit nor a miss)."""
        return not self.missing and len(self.absent) < len(self.evidence)

    def sentence(self) -> str:
        """One sentence: "complete", or what is missing, where it is and what cut it."""
        if self.kind == "complete":
            return "complete: every evidence phrase is inside the retrieved text"
        notes = [self._missing(r) for r in self.missing]
        notes += [f"{r.phrase!r} was not found in {self.absent_from}" for r in self.absent]
        return f"{self.kind}: " + "; ".join(notes)

    def _missing(self, r: Evidence) -> str:
        doc = r.doc if self.name_documents else None
        of, in_ = (f" of {doc}", f" in {doc}") if doc else ("", "")
        if not r.chunk_indices:
            return f"{r.phrase!r} is cut by a chunk boundary{in_} (no chunk holds it whole)"
        where = f"{r.phrase!r} is in chunk {r.chunk_indices[0]}{of}"
        if r.best_rank is None:
            return where
        where += f", ranked {ordinal(r.best_rank)}"
        lim = self.limits
        if lim is None or r.cut_by is None:
            return where
        if r.reached_at is not None and r.reached_at != r.best_rank:
            where += f" (the context of the top {r.reached_at} holds it)"
        if r.cut_by == "k":
            return where + f", below the top {lim.k}"
        if r.cut_by in ("budget", "both") and lim.budget is not None:
            held = f"the top {lim.taken}" if lim.taken else "no hit"
            why = f"; the {lim.budget:,}-token budget held {held}"
            if lim.left is not None and lim.next_cost is not None:
                why += (
                    f" ({lim.left:,} tokens left, the next hit's context needed {lim.next_cost:,})"
                )
            if r.cut_by == "both":
                return (
                    where
                    + why
                    + (
                        f", and k = {lim.k} would stop before it too: "
                        "both the budget and k must grow"
                    )
                )
            return where + (f", within the top {lim.k}" if lim.k is not None else "") + why
        return where

    def __str__(self) -> str:
        return self.sentence()
