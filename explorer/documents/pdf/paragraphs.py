"""A page's units in reading order: its lines in rows, rows joined into paragraphs.

:func:`_page_units` orders a page's lines and tables (:mod:`~explorer.documents.pdf.order`) and
groups them: one row per visual line (a leaf of aligned columns becomes a table), runs of
numbered monospaced rows merged into code listings (:func:`_listings`), footnotes at the foot of
a column moved to the end of the page (:func:`_footnotes_last`), and rows joined into paragraphs
where the text flows on (:func:`_join_rows`, :func:`_continues`).
"""

from __future__ import annotations

import itertools
import re
import statistics
from typing import Any

from explorer.documents.pdf.order import _Cut, _Leaf, _xy_cut
from explorer.documents.pdf.records import (
    _BULLET_RE,
    _DASHES,
    _DOT_LEADERS,
    _HYPHENS,
    _Frag,
    _Item,
    _Row,
    _Stats,
    _Table,
    _Unit,
)
from explorer.documents.pdf.tables import _cluster_rows, _grid

_ENUM_RE = re.compile(
    r"(?:\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})\)|\d{1,3}\.(?!\d)|\d{1,3}(?:\.\d{1,3})+\.?)\s"
)
_FOOTNOTE = re.compile(r"(?:\d{1,3}|[*†‡§¶])\s?[^\W\d]")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")


def _page_units(
    frags: list[_Frag],
    tables: list[tuple[Any, _Table]],
    page_height: float,
    rules: list[tuple[float, float, float]],
    body_size: float,
    stats: _Stats,
) -> list[_Unit]:
    """Order a page's lines (XY-cut) and group them into paragraphs and tables."""
    if not frags:
        return []
    in_table = {id(f) for _bbox, t in tables for row in t.rows for cell in row for f in cell}
    items = [_Item(bbox.x0, bbox.y0, bbox.x1, bbox.y1, table=table) for bbox, table in tables] + [
        _Item(f.left, f.top, f.right, f.bottom, frag=f) for f in frags if id(f) not in in_table
    ]
    size = statistics.median(f.size for f in frags)
    cut = _Cut(min_gap=max(3.0, 0.45 * size), min_width=3.0 * size, near=2.5 * size, rules=rules)
    leaves = _xy_cut(items, cut)
    if cut.columns:
        stats.multi_column_pages += 1
    return _paragraphs(leaves, page_height, body_size, stats)


def _paragraphs(
    leaves: list[_Leaf], page_height: float, body_size: float, stats: _Stats
) -> list[_Unit]:
    """One unit per visual row (or table) in reading order, then rows joined into paragraphs."""
    units: list[_Unit] = []
    for n, (items, columns) in enumerate(leaves):
        frags = [i.frag for i in items if i.frag is not None]
        if columns is not None:
            cells = [[i.frag for i in part if i.frag is not None] for part in columns]
            units.append(_Unit(table=_Table(_grid(cells))))
            stats.aligned_tables += 1
            continue
        left = min(i.left for i in items)
        right = max(i.right for i in items)
        entries = [
            (min(f.top for f in row), _Unit(rows=[_Row(row, n, left, right)]))
            for row in _cluster_rows(frags)
        ]
        entries += [(i.top, _Unit(table=i.table)) for i in items if i.table is not None]
        entries.sort(key=lambda e: e[0])
        units += [unit for _top, unit in entries]
    return _join_rows(_footnotes_last(_listings(units), page_height, body_size, stats))


_NUMBERED_LINE = re.compile(r"(\d{1,5})[:.]?(?:\s|$)")


def _listings(units: list[_Unit]) -> list[_Unit]:
    """Merge runs of three or more monospaced rows numbered 1, 2, 3 ... into code listings."""

    def number(unit: _Unit) -> int | None:
        if len(unit.rows) != 1:
            return None
        row = unit.rows[0]
        glyphs = sum(n for f in row.frags for _s, _b, n in f.styles)
        m = _NUMBERED_LINE.match(row.text)
        if m is None or 2 * sum(f.mono for f in row.frags) < glyphs:
            return None
        return int(m[1])

    out: list[_Unit] = []
    k = 0
    while k < len(units):
        end = k + 1
        first = number(units[k])
        if first is not None:
            while end < len(units) and number(units[end]) == first + end - k:
                end += 1
        if end - k >= 3:
            out.append(_Unit(rows=[u.rows[0] for u in units[k:end]], code=True))
        else:
            out += units[k:end]
        k = end
    return out


def _footnotes_last(
    units: list[_Unit], page_height: float, body_size: float, stats: _Stats
) -> list[_Unit]:
    """Move footnotes (small print at the foot of a column, opening with a marker) to the end
    of the page, so that sentences running on into the next column are not interrupted."""
    small = 0.85 * body_size
    moved: list[int] = []
    k = len(units)
    while k > 0:
        leaf = units[k - 1].rows[0].leaf if units[k - 1].rows else None
        start = k
        while start > 0 and units[start - 1].rows and units[start - 1].rows[0].leaf == leaf:
            start -= 1
        end = k
        foot = end
        while foot > start and units[foot - 1].rows[0].size <= small:
            foot -= 1
        for i in range(foot, end):
            row = units[i].rows[0]
            if row.top > 0.25 * page_height and _FOOTNOTE.match(row.text):
                moved = list(range(i, end)) + moved
                break
        k = start if start < k else k - 1
    if not moved:
        return units
    stats.footnotes += sum(1 for i in moved if _FOOTNOTE.match(units[i].rows[0].text))
    keep = set(moved)
    return [u for i, u in enumerate(units) if i not in keep] + [units[i] for i in moved]


def _join_rows(units: list[_Unit]) -> list[_Unit]:
    """Merge single-row units into paragraphs where the text flows on."""
    out: list[_Unit] = []
    gaps = [
        b.rows[0].top - a.rows[0].bottom
        for a, b in itertools.pairwise(units)
        if a.rows and b.rows and a.rows[0].leaf == b.rows[0].leaf
    ]
    normal_gap = statistics.median(gaps) if gaps else 0.0
    for unit in units:
        if unit.table is not None or unit.code or not out or out[-1].table or out[-1].code:
            out.append(unit)
            continue
        a, b = out[-1].rows[-1], unit.rows[0]
        if _continues(a, b, out[-1].rows[0], normal_gap):
            out[-1].rows.append(b)
        else:
            out.append(unit)
    return out


def _starts_item(text: str) -> tuple[bool, bool]:
    """(starts with a bullet, starts with an enumerator like ``1.`` or ``(a)``)."""
    return bool(_BULLET_RE.match(text)), bool(_ENUM_RE.match(text))


def _continues(a: _Row, b: _Row, first: _Row, normal_gap: float) -> bool:
    """Does row ``b`` continue the paragraph whose last row is ``a`` (first row ``first``)?"""
    size_a, size_b = a.size, b.size
    if abs(size_a - size_b) > max(0.5, 0.08 * max(size_a, size_b)) or a.bold != b.bold:
        return False
    text_b = b.text
    bullet, enum = _starts_item(text_b)
    if bullet:
        return False
    text_a = a.text
    if _DOT_LEADERS.search(text_a):  # a table-of-contents entry ends its line
        return False
    ends_sentence = bool(_SENTENCE_END.search(text_a))
    if a.leaf != b.leaf:
        overlap = min(a.bottom, b.bottom) - max(a.top, b.top)
        if overlap >= 0.5 * min(a.bottom - a.top, b.bottom - b.top) and b.left - a.right >= 0:
            return b.left - a.right < 3 * size_b  # pieces of one line split by a wide space
        # another column or region: continue only a sentence broken at the column foot, one
        # that reads on (lower case, a hyphen or comma) or whose last line broke because the
        # next word did not fit, going on flush left (a new paragraph would be indented)
        fits = a.right + _first_word_width(b) + 0.5 * size_b < a.leaf_right
        full = not fits and abs(b.left - b.leaf_left) <= 1
        return (
            b.top < a.top - 0.5 * size_b
            and not ends_sentence
            and not enum
            and (text_b[:1].islower() or text_a[-1:] in _HYPHENS + _DASHES + "," or full)
        )
    if b.top - a.bottom > normal_gap + 0.3 * size_b:
        return False
    if ends_sentence and b.starts_bold and not a.frags[-1].styles[-1][1]:
        return False
    size = size_b
    indent = b.left - a.left
    if enum and (ends_sentence or indent > 0.5 * size or a.right < a.leaf_right - 4 * size):
        return False
    if 0.8 * size <= indent <= 8 * size and a.left <= a.leaf_left + 1:
        marker = _marker_end(first)
        if marker is None or abs(b.left - marker) > 2:
            return False
    if ends_sentence:
        word = _first_word_width(b)
        if a.right + word + 0.5 * size < a.leaf_right:
            return False
    return True


def _marker_end(row: _Row) -> float | None:
    """x where the text after a list marker starts (the hanging indent), if ``row`` has one."""
    f = row.frags[0]
    text = f.text
    m = _BULLET_RE.match(text) or _ENUM_RE.match(text)
    if m is None:
        return None
    i = m.end()
    while i < len(f.chars) and f.chars[i] == " ":
        i += 1
    if i < len(f.chars) and f.x0[i] == f.x0[i]:
        return f.x0[i]
    return row.frags[1].left if len(row.frags) > 1 else None


def _first_word_width(row: _Row) -> float:
    f = row.frags[0]
    end = f.chars.index(" ") if " " in f.chars else len(f.chars)
    xs = [x for x in f.x1[:end] if x == x]
    return (max(xs) - f.left) if xs else 0.0
