"""What the app does, as plain functions: sources, size ranges, chunk details and table rows,
and the query panel (the refund demo, hit and evidence rows, the highlights of the Query hits,
Heat and evidence views, embedding in length order).

``app.py`` only wires these to widgets and caches; everything here is testable without
Streamlit.
"""

from __future__ import annotations

import bisect
import hashlib
import html
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer import resources
from explorer.answer import Answer
from explorer.chunking.diagnostics import Diagnosis, issue
from explorer.chunking.diff import ChunkDiff
from explorer.chunking.measures import DEFAULT_ENCODING, get_measure
from explorer.chunking.splitters import (
    RECURSIVE_LEVELS,
    SEMANTIC_PERCENTILE,
    Chunk,
    ChunkSettings,
)
from explorer.config import FLAT_KEYS, Config
from explorer.documents.load import documents_in
from explorer.documents.model import Document
from explorer.errors import DocumentError, ExplorerError
from explorer.evaluation.lessons import Lesson, Setting, read_lessons
from explorer.retrieval.context import ContextPiece
from explorer.retrieval.evidence import Evidence, covered_by, ordinal, union
from explorer.retrieval.index import (
    CARRY,
    HYBRID_WEIGHT,
    PASSAGE_TOKENS,
    Hit,
    passage_texts,
    passages,
    passages_of,
)
from ui import render

SAMPLES_DIR = resources.samples_dir()
QUERY_SET = resources.query_set()
"""The project's query set: what the Evaluate page starts with."""
UPLOAD_TYPES = ("pdf", "md", "markdown", "txt")
"""Suffixes the app accepts for upload (without the dot)."""
APP_SPLITTERS = {
    "fixed": "Fixed windows: cut every N units, wherever that falls",
    "sentence": "Sentences: pack whole sentences up to the size",
    "recursive": "Recursive: paragraphs, then lines, sentences, words",
    "structure": "Structure: headings and blocks first; tables and code kept whole",
    "semantic": "Semantic: cut where the topic shifts between sentence groups (embeds the text)",
}
"""The splitters the app offers, with a one-line description for the picker's help."""


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
    "tokens": "cl100k tokens",
    "model-tokens": "model tokens",
}
"""Each size measure's short name in the pickers and metrics (the manifest records the measure's
own label, such as "model tokens (all-MiniLM-L6-v2 word pieces)")."""


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


def folder_fingerprint(folder: Path) -> str:
    """A short hash of the names, sizes and modification times of the files in ``folder``: it
    changes when a file there is added, removed or rewritten."""
    entries = []
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        try:
            stat = p.stat()
        except OSError:
            continue
        if p.is_file():
            entries.append(f"{p.name}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode("utf-8", "surrogatepass")).hexdigest()[:16]


KEEP_UPLOADS = 5
"""Uploaded documents a session keeps to switch back to; older ones are forgotten."""


def remember(uploads: dict[str, Any], name: str, entry: Any, *, keep: int = KEEP_UPLOADS) -> None:
    """Add ``name`` as the newest upload, forgetting the oldest beyond ``keep``."""
    uploads.pop(name, None)
    uploads[name] = entry
    while len(uploads) > keep:
        del uploads[next(iter(uploads))]


# --------------------------------------------------------------------------- one chunk


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


_MARKDOWN_MARKUP = re.compile(r"([\\`*_\[\]<>!$~|#])")


def md_text(text: str) -> str:
    """A message that quotes a file name or document text, safe to show through Markdown.

    ``st.error``, ``st.info`` and friends read their text as Markdown: a file named
    ``![x](http://host/x.png).md`` would load an image from that host, ``[a](javascript:…)`` would
    be a link. Escaping the characters that start images, links, HTML, emphasis, code, maths
    and headings leaves plain text that reads the same (unlike :func:`md_escape`, dots, colons
    and dashes are kept as they are, so messages stay searchable).
    """
    return _MARKDOWN_MARKUP.sub(r"\\\1", text)


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


AUDIT_FLAGS = frozenset(
    ("offset_wrong", "not_found", "normalised", "out_of_order", "over_limit", "duplicated")
)
"""The integrity audit's flags on a library splitter's chunks (see explorer.chunking.adapters)."""


def visible_indices(
    chunks: Sequence[Chunk], diagnosis: Diagnosis, *, only_flagged: bool
) -> list[int]:
    """Indices of the chunks to show: all, or only those with an issue or an audit flag."""
    if only_flagged:
        audited = {c.index for c in chunks if AUDIT_FLAGS & set(c.flags)}
        return sorted(set(diagnosis.flagged()) | audited)
    return list(range(len(chunks)))


def splitter_label(name: str) -> str:
    """A splitter's name in the picker: ours as they are, a library's with its library."""
    from explorer.chunking.adapters import ADAPTERS

    spec = ADAPTERS.get(name)
    return name if spec is None else f"{spec.group} · {spec.title} ({name})"


def splitter_help() -> str:
    """The picker's help: our splitters, then the libraries'."""
    from explorer.chunking.adapters import adapters_by_group

    ours = "  \n".join(f"**{k}**: {v}" for k, v in APP_SPLITTERS.items())
    theirs = "  \n".join(
        f"**{group}**: " + ", ".join(a.title for a in members)
        for group, members in adapters_by_group().items()
    )
    return f"{ours}  \n\nOther libraries, called through their own APIs and audited:  \n{theirs}"


def splitter_names() -> list[str]:
    from explorer.chunking.adapters import LIBRARY_SPLITTERS

    return [*APP_SPLITTERS, *LIBRARY_SPLITTERS]


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


# --------------------------------------------------------------------------- the query panel


VIEWS = ("Chunks", "Query hits", "Heat")
"""What the document view tints: every chunk, the retrieved hits, or every chunk by its score."""
RETRIEVER_HELP = (
    "**dense**: cosine similarity of the question's embedding and the document's (see "
    "*Dense scores from* in the sidebar).  \n"
    "**bm25**: word overlap (BM25, stemmed, English stop words removed).  \n"
    f"**hybrid**: both, each scaled to 0–1 over the document's chunks, weighted "
    f"{HYBRID_WEIGHT:g} dense + {1 - HYBRID_WEIGHT:g} BM25."
)
TABLE_HEADERS_HELP = (
    "A hit on a table's rows also sends the table's header rows, which say what its columns "
    "mean. They count towards the context's tokens (once per table when hits are merged)."
)
CARRY_HELP = (
    f"Each chunk's score also gains this share of the score of the chunk before it in the "
    f"document (recommended: {CARRY:g}; 0 for none): the text after a relevant passage often "
    "completes it (the exception after a rule, the explanation after a code line) while sharing "
    "few of the question's words."
)
SECTION_HELP = (
    "Send the whole section (heading to the next heading of its level) around each hit instead "
    "of its neighbours."
)
FILL_HELP = (
    "Spend the tokens the budget has left after the hits on the text around them: each stretch "
    "of context grows evenly, half before and half after, so a phrase just past a hit's edge "
    "comes along. The context never costs more than the budget; when the hits alone cost more, "
    "nothing is added."
)
BUDGETS = (None, 256, 512, 1024, 2048)
"""The token budgets the query panel offers (512, the evaluation's smallest, to start)."""


def budget_label(budget: int | None) -> str:
    """How a token budget reads in a picker."""
    return "no budget" if budget is None else f"{budget:,} tokens"


BUDGET_HELP = (
    "At most this many cl100k tokens of context: hits are taken in rank order while they fit. "
    "Fill to budget spends what they leave on the text around them."
)
DENSE_HELP = (
    f"**passages**: the document's sentences, packed to at most {PASSAGE_TOKENS} tokens, are "
    "embedded once; a chunk scores as its best passage, or its best two neighbouring passages "
    "taken together. Every passage fits the model's window, "
    "and a new chunk size or overlap embeds nothing new.  \n"
    "**chunks**: each chunk's text is embedded whole, as most pipelines do; the model silently "
    "truncates a text longer than its window (256 word pieces for all-MiniLM-L6-v2)."
)
PASSAGE_SEPARATOR = "\n\n· · ·\n\n"
"""Between the passages shown as what is embedded for a chunk."""


def embedded_passages(doc: Document, chunk: Chunk, *, heading_prefix: bool) -> list[str]:
    """What is embedded to score ``chunk`` when dense scores come from passages."""
    spans = passages(doc)
    ((lo, hi),) = passages_of([chunk], spans)
    return passage_texts(doc, spans[lo:hi], heading_prefix=heading_prefix)


PERCENTILE_HELP = (
    "cut where the distance between neighbouring sentence groups is above this percentile"
)
PERCENTILE_RANGE = (50, 99, SEMANTIC_PERCENTILE)
"""The semantic splitter's percentile slider: low, high, start."""
TOP_K_MAX = 20
NEIGHBOURS_MAX = 5
CARRY_RANGE = (0.0, 1.0, 0.05)
"""The carry slider: low, high, step."""


def describe_config(config: Config) -> str:
    """The configuration in a line for people: its chunking and retriever, then each setting
    that differs from the recommended configuration."""
    c = config.chunking
    out = f"{c.splitter}, {c.size} {c.unit}, overlap {c.overlap}, {config.retriever}"
    flat, default = config.to_json(), Config().to_json()
    skip = {"splitter", "splitter_version", "unit", "size", "overlap", "retriever"}
    changed = [k for k in FLAT_KEYS if k not in skip and flat[k] != default[k]]
    labels = {True: "on", False: "off"}
    for key in changed:
        value = flat[key]
        shown = labels[value] if isinstance(value, bool) else value
        if isinstance(value, list):
            shown = "+".join(value) or "none"
        out += f", {key.replace('_', ' ')} {shown}"
    return out


def state_of(config: Config, *, prefix: str = "") -> dict[str, Any]:
    """The session-state values that show ``config`` in a page's widgets: each flat setting under
    its own name after ``prefix`` (the main page's exact-size boxes too)."""
    flat = config.to_json()
    out = {prefix + k: flat[k] for k in FLAT_KEYS}
    out[prefix + "separators"] = [
        lvl for lvl in RECURSIVE_LEVELS if lvl in config.chunking.separators
    ]
    out[prefix + "neighbours"] = min(config.neighbours, NEIGHBOURS_MAX)
    if not prefix:
        out["size_exact"], out["overlap_exact"] = config.chunking.size, config.chunking.overlap
    return out


def persist(state: Any, defaults: Mapping[str, Any], *, kept: str) -> None:
    """Give every widget key its current, kept or default value, and keep it in ``state[kept]``.

    Streamlit forgets the state of a widget that is not drawn in a run (a visit to another
    page), so each page copies its widgets' values to a plain dict and back at every run.
    """
    store = state.setdefault(kept, {})
    for key, default in defaults.items():
        if key in state:
            value = state[key]
        elif key in store:
            value = store[key]
        elif default is not None:
            value = default
        else:
            continue  # no value yet: the page picks one when it draws the widget
        state[key] = store[key] = value


def config_of(state: Any, *, prefix: str = "", base: Config | None = None) -> Config:
    """The configuration a page's widgets show: every flat setting found under ``prefix`` in
    ``state``, the others from ``base`` (default: the recommended configuration)."""
    base = base or Config()
    flat = {k: state[prefix + k] for k in FLAT_KEYS if prefix + k in state}
    if "separators" in flat:
        flat["separators"] = tuple(s for s in RECURSIVE_LEVELS if s in flat["separators"])
    flat.setdefault("overlap", base.chunking.overlap)
    return Config.from_json(flat, base=base)


@dataclass(frozen=True, slots=True)
class Demo:
    """A sample that opens with a question the starting settings fail to answer in full.

    ``config``, ``k`` and ``budget`` are the app's starting values; ``hint`` says which one move
    repairs the answer (each is checked with the real model in ``tests/test_query_panel.py``).
    """

    source: str
    question: str
    evidence: tuple[str, ...]
    config: Config
    k: int
    budget: int | None
    hint: str

    @property
    def settings(self) -> ChunkSettings:
        return self.config.chunking

    @property
    def retriever(self) -> str:
        return self.config.retriever

    @property
    def fill(self) -> bool:
        return self.config.fill


DEMO = Demo(
    source="refund-policy.md",
    question="How long do I have to ask for a refund?",
    evidence=("within seven days", "does not apply to downloaded materials"),
    # Fill to budget starts off: at every budget offered it brings the exception in too (the
    # whole policy is 637 tokens), so the demo would open answered.
    config=Config().replace(splitter="fixed", unit="chars", size=250, overlap=0, fill=False),
    k=2,
    budget=512,
    hint=(
        "Fixed 250-character windows cut the refund rule from its exception, so the top 2 hits "
        "hold the rule but not the exception. One move repairs it: switch the splitter to "
        "**sentence**, set **Neighbours** to 1, or turn on **Fill to budget**."
    ),
)


def starting_query(source: str) -> tuple[str, str]:
    """The question and evidence box contents a document opens with: the demo's, else the first
    lesson's on that document, else empty."""
    if source == DEMO.source:
        return DEMO.question, "\n".join(DEMO.evidence)
    lesson = next((a for a in LESSONS.values() if a.doc == source), None)
    if lesson is not None:
        return lesson.question, "\n".join(lesson.evidence)
    return "", ""


# --------------------------------------------------------------------------- lessons


def bundled_lessons(
    folder: Path | None = None, *, samples: Collection[str] | None = None
) -> tuple[dict[str, Lesson], list[str]]:
    """The lessons by name, and one message per lesson file that cannot be used (it cannot be
    read, or its document is not among the samples)."""
    found, problems = read_lessons(folder)
    names = {p.name for p in sample_paths()} if samples is None else set(samples)
    out: dict[str, Lesson] = {}
    for lesson in found:
        if lesson.doc not in names:
            problems.append(
                f"{lesson.name}.toml: doc: {lesson.doc!r} is not a sample document; put the file "
                f"in {SAMPLES_DIR.name}/ or fix the name"
            )
        else:
            out[lesson.name] = lesson
    return out, problems


LESSONS, LESSON_PROBLEMS = bundled_lessons()
"""The bundled lessons by name (in file-name order) and the files that could not be used."""
START_LESSON = next(
    (n for n, a in LESSONS.items() if a.doc == DEMO.source and a.question == DEMO.question), None
)
"""The lesson the app opens on: the refund demo's."""


def lesson_state(lesson: Lesson, repair: int | None = None) -> dict[str, Any]:
    """The session state that shows ``lesson`` at its failing setting, or after repair ``repair``
    (from 1): its document, question, evidence and settings; no chunk selected, hits shown."""
    setting = lesson.failing if not repair else lesson.repaired(repair)
    question_key, evidence_key = query_keys(lesson.doc)
    evidence = "\n".join(lesson.evidence)
    return {
        **state_of(setting.config),
        "k": setting.k,
        "budget": setting.budget,
        "source": lesson.doc,
        question_key: lesson.question,
        evidence_key: evidence,
        "lesson": lesson.name,
        "chunk": None,
        "page": 1,
        "view": "Query hits",
        "asked": f"{lesson.doc}\n{lesson.question}",
    }


def lesson_step(
    lesson: Lesson,
    *,
    source: str,
    question: str,
    evidence: Sequence[str],
    setting: Setting,
) -> int | None:
    """Where the view stands in ``lesson``: 0 at its failing setting, ``n`` after repair ``n``,
    ``None`` when the document, question, evidence or settings are not one of the lesson's."""
    if source != lesson.doc or question.strip() != lesson.question:
        return None
    if tuple(evidence) != lesson.evidence:
        return None
    if setting == lesson.failing:
        return 0
    for n in range(1, len(lesson.repairs) + 1):
        if setting == lesson.repaired(n):
            return n
    return None


def lesson_status(lesson: Lesson, step: int | None) -> str:
    """A line saying where the lesson stands (Markdown)."""
    if step is None:
        return (
            "The settings, question or evidence have been changed by hand: *Reset to the failing "
            "setting* starts the lesson again."
        )
    if step == 0:
        return f"At the failing setting: {md_text(lesson.failing.spec())}."
    return f"After repair {step}, **{md_text(lesson.repairs[step - 1].label)}**."


def lesson_links(lesson: Lesson) -> list[tuple[str, dict[str, str]]]:
    """A link for the lesson (its failing setting) and one for each repair, with a label."""
    out = [(f"{lesson.title} (failing)", {"lesson": lesson.name})]
    for n, move in enumerate(lesson.repairs, 1):
        out.append((f"Repair {n}: {move.label}", {"lesson": lesson.name, "repair": str(n)}))
    return out


PRESENTATION_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stSidebarCollapseButton"], [class*="st-key-ce_hide_"] { display: none !important; }
[data-testid="stMain"] { font-size: 1.3rem; }
[data-testid="stMain"] p, [data-testid="stMain"] li { font-size: 1.3rem; line-height: 1.5; }
.st-key-ce_lesson h2 { font-size: 2.4rem; }
.st-key-ce_lesson .ce-question { font-size: 1.8rem; font-weight: 600; margin: 0.2em 0 0.4em; }
[data-testid="stAlert"] p { font-size: 1.5rem; }
.ce-doc { font-size: 1.35rem !important; line-height: 1.7 !important; }
</style>"""
"""Presentation mode: the sidebar folded away, only the lesson, the question, the verdict and the
document, in larger text for a projector (the parts shown otherwise sit in containers whose key
starts with ``ce_hide_``)."""


def query_keys(source: str) -> tuple[str, str]:
    """Widget keys of the question and evidence boxes of one document.

    Each document has its own pair, so a run cut short by a document switch (the browser sends
    back the boxes it last showed) never carries one document's question into another's.
    """
    return f"question::{source}", f"evidence::{source}"


def evidence_phrases(text: str) -> list[str]:
    """One phrase per non-blank line, stripped, each once, in order."""
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))


def n_of(n: int, noun: str) -> str:
    """``"1 hit"``, ``"3 hits"``, ``"1,200 chunks"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def first_words(text: str, n: int = 12) -> str:
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def hit_rows(
    hits: Sequence[Hit], chunks: Sequence[Chunk], *, count: Callable[[str], int]
) -> list[dict[str, Any]]:
    """Table rows for the retrieved hits: rank, chunk, score, the part of it carried from the
    previous chunk (only when some hit has one), size in tokens, pages, start."""
    with_carry = any(h.carried for h in hits)
    return [
        {
            "rank": h.rank,
            "chunk": h.index,
            "score": h.score,
            **({"carried": h.carried} if with_carry else {}),
            "tokens": count(chunks[h.index].text),
            "pages": pages_label(chunks[h.index]),
            "first words": first_words(chunks[h.index].text),
        }
        for h in hits
    ]


def evidence_rows(results: Sequence[Evidence]) -> list[dict[str, str]]:
    """One row per phrase, in words: found in the document, inside the retrieved context, the
    chunk(s) holding it whole, the best rank among them, and whether boundaries cut every
    occurrence."""
    rows = []
    for r in results:
        if not r.found:
            rows.append(
                {
                    "phrase": r.phrase,
                    "found": "not found",
                    "retrieved": "—",
                    "in chunk": "—",
                    "its rank": "—",
                    "cut by a boundary": "—",
                }
            )
            continue
        n = len(r.spans)
        rows.append(
            {
                "phrase": r.phrase,
                "found": "yes" if n == 1 else f"yes, {n} times",
                "retrieved": "yes" if r.covered else "no",
                "in chunk": ", ".join(map(str, r.chunk_indices)) or "none: cut",
                "its rank": ordinal(r.best_rank) if r.best_rank else "—",
                "cut by a boundary": "yes" if r.cut_by_boundary else "no",
            }
        )
    return rows


def verdict_kind(verdict: str) -> str:
    """``"complete"``, ``"incomplete"``, ``"unchecked"`` or ``""`` (no phrases given)."""
    head = verdict.split(":", 1)[0]
    return head if head in ("complete", "incomplete", "unchecked") else ""


def context_note(answer: Answer, *, length: int) -> str:
    """``"An LLM would receive 312 tokens (cl100k) in 2 pieces: …"`` (Markdown); ``length`` is
    the document text's."""
    config, hits = answer.config, answer.hits
    if answer.budget is not None and not hits:
        return (
            f"Nothing fits the {answer.budget:,}-token budget: the best hit's context alone "
            "costs more. Raise the budget or make the chunks smaller."
        )
    headers = len(answer.headers)
    widened = (
        "each widened to its section"
        if config.section
        else f"each widened by ±{config.neighbours} chunk{'s' if config.neighbours != 1 else ''}"
        if config.neighbours
        else "as retrieved"
    )
    n, k = len(answer.context), len(hits)
    note = (
        f"An LLM would receive **{answer.tokens:,} tokens** (cl100k) in {n} "
        f"piece{'s' if n != 1 else ''}: the top {k} hit{'s' if k != 1 else ''}, {widened}"
    )
    if headers:
        note += f", with the header rows of {headers} table{'s' if headers != 1 else ''}"
    if answer.budget is not None:
        budget = f"the {answer.budget:,}-token budget"
        fitted = answer.k is None or len(hits) < min(answer.k, len(answer.ranking))
        if answer.widened and answer.context == ((0, length),):
            note += f", then widened to the whole document, within {budget}"
        elif answer.widened:
            note += f", then widened to fill {budget}"
        elif config.fill:
            note += f"; nothing more fits {budget}"
        elif fitted:
            note += f": all that fit {budget}"
        else:
            note += f", within {budget}"
    return note + "."


# --------------------------------------------------------------------------- highlights

CONTEXT_COLOR = "#8c96a3"
"""Grey-blue for text that goes to the LLM only because a hit was widened."""
EVIDENCE_COVERED = "#1a7f37"
EVIDENCE_MISSED = "#cf222e"


def hit_highlights(
    hits: Sequence[Hit], chunks: Sequence[Chunk], *, selected: int | None = None
) -> list[render.Highlight]:
    """Each hit's chunk, with its rank as the badge (``"#1"``) and a colour per rank."""
    return [
        render.Highlight(
            chunks[h.index].start,
            chunks[h.index].end,
            h.index,
            render.PALETTE[(h.rank - 1) % len(render.PALETTE)],
            label=f"#{h.rank}",
            selected=h.index == selected,
            title=f"#{h.rank}: chunk {h.index}, {h.retriever} score {h.score:.4g}",
        )
        for h in hits
    ]


def context_highlights(
    pieces: Sequence[ContextPiece], hits: Sequence[Hit], chunks: Sequence[Chunk], text: str
) -> list[render.Highlight]:
    """The parts of the context that are no hit's chunk: what widening (neighbours, section) and
    table headers add. White space at either end of a part is left out."""
    taken = union([(chunks[h.index].start, chunks[h.index].end) for h in hits])
    starts = [c.start for c in chunks]
    out = []
    for piece in pieces:
        ranks = ", ".join(f"#{r}" for r in piece.ranks)
        for a, b in subtract((piece.start, piece.end), taken):
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                header = any(hs <= a and b <= he for hs, he in piece.headers)
                out.append(
                    render.Highlight(
                        a,
                        b,
                        max(bisect.bisect_right(starts, a) - 1, 0),
                        CONTEXT_COLOR,
                        label="+",
                        title=f"table header for {ranks}"
                        if header
                        else f"context added around {ranks}",
                    )
                )
    return out


def fill_highlights(answer: Answer, chunks: Sequence[Chunk], text: str) -> list[render.Highlight]:
    """The text filling the budget adds around the pieces, tinted as other added context.
    White space at either end of a part is left out."""
    if not answer.widened or answer.budget is None:
        return []
    taken = union([(p.start, p.end) for p in answer.pieces])
    starts = [c.start for c in chunks]
    out = []
    for span in answer.context:
        for a, b in subtract(span, taken):
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                out.append(
                    render.Highlight(
                        a,
                        b,
                        max(bisect.bisect_right(starts, a) - 1, 0),
                        CONTEXT_COLOR,
                        label="+",
                        title=f"filled to the {answer.budget:,}-token budget",
                    )
                )
    return out


def subtract(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``span`` outside ``taken`` (sorted, disjoint spans)."""
    pos, end = span
    out = []
    for a, b in taken:
        if b <= pos:
            continue
        if a >= end:
            break
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < end:
        out.append((pos, end))
    return out


def heat_highlights(
    ranking: Sequence[Hit], chunks: Sequence[Chunk], *, selected: int | None = None
) -> list[render.Highlight]:
    """Every chunk tinted by its score on a sequential scale (min to max of this ranking)."""
    if not ranking:
        return []
    lo = min(h.score for h in ranking)
    hi = max(h.score for h in ranking)
    spread = hi - lo
    out = []
    for h in sorted(ranking, key=lambda h: h.index):
        c = chunks[h.index]
        x = (h.score - lo) / spread if spread > 0 else 0.0
        out.append(
            render.Highlight(
                c.start,
                c.end,
                c.index,
                render.heat_color(x),
                label=f"#{h.rank}",
                selected=c.index == selected,
                title=f"#{h.rank}: chunk {c.index}, {h.retriever} score {h.score:.4g}",
            )
        )
    return out


def heat_legend_html(ranking: Sequence[Hit]) -> str:
    """A colour bar from the lowest to the highest score of ``ranking``."""
    if not ranking:
        return ""
    lo = min(h.score for h in ranking)
    hi = max(h.score for h in ranking)
    stops = ",".join(render.HEAT)
    retriever = html.escape(ranking[0].retriever)
    return (
        '<div style="display:flex;align-items:center;gap:8px;font-size:13px;color:#59636e">'
        f"<span>{retriever} score {lo:.4g}</span>"
        f'<span style="flex:0 0 180px;height:12px;border-radius:3px;'
        f'background:linear-gradient(90deg,{stops})"></span>'
        f"<span>{hi:.4g}</span><span>· the badge is each chunk's rank</span></div>"
    )


def evidence_highlights(
    results: Sequence[Evidence], context: Sequence[tuple[int, int]]
) -> list[render.Highlight]:
    """An underline under every occurrence of every phrase: green where the retrieved context
    holds it, red where it does not."""
    merged = union(context)
    out = []
    for n, r in enumerate(results):
        for s, e in r.spans:
            inside = covered_by((s, e), merged)
            out.append(
                render.Highlight(
                    s,
                    e,
                    n,
                    EVIDENCE_COVERED if inside else EVIDENCE_MISSED,
                    underline=True,
                    title=f"evidence {r.phrase!r}: "
                    + ("in the retrieved context" if inside else "not in the retrieved context"),
                )
            )
    return out


def span_on_page(doc: Document, start: int, end: int, page: int) -> bool:
    """Does ``doc.text[start:end]`` touch PDF page ``page``?"""
    first, last = doc.page_span(start, end)
    return first is not None and last is not None and first <= page <= last


# --------------------------------------------------------------------------- embedding


# --------------------------------------------------------------------------- links

LINK_VIEWS = {"chunks": "Chunks", "hits": "Query hits", "heat": "Heat"}
"""The views' names in a link."""


@dataclass(frozen=True, slots=True)
class Link:
    """What a link asks the main page to show: session-state values to set before the widgets
    are drawn, and a note when part of it cannot be shown (an upload, a bad setting)."""

    state: dict[str, Any]
    note: str | None = None


def link_params(
    *,
    source: str,
    uploaded: bool,
    config: Config,
    question: str,
    evidence: str,
    k: int,
    budget: int | None,
    chunk: int | None,
    view: str,
    page: int | None,
    lesson: str | None = None,
    repair: int | None = None,
    present: bool = False,
) -> dict[str, str]:
    """The main page's view as URL query parameters (see :func:`read_link`). ``lesson`` names a
    lesson the view is at (its failing setting, or after ``repair``); ``present`` asks for
    presentation mode."""
    out: dict[str, str] = {}
    if lesson is not None:
        out["lesson"] = lesson
        if repair:
            out["repair"] = str(repair)
    if present:
        out["present"] = "1"
    out["doc"] = source
    if uploaded:
        out["upload"] = "1"
    spec = config.to_spec()
    if spec:
        out["config"] = spec
    out["k"] = str(k)
    out["budget"] = "none" if budget is None else str(budget)
    if question:
        out["q"] = question
    if evidence.strip():
        out["e"] = evidence
    if chunk is not None:
        out["chunk"] = str(chunk)
    names = {v: n for n, v in LINK_VIEWS.items()}
    if view in names and view != "Query hits":
        out["view"] = names[view]
    if page is not None and page != 1:
        out["page"] = str(page)
    return out


def _one(params: Mapping[str, Any], key: str) -> str | None:
    value = params.get(key)
    if isinstance(value, list):
        value = value[-1] if value else None
    return None if value is None else str(value)


def _whole(text: str | None, low: int, high: int) -> int | None:
    try:
        return min(max(int(text), low), high) if text is not None else None
    except ValueError:
        return None


def read_link(
    params: Mapping[str, Any],
    *,
    samples: Collection[str],
    uploads: Collection[str],
    lessons: Mapping[str, Lesson] | None = None,
) -> Link:
    """The session state a link's query parameters stand for (none: an empty :class:`Link`).

    A link naming one of ``lessons`` (``lesson=NAME``, and ``repair=N``) opens that lesson at its
    failing setting or after repair N; its document, question, evidence and settings are then the
    lesson's, whatever else the link says.
    """
    if not params:
        return Link({})
    out: dict[str, Any] = {}
    notes = []
    if _one(params, "present") == "1":
        out["present"] = True
    name = _one(params, "lesson")
    lesson = (lessons or {}).get(name or "")
    if name is not None and lesson is None:
        notes.append(f"There is no lesson {name!r} here; the link's own settings are shown.")
    if lesson is not None:
        repair = _whole(_one(params, "repair"), 0, len(lesson.repairs))
        out.update(lesson_state(lesson, repair or None))
        _view_params(params, out)
        return Link(out, " ".join(notes) or None)
    source = _one(params, "doc")
    if source is not None and (source in samples or source in uploads):
        out["source"] = source
        question = _one(params, "q") or ""
        out["queries"] = {source: (question, _one(params, "e") or "")}
        # the link's question is not a new one: its view stands (a new question shows its hits)
        out["asked"] = f"{source}\n{question.strip()}"
    elif source is not None:
        kind = "a document uploaded in another session" if _one(params, "upload") else "a file"
        notes.append(
            f"This link shows {source}, {kind} that a link cannot carry: upload it here to "
            "see that view. Its settings are applied to the document shown instead."
        )
    spec = _one(params, "config") or ""
    try:
        config = Config.from_spec(spec)
    except ExplorerError as exc:
        notes.append(f"The link's settings cannot be used ({exc}); the starting ones are shown.")
    else:
        out.update(state_of(config))
    k = _whole(_one(params, "k"), 1, TOP_K_MAX)
    if k is not None:
        out["k"] = k
    budget = _one(params, "budget")
    if budget == "none":
        out["budget"] = None
    elif budget is not None and budget.isdigit() and int(budget) in BUDGETS:
        out["budget"] = int(budget)
    _view_params(params, out)
    return Link(out, " ".join(notes) or None)


def _view_params(params: Mapping[str, Any], out: dict[str, Any]) -> None:
    """The selected chunk, the view and the PDF page a link names, into ``out``."""
    chunk = _whole(_one(params, "chunk"), 0, 10**9)
    if chunk is not None:
        out["chunk"] = chunk
    view = LINK_VIEWS.get(_one(params, "view") or "hits")
    if view is not None:
        out["view"] = view
    page = _whole(_one(params, "page"), 1, 10**6)
    if page is not None:
        out["page"] = page


def link_url(base: str | None, params: Mapping[str, str]) -> str:
    """The link to ``params`` on the app at ``base`` (its address in the browser, if known)."""
    from urllib.parse import urlencode

    query = urlencode(params)
    root = (base or "").split("?", 1)[0]
    return f"{root}?{query}" if root else f"?{query}"


# --------------------------------------------------------------------------- versions

CHANGE_COLORS = {"unchanged": "#c7ccd1", "changed": "#f28e2b", "added": "#4e79a7"}
"""Unchanged chunks grey, changed ones orange, new ones blue."""
CHANGE_LABELS = {"unchanged": "unchanged", "changed": "changed", "added": "new"}


def change_highlights(
    diff: ChunkDiff, chunks: Sequence[Chunk], *, selected: int | None = None
) -> list[render.Highlight]:
    """Each chunk of the new version tinted by what the diff says of it."""
    kind = {u.new.index: "unchanged" for u in diff.unchanged}
    kind |= {c.new.index: "changed" for c in diff.changed}
    kind |= {a.index: "added" for a in diff.added}
    out = []
    for c in chunks:
        k = kind.get(c.index, "added")
        out.append(
            render.Highlight(
                c.start,
                c.end,
                c.index,
                CHANGE_COLORS[k],
                label=str(c.index),
                selected=c.index == selected,
                title=f"chunk {c.index}: {CHANGE_LABELS[k]}",
            )
        )
    return out


def change_legend_html() -> str:
    """The three tints of the Changes view."""
    swatches = "".join(
        f'<span style="display:inline-block;width:12px;height:12px;border-radius:2px;'
        f'background:{CHANGE_COLORS[k]};margin:0 4px 0 12px"></span>{CHANGE_LABELS[k]}'
        for k in ("unchanged", "changed", "added")
    )
    return f'<div style="font-size:13px;color:#59636e">Changes view:{swatches}</div>'
