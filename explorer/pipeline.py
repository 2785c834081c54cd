"""What the app does, as plain functions: sources, size ranges, chunk details and table rows.

``app.py`` only wires these to widgets and caches; everything here is testable without
Streamlit.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.diagnostics import Diagnosis, issue
from explorer.documents import documents_in
from explorer.errors import DocumentError
from explorer.measures import DEFAULT_ENCODING, get_measure
from explorer.splitters import Chunk

SAMPLES_DIR = Path(__file__).resolve().parents[1] / "sample_docs"
UPLOAD_TYPES = ("pdf", "md", "markdown", "txt")
APP_SPLITTERS = {
    "fixed": "Fixed windows: cut every N units, wherever that falls",
    "sentence": "Sentences: pack whole sentences up to the size",
    "recursive": "Recursive: paragraphs, then lines, sentences, words",
    "structure": "Structure: headings and blocks first; tables and code kept whole",
}
"""The splitters the app offers, with a one-line description for the picker's help."""
"""Suffixes the app accepts for upload (without the dot)."""


@dataclass(frozen=True, slots=True)
class SizeRange:
    """The slider range and starting values for one size unit."""

    low: int
    high: int
    default: int
    overlap: int

    def __post_init__(self) -> None:
        if not 0 < self.low <= self.default <= self.high:
            raise ValueError(f"default {self.default} outside [{self.low}, {self.high}]")
        if not 0 <= self.overlap < self.default:
            raise ValueError("the default overlap must be below the default size")

    def clamp(self, size: int) -> int:
        return max(self.low, min(self.high, int(size)))


SIZE_RANGES: dict[str, SizeRange] = {
    "chars": SizeRange(50, 4000, 600, 0),
    "words": SizeRange(10, 800, 100, 0),
    "tokens": SizeRange(16, 2048, 128, 0),
    "model-tokens": SizeRange(16, 512, 128, 0),
}
UNIT_LABELS = {
    "chars": "characters",
    "words": "words",
    "tokens": "tokens (cl100k)",
    "model-tokens": "model tokens (MiniLM word pieces)",
}


def clamp_overlap(overlap: int, size: int) -> int:
    """The overlap kept strictly below ``size`` (a chunk must move forward)."""
    return max(0, min(int(overlap), size - 1))


# --------------------------------------------------------------------------- sources


NOT_SAMPLES = frozenset({"SOURCES.md", "README.md", "LICENSE.md"})
"""Files in the samples folder that describe the samples rather than being one."""


def sample_paths(folder: Path = SAMPLES_DIR) -> list[Path]:
    """The bundled sample documents, Markdown first, then the rest by name."""
    if not folder.is_dir():
        return []
    found = [p for p in documents_in(folder) if p.name not in NOT_SAMPLES]
    return sorted(found, key=lambda p: (p.suffix.lower() != ".md", p.name))


def check_upload_size(name: str, n_bytes: int, *, limit_mb: int) -> None:
    """Refuse a file over the upload limit with a message that names both sizes."""
    if n_bytes > limit_mb * 1024 * 1024:
        raise DocumentError(
            f"{name}: the file is {n_bytes / 1024 / 1024:.1f} MB; the upload limit is "
            f"{limit_mb} MB. Split the document or raise server.maxUploadSize in "
            ".streamlit/config.toml"
        )


KEEP_UPLOADS = 5
"""Uploaded documents a session keeps to switch back to; older ones are forgotten."""


def remember(uploads: dict[str, Any], name: str, entry: Any, *, keep: int = KEEP_UPLOADS) -> None:
    """Add ``name`` as the newest upload, forgetting the oldest beyond ``keep``."""
    uploads.pop(name, None)
    uploads[name] = entry
    while len(uploads) > keep:
        del uploads[next(iter(uploads))]


# --------------------------------------------------------------------------- one chunk


MEASURE_NAMES = {
    "chars": "characters",
    "words": "words",
    "tokens": "cl100k tokens",
    "model-tokens": "model tokens",
}


def sizes_in_every_measure(text: str, *, encoding: str = DEFAULT_ENCODING) -> dict[str, int]:
    """The size of ``text`` in every measure, keyed by a readable name."""
    return {label: get_measure(unit, encoding).count(text) for unit, label in MEASURE_NAMES.items()}


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


def facts_html(facts: Sequence[tuple[str, str]]) -> str:
    """A small two-column table; every value is escaped (it may come from the document)."""
    rows = "".join(
        f'<tr><th style="text-align:left;padding:2px 12px 2px 0;white-space:nowrap">'
        f'{html.escape(k)}</th><td style="padding:2px 0">{html.escape(v)}</td></tr>'
        for k, v in facts
    )
    return f'<table style="border-collapse:collapse;font-size:14px">{rows}</table>'


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: str) -> str:
    """``text`` with Markdown punctuation backslash-escaped, for names shown via Markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


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
    """A one-line name for pickers: number, then the start of its text."""
    head = " ".join(chunk.text.split())
    if len(head) > width:
        head = head[: width - 1].rstrip() + "…"
    return f"#{chunk.index} · {head}"


# --------------------------------------------------------------------------- many chunks


def visible_indices(
    chunks: Sequence[Chunk], diagnosis: Diagnosis, *, only_flagged: bool
) -> list[int]:
    """Indices of the chunks to show: all, or only those with an issue."""
    if only_flagged:
        return diagnosis.flagged()
    return list(range(len(chunks)))


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
    const sel = '.ce-doc .ce-badge.ce-selected[data-index="INDEX"]';
    const badge = document.querySelector(sel);
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
    """A script that scrolls the document view (not the page) to chunk ``index``'s badge.

    It holds no document content, only the chunk number, so it is safe to run.
    """
    return _SCROLL_JS.replace("INDEX", str(int(index)))


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
