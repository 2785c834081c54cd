"""What the document view tints: the hits and what widening adds, the heat of every chunk, the
evidence underlines, and the changes since another version."""

from __future__ import annotations

import bisect
import html
from collections.abc import Sequence

from explorer.answer import Answer
from explorer.chunking.diff import ChunkDiff
from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from explorer.retrieval.context import ContextPiece
from explorer.retrieval.evidence import Evidence, covered_by, union
from explorer.retrieval.scoring import (
    Hit,
)
from ui import render

CONTEXT_COLOR = "#8c96a3"
"""Grey-blue for text that goes to the LLM only because a hit was widened."""


EVIDENCE_COVERED = "#1a7f37"


EVIDENCE_MISSED = "#cf222e"


def hit_highlights(
    hits: Sequence[Hit], chunks: Sequence[Chunk], *, selected: int | None = None
) -> list[render.Highlight]:
    """Each hit's chunk, with its rank as the badge (``"#1"``) and a colour per rank."""
    return [
        render.Highlight(
            chunks[h.index].start,
            chunks[h.index].end,
            h.index,
            render.PALETTE[(h.rank - 1) % len(render.PALETTE)],
            label=f"#{h.rank}",
            selected=h.index == selected,
            title=f"#{h.rank}: chunk {h.index}, {h.retriever} score {h.score:.4g}",
        )
        for h in hits
    ]


SELECTED_COLOR = "#6e7781"
"""The grey of a selected chunk that is not a hit, in the Query hits view."""


def selected_highlight(
    answer: Answer, chunks: Sequence[Chunk], selected: int | None
) -> list[render.Highlight]:
    """The selected chunk when it is no hit: outlined in grey, its badge saying so and where it
    ranked (the Query hits view shows only hits otherwise, so a selection would vanish)."""
    if selected is None or not 0 <= selected < len(chunks):
        return []
    if any(h.index == selected for h in answer.hits):
        return []
    c = chunks[selected]
    ranked = next((h for h in answer.ranking if h.index == selected), None)
    where = f"ranked #{ranked.rank}, not retrieved" if ranked is not None else "not ranked"
    return [
        render.Highlight(
            c.start,
            c.end,
            c.index,
            SELECTED_COLOR,
            label=f"{c.index} · {where}",
            selected=True,
            title=f"chunk {c.index} (selected): {where}",
        )
    ]


def context_highlights(
    pieces: Sequence[ContextPiece], hits: Sequence[Hit], chunks: Sequence[Chunk], text: str
) -> list[render.Highlight]:
    """The parts of the context that are no hit's chunk: what widening (neighbours, section) and
    table headers add. White space at either end of a part is left out."""
    taken = union([(chunks[h.index].start, chunks[h.index].end) for h in hits])
    starts = [c.start for c in chunks]
    out = []
    for piece in pieces:
        ranks = ", ".join(f"#{r}" for r in piece.ranks)
        for a, b in subtract((piece.start, piece.end), taken):
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                header = any(hs <= a and b <= he for hs, he in piece.headers)
                out.append(
                    render.Highlight(
                        a,
                        b,
                        max(bisect.bisect_right(starts, a) - 1, 0),
                        CONTEXT_COLOR,
                        label="+",
                        title=f"table header for {ranks}"
                        if header
                        else f"context added around {ranks}",
                    )
                )
    return out


def fill_highlights(answer: Answer, chunks: Sequence[Chunk], text: str) -> list[render.Highlight]:
    """The text filling the budget adds around the pieces, tinted as other added context.
    White space at either end of a part is left out."""
    if not answer.widened or answer.budget is None:
        return []
    taken = union([(p.start, p.end) for p in answer.pieces])
    starts = [c.start for c in chunks]
    out = []
    for span in answer.context:
        for a, b in subtract(span, taken):
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                out.append(
                    render.Highlight(
                        a,
                        b,
                        max(bisect.bisect_right(starts, a) - 1, 0),
                        CONTEXT_COLOR,
                        label="+",
                        title=f"filled to the {answer.budget:,}-token budget",
                    )
                )
    return out


def subtract(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``span`` outside ``taken`` (sorted, disjoint spans)."""
    pos, end = span
    out = []
    for a, b in taken:
        if b <= pos:
            continue
        if a >= end:
            break
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < end:
        out.append((pos, end))
    return out


def heat_highlights(
    ranking: Sequence[Hit], chunks: Sequence[Chunk], *, selected: int | None = None
) -> list[render.Highlight]:
    """Every chunk tinted by its score on a sequential scale (min to max of this ranking)."""
    if not ranking:
        return []
    lo = min(h.score for h in ranking)
    hi = max(h.score for h in ranking)
    spread = hi - lo
    out = []
    for h in sorted(ranking, key=lambda h: h.index):
        c = chunks[h.index]
        x = (h.score - lo) / spread if spread > 0 else 0.0
        out.append(
            render.Highlight(
                c.start,
                c.end,
                c.index,
                render.heat_color(x),
                label=f"#{h.rank}",
                selected=c.index == selected,
                title=f"#{h.rank}: chunk {c.index}, {h.retriever} score {h.score:.4g}",
            )
        )
    return out


def heat_legend_html(ranking: Sequence[Hit]) -> str:
    """A colour bar from the lowest to the highest score of ``ranking``."""
    if not ranking:
        return ""
    lo = min(h.score for h in ranking)
    hi = max(h.score for h in ranking)
    stops = ",".join(render.HEAT)
    retriever = html.escape(ranking[0].retriever)
    return (
        '<div style="display:flex;align-items:center;gap:8px;font-size:13px;color:#59636e">'
        f"<span>{retriever} score {lo:.4g}</span>"
        f'<span style="flex:0 0 180px;height:12px;border-radius:3px;'
        f'background:linear-gradient(90deg,{stops})"></span>'
        f"<span>{hi:.4g}</span><span>· the badge is each chunk's rank</span></div>"
    )


def evidence_highlights(
    results: Sequence[Evidence], context: Sequence[tuple[int, int]]
) -> list[render.Highlight]:
    """An underline under every occurrence of every phrase: green where the retrieved context
    holds it, red where it does not."""
    merged = union(context)
    out = []
    for n, r in enumerate(results):
        for s, e in r.spans:
            inside = covered_by((s, e), merged)
            out.append(
                render.Highlight(
                    s,
                    e,
                    n,
                    EVIDENCE_COVERED if inside else EVIDENCE_MISSED,
                    underline=True,
                    title=f"evidence {r.phrase!r}: "
                    + ("in the retrieved context" if inside else "not in the retrieved context"),
                )
            )
    return out


def span_on_page(doc: Document, start: int, end: int, page: int) -> bool:
    """Does ``doc.text[start:end]`` touch PDF page ``page``?"""
    first, last = doc.page_span(start, end)
    return first is not None and last is not None and first <= page <= last


CHANGE_COLORS = {"unchanged": "#c7ccd1", "changed": "#f28e2b", "added": "#4e79a7"}
"""Unchanged chunks grey, changed ones orange, new ones blue."""


CHANGE_LABELS = {"unchanged": "unchanged", "changed": "changed", "added": "new"}


def change_highlights(
    diff: ChunkDiff, chunks: Sequence[Chunk], *, selected: int | None = None
) -> list[render.Highlight]:
    """Each chunk of the new version tinted by what the diff says of it."""
    kind = {u.new.index: "unchanged" for u in diff.unchanged}
    kind |= {c.new.index: "changed" for c in diff.changed}
    kind |= {a.index: "added" for a in diff.added}
    out = []
    for c in chunks:
        k = kind.get(c.index, "added")
        out.append(
            render.Highlight(
                c.start,
                c.end,
                c.index,
                CHANGE_COLORS[k],
                label=str(c.index),
                selected=c.index == selected,
                title=f"chunk {c.index}: {CHANGE_LABELS[k]}",
            )
        )
    return out


def change_legend_html() -> str:
    """The three tints of the Changes view."""
    swatches = "".join(
        f'<span style="display:inline-block;width:12px;height:12px;border-radius:2px;'
        f'background:{CHANGE_COLORS[k]};margin:0 4px 0 12px"></span>{CHANGE_LABELS[k]}'
        for k in ("unchanged", "changed", "added")
    )
    return f'<div style="font-size:13px;color:#59636e">Changes view:{swatches}</div>'
