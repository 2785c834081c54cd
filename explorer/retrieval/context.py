"""The context an LLM would receive for a set of hits: each hit widened to its neighbours or
its section, a table's header rows brought along, pieces that overlap or touch merged, and the
tokens a budget leaves spent on the text around them."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.chunking.records import Chunk
from explorer.documents.model import Document

if TYPE_CHECKING:
    from explorer.chunking.measures import Units
    from explorer.retrieval.scoring import Hit


# --------------------------------------------------------------------------- context


@dataclass(frozen=True)
class ContextPiece:
    """One contiguous stretch of retrieved text: the hits it merges and the span it covers."""

    start: int
    end: int
    ranks: tuple[int, ...]
    """Ranks of the hits merged into it (best first)."""
    chunk_indices: tuple[int, ...]
    headers: tuple[tuple[int, int], ...] = ()
    """Table header rows brought in for the hits (``table_headers``), merged into this piece."""


Span = tuple[int, int]


def union(spans: Sequence[Span]) -> list[Span]:
    """Merge overlapping or touching spans."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


@dataclass(frozen=True)
class TableHeaders:
    """Each table of a document with its header rows, to bring a table's header along with a hit
    on its rows: a row without the header that names its columns is half an answer."""

    tables: tuple[tuple[Span, Span], ...]
    """``((table start, table end), (header start, header end))``, in document order."""

    @classmethod
    def of(cls, doc: Document) -> TableHeaders:
        out = []
        for b in doc.blocks:
            if b.kind != "table":
                continue
            head = [r for r in b.rows if r.header]
            if head and head[-1].end < b.end:
                out.append(((b.start, b.end), (head[0].start, head[-1].end)))
        return cls(tuple(out))

    def for_span(self, start: int, end: int) -> tuple[Span, ...]:
        """Headers of the tables whose body rows ``[start, end)`` reaches into and whose header
        does not lie wholly inside it."""
        i = bisect.bisect_right(self.tables, ((end,),)) if self.tables else 0
        out = []
        for (ts, te), (hs, he) in self.tables[:i]:
            if ts < end and start < te and end > he and not (start <= hs and he <= end):
                out.append((hs, he))
        return tuple(out)


def section_span(doc: Document, offset: int) -> tuple[int, int]:
    """The section (heading to the next heading of the same or a higher level) holding ``offset``.

    Before the first heading, or in a document without headings, the whole document.
    """
    starts = [h.start for h in doc.headings]
    i = bisect.bisect_right(starts, offset) - 1
    if i < 0:
        return 0, (doc.headings[0].start if doc.headings else len(doc.text))
    level = doc.headings[i].level
    end = len(doc.text)
    for h in doc.headings[i + 1 :]:
        if h.level <= level:
            end = h.start
            break
    return doc.headings[i].start, end


def context_pieces(
    hits: Sequence[Hit],
    chunks: Sequence[Chunk],
    *,
    neighbours: int = 0,
    doc: Document | None = None,
    section: bool = False,
    merge: bool = True,
    table_headers: bool = False,
    headers: TableHeaders | None = None,
) -> list[ContextPiece]:
    """The text an LLM would receive for ``hits``, in rank order of each piece's best hit.

    Each hit is widened to ``neighbours`` chunks on each side, or to its enclosing section
    (``section=True``, needs ``doc``). With ``table_headers`` (needs ``doc``, or ``headers``
    already found for it), a hit on a table's rows brings the table's header rows as a piece of
    their own (ranked with the hit, holding no chunk) unless they are in the hit already. With
    ``merge``, pieces that overlap or touch (only white space between) are merged, so
    near-copies do not crowd the list.
    """
    if not table_headers:
        headers = None
    elif headers is None and doc is not None:
        headers = TableHeaders.of(doc)
    raw: list[ContextPiece] = []
    for h in hits:
        if section and doc is not None:
            s, e = section_span(doc, chunks[h.index].start)
            s, e = min(s, chunks[h.index].start), max(e, chunks[h.index].end)
        else:
            lo = max(0, h.index - neighbours)
            hi = min(len(chunks) - 1, h.index + neighbours)
            s, e = chunks[lo].start, chunks[hi].end
        raw.append(ContextPiece(s, e, (h.rank,), (h.index,)))
        if headers is not None:
            raw += [ContextPiece(a, b, (h.rank,), (), ((a, b),)) for a, b in headers.for_span(s, e)]
    if not merge:
        return raw
    text = doc.text if doc is not None else None
    out: list[ContextPiece] = []
    for piece in sorted(raw, key=lambda p: (p.start, p.end)):
        if out:
            last = out[-1]
            touching = piece.start <= last.end or (
                text is not None and not text[last.end : piece.start].strip()
            )
            if touching:
                out[-1] = ContextPiece(
                    last.start,
                    max(last.end, piece.end),
                    tuple(sorted(last.ranks + piece.ranks)),
                    tuple(sorted(set(last.chunk_indices + piece.chunk_indices))),
                    tuple(sorted(set(last.headers + piece.headers))),
                )
                continue
        out.append(piece)
    return sorted(out, key=lambda p: p.ranks[0])


def widen_to_budget(spans: Sequence[Span], units: Units, budget: int) -> list[Span]:
    """The context ``spans`` widened with the tokens ``budget`` has left after them.

    The stretches of context (``spans`` merged) share the tokens left equally; each takes half
    of its share from the text before it and the rest from the text after it, cut at token
    bounds (``units``, cl100k over the whole document), so a piece of evidence just past a hit's
    boundary comes along. Stretches that meet are merged. The result holds every input span and
    costs at most ``budget`` tokens counted on its union, as the budget is; with no tokens left
    it is the input merged.
    """
    merged = union(spans)
    left = budget - sum(units.size(s, e) for s, e in merged)
    share = left // len(merged) if merged else 0
    if share <= 0:
        return merged
    out = []
    for s, e in merged:
        # each stretch may cost its own tokens plus its share, counted on the widened stretch
        # (a token cut by the stretch's edge is counted once); half the share goes before it,
        # and what one side cannot take (the document's start or end) goes to the other
        limit = units.size(s, e) + share
        start = _back(units, s, share // 2)
        end = max(e, units.fit(start, limit))
        out.append((min(start, _back(units, end, limit)), end))
    return union(out)


def _back(units: Units, e: int, tokens: int) -> int:
    """The earliest token bound before ``e`` with at most ``tokens`` tokens from it to ``e``,
    or ``e``."""
    q = units.back(e, tokens, -1) if tokens > 0 else -1
    return q if 0 <= q < e else e


def context_tokens(pieces: Sequence[ContextPiece], text: str, count: Callable[[str], int]) -> int:
    """Tokens an LLM would receive: the pieces' text, each counted once."""
    return sum(count(text[p.start : p.end]) for p in pieces)
