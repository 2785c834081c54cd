"""Tables: ruled and framed tables found from the page's drawings, and rows from text lines.

* :func:`_edges` — the horizontal and vertical ruling lines among a page's drawings;
* :func:`_ruled_tables` — PyMuPDF's ``find_tables`` where ruling lines form cells (skipped on
  rotated pages and on grids of more than :data:`MAX_TABLE_CROSSINGS` crossings), with tall ruled
  rows split into their visual rows (:func:`_split_subrows`);
* :func:`_framed_tables` — a box of rules whose text splits into columns at white gaps;
* :func:`_cluster_rows` and :func:`_grid` — fragments grouped into visual lines, and lines into
  table rows of cells (also used for the tables of aligned text the reading order finds).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import pymupdf as _pymupdf

from explorer.documents.pdf.order import _column_split, _Cut
from explorer.documents.pdf.records import _Frag, _Item, _PageData, _Stats, _Table

#: ``find_tables`` is skipped on pages whose ruling lines cross more often than this (graph
#: paper, charts, spreadsheet grids): its time grows faster than the number of crossings. A real
#: table of 60 rows and 8 columns has about 540.
MAX_TABLE_CROSSINGS = 2_500

pymupdf: Any = _pymupdf  # PyMuPDF ships partial annotations only; treat it as untyped

# PyMuPDF 1.26+ prints a suggestion to install pymupdf_layout from find_tables, on stdout (into
# the command line's JSON). The layout model is not used here: it brings onnxruntime, which
# reaches the network (pyproject.toml keeps PyMuPDF below 2.0, which requires it).
if hasattr(pymupdf, "no_recommend_layout"):
    pymupdf.no_recommend_layout()


def _edges(
    drawings: list[dict[str, Any]], matrix: Any
) -> tuple[list[tuple[float, float, float, float]], list[tuple[float, float, float, float]]]:
    """Horizontal and vertical line segments (as rectangles) among the page's drawings."""
    horizontal: list[tuple[float, float, float, float]] = []
    vertical: list[tuple[float, float, float, float]] = []
    for path in drawings:
        for item in path["items"]:
            if item[0] == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                rect = pymupdf.Rect(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
            elif item[0] == "re":
                rect = pymupdf.Rect(item[1])
            else:
                continue
            if matrix is not None:
                rect = rect * matrix
            w, h = rect.width, rect.height
            box = (rect.x0, rect.y0, rect.x1, rect.y1)
            if w >= 10 and h < 3:
                horizontal.append(box)
            elif h >= 10 and w < 3:
                vertical.append(box)
            elif w >= 10 and h >= 10 and item[0] == "re" and path.get("type") != "f":
                x0, y0, x1, y1 = box  # a stroked box: its four sides
                horizontal += [(x0, y0, x1, y0), (x0, y1, x1, y1)]
                vertical += [(x0, y0, x0, y1), (x1, y0, x1, y1)]
    return horizontal, vertical


def _ruled_tables(p: _PageData, frags: list[_Frag], stats: _Stats) -> list[tuple[Any, _Table]]:
    """Tables PyMuPDF finds from ruling lines; only tried on pages whose lines form a cell.

    ``find_tables`` is slow, so it runs only where ruling lines cross; rotated pages are
    skipped (``find_tables`` temporarily rewrites their rotation).
    """
    if p.rotated or not frags:
        return []
    if len(p.horizontal) * len(p.vertical) > MAX_TABLE_CROSSINGS * 100:
        stats.table_grids += 1  # so many lines that even counting their crossings is slow
        return []
    crossings = sum(
        1
        for hx0, hy0, hx1, hy1 in p.horizontal
        for vx0, vy0, vx1, vy1 in p.vertical
        if hx0 - 2 <= (vx0 + vx1) / 2 <= hx1 + 2 and vy0 - 2 <= (hy0 + hy1) / 2 <= vy1 + 2
    )
    if crossings < 4:  # not even one ruled cell: find_tables would find nothing
        return []
    if crossings > MAX_TABLE_CROSSINGS:
        stats.table_grids += 1
        return []
    started = time.perf_counter()
    try:
        try:
            found = p.page.find_tables(use_layout=False)
        except TypeError:  # a PyMuPDF without the layout switch
            found = p.page.find_tables()
        tables = [
            (
                pymupdf.Rect(t.bbox),
                [[pymupdf.Rect(c) for c in row.cells if c is not None] for row in t.rows],
            )
            for t in (found.tables if found is not None else [])
            if t.row_count >= 2 and t.col_count >= 2
        ]
    except Exception:  # tables are a bonus: a failure leaves the page to the XY-cut
        stats.table_failures += 1
        tables = []
    stats.table_seconds += time.perf_counter() - started
    stats.table_pages += 1
    out: list[tuple[Any, _Table]] = []
    claimed: set[int] = set()
    for bbox, row_cells in tables:
        rows: list[list[list[_Frag]]] = []
        for cells in row_cells:
            rows.append([[] for _ in cells])
            for f in frags:
                if id(f) in claimed:
                    continue
                cx, cy = (f.left + f.right) / 2, (f.top + f.bottom) / 2
                for k, cell in enumerate(cells):
                    if cell.x0 - 1 <= cx <= cell.x1 + 1 and cell.y0 - 1 <= cy <= cell.y1 + 1:
                        rows[-1][k].append(f)
                        claimed.add(id(f))
                        break
        if not any(cell for row in rows for cell in row):
            continue
        # lines inside the table box that no cell claimed stay in the table, as their own row
        for f in frags:
            cx, cy = (f.left + f.right) / 2, (f.top + f.bottom) / 2
            if id(f) not in claimed and bbox.x0 <= cx <= bbox.x1 and bbox.y0 <= cy <= bbox.y1:
                rows.append([[f]])
                claimed.add(id(f))
        # a table ruled only under its header holds all its body rows in one ruled row
        body = len(row_cells) == 2
        flat = [sub for k, r in enumerate(rows) for sub in _split_subrows(r, body=body and k == 1)]
        flat = [sub for sub in flat if any(sub)]
        flat.sort(key=lambda r: min(f.top for cell in r for f in cell))
        box = (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
        out.append((bbox, _Table(flat, ruled=True, box=box)))
        stats.ruled_tables += 1
    return out


def _framed_tables(
    p: _PageData, frags: list[_Frag], found: list[tuple[Any, _Table]], stats: _Stats
) -> list[tuple[Any, _Table]]:
    """Tables drawn as a box with columns of text and no rules between the columns.

    ``find_tables`` needs a rule between columns; a box whose horizontal rules (top, bottom, a
    header rule) share their ends and are joined by vertical rules at both ends holds a table
    when the text inside splits into columns at white gaps. Its rows come from :func:`_grid`,
    with a break at every rule inside the box.
    """
    if not frags or p.rotated or len(p.horizontal) > 400:
        return []
    by_extent: dict[tuple[int, int], list[tuple[float, float, float]]] = defaultdict(list)
    for x0, y0, x1, y1 in p.horizontal:
        by_extent[(round(x0 / 4), round(x1 / 4))].append(((y0 + y1) / 2, x0, x1))
    size = statistics.median(f.size for f in frags)
    cut = _Cut(min_gap=max(3.0, 0.45 * size), min_width=3.0 * size, near=2.5 * size, rules=[])
    claimed = {id(f) for _b, t in found for row in t.rows for cell in row for f in cell}
    out: list[tuple[Any, _Table]] = []
    for rules in by_extent.values():
        if len(rules) < 2:
            continue
        rules.sort()
        (top, x0, x1), (bottom, _a, _b) = rules[0], rules[-1]

        def side(x: float, top: float = top, bottom: float = bottom) -> bool:
            return any(
                abs((vx0 + vx1) / 2 - x) <= 3 and vy0 <= top + 3 and vy1 >= bottom - 3
                for vx0, vy0, vx1, vy1 in p.vertical
            )

        box = pymupdf.Rect(x0, top, x1, bottom)
        if bottom - top < 2 * size or not (side(x0) and side(x1)):
            continue
        if any(box.intersects(b) for b, _t in found + out):
            continue
        inside = [
            f
            for f in frags
            if id(f) not in claimed
            and x0 <= (f.left + f.right) / 2 <= x1
            and top <= (f.top + f.bottom) / 2 <= bottom
        ]
        if len(inside) < 4:
            continue
        parts = _column_split(
            [_Item(f.left, f.top, f.right, f.bottom, frag=f) for f in inside], cut
        )
        if parts is None:
            continue
        columns = [[i.frag for i in part if i.frag is not None] for part in parts]
        breaks = [y for y, _a, _b in rules[1:-1]]
        rows = _grid(columns, breaks=breaks)
        if len(rows) < 2:
            continue
        out.append((box, _Table(rows, ruled=True, box=(x0, top, x1, bottom))))
        claimed.update(id(f) for f in inside)
        stats.ruled_tables += 1
    return out


def _split_subrows(cells: list[list[_Frag]], *, body: bool = False) -> list[list[list[_Frag]]]:
    """Split a ruled row whose cells hold several text rows into one row per visual row.

    Tables without rules between body rows come out of ``find_tables`` as one tall row. When
    at least two cells hold the same number of lines, those lines mark the real rows, and the
    lines of every cell go to the row they start in (a wrapped line stays with its row).
    Otherwise the rows come from the lines' baselines and the first column's left edge
    (:func:`_grid`): in the one body row of a table ruled only under its header (``body``),
    and elsewhere where extra space sets the rows apart.
    """
    rows_per_cell = [_cluster_rows(cell) for cell in cells]
    counts = Counter(len(rows) for rows in rows_per_cell if len(rows) > 1)
    if not counts:
        return [cells]
    k, cells_with_k = counts.most_common(1)[0]
    if cells_with_k < 2:
        return _grid(cells, spaced_only=not body)
    for rows in rows_per_cell:  # lines that read on (a wrapped list, a sentence) are one cell
        texts = [" ".join(f.text for f in row) for row in rows]
        if len(rows) == k and any(
            a.endswith((",", ";", "-", "–")) or b[:1].islower()
            for a, b in itertools.pairwise(texts)
        ):
            return _grid(cells, spaced_only=not body)
    anchor = next(rows for rows in rows_per_cell if len(rows) == k)
    tops = [min(f.top for f in row) for row in anchor]
    out: list[list[list[_Frag]]] = [[[] for _ in cells] for _ in range(k)]
    for c, rows in enumerate(rows_per_cell):
        for row in rows:
            middle = (min(f.top for f in row) + max(f.bottom for f in row)) / 2
            index = max((i for i, top in enumerate(tops) if top <= middle), default=0)
            out[index][c] += row
    return out


def _cluster_rows(frags: Iterable[_Frag]) -> list[list[_Frag]]:
    """Group fragments into visual rows (vertical overlap), top to bottom, each left to right."""
    rows: list[list[_Frag]] = []
    bounds: list[tuple[float, float]] = []
    for f in sorted(frags, key=lambda f: ((f.top + f.bottom) / 2, f.left)):
        cy = (f.top + f.bottom) / 2
        if rows:
            top, bottom = bounds[-1]
            overlap = min(bottom, f.bottom) - max(top, f.top)
            if top <= cy <= bottom and overlap >= 0.5 * min(bottom - top, f.height):
                rows[-1].append(f)
                bounds[-1] = (min(top, f.top), max(bottom, f.bottom))
                continue
        rows.append([f])
        bounds.append((f.top, f.bottom))
    for row in rows:
        row.sort(key=lambda f: f.left)
    return rows


_TOKEN_BREAK = "/_\\"  # a line of a cell ending in one of these wraps inside a token


def _grid(
    columns: list[list[_Frag]], *, breaks: Sequence[float] = (), spaced_only: bool = False
) -> list[list[list[_Frag]]]:
    """Rows of cells from the lines of each column: one row per visual line group.

    A row starts at a line with text at the first column's left edge; the lines below it
    without such text (wrapped cells, an indented note) belong to it. Where the table sets its
    rows apart with extra space, lines closer than that stay in their row even when they start
    at the edge (a first cell wrapping onto a second line), as does a line under a first cell
    broken inside a token (after ``/``, ``_``, ``\\``). Lines above the first row at line
    spacing are the upper lines of its (bottom-aligned) header cells. A horizontal rule at a y
    in ``breaks`` always ends a row. With ``spaced_only``, rows are only split where the table
    sets them apart with space or a rule (for a ruled row that may hold wrapped cells).
    """
    column_of = {id(f): k for k, col in enumerate(columns) for f in col}
    lines = _cluster_rows(f for col in columns for f in col)
    if not lines or not columns[0]:
        return [[list(col) for col in columns]]
    edge = min(f.left for f in columns[0])
    em = statistics.median(f.size for col in columns for f in col)
    height = statistics.median(f.height for line in lines for f in line)
    middles = [(min(f.top for f in line) + max(f.bottom for f in line)) / 2 for line in lines]
    pitches = [b - a for a, b in itertools.pairwise(middles)]
    tight = min(pitches, default=0.0)
    wide = [p > tight + 0.3 * height for p in pitches]  # wide[i - 1]: the gap above line i

    def first_cell(line: list[_Frag]) -> list[_Frag]:
        return [f for f in line if column_of[id(f)] == 0]

    at_edge = [any(f.left <= edge + 0.8 * em for f in first_cell(line)) for line in lines]
    candidates = [i for i in range(1, len(lines)) if at_edge[i]]
    after_space = sum(1 for i in candidates if wide[i - 1])
    spaced = after_space >= 2 and after_space >= 0.5 * len(candidates)

    def ruled(i: int) -> bool:
        above = max(f.bottom for f in lines[i - 1])
        below = min(f.top for f in lines[i])
        return any(above - 1 <= y <= below + 1 for y in breaks)

    def starts(i: int) -> bool:
        if ruled(i):
            return True
        if spaced_only and not spaced:
            return False
        if not at_edge[i] or (spaced and not wide[i - 1]):
            return False
        above = first_cell(lines[i - 1])
        return not (above and above[-1].text.endswith(tuple(_TOKEN_BREAK)))

    groups: list[list[list[_Frag]]] = [[lines[0]]]
    for i in range(1, len(lines)):
        header_line = len(groups) == 1 and not any(at_edge[k] for k in range(i))
        if starts(i) and not (header_line and spaced and not wide[i - 1] and not ruled(i)):
            groups.append([])
        groups[-1].append(lines[i])
    rows: list[list[list[_Frag]]] = []
    for group in groups:
        cells: list[list[_Frag]] = [[] for _ in columns]
        for line in group:
            for f in line:
                cells[column_of[id(f)]].append(f)
        rows.append(cells)
    return rows
