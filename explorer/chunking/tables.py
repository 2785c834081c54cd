"""The table audit (issue 26): what a chunking does to a document's tables, for any splitter.

For the tables of ``doc`` (its ``table`` blocks, Markdown's and the PDF reader's alike) and any
chunks with exact offsets, ours or a library's:

* ``tables`` — how many tables the document has;
* ``split`` — tables no single chunk holds whole;
* ``rows_cut`` — rows (header or body) no single chunk holds whole: a row cut mid-row;
* ``without_header`` — chunks that hold a body row (or part of one) of a table with a header
  row, but not the whole header: a continuation whose numbers lose their column names;
* ``cohesion`` — over the tables, the mean of 1 / the number of chunks each one touches (1.0
  when every table sits in one chunk; 1.0 for a document without tables).

Overlap counts as it is: a row held whole by the next chunk's overlap is not cut. Dropped chunks
(what-if edits) are left out, since they never reach the index.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from explorer.chunking.records import Chunk
from explorer.documents.model import Document


@dataclass(frozen=True)
class TableAudit:
    tables: int
    split: int
    rows_cut: int
    without_header: int
    cohesion: float
    rows: int
    """Rows in all the tables (what ``rows_cut`` is out of)."""

    def summary(self) -> dict[str, int | float]:
        """The audit as JSON-ready values (``cohesion`` to 4 decimals)."""
        out: dict[str, int | float] = asdict(self)
        out["cohesion"] = round(self.cohesion, 4)
        return out


TABLE_PROBLEMS = {
    "splits_table": "split a table (hold part of one that no chunk holds whole)",
    "cuts_row": "cut a row (hold part of a row that no chunk holds whole)",
    "no_header": "continue a table without its header row",
}
"""What a chunk can do to a table, by code: the diagnostics' table filter."""


def table_audit(doc: Document, chunks: Sequence[Chunk]) -> TableAudit:
    """What ``chunks`` do to ``doc``'s tables (see the module docstring)."""
    return table_audit_by_chunk(doc, chunks)[0]


def table_audit_by_chunk(
    doc: Document, chunks: Sequence[Chunk]
) -> tuple[TableAudit, dict[int, frozenset[str]]]:
    """The audit, and for each chunk that harms a table (by its ``index``) what it does, as
    :data:`TABLE_PROBLEMS` codes: it holds part of a split table, part of a cut row, or body
    rows without the whole header."""
    kept = sorted((c for c in chunks if "dropped" not in c.flags), key=lambda c: c.start)
    starts = [c.start for c in kept]
    reach = list(itertools.accumulate((c.end for c in kept), max))  # the furthest end so far
    tables = [b for b in doc.blocks if b.kind == "table"]

    def touching(a: int, b: int) -> list[Chunk]:
        """Chunks that share at least one character with ``[a, b)``, in order: back from the
        last chunk starting before ``b`` while any chunk so far reaches past ``a``."""
        j = bisect.bisect_left(starts, b) - 1
        out = []
        while j >= 0 and reach[j] > a:
            if kept[j].end > a:
                out.append(kept[j])
            j -= 1
        return out[::-1]

    def whole(a: int, b: int, among: Sequence[Chunk]) -> bool:
        return any(c.start <= a and b <= c.end for c in among)

    split = rows_cut = without_header = rows = 0
    shares: list[float] = []
    problems: dict[int, set[str]] = {}

    def mark(c: Chunk, code: str) -> None:
        problems.setdefault(c.index, set()).add(code)

    for t in tables:
        near = touching(t.start, t.end)
        if not near:
            continue  # a table no chunk reached (a library that dropped it): the audit's own
        shares.append(1 / len(near))
        if not whole(t.start, t.end, near):
            split += 1
            for c in near:
                mark(c, "splits_table")
        rows += len(t.rows)
        for r in t.rows:
            if not whole(r.start, r.end, near):
                rows_cut += 1
                for c in near:
                    if r.start < c.end and c.start < r.end:
                        mark(c, "cuts_row")
        head = [r for r in t.rows if r.header]
        body = [r for r in t.rows if not r.header]
        if head:
            for c in near:
                holds_rows = any(r.start < c.end and c.start < r.end for r in body)
                holds_header = all(c.start <= r.start and r.end <= c.end for r in head)
                if holds_rows and not holds_header:
                    without_header += 1
                    mark(c, "no_header")
    cohesion = sum(shares) / len(shares) if shares else 1.0
    audit = TableAudit(len(tables), split, rows_cut, without_header, cohesion, rows)
    return audit, {i: frozenset(codes) for i, codes in problems.items()}


def table_totals(audits: Sequence[TableAudit]) -> dict[str, int | float]:
    """Several documents' audits as one: counts summed, cohesion averaged over all their tables
    (1.0 when none has a table)."""
    tables = sum(a.tables for a in audits)
    touched = [(a.cohesion, a.tables) for a in audits if a.tables]
    cohesion = sum(c * n for c, n in touched) / sum(n for _, n in touched) if touched else 1.0
    return {
        "tables": tables,
        "split": sum(a.split for a in audits),
        "rows_cut": sum(a.rows_cut for a in audits),
        "without_header": sum(a.without_header for a in audits),
        "cohesion": round(cohesion, 4),
        "rows": sum(a.rows for a in audits),
    }
