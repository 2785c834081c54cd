"""One chunk and many, as the app shows them: a chunk's facts and label, the table rows, the
flagged ones, the integrity audit's figures, and a long document's window."""

from __future__ import annotations

import bisect
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.chunking.diagnostics import Diagnosis, issue
from explorer.chunking.measures import DEFAULT_ENCODING, get_measure
from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from explorer.retrieval.scoring import (
    passage_texts,
    passages_of,
)
from ui import render
from ui.safe import plain_markdown
from ui.settings import UNIT_LABELS


def sizes_in_every_measure(text: str, *, encoding: str = DEFAULT_ENCODING) -> dict[str, int]:
    """The size of ``text`` in every measure, keyed by a readable name."""
    return {label: get_measure(unit, encoding).count(text) for unit, label in UNIT_LABELS.items()}


@dataclass(frozen=True, slots=True)
class Neighbours:
    """What a chunk shares with the chunks before and after it (``None``: no such chunk)."""

    previous_units: int | None
    previous_chars: int | None
    next_units: int | None
    next_chars: int | None


def neighbour_overlap(chunks: Sequence[Chunk], i: int) -> Neighbours:
    """The realised overlap of chunk ``i`` with both neighbours, in units and characters."""
    c = chunks[i]
    prev = chunks[i - 1] if i > 0 else None
    nxt = chunks[i + 1] if i + 1 < len(chunks) else None
    return Neighbours(
        previous_units=c.overlap if prev else None,
        previous_chars=max(0, prev.end - c.start) if prev else None,
        next_units=nxt.overlap if nxt else None,
        next_chars=max(0, c.end - nxt.start) if nxt else None,
    )


def chunk_facts(chunks: Sequence[Chunk], i: int, *, unit: str) -> list[tuple[str, str]]:
    """Name/value pairs describing chunk ``i``: id, offsets, pages, headings, overlap, flags."""
    c = chunks[i]
    near = neighbour_overlap(chunks, i)
    return [
        ("id", c.id),
        ("offsets", f"[{c.start}, {c.end})  ({c.end - c.start} characters)"),
        ("pages", pages_label(c) or "—"),
        ("heading path", " › ".join(c.heading_path) or "—"),
        ("overlap with previous", overlap_text(near.previous_units, near.previous_chars, unit)),
        ("overlap with next", overlap_text(near.next_units, near.next_chars, unit)),
        ("splitter flags", ", ".join(c.flags) or "—"),
    ]


def overlap_text(units: int | None, chars: int | None, unit: str) -> str:
    """``"12 tokens (57 characters)"``, ``"none"``, or ``"—"`` when there is no neighbour."""
    if units is None or chars is None:
        return "—"
    if chars == 0:
        return "none"
    return f"{units} {unit} ({chars} characters)"


def pages_label(chunk: Chunk) -> str:
    if chunk.page_start is None:
        return ""
    if chunk.page_end is None or chunk.page_end == chunk.page_start:
        return str(chunk.page_start)
    return f"{chunk.page_start}–{chunk.page_end}"


def chunk_label(chunk: Chunk, *, width: int = 48) -> str:
    """A one-line name for pickers: number, then the start of its text as a reader sees it
    (Markdown's marks taken away: :func:`ui.safe.plain_markdown`)."""
    head = plain_markdown(chunk.text[: width * 4]) or " ".join(chunk.text.split())
    if len(head) > width:
        head = head[: width - 1].rstrip() + "…"
    return f"#{chunk.index} · {head}"


AUDIT_FLAGS = frozenset(
    ("offset_wrong", "not_found", "normalised", "out_of_order", "over_limit", "duplicated")
)
"""The integrity audit's flags on a library splitter's chunks (see explorer.chunking.adapters)."""


def visible_indices(
    chunks: Sequence[Chunk],
    diagnosis: Diagnosis,
    *,
    only_flagged: bool,
    keep: Collection[int] | None = None,
) -> list[int]:
    """Indices of the chunks to show: all, or only those with an issue or an audit flag; and
    of those, only the ones in ``keep`` when it is given (the table filter)."""
    if only_flagged:
        audited = {c.index for c in chunks if AUDIT_FLAGS & set(c.flags)}
        out = sorted(set(diagnosis.flagged()) | audited)
    else:
        out = list(range(len(chunks)))
    return out if keep is None else [i for i in out if i in keep]


def audit_metrics(audit: Any) -> list[tuple[str, str, str]]:
    """The audit's summary as metric label, value and help."""
    return [
        ("Offsets wrong", f"{audit.offset_wrong:,}", "Chunks whose start the library reported "
         "wrongly (or as -1)."),
        ("Not found", f"{audit.not_found:,}", "Chunks whose text is not in the document."),
        ("Dropped", f"{audit.dropped_chars:,} chars", "Non-white-space characters of the "
         "document in no chunk."),
        ("Repeated", f"{audit.duplicated_chars:,} chars", "Text repeated beyond the overlap "
         "asked."),
        ("Over limit", f"{audit.over_limit:,}", "Chunks over their size limit, by the library's "
         "own length function."),
        ("Overlap", f"{audit.overlap_realised:.1f} of {audit.overlap_requested}", "Mean overlap "
         "given, of the overlap asked."),
    ]  # fmt: skip


def describe_indices(indices: Sequence[int]) -> str:
    """Sorted chunk numbers with runs shortened: ``[3, 4, 5, 6, 9]`` -> ``"3–6, 9"``."""
    parts: list[str] = []
    run: list[int] = []
    for i in sorted(set(indices)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}")
        run = [i]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}")
    return ", ".join(parts)


_SCROLL_JS = """<script>/* chunk INDEX */
(() => {
  let tries = 0;
  const go = () => {
    const sel = '.ce-doc .ce-badge[data-index="INDEX"]';
    const badge = document.querySelector(sel.replace('badge', 'badge.ce-selected'))
      || document.querySelector(sel);
    if (!badge) { if (++tries < 20) setTimeout(go, 100); return; }
    let box = badge.parentElement;
    const scrolls = (el) => el.scrollHeight > el.clientHeight + 2
      && /auto|scroll/.test(getComputedStyle(el).overflowY);
    while (box && !scrolls(box)) box = box.parentElement;
    if (!box) return;
    const top = badge.getBoundingClientRect().top - box.getBoundingClientRect().top;
    box.scrollTop += top - 48;
  };
  setTimeout(go, 50);
})();
</script>"""


def scroll_script(index: int) -> str:
    """A script that scrolls the document view (not the page) to chunk ``index``'s badge (its
    outlined one, when it is selected: the first otherwise, as the best hit's).

    It holds no document content, only the chunk number, so it is safe to run.
    """
    return _SCROLL_JS.replace("INDEX", str(int(index)))


def window_steps(window: render.Window, chunks: Sequence[Chunk]) -> tuple[int | None, int | None]:
    """The chunks to pick to move a long document's window back or on by about two thirds of its
    length (a picked chunk is drawn a third of the way down its window, see
    :func:`render.window`): the last chunk starting at or before a third of a window before this
    one, and the first starting at or after its end. ``None`` at either end of the document."""
    starts = [c.start for c in chunks]
    back = window.start - (window.end - window.start) // 3
    before = max(bisect.bisect_right(starts, back) - 1, 0)
    after = bisect.bisect_left(starts, window.end)
    return (
        before if window.start > 0 and chunks and starts[before] < window.start else None,
        after if window.end < window.total and after < len(chunks) else None,
    )


def window_note(
    window: render.Window,
    chunks: Sequence[Chunk],
    *,
    how: str = "Pick a chunk, here or in the table, or step with Earlier and Later.",
) -> str:
    """What a drawn window of a long document shows (chunks counted in ``chunks``), and ``how``
    to move it (Markdown)."""
    starts = [c.start for c in chunks]
    first = bisect.bisect_left(starts, window.start)
    last = bisect.bisect_left(starts, window.end) - 1
    held = (
        f"chunks {first:,}–{last:,} of {len(chunks):,}"
        if last >= first
        else f"part of one chunk of {len(chunks):,}"
    )
    return (
        f"A long document: showing characters {window.start:,}–{window.end:,} of "
        f"{window.total:,} ({held}). {how}"
    )


def valid_chunk(value: object, n_chunks: int) -> int | None:
    """``value`` if it is a chunk index below ``n_chunks``, else ``None``.

    A selectbox hands back the label the browser last showed when that label is no longer an
    option (the document or the settings changed meanwhile), so the value is checked.
    """
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n_chunks:
        return value
    return None


def chunk_from_table(rows: Sequence[int], shown: Sequence[int]) -> int | None:
    """The chunk picked in the table: its first selected row is a position in ``shown``."""
    return shown[rows[0]] if rows and 0 <= rows[0] < len(shown) else None


def chunk_rows(
    chunks: Sequence[Chunk], diagnosis: Diagnosis, indices: Sequence[int]
) -> list[dict[str, Any]]:
    """Table rows for the chunks at ``indices``: position, size, context and issues."""
    rows = []
    for i in indices:
        c = chunks[i]
        rows.append(
            {
                "chunk": c.index,
                "start": c.start,
                "end": c.end,
                "size": c.size,
                "overlap": c.overlap,
                "embedded pieces": diagnosis.model_tokens[i],
                "pages": pages_label(c),
                "heading path": " > ".join(c.heading_path),
                "issues": ", ".join(issue(code).label for code in diagnosis.issues[i]),
                "text": " ".join(c.text.split())[:160],
                "id": c.id,
            }
        )
    return rows


def on_page(chunk: Chunk, page: int) -> bool:
    """Does ``chunk`` touch PDF page ``page``? (A chunk crossing pages is on each of them.)"""
    if chunk.page_start is None:
        return False
    last = chunk.page_end if chunk.page_end is not None else chunk.page_start
    return chunk.page_start <= page <= last


PASSAGE_SEPARATOR = "\n\n· · ·\n\n"
"""Between the passages shown as what is embedded for a chunk."""


def embedded_passages(
    doc: Document,
    chunk: Chunk,
    spans: Sequence[Chunk],
    *,
    heading_prefix: bool,
    context: bool = False,
) -> list[str]:
    """What is embedded to score ``chunk`` when dense scores come from ``spans``, the
    document's passages (``context``: after the contextual header)."""
    ((lo, hi),) = passages_of([chunk], spans)
    return passage_texts(doc, spans[lo:hi], heading_prefix=heading_prefix, context=context)
