"""Running headers and footers, running titles, bare page numbers, margin notes and watermarks.

:func:`_remove_repeats` drops, unless that would remove every line of the document:

* **headers** — lines in the top, bottom or side margins (and rotated lines anywhere) that
  repeat, digits aside, on at least half of the pages and on three at least;
* **page numbers** — bare page numbers in the top and bottom margins;
* **running titles** — lines that change by chapter or section (``Chapter 5: Arrays and
  matrices`` on the pages of chapter 5, ``CHAPTER 3. TITLE`` on even pages and ``3.2. SECTION``
  on odd ones, a chapter's name in the footer). A line counts only where the page template puts
  its running lines: in the top or bottom margin, on a *slot* (a height on the page, the same
  within :data:`_SLOT_TOLERANCE`) that holds a margin line on at least half of the pages; and
  only when its text, digit runs and a leading or trailing page number aside, stands in the same
  slot on a page at most :data:`_RUN_GAP` pages away (the next page, or the next of the same
  side of the spread). A title on one page only (a chapter of two pages, whose first page has
  no running header, or a section that fills one page) counts when its slot holds two running
  titles at least and it is set like one of them, or like two other such lines: the same first
  word (``Chapter``, ``#.#.``, digits masked) and the same left or right edge. A
  chapter's first page, which usually sets the title as a heading in the body, keeps that
  heading: only margin lines are looked at.

The top and bottom margins are the top and bottom 8% of the page (:data:`_MARGIN`), and, where
the page template sets its header or footer further in (LaTeX classes put it about a tenth of
the page down), the slots within 15% of the edge (:data:`_WIDE_MARGIN`) that hold, on at least
half of the pages, a bare page number or a line whose text (digits and all) recurs there
within two pages (:func:`_widen_margins`): the body's first line also stands at one height on
every page, but neither beside the page number nor with the same text page after page.

Each removed line is recorded in :class:`_Stats` with its kind, for the normalisation notes and
``Document.removed``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from explorer.documents.pdf.records import _Frag, _Stats

_MARGIN = 0.08  # running headers/footers live in the top/bottom 8% of the page
_WIDE_MARGIN = 0.15  # ... or in the top/bottom 15% on a slot of page numbers or running titles
_REPEAT_SHARE = 0.5  # ... and repeat on at least half of the pages
_REPEAT_MIN_PAGES = 3
_PAGE_NUMBER = re.compile(
    r"(?:page\s*)?(?:#+|[ivxlcdm]+)(?:\s*(?:of|/)\s*#+)?|[-–—]\s*#+\s*[-–—]", re.IGNORECASE
)
_SLOT_TOLERANCE = 1.5
"""Points: the lines of one header or footer slot have their bottoms this close (the page
template sets them on one baseline; a font change moves the box by a fraction of a point)."""
_RUN_GAP = 2
"""A running title recurs on a page at most this many pages away: the next page, or the next
page of the same side of a spread when odd and even pages carry different titles."""
_EDGE_NUMBER = re.compile(r"^(?:\d+|[ivxlc]+)\s+|\s+(?:\d+|[ivxlc]+)$")


def _repeat_key(text: str) -> str:
    return re.sub(r"\d", "#", " ".join(text.split()))


def _running_key(text: str) -> str:
    """A margin line's text as its running title: white space collapsed, a leading or trailing
    page number dropped, digit runs masked (``20 5.1 Arrays`` and ``22 5.1 Arrays`` match)."""
    flat = " ".join(text.split())
    return re.sub(r"\d+", "#", _EDGE_NUMBER.sub("", flat))


def _setting(key: str, f: _Frag) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """How a margin line is set: its first word (digits masked) at its left edge and at its
    right edge, to the point."""
    word = re.sub(r"\d+", "#", key.split()[0])
    return (word, "left", round(f.left)), (word, "right", round(f.right))


def _slots(bottoms: list[tuple[float, int]], threshold: int) -> list[tuple[float, float]]:
    """The heights (as bottom ranges) at which margin lines stand on ``threshold`` pages at least.

    ``bottoms`` holds (bottom, page) of every margin line on one side of the pages."""
    out: list[tuple[float, float]] = []
    group: list[tuple[float, int]] = []
    for bottom, page in [*sorted(bottoms), (math.inf, -1)]:
        if group and bottom - group[0][0] > 2 * _SLOT_TOLERANCE:
            if len({p for _b, p in group}) >= threshold:
                out.append((group[0][0], group[-1][0]))
            group = []
        group.append((bottom, page))
    return out


def _running_titles(
    pages: list[list[_Frag]],
    sizes: Sequence[tuple[float, float]],
    zones: list[list[str | None]],
    plan: list[list[bool]],
    threshold: int,
) -> set[tuple[int, int]]:
    """(page, index) of the margin lines that are running titles (see the module docstring)."""
    bottoms: dict[bool, list[tuple[float, int]]] = defaultdict(list)
    for number, (frags, page_zones, (_w, height)) in enumerate(
        zip(pages, zones, sizes, strict=True)
    ):
        for f, z in zip(frags, page_zones, strict=True):
            if z == "header":
                bottoms[f.bottom < height / 2].append((f.bottom, number))
    slots = {top: _slots(found, threshold) for top, found in bottoms.items()}

    # (top side, slot) -> (key, page, index) of the lines not removed already
    held: dict[tuple[bool, int], list[tuple[str, int, int]]] = defaultdict(list)
    for number, (frags, page_zones, drop, (_w, height)) in enumerate(
        zip(pages, zones, plan, sizes, strict=True)
    ):
        for i, (f, z, gone) in enumerate(zip(frags, page_zones, drop, strict=True)):
            if z != "header" or gone or sum(c.isalpha() for c in f.chars) < 2:
                continue
            top = f.bottom < height / 2
            for k, (lo, hi) in enumerate(slots.get(top, ())):
                if lo - _SLOT_TOLERANCE <= f.bottom <= hi + _SLOT_TOLERANCE:
                    held[(top, k)].append((_running_key(f.text), number, i))
                    break
    return {
        (n, i)
        for lines in held.values()
        for k in _titles(lines, pages)
        for _key, n, i in [lines[k]]
    }


def _titles(lines: list[tuple[str, int, int]], pages: list[list[_Frag]]) -> list[int]:
    """Which of one slot's lines, (key, page, index), are running titles: those whose key recurs
    in the slot within :data:`_RUN_GAP` pages, and, when the slot holds two such keys at least,
    the lone lines set like one of them or like two other lone lines (:func:`_setting`)."""
    by_key: dict[str, list[int]] = defaultdict(list)
    for k, (key, _n, _i) in enumerate(lines):
        by_key[key].append(k)
    out: list[int] = []
    lone: list[int] = []
    for ks in by_key.values():
        numbers = sorted({lines[k][1] for k in ks})
        near = {n for a, b in itertools.pairwise(numbers) if b - a <= _RUN_GAP for n in (a, b)}
        for k in ks:
            (out if lines[k][1] in near else lone).append(k)
    if len({lines[k][0] for k in out}) < 2:
        return out

    def setting(k: int) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
        key, n, i = lines[k]
        return _setting(key, pages[n][i])

    running = {s for k in out for s in setting(k)}
    alike = Counter(s for k in lone for s in setting(k))
    for k in lone:
        own = setting(k)
        around = [(word, side, x + d) for word, side, x in own for d in (-1, 0, 1)]
        if any(s in running for s in around) or any(alike[s] - (s in own) >= 2 for s in around):
            out.append(k)
    return out


def _widen_margins(
    pages: list[list[_Frag]],
    sizes: Sequence[tuple[float, float]],
    zones: list[list[str | None]],
    threshold: int,
) -> None:
    """Mark as margin lines (zone ``"header"``) the lines within :data:`_WIDE_MARGIN` of the top
    or bottom edge that stand on a slot the page template fills: one where, on ``threshold``
    pages at least, a bare page number stands or a line whose words, digits and all, recur in
    the slot within :data:`_RUN_GAP` pages. LaTeX classes
    set the header about a tenth of the page down, further in than :data:`_MARGIN`; the body's
    first line stands at one height on every page too, but its text does not recur page after
    page."""

    def wide(f: _Frag, height: float) -> bool | None:
        """True near the top edge, False near the bottom, None elsewhere (or in the margin)."""
        cy = (f.top + f.bottom) / 2
        if not f.horizontal or cy <= _MARGIN * height or cy >= (1 - _MARGIN) * height:
            return None
        if cy <= _WIDE_MARGIN * height:
            return True
        return False if cy >= (1 - _WIDE_MARGIN) * height else None

    lines: dict[bool, list[tuple[float, int, int]]] = defaultdict(list)  # bottom, page, index
    for number, (frags, page_zones, (_w, height)) in enumerate(
        zip(pages, zones, sizes, strict=True)
    ):
        for i, f in enumerate(frags):
            top = wide(f, height)
            if top is not None and page_zones[i] is None:
                lines[top].append((f.bottom, number, i))
    for side in lines.values():
        for lo, hi in _slots([(b, n) for b, n, _i in side], threshold):
            slot = [(n, i) for b, n, i in side if lo <= b <= hi]
            template = {n for n, i in slot if _PAGE_NUMBER.fullmatch(_repeat_key(pages[n][i].text))}
            # recurring words, digits and all: a body's first lines differ, in their words or
            # their numbers (``Section 1``, ``Section 2``); lone lines do not count here
            by_text: dict[str, list[int]] = defaultdict(list)
            for n, i in slot:
                if sum(c.isalpha() for c in pages[n][i].chars) >= 2:
                    by_text[" ".join(pages[n][i].text.split())].append(n)
            for numbers in by_text.values():
                numbers.sort()
                template.update(
                    n for a, b in itertools.pairwise(numbers) if b - a <= _RUN_GAP for n in (a, b)
                )
            if len(template) >= threshold:
                for n, i in slot:
                    zones[n][i] = "header"


def _remove_repeats(
    pages: list[list[_Frag]], sizes: Sequence[tuple[float, float]], stats: _Stats
) -> None:
    """Drop running headers/footers and titles, page numbers, margin notes and watermarks."""
    n_pages = len(pages)
    threshold = max(_REPEAT_MIN_PAGES, math.ceil(_REPEAT_SHARE * n_pages))

    def zone(f: _Frag, width: float, height: float) -> str | None:
        if not f.horizontal:
            return "watermark"
        cy = (f.top + f.bottom) / 2
        if cy <= _MARGIN * height or cy >= (1 - _MARGIN) * height:
            return "header"
        if f.right <= _MARGIN * width or f.left >= (1 - _MARGIN) * width:
            return "margin"
        return None

    zones = [
        [zone(f, width, height) for f in frags]
        for frags, (width, height) in zip(pages, sizes, strict=True)
    ]
    if n_pages >= _REPEAT_MIN_PAGES:
        _widen_margins(pages, sizes, zones, threshold)
    seen: dict[tuple[str, str], set[int]] = defaultdict(set)
    for number, (frags, page_zones) in enumerate(zip(pages, zones, strict=True)):
        for f, z in zip(frags, page_zones, strict=True):
            if z is not None:
                seen[(z, _repeat_key(f.text))].add(number)
    repeated = {key for key, on in seen.items() if len(on) >= threshold}
    if n_pages < _REPEAT_MIN_PAGES:
        repeated = set()

    total_before = sum(len(f.chars) for frags in pages for f in frags)
    removed_chars = 0
    plan: list[list[bool]] = []
    kinds: list[list[str]] = []
    for frags, page_zones in zip(pages, zones, strict=True):
        drop, page_kinds = [], []
        for f, z in zip(frags, page_zones, strict=True):
            key = _repeat_key(f.text)
            gone = z is not None and (z, key) in repeated
            if _PAGE_NUMBER.fullmatch(key) and (gone or z == "header"):
                gone, z = True, "page number"
            drop.append(gone)
            page_kinds.append(str(z))
        plan.append(drop)
        kinds.append(page_kinds)
    if n_pages >= _REPEAT_MIN_PAGES:
        for number, i in _running_titles(pages, sizes, zones, plan, threshold):
            plan[number][i] = True
            kinds[number][i] = "running title"
    removed_chars = sum(
        len(f.chars)
        for frags, drop in zip(pages, plan, strict=True)
        for f, gone in zip(frags, drop, strict=True)
        if gone
    )
    if removed_chars >= total_before:  # never remove every line of a document
        return
    for i, (frags, drop, page_kinds) in enumerate(zip(pages, plan, kinds, strict=True)):
        kept = []
        for f, gone, kind in zip(frags, drop, page_kinds, strict=True):
            if not gone:
                kept.append(f)
                continue
            stats.removed[kind].append((i, f.text))
            stats.removed_lines.append((i, kind, f.text, f.left, f.top, f.right, f.bottom))
        pages[i] = kept
