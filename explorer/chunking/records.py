"""The chunking records: what a chunk is, the settings that make it, its id and the text that
is embedded for it, and the names a splitter may have.

* :data:`SPLITTERS` — the built-in splitters (:data:`SplitterName`), which the packing engine in
  :mod:`~explorer.chunking.splitters` runs; :func:`register` adds another library's splitter
  under a name of its own (:data:`REGISTERED`), as :mod:`~explorer.chunking.adapters` does;
* :class:`ChunkSettings` — everything that decides how a document is cut, checked at
  construction;
* :class:`Chunk` — one chunk, ``doc.text[chunk.start:chunk.end] == chunk.text``;
* :func:`chunk_id` and :func:`chunk_ids` — a chunk's name, from what it is, not where it sits;
  :func:`chunks_from_texts` — chunk records for texts another splitter returned;
* :func:`embedded_text` and :func:`context_header` — what the embedding model is given.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from explorer.chunking.measures import DEFAULT_ENCODING, UNITS, Measure, get_measure
from explorer.documents.model import Document
from explorer.errors import SettingsError

# --------------------------------------------------------------------------- splitter names

SplitterName = Literal["fixed", "sentence", "recursive", "structure", "semantic", "page"]
"""The built-in splitters' names (a registered splitter's name is any other string)."""
SPLITTERS: tuple[SplitterName, ...] = get_args(SplitterName)
SPLITTER_VERSIONS: dict[SplitterName, str] = {
    "fixed": "1",
    "sentence": "3",
    "recursive": "3",
    "structure": "4",
    "semantic": "3",
    "page": "1",
}
"""Each built-in splitter's version, in its chunks' ids: raised when its cuts change."""
SEMANTIC_PERCENTILE = 95
DEFAULT_OVERLAP_SHARE = 0.25
"""An overlap left out is this share of the size: 64 tokens at the default 256."""
RECURSIVE_LEVELS = ("paragraph", "line", "sentence", "word")
Flag = Literal["oversize", "hard_cut", "table_split", "code_split"]
"""What :attr:`Chunk.flags` may hold."""

ExternalSplitter = Callable[[Document, "ChunkSettings"], "list[Chunk]"]
"""Another library's splitter: a document and the settings in, chunks with exact spans out."""


@dataclass(frozen=True)
class Registered:
    """A splitter registered by name (:func:`register`)."""

    split: ExternalSplitter
    version: Callable[[], str]
    """Its version, asked for when needed (an installed library's)."""
    check: Callable[[ChunkSettings], object] | None
    """How it checks its settings at construction (raises SettingsError)."""
    overlap: bool
    """Whether it takes an overlap (without one, a left-out overlap is 0)."""


REGISTERED: dict[str, Registered] = {}
"""Splitters registered by name (see :func:`register`); ``ChunkSettings`` accepts their names."""


def register(
    name: str,
    splitter: ExternalSplitter,
    *,
    version: str | Callable[[], str] = "1",
    check: Callable[[ChunkSettings], object] | None = None,
    overlap: bool = True,
) -> None:
    """Make ``splitter`` available as ``ChunkSettings(splitter=name)`` everywhere: the app, the
    command line, evaluation. Its chunks must satisfy ``doc.text[c.start:c.end] == c.text``;
    ``check`` rejects settings it cannot take (at construction). A splitter without an overlap
    (``overlap=False``) gets 0 when the overlap is left out, instead of a share of the size."""
    if name in SPLITTERS:
        raise SettingsError(f"{name!r} is one of the built-in splitters")
    REGISTERED[name] = Registered(
        split=splitter,
        version=version if callable(version) else (lambda: str(version)),
        check=check,
        overlap=overlap,
    )


def splitter_names() -> list[str]:
    """Every name ``ChunkSettings`` accepts: the built-in splitters, then the registered ones."""
    return [*SPLITTERS, *REGISTERED]


def takes_overlap(splitter: str) -> bool:
    """Whether a left-out overlap is a share of the size (else 0): not for ``page`` (pages do not
    share text; one asked for applies inside a page cut to the size), nor for a registered
    splitter without an overlap parameter."""
    registered = REGISTERED.get(splitter)
    return registered.overlap if registered is not None else splitter != "page"


def check_size_and_overlap(size: object, overlap: object) -> None:
    """A size above 0 and an overlap from 0 to below it, as whole numbers (SettingsError)."""
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise SettingsError(f"size must be a whole number above 0, got {size!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or overlap < 0:
        raise SettingsError(f"overlap must be a whole number, 0 or more, got {overlap!r}")
    if overlap >= size:
        raise SettingsError(
            f"overlap ({overlap}) must be smaller than size ({size}); "
            "otherwise a chunk would never move forward"
        )


# --------------------------------------------------------------------------- settings and chunks


@dataclass(frozen=True)
class ChunkSettings:
    """Everything that decides how a document is cut. Bad values fail here, at construction."""

    splitter: str = "structure"
    unit: str = "tokens"
    size: int = 256
    overlap: int = None  # type: ignore[assignment]  # None: the default share of the size
    """Units a chunk shares with the one before it; left out, :data:`DEFAULT_OVERLAP_SHARE` of
    the size (64 at 256), or 0 for a splitter that takes no overlap (:func:`takes_overlap`)."""
    encoding: str = DEFAULT_ENCODING
    separators: tuple[str, ...] = RECURSIVE_LEVELS
    """Boundary levels of the ``recursive`` splitter, coarsest first (a hard cut always follows)."""
    percentile: int = SEMANTIC_PERCENTILE
    """The ``semantic`` splitter cuts where the distance between neighbouring sentence groups is
    above this percentile of all such distances in the document."""
    options: tuple[tuple[str, object], ...] = ()
    """A library splitter's own options, by name (see :mod:`explorer.chunking.adapters`)."""

    def __post_init__(self) -> None:
        if self.overlap is None and isinstance(self.size, int) and not isinstance(self.size, bool):
            share = DEFAULT_OVERLAP_SHARE if takes_overlap(self.splitter) else 0.0
            object.__setattr__(self, "overlap", max(0, int(self.size * share)))
        if self.splitter not in SPLITTERS and self.splitter not in REGISTERED:
            names = ", ".join(splitter_names())
            raise SettingsError(f"unknown splitter {self.splitter!r}; choose one of {names}")
        if self.unit not in UNITS:
            raise SettingsError(
                f"unknown size unit {self.unit!r}; choose one of {', '.join(UNITS)}"
            )
        check_size_and_overlap(self.size, self.overlap)
        unknown = [s for s in self.separators if s not in RECURSIVE_LEVELS]
        if unknown:
            raise SettingsError(
                f"unknown separator level(s) {', '.join(map(repr, unknown))}; "
                f"choose from {', '.join(RECURSIVE_LEVELS)}"
            )
        if isinstance(self.percentile, bool) or not 1 <= self.percentile <= 99:
            raise SettingsError(f"percentile must be from 1 to 99, got {self.percentile!r}")
        if self.unit == "tokens" and self.encoding != DEFAULT_ENCODING:
            # an unknown or unloadable encoding fails now, not later (the default one is bundled
            # and loads on first use, so making settings stays cheap)
            get_measure("tokens", self.encoding)
        if isinstance(self.options, dict):
            object.__setattr__(self, "options", tuple(sorted(self.options.items())))
        if self.options and self.splitter not in REGISTERED:
            raise SettingsError(f"the {self.splitter} splitter takes no library options")
        registered = REGISTERED.get(self.splitter)
        if registered is not None and registered.check is not None:
            registered.check(self)

    @property
    def measure(self) -> Measure:
        return get_measure(self.unit, self.encoding)

    @property
    def version(self) -> str:
        registered = REGISTERED.get(self.splitter)
        if registered is not None:
            return registered.version()
        return SPLITTER_VERSIONS[self.splitter]  # type: ignore[index]  # a built-in name

    def key(self) -> str:
        """A canonical string of every setting that changes the output (for ids and caches),
        made once per settings (a corpus asks it of every document on every run)."""
        made: str | None = self.__dict__.get("_key")
        if made is not None:
            return made
        enc = self.encoding if self.unit == "tokens" else "-"
        seps = ",".join(self.separators) if self.splitter == "recursive" else "-"
        pct = self.percentile if self.splitter == "semantic" else "-"
        opts = ",".join(f"{k}={v!r}" for k, v in self.options)
        made = (
            f"{self.splitter}@{self.version}|{self.unit}:{enc}|size={self.size}"
            f"|overlap={self.overlap}|seps={seps}|pct={pct}" + (f"|opts={opts}" if opts else "")
        )
        object.__setattr__(self, "_key", made)  # frozen: not a field, so not compared or copied
        return made


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk of a document. ``text`` is exactly ``doc.text[start:end]``."""

    id: str
    index: int
    start: int
    end: int
    text: str
    size: int
    """Units in ``text`` counted on its own: ``measure.count(text)``."""
    overlap: int
    """Units shared with the previous chunk (0 for the first)."""
    heading_path: tuple[str, ...]
    page_start: int | None
    page_end: int | None
    flags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"chunk span [{self.start}, {self.end}) is empty or negative")
        if len(self.text) != self.end - self.start:
            raise ValueError("chunk text length does not match its span")


_json_string: Callable[[str], str] = json.encoder.encode_basestring_ascii
"""``json.dumps`` of one string with ``ensure_ascii=True`` (the C encoder's own function)."""


def chunk_id(text: str, heading_path: Sequence[str], key: str, occurrence: int) -> str:
    """The id of a chunk: a hash of what the chunk is, not of where it sits.

    ``key`` is the configuration (:meth:`ChunkSettings.key`), ``occurrence`` counts the earlier
    chunks of the same document with the same text and heading path (0 for the first). The
    document's version and the chunk's offsets are left out, so a chunk whose text and heading
    path are unchanged keeps its id when the document is edited elsewhere.
    """
    # json.dumps([key, list(heading_path), occurrence, text], ensure_ascii=True), written out:
    # the same string, without the encoder's set-up for each of a long document's chunks
    path = ", ".join(map(_json_string, heading_path))
    parts = f"[{_json_string(key)}, [{path}], {int(occurrence)}, {_json_string(text)}]"
    return hashlib.sha256(parts.encode("ascii")).hexdigest()[:16]


def chunk_ids(doc: Document, spans: Sequence[tuple[int, int]], key: str) -> list[str]:
    """The ids of the chunks ``doc.text[s:e]`` at ``spans``, in document order (:func:`chunk_id`).

    Ids are unique within one document. Identical chunks of two documents share an id (they are
    the same text to embed), so an index over several documents keys its records by
    ``(document, id)``; the document's version is recorded beside them
    (:func:`explorer.export.chunk_record`). Every place that makes a :class:`Chunk` names it
    through this function.
    """
    return _named(doc, spans, key)[0]


def _named(
    doc: Document, spans: Sequence[tuple[int, int]], key: str
) -> tuple[list[str], list[str], list[tuple[str, ...]]]:
    """:func:`chunk_ids`, with the texts and heading paths it read on the way."""
    seen: dict[tuple[str, tuple[str, ...]], int] = {}
    ids, texts, paths = [], [], []
    text, path_at = doc.text, doc.heading_path_at
    for s, e in spans:
        what = (text[s:e], path_at(s))
        occurrence = seen.get(what, 0)
        seen[what] = occurrence + 1
        ids.append(chunk_id(what[0], what[1], key, occurrence))
        texts.append(what[0])
        paths.append(what[1])
    return ids, texts, paths


def chunks_from_texts(doc: Document, texts: Sequence[str], *, key: str = "ext") -> list[Chunk]:
    """Chunks of another library, located in ``doc.text`` in order (for comparisons).

    Each text is searched from just after the previous chunk's start, so repeated text maps to
    the right occurrence; a text that cannot be found raises :class:`SettingsError`. Ids follow
    :func:`chunk_ids` under ``key``.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    for i, t in enumerate(texts):
        start = doc.text.find(t, pos)
        if start < 0:
            start = doc.text.find(t)
        if start < 0 or not t:
            raise SettingsError(f"chunk {i} of another splitter is not in the document text")
        spans.append((start, start + len(t)))
        pos = start + 1
    out: list[Chunk] = []
    for i, ((start, end), cid) in enumerate(zip(spans, chunk_ids(doc, spans, key), strict=True)):
        page_start, page_end = doc.page_span(start, end)
        out.append(
            Chunk(
                id=cid,
                index=i,
                start=start,
                end=end,
                text=doc.text[start:end],
                size=end - start,
                overlap=0,
                heading_path=doc.heading_path_at(start),
                page_start=page_start,
                page_end=page_end,
            )
        )
    return out


# --------------------------------------------------------------------------- the embedded text


def embedded_text(chunk: Chunk, *, heading_prefix: bool, title: str = "") -> str:
    """The text sent to the embedding model: the chunk text, optionally after its heading path,
    or — given the document's ``title`` (a contextual header) — after the title and its heading
    path (:func:`context_header`).

    What is displayed and what offsets refer to is always ``chunk.text``; only this may differ.
    """
    if title:
        return context_header(title, chunk.heading_path) + "\n\n" + chunk.text
    if heading_prefix and chunk.heading_path:
        return " > ".join(chunk.heading_path) + "\n\n" + chunk.text
    return chunk.text


def context_header(title: str, heading_path: Sequence[str]) -> str:
    """A contextual header without an LLM: ``"Title > Section > Subsection"``. The title is not
    repeated when the heading path already starts with it (a Markdown file's H1)."""
    path = list(heading_path)
    if path and " ".join(path[0].split()) == " ".join(title.split()):
        path = path[1:]
    return " > ".join([title, *path])
