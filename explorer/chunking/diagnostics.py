"""Diagnostics: chunks that are likely to retrieve badly, and why.

Each check looks at one chunk against the document's structure (blocks, table rows, headings)
and names a problem a person would see when reading the chunk on its own:

``mid_sentence``
    the chunk ends inside a sentence (not at a sentence end as
    :mod:`explorer.chunking.sentences` finds them, the end of a block, a table row or the
    document);
``table_header``
    the chunk holds rows of a table but not the table's header row, so the cells lose their
    column names;
``code_fence``
    the chunk starts or ends strictly inside a fenced or indented code block;
``orphan_heading``
    the chunk ends with a heading whose section text is in the next chunk;
``model_window``
    a text embedded for the chunk under the current settings needs more than the embedding
    model's window (:data:`explorer.measures.MODEL_WINDOW` word pieces including the two special
    tokens), so the model would silently drop its tail: the chunk itself where chunks are
    embedded whole, a passage it holds where dense scores come from passages, nothing under BM25
    (see ``embedded`` of :func:`diagnose`);
``oversize``
    the splitter made the chunk over the size limit because one unit (a sentence, a block) could
    not be split;
``edit_oversize``
    a what-if edit (a merge) made the chunk over the size limit: the splitter did not.

``diagnose`` returns a :class:`Diagnosis` with the issues of every chunk and the counts.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.chunking import sentences
from explorer.chunking.measures import (
    MODEL_WINDOW,
    Measure,
    Units,
    count_each,
    count_spans,
    get_measure,
)
from explorer.chunking.records import Chunk, embedded_text
from explorer.documents.model import Document

SPECIAL_TOKENS = 2
"""[CLS] and [SEP]: added by the model to every text it embeds."""


@dataclass(frozen=True, slots=True)
class Issue:
    """One kind of problem: a short ``label`` for counts and a ``description`` for help text."""

    code: str
    label: str
    description: str


ISSUES: tuple[Issue, ...] = (
    Issue(
        "mid_sentence",
        "Mid-sentence end",
        "ends inside a sentence: not at a full stop, the end of a block, a table row or the "
        "document",
    ),
    Issue(
        "table_header",
        "Table without header",
        "holds table rows but not the table's header row, so its cells lose their column names",
    ),
    Issue(
        "code_fence",
        "Cut code block",
        "starts or ends inside a code block",
    ),
    Issue(
        "orphan_heading",
        "Orphan heading",
        "ends with a heading whose section text is in the next chunk",
    ),
    Issue(
        "model_window",
        f"Over {MODEL_WINDOW}-piece window",
        f"has a text embedded under these settings (the chunk, or a passage of it) that needs "
        f"more than {MODEL_WINDOW} word pieces (with the 2 special tokens); the model silently "
        "drops the rest",
    ),
    Issue(
        "oversize",
        "Oversize unit",
        "is over the size limit because one unit (a sentence or block) could not be split",
    ),
    Issue(
        "edit_oversize",
        "Oversize by an edit",
        "is over the size limit because a what-if edit (a merge) made it so, not the splitter",
    ),
)
ISSUE_CODES: tuple[str, ...] = tuple(i.code for i in ISSUES)
_ISSUE_ORDER = {code: n for n, code in enumerate(ISSUE_CODES)}


@dataclass(frozen=True)
class Diagnosis:
    """The issues of each chunk (by chunk index) and the embedded size of each chunk."""

    issues: tuple[tuple[str, ...], ...]
    """``issues[i]`` are the issue codes of chunk ``i``, in :data:`ISSUE_CODES` order."""
    model_tokens: tuple[int, ...]
    """Word pieces of each chunk's embedded text, including the special tokens."""

    def __post_init__(self) -> None:
        if len(self.issues) != len(self.model_tokens):
            raise ValueError("issues and model_tokens must have one entry per chunk")
        for codes in self.issues:
            unknown = set(codes) - set(ISSUE_CODES)
            if unknown:
                raise ValueError(f"unknown issue code(s): {', '.join(sorted(unknown))}")

    def counts(self) -> dict[str, int]:
        """Chunks with each issue, for every issue code (zero included)."""
        out = dict.fromkeys(ISSUE_CODES, 0)
        for codes in self.issues:
            for code in codes:
                out[code] += 1
        return out

    def flagged(self) -> list[int]:
        """Indices of the chunks with at least one issue."""
        return [i for i, codes in enumerate(self.issues) if codes]


class _Structure:
    """Sorted lookups over a document's blocks, built once per diagnosis."""

    def __init__(self, doc: Document) -> None:
        text = doc.text
        self.text = text
        self.content_end = len(text.rstrip())
        clean: set[int] = set()
        self.code: list[tuple[int, int]] = []
        self.tables: list[tuple[int, int, list[tuple[int, int]], list[tuple[int, int]]]] = []
        self.headings: list[tuple[int, int]] = []
        for b in doc.blocks:
            clean.add(b.end)
            if b.kind == "code":
                self.code.append((b.start, b.end))
            elif b.kind == "heading":
                self.headings.append((b.start, b.end))
            elif b.kind == "table":
                head = [(r.start, r.end) for r in b.rows if r.header]
                body = [(r.start, r.end) for r in b.rows if not r.header]
                clean.update(r.end for r in b.rows)
                self.tables.append((b.start, b.end, head, body))
        self.clean_ends = clean
        self.code.sort()
        self.tables.sort(key=lambda t: t[0])
        self.headings.sort()
        self._code_starts = [a for a, _ in self.code]
        self._table_starts = [t[0] for t in self.tables]
        self._heading_starts = [a for a, _ in self.headings]

    def inside_code(self, pos: int) -> bool:
        """Is ``pos`` strictly inside a code block (not at its start or end)?"""
        i = bisect.bisect_left(self._code_starts, pos) - 1  # the last block starting before pos
        return i >= 0 and pos < self.code[i][1]

    def ends_sentence(self, end: int) -> bool:
        if end >= self.content_end or end in self.clean_ends:
            return True
        return sentences.ends_sentence(self.text, end)

    def splits_table_header(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._table_starts, end)  # tables starting before the chunk's end
        for k in range(i - 1, -1, -1):
            _, b, head, body = self.tables[k]
            if b <= start:
                break  # tables do not nest: earlier ones end even sooner
            holds_rows = any(rs < end and start < re for rs, re in body)
            holds_header = all(start <= hs and he <= end for hs, he in head)
            if holds_rows and head and not holds_header:
                return True
        return False

    def orphan_heading(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._heading_starts, end) - 1  # the last heading starting in it
        if i < 0:
            return False
        hs, he = self.headings[i]
        if hs < start:
            return False
        rest = self.text[min(he, end) : end]
        return not rest.strip() and end < self.content_end


def diagnose(
    doc: Document,
    chunks: Sequence[Chunk],
    *,
    heading_prefix: bool = False,
    model_measure: Measure | None = None,
    window: int = MODEL_WINDOW,
    embedded: Sequence[int] | None = None,
    units: Units | None = None,
) -> Diagnosis:
    """Check every chunk of ``doc``; see the module docstring for what each issue means.

    ``model_measure`` counts the embedding model's word pieces (default: the bundled
    all-MiniLM-L6-v2 tokenizer); the embedded text of a chunk needs its count plus the two
    special tokens, and more than ``window`` means the model truncates it. ``embedded``, when
    given, is for each chunk the word pieces (special tokens included) of the longest text the
    current settings embed for it — a passage it holds, or 0 when nothing is embedded — and the
    window is judged on that instead of on the chunk's own text. ``units``, when given, are
    ``doc.text``'s own units in ``model_measure``: a chunk is then counted from them where its
    edges fall between words (:func:`~explorer.chunking.measures.count_spans`), so a new chunking
    encodes only the chunks cut inside a word.
    """
    measure = model_measure if model_measure is not None else get_measure("model-tokens")
    structure = _Structure(doc)
    issues: list[tuple[str, ...]] = []
    if units is None:
        counts = count_each(
            measure, [embedded_text(c, heading_prefix=heading_prefix) for c in chunks]
        )  # in one batch, on every core
    else:
        counts = count_spans(measure, doc.text, [(c.start, c.end) for c in chunks], units)
        if heading_prefix:  # a path and its chunk, apart at the blank line, count on their own
            paths = sorted({c.heading_path for c in chunks if c.heading_path})
            of = dict(zip(paths, count_each(measure, [" > ".join(p) for p in paths]), strict=True))
            counts = [n + of.get(c.heading_path, 0) for n, c in zip(counts, chunks, strict=True)]
    pieces = [n + SPECIAL_TOKENS for n in counts]
    judged = pieces if embedded is None else list(embedded)
    if len(judged) != len(chunks):
        raise ValueError("embedded must give one count per chunk")
    for chunk, n in zip(chunks, judged, strict=True):
        s, e = chunk.start, chunk.end
        found: set[str] = set()
        end_in_code = structure.inside_code(e)
        if end_in_code or structure.inside_code(s):
            found.add("code_fence")
        if not end_in_code and not structure.ends_sentence(e):
            found.add("mid_sentence")
        if structure.splits_table_header(s, e):
            found.add("table_header")
        if structure.orphan_heading(s, e):
            found.add("orphan_heading")
        if n > window:
            found.add("model_window")
        if "oversize" in chunk.flags:
            found.add("edit_oversize" if "edited" in chunk.flags else "oversize")
        issues.append(tuple(sorted(found, key=_ISSUE_ORDER.__getitem__)))
    return Diagnosis(tuple(issues), tuple(pieces))


def issue(code: str) -> Issue:
    """The :class:`Issue` for ``code``."""
    return ISSUES[_ISSUE_ORDER[code]]
