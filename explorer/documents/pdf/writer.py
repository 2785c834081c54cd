"""Writing the Document: text, per-glyph layout and blocks from the pages' units.

:func:`_assemble` writes every page's units through one :class:`_Writer`, which keeps the text,
each character's x extent and the line records together: paragraphs (lines joined as
:mod:`~explorer.documents.pdf.hyphenation` decides), code listings line by line, and tables row by
row with cells separated by ``" | "``. A paragraph broken by a page break continues across it
(:func:`_page_join`). Headings and block kinds come from
:mod:`~explorer.documents.pdf.structure`, the normalisation notes from
:mod:`~explorer.documents.pdf.notes`.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Sequence

from explorer.documents.model import (
    Block,
    Document,
    Layout,
    Line,
    Page,
    Rect,
    RemovedLine,
    TableRow,
    sha256_of,
)
from explorer.documents.pdf.hyphenation import _joiners, _Lexicon, _vocabulary
from explorer.documents.pdf.notes import _notes
from explorer.documents.pdf.paragraphs import _starts_item
from explorer.documents.pdf.records import (
    _DASHES,
    _HYPHENS,
    NAN,
    _Frag,
    _Para,
    _Row,
    _Stats,
    _Table,
    _Unit,
)
from explorer.documents.pdf.structure import _structure
from explorer.documents.pdf.tables import _cluster_rows


class _Writer:
    """Builds the text, the per-character x extents and the line records together."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.x0: list[float] = []  # turned into array("d") once at the end: much faster
        self.x1: list[float] = []
        self.pos = 0
        self.lines: list[Line] = []

    def insert(self, text: str) -> None:
        if text:
            self.parts.append(text)
            nans = [NAN] * len(text)
            self.x0.extend(nans)
            self.x1.extend(nans)
            self.pos += len(text)

    def line(
        self,
        page: int,
        chars: list[str],
        x0: list[float],
        x1: list[float],
        top: float,
        bottom: float,
    ) -> None:
        if not chars:
            return
        start = self.pos
        self.parts.append("".join(chars))
        self.x0.extend(x0)
        self.x1.extend(x1)
        self.pos += len(chars)
        self.lines.append(Line(page, start, self.pos, top, bottom))

    def drop_last(self) -> None:
        """Take back the last character written (it is a glyph of the last line)."""
        self.parts[-1] = self.parts[-1][:-1]
        self.x0.pop()
        self.x1.pop()
        self.pos -= 1
        line = self.lines[-1]
        self.lines[-1] = Line(line.page, line.start, self.pos, line.y0, line.y1)

    def text(self) -> str:
        return "".join(self.parts)


def _row_glyphs(row: Sequence[_Frag]) -> tuple[list[str], list[float], list[float]]:
    chars: list[str] = []
    x0: list[float] = []
    x1: list[float] = []
    for f in row:
        if chars and chars[-1] != " " and f.chars and f.chars[0] != " ":
            chars.append(" ")
            x0.append(NAN)
            x1.append(NAN)
        chars += f.chars
        x0 += f.x0
        x1 += f.x1
    return chars, x0, x1


def _assemble(
    data: bytes,
    name: str,
    units_per_page: list[list[_Unit]],
    sizes: list[tuple[float, float]],
    stats: _Stats,
    warnings: list[str],
) -> Document:
    vocabulary = _vocabulary(units_per_page)
    w = _Writer()
    pages: list[Page] = []
    paras: list[_Para] = []
    tables: list[Block] = []
    for number, (units, (width, height)) in enumerate(
        zip(units_per_page, sizes, strict=True), start=1
    ):
        # a sentence broken by the page break continues the previous page's paragraph
        end = w.pos
        joiner = _page_join(w, paras, units[0], vocabulary, stats) if units else None
        joined = joiner is not None
        if w.pos < end:  # the previous page's last hyphen was taken back
            last = pages[-1]
            pages[-1] = Page(last.number, last.start, w.pos, last.width, last.height)
        if units and w.pos:
            w.insert(joiner if joiner is not None else "\n\n")
        page_start = w.pos
        for k, unit in enumerate(units):
            if k:
                w.insert("\n\n")
            if unit.table is not None:
                tables.append(_write_table(w, number, unit.table, vocabulary, stats))
                continue
            if unit.code:
                tables.append(_write_code(w, number, unit.rows))
                continue
            para = _write_paragraph(w, number, unit.rows, vocabulary, stats)
            if k == 0 and joined:
                prev = paras.pop()
                para = _Para(
                    prev.start,
                    para.end,
                    prev.text + (joiner or "") + para.text,
                    prev.styles + para.styles,
                    prev.rows + para.rows,
                    prev.item,
                )
                stats.page_joins += 1
            paras.append(para)
        pages.append(Page(number, page_start, w.pos, width, height))

    text = w.text()
    blocks, headings = _structure(paras, tables, text)
    normalisation = _notes(stats, len(pages))
    if stats.replacement:
        warnings.append(
            f"{stats.replacement} characters have no Unicode mapping in the PDF's fonts "
            "and show as �"
        )
    return Document(
        name=name,
        kind="pdf",
        sha256=sha256_of(data),
        text=text,
        blocks=blocks,
        headings=headings,
        pages=tuple(pages),
        layout=Layout(lines=tuple(w.lines), x0=array("d", w.x0), x1=array("d", w.x1)),
        normalisation=normalisation,
        warnings=tuple(warnings),
        removed=tuple(
            RemovedLine(i + 1, kind, " ".join(t.split()), x0, y0, x1, y1)
            for i, kind, t, x0, y0, x1, y1 in stats.removed_lines
        ),
    )


def _page_join(
    w: _Writer, paras: list[_Para], first: _Unit, lexicon: _Lexicon, stats: _Stats
) -> str | None:
    """What joins the page's first paragraph to the sentence the previous page left open, or
    None when it starts a paragraph of its own.

    Only when the text so far ends with the previous paragraph (not a table or code): a word
    broken by the page break after a hyphen or dash is joined as at a line end (``Soekarno-`` /
    ``Hatta``; the hyphen of ``compli-`` / ``ance`` is dropped); otherwise a paragraph that ends
    without a full stop, colon or similar and a new one starting with a lowercase letter are one
    sentence, joined by a space.
    """
    if not w.pos or not paras or paras[-1].end != w.pos or first.table is not None:
        return None
    if first.code or not first.rows:
        return None
    chars, x0, x1 = _row_glyphs(first.rows[0].frags)
    head = "".join(chars).lstrip()[:1]
    line = w.parts[-1] if w.parts else ""
    if line[-1:] in _HYPHENS + _DASHES and line[-2:-1].isalnum() and head.isalnum():
        n = len(line)
        previous = (list(line), list(w.x0[-n:]), list(w.x1[-n:]))
        joiner = _joiners([previous, (chars, x0, x1)], lexicon, stats)[0]
        if len(previous[0]) < n:  # the hyphen of a word broken at the page end
            w.drop_last()
            paras[-1].end = w.pos
            paras[-1].text = paras[-1].text[:-1]
        return joiner
    last = line.rstrip()[-1:]
    if not last or last in ".!?:;…\"'”’)]":
        return None
    return " " if head.isalpha() and head.islower() else None


def _write_paragraph(
    w: _Writer, page: int, rows: list[_Row], vocabulary: _Lexicon, stats: _Stats
) -> _Para:
    glyphs = [_row_glyphs(r.frags) for r in rows]
    joiners = _joiners(glyphs, vocabulary, stats)
    start = w.pos
    for i, (row, (chars, x0, x1)) in enumerate(zip(rows, glyphs, strict=True)):
        if i:
            w.insert(joiners[i - 1])
        w.line(page, chars, x0, x1, row.top, row.bottom)
    styles = [s for r in rows for f in r.frags for s in f.styles]
    first = "".join(glyphs[0][0])
    return _Para(
        start,
        w.pos,
        " ".join("".join(g[0]) for g in glyphs),
        styles,
        len(rows),
        any(_starts_item(first)),
    )


def _write_code(w: _Writer, page: int, rows: list[_Row]) -> Block:
    """A code listing: its lines as they are, one text line each."""
    start = w.pos
    for i, row in enumerate(rows):
        if i:
            w.insert("\n")
        chars, x0, x1 = _row_glyphs(row.frags)
        w.line(page, chars, x0, x1, row.top, row.bottom)
    return Block("code", start, w.pos)


def _row_pieces(cells: list[list[_Frag]], *, ruled: bool) -> list[tuple[int, list[_Frag], bool]]:
    """The order a table row is written in: (column, the fragments of one of its lines there,
    whether a new visual line starts with it).

    A row of a table found from its text is read line by line, as the eye runs across it,
    while at most one of its cells wraps (where that is the last cell, this is cell by cell
    anyway). When cells wrap side by side, and in ruled tables, whose cells are boxes, each
    cell is written whole, so that no cell is interleaved with another.
    """
    visual = [_cluster_rows(cell) for cell in cells]
    if ruled or sum(1 for lines in visual if len(lines) > 1) > 1:
        return [(k, line, n > 0) for k, lines in enumerate(visual) for n, line in enumerate(lines)]
    column_of = {id(f): k for k, cell in enumerate(cells) for f in cell}
    out: list[tuple[int, list[_Frag], bool]] = []
    for line in _cluster_rows(f for cell in cells for f in cell):
        by_column: dict[int, list[_Frag]] = defaultdict(list)
        for f in line:
            by_column[column_of[id(f)]].append(f)
        out += [(k, by_column[k], n == 0 and bool(out)) for n, k in enumerate(sorted(by_column))]
    return out


def _write_table(
    w: _Writer, page: int, table: _Table, vocabulary: _Lexicon, stats: _Stats
) -> Block:
    start = w.pos
    rows: list[TableRow] = []
    for cells in table.rows:
        pieces = _row_pieces([cell for cell in cells if cell], ruled=table.ruled)
        if not pieces:
            continue
        if rows:
            w.insert("\n")
        row_start = w.pos
        glyphs = [_row_glyphs(frags) for _k, frags, _new in pieces]
        for i, ((k, frags, new_line), (chars, x0, x1)) in enumerate(
            zip(pieces, glyphs, strict=True)
        ):
            if i:
                if not new_line:
                    w.insert(" | ")
                elif pieces[i - 1][0] == k:  # the cell's text wraps onto this line
                    w.insert(_joiners([glyphs[i - 1], (chars, x0, x1)], vocabulary, stats)[0])
                else:
                    w.insert(" ")
            top = min(f.top for f in frags)
            bottom = max(f.bottom for f in frags)
            w.line(page, chars, x0, x1, top, bottom)
        rows.append(TableRow(row_start, w.pos, header=not rows))
    box = Rect(page, *table.box) if table.box is not None else None
    return Block("table", start, w.pos, rows=tuple(rows), box=box)
