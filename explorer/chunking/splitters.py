"""The packing engine and the built-in splitters: cut a document into chunks with exact offsets.

Every splitter returns chunks for which ``doc.text[c.start:c.end] == c.text`` holds, whose starts
strictly increase, which together cover every non-white-space character, and whose ``size`` (in
the chosen measure, counted on the chunk's text alone) is at most ``settings.size`` unless the
chunk is flagged ``oversize`` (a single unit that cannot be split, such as one long sentence under
the ``sentence`` splitter).

All splitters share one packing engine. A splitter is a list of *levels* of cut positions, from
the coarsest to the finest (for ``recursive``: paragraphs, lines, sentences, words, then a hard
cut between units). From position ``p`` the engine finds the furthest position the size limit
allows and takes the coarsest level that has a cut within reach, cutting at that level's
furthest cut. So a chunk ends at a paragraph break whenever one is within reach, and a smaller
boundary is used only when a single piece is too big. Overlap works backwards the same way:
the next chunk starts at the earliest cut that keeps the shared part within ``overlap`` units,
preferring the coarsest level that gives at least half of the requested overlap.

Cut positions lie at the start of the white space that separates two pieces, so chunks end on
content; chunks are finally trimmed of surrounding white space.

The records it makes and reads — :class:`~explorer.chunking.records.Chunk`,
:class:`~explorer.chunking.records.ChunkSettings`, the splitter names and their registry, chunk
ids — live in :mod:`explorer.chunking.records`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.chunking.cuts import (
    WORD,
    Cuts,
    FirstCuts,
    ListCuts,
    RegexCuts,
    level_cuts,
    sentence_cuts,
    stop_cuts,
)
from explorer.chunking.measures import Units, standalone_counter
from explorer.chunking.records import (
    REGISTERED,
    SEMANTIC_PERCENTILE,
    Chunk,
    ChunkSettings,
    _named,
)
from explorer.documents.load import trim_span
from explorer.documents.model import Block, Document
from explorer.errors import SettingsError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Embed = Callable[[Sequence[str]], "npt.NDArray[np.float32]"]
"""Texts in, one L2-normalised vector per text out (the semantic splitter's only need)."""


@dataclass(frozen=True)
class Level:
    name: str
    cuts: Cuts | None
    """``None`` means a hard cut: any unit boundary."""
    flag: str | None = None
    always: bool = False
    """Every cut of this level is made, even where more would fit (semantic breaks)."""


# --------------------------------------------------------------------------- the engine


def pack(
    text: str,
    units: Units,
    levels: Sequence[Level],
    *,
    size: int,
    overlap: int,
    hard: bool = True,
    overlap_floor: Callable[[int], int] | None = None,
    alone: Callable[[int, int], int] | None = None,
) -> list[tuple[int, int, str | None]]:
    """Cut ``[0, units.length)`` into spans ``(start, end, flag)``; see the module docstring.

    With ``hard=False`` no cut is made between units: a piece bigger than ``size`` becomes one
    span flagged ``oversize`` (the sentence splitter). ``overlap_floor(e)`` is the earliest
    position the chunk after one ending at ``e`` may start at (the structure splitter keeps
    overlap inside a section and out of tables and code blocks). ``alone(a, b)``, when given, is
    the size of the trimmed ``text[a:b]`` counted on its own; a chunk is then made to fit the
    limit by that count too (see :func:`_choose_end_alone`).
    """
    n = units.length
    spans: list[tuple[int, int, str | None]] = []
    all_levels = [*levels, Level("hard", None, "hard_cut")] if hard else list(levels)

    def choose(p: int, after: int) -> tuple[int, str | None]:
        if alone is None:
            return _choose_end(units, all_levels, p, after, size, n)
        return _choose_end_alone(units, all_levels, p, after, size, n, alone)

    p = 0
    after = 0  # the previous chunk's end: every chunk must reach past it
    while p < n:
        while p < n and text[p].isspace():  # white space at a start is trimmed anyway
            p += 1
        if p >= n:
            break
        after = max(after, p)
        end, flag = choose(p, after)
        if end < 0 and p < after:
            p = after  # the overlap leaves no room: start afresh at the previous end
            end, flag = choose(p, after)
        if end < 0:
            end, flag = _next_cut(units, all_levels, after, n), None  # one piece over the limit
        spans.append((p, end, flag))
        if end >= n:
            break
        if overlap:
            floor = p if overlap_floor is None else max(p, overlap_floor(end) - 1)
            p = _next_start(units, all_levels, floor, end, overlap)
        else:
            p = end
        after = end
    return spans


def _choose_end(
    units: Units, levels: Sequence[Level], p: int, after: int, size: int, n: int
) -> tuple[int, str | None]:
    reach = units.fit(p, size, after=after)  # the furthest unit boundary within the limit
    if reach < 0:
        return -1, None
    for level in levels:
        if reach >= n and not level.always:
            return n, None  # the rest fits: only cuts that must always be made can stop it
        if level.cuts is None:
            return reach, level.flag
        c = level.cuts.last_in(after, reach)
        if c > 0:
            return c, level.flag
    return -1, None


def _choose_end_alone(
    units: Units,
    levels: Sequence[Level],
    p: int,
    after: int,
    size: int,
    n: int,
    alone: Callable[[int, int], int],
) -> tuple[int, str | None]:
    """:func:`_choose_end`, then shrink the chunk until its text counted on its own fits too.

    Each retry lowers the limit in the document's tokenisation by what the chunk's own count
    exceeded it by. Returns -1 when no end fits (the caller then makes one piece, flagged).
    """
    limit = size
    end, flag = _choose_end(units, levels, p, after, limit, n)
    while end > 0:
        real = alone(p, end)
        if real <= size:
            return end, flag
        limit -= real - size
        if limit < 1:
            break
        end, flag = _choose_end(units, levels, p, after, limit, n)
    return -1, None


def _next_cut(units: Units, levels: Sequence[Level], after: int, n: int) -> int:
    """The first cut after ``after`` at the finest level (used when a piece is oversize)."""
    finest = levels[-1].cuts
    if finest is None:
        i = bisect.bisect_right(units.bounds, after)
        return units.bounds[i] if i < len(units.bounds) else n
    c = finest.first_in(after + 1, n)
    return c if c > 0 else n


def _next_start(units: Units, levels: Sequence[Level], s: int, e: int, overlap: int) -> int:
    """Where the chunk after ``[s, e)`` starts: the first cut, coarsest level first, from the
    earliest start that keeps the overlap within ``overlap`` and that still shares at least
    half of it; failing that, the first cut of the coarsest level that has one in the window."""
    q_min = units.back(e, overlap, s)  # the earliest unit boundary keeping the overlap in bounds
    if q_min < 0:
        return e
    # a cut shares at least half the overlap exactly when it lies before ``half``, so each level
    # is searched there only (a narrower window: fewer sentence ends to judge)
    half = units.shares_before(e, (overlap + 1) // 2)
    if half > q_min:
        for level in levels:
            q = q_min if level.cuts is None else level.cuts.first_in(q_min, min(half, e))
            if q > s:
                return q
    for level in levels:  # no level shares half: the coarsest cut in the window will do
        q = q_min if level.cuts is None else level.cuts.first_in(q_min, e)
        if q > s:
            return q
    return e


# --------------------------------------------------------------------------- splitters


def _atomic_spans(blocks: Sequence[Block]) -> list[tuple[int, int]]:
    """Spans of tables and code blocks, sorted and not overlapping."""
    spans: list[tuple[int, int]] = []
    for b in sorted(blocks, key=lambda b: b.start):
        if b.kind in ("table", "code") and (not spans or b.start >= spans[-1][1]):
            spans.append((b.start, b.end))
    return spans


def _inside(spans: Sequence[tuple[int, int]], x: int) -> int | None:
    """Index of the span that ``x`` lies strictly inside, if any (``spans`` sorted, disjoint)."""
    i = bisect.bisect_left(spans, (x,)) - 1
    return i if i >= 0 and spans[i][0] < x < spans[i][1] else None


def _structure_floor(doc: Document) -> Callable[[int], int]:
    """Overlap never reaches before the section start nor into a table or code block."""
    fences = sorted(
        {h.start for h in doc.headings} | {b.end for b in doc.blocks if b.kind in ("table", "code")}
    )

    def floor(e: int) -> int:
        i = bisect.bisect_right(fences, e) - 1
        return fences[i] if i >= 0 else 0

    return floor


def _glued(text: str, prev: Block, block: Block) -> bool:
    """Whether the cut between two consecutive blocks separates things that belong together, so
    a chunk should end there only when no other block boundary is within reach:

    * a lead-in and what it introduces (a paragraph or list item ending in ``:``);
    * two items of one list;
    * a code block or table and the paragraph right after it, which usually explains it.
    """
    if prev.kind in ("paragraph", "list_item") and text[prev.start : prev.end].rstrip()[-1:] == ":":
        return True
    if prev.kind == "list_item" and block.kind == "list_item":
        return True
    return prev.kind in ("code", "table") and block.kind == "paragraph"


def _structure_levels(doc: Document) -> list[Level]:
    """Headings H1..H6, then blocks, then block boundaries that separate things which belong
    together (:func:`_glued`), then inside a block table rows and code lines, sentence ends at a
    stop, other sentence ends (:func:`stop_cuts`, :func:`sentence_cuts`), then words."""
    blocks = doc.blocks
    levels: list[Level] = []
    heading_starts: dict[int, list[int]] = {}
    for b in blocks:
        if b.kind == "heading":
            heading_starts.setdefault(b.level, []).append(b.start)
    acc: list[int] = []
    for lvl in range(1, 7):
        if lvl in heading_starts:
            acc = acc + heading_starts[lvl]
            levels.append(Level(f"h{lvl}", ListCuts(acc)))
    # a block start is a cut unless the block follows a heading or sits inside a table or code
    # block; it is a weaker ("soft") cut where it separates blocks that belong together. ``prev``
    # is the last block not nested in another (a list item's paragraph is not its own block).
    atomic = _atomic_spans(blocks)
    block_cuts: list[int] = []
    soft_cuts: list[int] = []
    prev: Block | None = None
    for b in blocks:
        inside = _inside(atomic, b.start) is not None
        after_heading = prev is not None and prev.kind == "heading" and prev.end <= b.start
        if not inside and not after_heading and b.start > 0:
            soft = prev is not None and _glued(doc.text, prev, b)
            (soft_cuts if soft else block_cuts).append(b.start)
        if not inside and not (prev is not None and b.start < prev.end):
            prev = b
    levels.append(Level("block", ListCuts(block_cuts + acc)))
    if soft_cuts:
        levels.append(Level("soft", ListCuts(block_cuts + acc + soft_cuts)))
    inner: list[tuple[int, str]] = []
    for b in blocks:
        if b.kind == "table":
            inner += [(r.start, "table_split") for r in b.rows if r.start > b.start]
        elif b.kind == "code":
            starts = [m.end() for m in re.finditer(r"\n", doc.text[b.start : b.end])]
            inner += [(b.start + s, "code_split") for s in starts if b.start + s < b.end]
    if inner:
        levels.append(Level("rows", ListCuts(c for c, _ in inner), None))
    # inside a block, a chunk ends after a sentence's stop where one is within reach, and at a
    # line that ends a sentence without one (a title, a list line) only where none is
    levels.append(Level("stop", stop_cuts(doc.text, atomic)))
    levels.append(Level("sentence", sentence_cuts(doc.text, atomic)))
    levels.append(Level("word", RegexCuts(doc.text, WORD)))
    return levels


def semantic_breaks(text: str, embed: Embed, *, percentile: int = SEMANTIC_PERCENTILE) -> list[int]:
    """Cut positions where the topic shifts.

    At every gap between two sentences, the two sentences before the gap and the two after it
    are embedded as two texts and their cosine distance taken (disjoint windows localise the
    shift to the gap itself; overlapping windows smear it one sentence either way). A cut is
    placed at every gap whose distance is above the ``percentile``-th percentile of all gaps in
    the document. Sentences come from the sentence splitter's boundaries.
    """
    import numpy as np

    cuts = sentence_cuts(text).all()
    bounds = [0, *cuts, len(text)]
    sentences = [(a, b) for a, b in itertools.pairwise(bounds) if text[a:b].strip()]
    if len(sentences) < 3:
        return []
    pieces = [text[a:b].strip() for a, b in sentences]
    m = len(pieces)
    # windows[j] = sentences j and j+1; the gap after sentence i compares windows i-1 and i+1
    windows = [pieces[0], *(" ".join(pieces[j : j + 2]) for j in range(m))]
    vecs = np.asarray(embed(windows), dtype=np.float64)  # vecs[j + 1] is windows[j]
    left = vecs[[max(i, 0) for i in range(m - 1)]]  # i-1 → row i (row 0: sentence 0 alone)
    right = vecs[[i + 2 for i in range(m - 1)]]
    distances = 1.0 - np.einsum("ij,ij->i", left, right)
    threshold = float(np.percentile(distances, percentile))
    return [sentences[i + 1][0] for i, d in enumerate(distances) if d > threshold]


def page_starts(doc: Document) -> list[int]:
    """Where the ``page`` splitter must cut: each PDF page's start; for a document without
    pages, each top-level section's — the headings of the highest level that occurs more than
    once (a lone title is not a section break)."""
    if doc.pages:
        return sorted({p.start for p in doc.pages if p.start > 0})
    counts = Counter(h.level for h in doc.headings)
    top = min((level for level, n in counts.items() if n > 1), default=None)
    if top is None:
        return []
    return sorted({h.start for h in doc.headings if h.level == top and h.start > 0})


def _page_floor(doc: Document) -> Callable[[int], int]:
    """The structure splitter's floor, and never back past the start of the page."""
    inner = _structure_floor(doc)
    starts = page_starts(doc)

    def floor(e: int) -> int:
        i = bisect.bisect_right(starts, e) - 1
        return max(inner(e), starts[i] if i >= 0 else 0)

    return floor


def _levels_for(
    doc: Document, settings: ChunkSettings, embed: Embed | None = None
) -> tuple[list[Level], bool]:
    if settings.splitter == "fixed":
        return [], True
    if settings.splitter == "page":  # a page a chunk; one over the size is cut as structure cuts
        return [
            Level("page", FirstCuts(page_starts(doc)), always=True),
            *_structure_levels(doc),
        ], True
    if settings.splitter == "sentence":
        return [Level("sentence", sentence_cuts(doc.text))], False
    if settings.splitter == "recursive":
        return [Level(name, level_cuts(doc.text, name)) for name in settings.separators], True
    if settings.splitter == "semantic":
        if embed is None:
            raise SettingsError(
                "the semantic splitter embeds the text to find its cuts: give split() an embed "
                "function (explorer.Workspace passes the configuration's model)"
            )
        breaks = semantic_breaks(doc.text, embed, percentile=settings.percentile)
        return [
            Level("semantic", FirstCuts(breaks), always=True),
            Level("sentence", sentence_cuts(doc.text)),
            Level("word", RegexCuts(doc.text, WORD)),
        ], True
    return _structure_levels(doc), True


Levels = tuple[list[Level], bool]
"""A splitter's levels of cuts in one document, and whether it may cut between units."""

DOCUMENT_LEVELS = frozenset({"structure", "page", "sentence", "recursive"})
"""The splitters whose levels depend on the document alone (and the recursive splitter's
separators): :func:`split_levels` makes them once for every size and overlap."""


def split_levels(doc: Document, settings: ChunkSettings) -> Levels:
    """The levels of cuts ``settings.splitter`` packs ``doc`` along (one of
    :data:`DOCUMENT_LEVELS`): the same for every size and overlap, so they can be kept."""
    if settings.splitter not in DOCUMENT_LEVELS:
        raise SettingsError(f"the {settings.splitter} splitter's cuts are not the document's alone")
    return _levels_for(doc, settings)


def split(
    doc: Document,
    settings: ChunkSettings,
    *,
    units: Units | None = None,
    embed: Embed | None = None,
    levels: Levels | None = None,
) -> list[Chunk]:
    """Cut ``doc`` into chunks.

    ``units`` may be passed in when already computed for ``doc`` under ``settings.measure``, and
    ``levels`` when :func:`split_levels` made them for ``doc`` and ``settings.splitter``.
    ``embed`` (texts in, one normalised vector each out) is needed by the ``semantic`` splitter
    only, which embeds sentence groups to find where the topic shifts.
    """
    registered = REGISTERED.get(settings.splitter)
    if registered is not None:
        return registered.split(doc, settings)
    if units is None:
        units = settings.measure.units(doc.text)
    cuts, hard = levels if levels is not None else _levels_for(doc, settings, embed)
    floor = (
        _structure_floor(doc)
        if settings.splitter == "structure"
        else _page_floor(doc)
        if settings.splitter == "page"
        else None
    )
    counter = standalone_counter(settings.measure, doc.text, units)
    alone = None
    if counter is not None:
        text = doc.text

        def alone(a: int, b: int) -> int:
            return counter(*trim_span(text, a, b))

    spans = pack(
        doc.text,
        units,
        cuts,
        size=settings.size,
        overlap=settings.overlap,
        hard=hard,
        overlap_floor=floor,
        alone=alone,
    )
    return _finish(doc, settings, units, spans, counter)


def passage_cuts(doc: Document) -> list[int]:
    """Where a passage must end (see :func:`split_passages`): at the start of each block, except
    a block after a heading (a heading goes with what it introduces), a list item after a list
    item (a list's items pack like sentences) and anything inside a table or code block."""
    atomic = _atomic_spans(doc.blocks)
    cuts: list[int] = []
    prev: Block | None = None
    for b in sorted(doc.blocks, key=lambda b: b.start):
        if _inside(atomic, b.start) is not None or (prev is not None and b.start < prev.end):
            continue  # nested in the block before it
        glued = prev is not None and (
            prev.kind == "heading" or (prev.kind == "list_item" and b.kind == "list_item")
        )
        if b.start > 0 and not glued:
            cuts.append(b.start)
        prev = b
    return cuts


def split_passages(
    doc: Document, settings: ChunkSettings, *, units: Units | None = None
) -> list[Chunk]:
    """The document's sentences packed up to ``settings.size`` (in ``settings.unit``), never
    across the start of a block (:func:`passage_cuts`): a passage holds one paragraph's, table's
    or code block's sentences, or a heading with the first of what follows it. A sentence over
    the limit is a passage of its own, flagged ``oversize``. Chunk ids follow ``settings``;
    ``units``, as for :func:`split`."""
    if units is None:
        units = settings.measure.units(doc.text)
    levels = [
        Level("block", FirstCuts(passage_cuts(doc)), always=True),
        Level("sentence", sentence_cuts(doc.text)),
    ]
    spans = pack(doc.text, units, levels, size=settings.size, overlap=0, hard=False)
    return _finish(doc, settings, units, spans)


def _finish(
    doc: Document,
    settings: ChunkSettings,
    units: Units,
    spans: Sequence[tuple[int, int, str | None]],
    counter: Callable[[int, int], int] | None = None,
) -> list[Chunk]:
    text = doc.text
    trimmed: list[tuple[int, int, set[str]]] = []
    for s, e, flag in spans:
        s, e = trim_span(text, s, e)
        if s >= e:
            continue
        flags = {flag} if flag else set()
        if trimmed:
            ps, pe, pflags = trimmed[-1]
            if e <= pe:
                continue  # inside the previous chunk: nothing new
            if s == ps:  # same start, reaches further: it replaces the previous
                trimmed[-1] = (s, e, pflags | flags)
                continue
        trimmed.append((s, e, flags))

    atomic = _atomic_spans(doc.blocks)
    atomic_kind = {(b.start, b.end): b.kind for b in doc.blocks if b.kind in ("table", "code")}
    chunks: list[Chunk] = []
    ids, texts, paths = _named(doc, [(s, e) for s, e, _ in trimmed], settings.key())
    count = units.size if counter is None else counter
    limit, fixed = settings.size, settings.splitter == "fixed"
    prev_end = 0
    for i, (s, e, flags) in enumerate(trimmed):
        size = count(s, e)
        if size > limit:
            flags.add("oversize")
        if fixed:
            flags.discard("hard_cut")  # every cut of a fixed window is a hard one
        if atomic:
            for x in (s, e):
                j = _inside(atomic, x)
                if j is not None:
                    kind = atomic_kind[atomic[j]]
                    flags.add("table_split" if kind == "table" else "code_split")
        overlap = units.size(s, min(prev_end, e)) if i and s < prev_end else 0
        page_start, page_end = doc.page_span(s, e)
        chunks.append(
            Chunk(
                id=ids[i],
                index=i,
                start=s,
                end=e,
                text=texts[i],
                size=size,
                overlap=overlap,
                heading_path=paths[i],
                page_start=page_start,
                page_end=page_end,
                flags=tuple(sorted(flags)) if flags else (),
            )
        )
        prev_end = e
    return chunks


__all__ = [
    "Embed",
    "Level",
    "pack",
    "page_starts",
    "passage_cuts",
    "semantic_breaks",
    "split",
    "split_levels",
    "split_passages",
]
