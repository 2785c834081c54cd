"""The normalisation notes: one sentence for each kind of change the reader made.

:func:`_notes` turns the counts of :class:`_Stats` into ``Document.normalisation``: page joins,
the reading order, removed repeats, joined hyphens and addresses, white space, accents,
footnotes, invisible and control characters, and the tables found (or not looked for).
"""

from __future__ import annotations

from explorer.documents.pdf.records import _Stats
from explorer.documents.pdf.repeats import _repeat_key
from explorer.documents.pdf.tables import MAX_TABLE_CROSSINGS


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _notes(stats: _Stats, n_pages: int) -> tuple[str, ...]:
    notes: list[str] = []
    if stats.page_joins:
        notes.append(
            f"joined {stats.page_joins} paragraphs that continue across a page break "
            "(a space instead of a paragraph break)"
        )
    if stats.multi_column_pages:
        notes.append(
            f"reading order: column-aware (xy-cut); {stats.multi_column_pages} of {n_pages} "
            "pages read column by column"
        )
    else:
        notes.append("reading order: column-aware (xy-cut); no multi-column pages found")
    labels = {
        "header": "removed running headers/footers",
        "running title": "removed running chapter and section titles (headers/footers)",
        "page number": "removed page numbers",
        "margin": "removed repeated margin notes",
        "watermark": "removed repeated rotated text (margin codes, watermarks)",
    }
    for kind, label in labels.items():
        removed = stats.removed.get(kind, [])
        if not removed:
            continue
        n_pages = len({page for page, _text in removed})
        note = f"{label}: {len(removed)} lines on {n_pages} pages"
        if kind != "page number":
            firsts = {_repeat_key(text): text for _page, text in reversed(removed)}
            shown = [_clip(t, 40) for t in list(firsts.values())[::-1][:3]]
            more = ", ..." if len(firsts) > 3 else ""
            note += " (" + ", ".join(repr(t) for t in shown) + more + ")"
        notes.append(note)

    def examples(kind: str) -> str:
        shown = list(dict.fromkeys(stats.hyphen_examples[kind]))
        return ", ".join(repr(_clip(t, 30)) for t in shown[:3]) + (", ..." if shown[3:] else "")

    if stats.dehyphenated:
        notes.append(
            f"joined {stats.dehyphenated} words hyphenated at line ends ({examples('joined')})"
        )
    if stats.hyphen_kept:
        notes.append(
            f"joined {stats.hyphen_kept} lines ending in a hyphen or dash without a space, "
            f"keeping it: a compound or a dash ({examples('kept')})"
        )
    if stats.url_joined:
        notes.append(
            f"joined {stats.url_joined} addresses, paths and names broken after '/', '@', '_' "
            "or '\\' at line ends without a space"
        )
    if stats.space_dropped or stats.space_replaced:
        notes.append(
            f"normalised white space inside lines: dropped {stats.space_dropped} repeated, "
            f"leading or trailing spaces; replaced {stats.space_replaced} tabs/no-break spaces "
            "with plain spaces"
        )
    if stats.accents:
        notes.append(
            f"composed {stats.accents} accented letters drawn as a letter and a separate accent"
        )
    if stats.footnotes:
        notes.append(f"moved {stats.footnotes} footnotes to the end of their page")
    if stats.invisible:
        notes.append(f"dropped {stats.invisible} invisible characters (hidden text)")
    if stats.ocr_pages:
        notes.append(f"kept the invisible text layer (OCR) of {stats.ocr_pages} pages")
    if stats.controls:
        notes.append(f"dropped {stats.controls} control or formatting characters")
    if stats.ruled_tables or stats.aligned_tables:
        found = []
        if stats.ruled_tables:
            found.append(
                f"{stats.ruled_tables} from ruling lines (find_tables on {stats.table_pages} "
                f"pages, {stats.table_seconds:.2f} s)"
            )
        if stats.aligned_tables:
            found.append(f"{stats.aligned_tables} from aligned columns of short text")
        notes.append(
            f"tables: {' and '.join(found)}; rows end with a line break, cells are separated "
            "by ' | '"
        )
    if stats.table_failures:
        notes.append(f"find_tables failed on {stats.table_failures} pages; read as plain text")
    if stats.table_grids:
        notes.append(
            f"find_tables skipped on {stats.table_grids} pages whose ruling lines cross more than "
            f"{MAX_TABLE_CROSSINGS:,} times (grids or charts); read as plain text"
        )
    return tuple(notes)
