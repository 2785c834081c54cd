"""Reading order: a recursive XY-cut over the boxes of a page's lines and tables.

:func:`_xy_cut` splits the page into horizontal bands at white gaps (:func:`_bands`), merges
consecutive bands that share a column gap (:func:`_merge_bands`, :func:`_fits`; a rule between
them, white space of several lines or a title set across the page keeps them apart) and cuts
each group into columns at vertical white gaps (:func:`_column_split`), recursively, so that
multi-column regions read column by column and full-width lines in order. Columns of short,
row-aligned text (tables, option lists, glossaries) come out as one leaf, read row by row.
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
from dataclasses import dataclass

from explorer.documents.pdf.records import _BULLET_RE, _Item

_MARKER = re.compile(
    r"[^\w\s]{1,2}|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)]|\d{1,3}(?:\.\d{1,3})+\.?"
    r"|\[\d{1,3}\]"
)


@dataclass(slots=True)
class _Cut:
    min_gap: float
    min_width: float
    near: float  # a narrow part closer than this to its neighbour belongs to it
    rules: list[tuple[float, float, float]]
    columns: bool = False  # set when a page region was read as two or more text columns


_Leaf = tuple[list[_Item], list[list[_Item]] | None]
"""Items in reading order, and the columns of a table of aligned text (None: not a table)."""


def _xy_cut(items: list[_Item], cut: _Cut) -> list[_Leaf]:
    """Order items: bands top to bottom, bands sharing a column gap read column by column."""
    if len(items) == 1:
        return [(items, None)]
    bands = _bands(items)
    if len(bands) > 1:
        groups = _merge_bands(bands, cut)
    else:
        groups = [(items, _column_split(items, cut) is not None)]
    if len(groups) == 1:
        parts = _column_split(items, cut) if groups[0][1] else None
        if parts is None:
            return [(items, None)]
        head, body, tail = _peel(parts)
        if not _bulleted(body) and (_looks_tabular(body) or _looks_row_aligned(body)):
            table = [i for part in body for i in part]
            # list markers or line numbers in the first column: read each row across
            columns = None if _numbered_lines(body[0]) else body
            return [(head, None)] * bool(head) + [(table, columns)] + [(tail, None)] * bool(tail)
        if sum(1 for part in parts if len(part) >= 3) >= 2:
            cut.columns = True
        out: list[_Leaf] = []
        for part in parts:
            out += _xy_cut(part, cut)
        return out
    out = []
    run: list[_Item] = []  # consecutive groups without columns read as one vertical run
    for group, split in groups:
        if split:
            if run:
                out.append((run, None))
                run = []
            out += _xy_cut(group, cut)
        else:
            run += group
    if run:
        out.append((run, None))
    return out


def _column_split(items: list[_Item], cut: _Cut) -> list[list[_Item]] | None:
    """Split at vertical white gaps that run through all items; None if there is none.

    Narrow parts of list markers or currency signs that sit close to a neighbour are merged
    into it across the narrower gap.
    """
    spans = sorted((i.left, i.right) for i in items)
    gaps: list[tuple[float, float]] = []
    reach = spans[0][1]
    for left, right in spans[1:]:
        if left - reach >= cut.min_gap:
            gaps.append((reach, left))
        reach = max(reach, right)
    top = min(i.top for i in items)
    bottom = max(i.bottom for i in items)
    gaps = [  # a rule drawn across a gap joins both sides: cut above/below it first
        gap
        for gap in gaps
        if not any(top < y < bottom and x0 <= gap[0] and x1 >= gap[1] for y, x0, x1 in cut.rules)
    ]
    if not gaps:
        return None
    while gaps:
        edges = [spans[0][0], *(x for gap in gaps for x in gap), reach]
        widths = [edges[2 * k + 1] - edges[2 * k] for k in range(len(gaps) + 1)]
        removable = []
        for k, width in enumerate(widths):
            if width >= cut.min_width:
                continue
            # a narrow part of bullets, list numbers, currency signs or tiny words close to its
            # neighbour belongs to it; anything else narrow is a column of its own
            near = [g for g in (k - 1, k) if 0 <= g < len(gaps)]
            g = min(near, key=lambda g: gaps[g][1] - gaps[g][0])
            if gaps[g][1] - gaps[g][0] >= cut.near:
                continue
            lo, hi = edges[2 * k] - 0.01, edges[2 * k + 1] + 0.01
            if all(
                _MARKER.fullmatch(text := i.frag.text.strip()) or len(text) <= 3
                for i in items
                if i.frag is not None and lo <= i.left and i.right <= hi
            ):
                removable.append((width, g))
        if not removable:
            break
        gaps.pop(min(removable)[1])
    if not gaps:
        return None
    parts: list[list[_Item]] = [[] for _ in range(len(gaps) + 1)]
    for item in items:
        k = sum(1 for gap in gaps if item.left >= gap[1] - 0.01)
        parts[k].append(item)
    return parts


def _looks_tabular(parts: list[list[_Item]]) -> bool:
    """Columns of short, row-aligned text: read them as table rows, not column by column."""
    if any(len(p) < 2 for p in parts) or any(i.table is not None for p in parts for i in p):
        return False
    # text columns are filled by their lines; table columns hold short cells
    fill = []
    for part in parts:
        width = max(i.right for i in part) - min(i.left for i in part)
        fill += [(i.right - i.left) / width for i in part if width > 0]
    if statistics.median(fill) > 0.6:
        return False
    aligned = 0
    rows = 0
    for a, b in itertools.pairwise(parts):
        fewer, other = (a, b) if len(a) <= len(b) else (b, a)
        rows = max(rows, len(fewer))
        for item in fewer:
            h = item.bottom - item.top
            if any(
                min(item.bottom, o.bottom) - max(item.top, o.top) >= 0.6 * min(h, o.bottom - o.top)
                for o in other
            ):
                aligned += 1
    total = sum(min(len(a), len(b)) for a, b in itertools.pairwise(parts))
    return rows >= 3 and aligned >= 0.75 * total


def _peel(
    parts: list[list[_Item]],
) -> tuple[list[_Item], list[list[_Item]], list[_Item]]:
    """Lines of the first column above or below everything beside it (a heading over a list,
    the next heading under it), apart from the columns that run side by side."""
    if len(parts[0]) < 2 or any(i.frag is None for part in parts for i in part):
        return [], parts, []
    top = min(i.core_top for part in parts[1:] for i in part)
    bottom = max(i.core_bottom for part in parts[1:] for i in part)
    middle = [i for i in parts[0] if top <= i.core_bottom and i.core_top <= bottom]
    if not middle:
        return [], parts, []
    edge = min(i.left for i in middle)
    size = statistics.median(i.frag.size for i in middle if i.frag is not None)
    bold = all(i.frag.bold for i in middle if i.frag is not None)

    def apart(i: _Item) -> bool:  # set apart as a heading: outdented, larger or bolder
        f = i.frag
        return f is not None and (
            i.left < edge - 0.5 * size or f.size > size + 0.5 or (f.bold and not bold)
        )

    head = [i for i in parts[0] if i.core_bottom < top and apart(i)]
    tail = [i for i in parts[0] if i.core_top > bottom and apart(i)]
    if not (head or tail):
        return [], parts, []
    keep = [i for i in parts[0] if i not in head and i not in tail]
    return head, [keep, *parts[1:]], tail


def _bulleted(parts: list[list[_Item]]) -> bool:
    """Is every column a bulleted list (each line at its left edge opens with a bullet)?
    Lists set side by side are read column by column, each item whole."""
    for part in parts:
        edge = min(i.left for i in part)
        starts = [i.frag.text for i in part if i.frag is not None and i.left <= edge + 1]
        if len(starts) < 2 or not all(_BULLET_RE.match(t) for t in starts):
            return False
    return True


def _looks_row_aligned(parts: list[list[_Item]]) -> bool:
    """An option list, parameter list or glossary: short left cells on the baselines of the
    lines beside them, one to one (the text beside a cell may wrap onto lines of its own).

    Text columns share baselines too, but their lines are full of words and as wide as each
    other; the cells of every column but the last hold a few words each, and their column is
    narrower than the last.
    """
    if any(i.frag is None for p in parts for i in p):
        return False
    last = max(i.right for i in parts[-1]) - min(i.left for i in parts[-1])
    for part in parts[:-1]:
        words = [len(i.frag.text.split()) for i in part if i.frag is not None]
        if len(words) < 3 or statistics.median(words) > 3 or max(words) > 6:
            return False
        # a column of cells is narrower than the text beside it; text columns are alike
        if max(i.right for i in part) - min(i.left for i in part) > 0.6 * last:
            return False
    for left, right in itertools.pairwise(parts):
        aligned = sum(
            1
            for a in left
            if any(
                min(a.bottom, b.bottom) - max(a.top, b.top)
                >= 0.6 * min(a.bottom - a.top, b.bottom - b.top)
                for b in right
            )
        )
        if aligned < 0.8 * len(left):
            return False
    return True


_LINE_NUMBER = re.compile(r"\d{1,5}[:.]?")


def _numbered_lines(column: list[_Item]) -> bool:
    """Is this column list markers (bullets, ``[12]``) or consecutive line numbers?"""
    texts = [i.frag.text.strip() for i in column if i.frag is not None]
    if not texts:
        return False
    if all(_LINE_NUMBER.fullmatch(t) for t in texts):
        numbers = [int(t.rstrip(":.")) for t in texts]
        return all(b == a + 1 for a, b in itertools.pairwise(numbers))
    return all(_MARKER.fullmatch(t) for t in texts)


def _bands(items: list[_Item]) -> list[list[_Item]]:
    """Split into horizontal bands at white gaps between line cores, top to bottom."""
    bands: list[list[_Item]] = []
    bottom = -math.inf
    for item in sorted(items, key=lambda i: (i.core_top, i.left)):
        if bands and item.core_top < bottom:
            bands[-1].append(item)
            bottom = max(bottom, item.core_bottom)
        else:
            bands.append([item])
            bottom = item.core_bottom
    return bands


def _merge_bands(bands: list[list[_Item]], cut: _Cut) -> list[tuple[list[_Item], bool]]:
    """Merge consecutive bands that share a column gap (and no rule runs between them).

    Returns the groups with a flag telling whether each one splits into columns.
    """
    group = list(bands[0])
    group_parts = _column_split(group, cut)
    groups: list[tuple[list[_Item], bool]] = []
    for k, band in enumerate(bands[1:], start=1):
        above = max(i.core_bottom for i in group)
        below = min(i.core_top for i in band)
        ruled = any(above <= y <= below for y, _x0, _x1 in cut.rules)
        band_parts = _column_split(band, cut)
        # white space of several lines across every column: the columns have ended
        height = statistics.median(i.bottom - i.top for i in group)
        after = bands[k + 1] if k + 1 < len(bands) else None
        title = _title_below(band, group_parts) and (
            after is not None and _fits(after, group_parts, cut) is None
        )
        if not ruled and below - above <= 2.5 * height and not title:
            # the lines of one side must each sit inside a column of the other
            if group_parts is not None:
                union_parts = _fits(band, group_parts, cut)
            else:
                union_parts = _fits(group, band_parts, cut)
            if union_parts is not None:
                group, group_parts = group + band, union_parts
                continue
        groups.append((group, group_parts is not None))
        group, group_parts = list(band), band_parts
    groups.append((group, group_parts is not None))
    return _hoist_column_heads(groups, cut)


def _title_below(band: list[_Item], parts: list[list[_Item]] | None) -> bool:
    """Could ``band`` be a title set across the page under columns that end above it (one
    line, in a column but clear of both its edges) rather than a line of that column? The
    caller also asks that what follows it does not fit the columns (a table across them)."""
    if parts is None or len(band) != 1 or band[0].frag is None:
        return False
    if sum(1 for part in parts if len(part) >= 3) < 2:
        return False
    item, size = band[0], band[0].frag.size
    if any(i.core_bottom >= item.core_top for part in parts for i in part):
        return False
    for part in parts:
        left = min(i.left for i in part)
        right = max(i.right for i in part)
        if left <= item.left and item.right <= right:
            return item.left > left + 2 * size and item.right < right - 2 * size
    return False


def _hoist_column_heads(
    groups: list[tuple[list[_Item], bool]], cut: _Cut
) -> list[tuple[list[_Item], bool]]:
    """Pull lines that sit alone above a column group into it when they fit one of its columns.

    Two columns can have white space at different heights just above a stretch where both run
    side by side: the first line of each then forms a band of its own, and read as such it would
    come before the rest of the first column.
    """
    out: list[tuple[list[_Item], bool]] = []
    for group, columns in groups:
        if columns:
            parts = _column_split(group, cut)
            while out and not out[-1][1] and parts is not None:
                above = out[-1][0]
                bottom = max(i.core_bottom for i in above)
                top = min(i.core_top for i in group)
                if any(bottom <= y <= top for y, _x0, _x1 in cut.rules):
                    break
                if len(out) > 1 and not out[-2][1] and _flows_into(out[-2][0], above):
                    break  # the last line of a paragraph above, not the head of a column
                merged = _fits(above, parts, cut)
                if merged is None:
                    break
                out.pop()
                group, parts = above + group, merged
        out.append((group, columns))
    return out


def _flows_into(upper: list[_Item], lower: list[_Item]) -> bool:
    """Is ``lower`` the next line of the same text as ``upper`` (close below, overlapping)?"""
    a = max(upper, key=lambda i: i.bottom)
    b = min(lower, key=lambda i: i.top)
    overlap = min(a.right, b.right) - max(a.left, b.left)
    height = b.bottom - b.top
    return b.top - a.bottom < 0.8 * height and overlap > 0.5 * (b.right - b.left)


def _fits(
    items: list[_Item], parts: list[list[_Item]] | None, cut: _Cut
) -> list[list[_Item]] | None:
    """``parts`` with ``items`` added, if every item sits in one of these columns; else None.

    An item sits in a column when it stays clear of the neighbouring columns (so the gaps
    between them survive) and overlaps the column's extent so far by half of the narrower of
    the two: ragged-right, indented and right-aligned lines do, a title centred over the gap
    between two columns does not.
    """
    if parts is None:
        return None
    lefts = [min(i.left for i in part) for part in parts]
    rights = [max(i.right for i in part) for part in parts]
    floors = [-math.inf] + [right + cut.min_gap for right in rights[:-1]]
    limits = [left - cut.min_gap for left in lefts[1:]] + [math.inf]
    out = [list(part) for part in parts]
    for i in items:
        for k, (left, right, floor, limit) in enumerate(
            zip(lefts, rights, floors, limits, strict=True)
        ):
            overlap = min(i.right, right) - max(i.left, left)
            narrower = min(i.right - i.left, right - left)
            if floor - 2 <= i.left and i.right <= limit and overlap >= 0.5 * narrower:
                out[k].append(i)
                break
        else:
            return None
    return out
