"""Other libraries' splitters, called through their own APIs, placed exactly, and audited.

Twelve adapters run the splitters of LangChain, LlamaIndex, semantic-text-splitter, semchunk and
chonkie with the user's ``size``, ``overlap`` and ``unit`` mapped to each library's parameters
(:meth:`Adapter.mapping` says how, for the manifest and the UI), token-measured ones with our
offline cl100k encoding. Each adapter describes its calls once, as a recipe
(:mod:`~explorer.chunking.adapters.recipe`): the recipe is what runs, and
:meth:`Adapter.snippet` prints the same recipe as runnable code that builds exactly the same
splitter in that library and splits a file.

The package, by concern:

* :mod:`~explorer.chunking.adapters.recipe` — the description of a library call, its runner and
  its printer;
* :mod:`~explorer.chunking.adapters.base` — options, :class:`AdapterSettings`, the
  :class:`Adapter` base class and the registry;
* one module per library: :mod:`~explorer.chunking.adapters.langchain`,
  :mod:`~explorer.chunking.adapters.llamaindex`, :mod:`~explorer.chunking.adapters.text_splitter`,
  :mod:`~explorer.chunking.adapters.semchunk`, :mod:`~explorer.chunking.adapters.chonkie`;
* :mod:`~explorer.chunking.adapters.placement` — where each chunk a library returns lies;
* :mod:`~explorer.chunking.adapters.audit` — what the library got wrong, per chunk and summed;
* :mod:`~explorer.chunking.adapters.bounded` — a split in a child process under a time limit
  (for a regular expression of the user's, :func:`regex_options`);
* :mod:`~explorer.chunking.adapters.split` — :func:`split_library`, :func:`audit_ours` and
  :func:`chunks_from_texts`, which put those together into our chunk records.

Importing the package registers every adapter as a splitter name
(``ChunkSettings(splitter="semchunk")``), so the app, the command line, evaluation and the A/B
split with it through :func:`split_library`. The libraries themselves are imported only when a
splitter runs.
"""

from __future__ import annotations

from typing import cast

from explorer.chunking.adapters.audit import SUMMARY_KEYS, Audit, ChunkAudit, audit
from explorer.chunking.adapters.base import (
    ADAPTER_UNITS,
    ADAPTERS,
    Adapter,
    AdapterSettings,
    FrozenOptions,
    OffsetKind,
    Option,
    OptionValue,
    adapter,
    adapters_by_group,
)
from explorer.chunking.adapters.chonkie import ChonkieRecursive, ChonkieSentence, ChonkieToken
from explorer.chunking.adapters.langchain import (
    LangChainMarkdown,
    LangChainRecursive,
    LangChainToken,
)
from explorer.chunking.adapters.llamaindex import (
    LlamaIndexMarkdown,
    LlamaIndexSentence,
    LlamaIndexToken,
)
from explorer.chunking.adapters.placement import How, Location, Placed, locate_chunks, shared_size
from explorer.chunking.adapters.recipe import Call, Each, PerItem, Raw, Recipe, Ref, Step
from explorer.chunking.adapters.semchunk import Semchunk
from explorer.chunking.adapters.split import (
    LibraryChunk,
    LibraryChunking,
    audit_ours,
    chunks_from_texts,
    split_library,
)
from explorer.chunking.adapters.text_splitter import TextSplitterMarkdown, TextSplitterText
from explorer.chunking.records import Chunk, ChunkSettings, register
from explorer.documents.model import Document

ADAPTERS.update(
    (a.name, a)
    for a in (
        LangChainRecursive(),
        LangChainToken(),
        LangChainMarkdown(),
        LlamaIndexSentence(),
        LlamaIndexToken(),
        LlamaIndexMarkdown(),
        TextSplitterText(),
        TextSplitterMarkdown(),
        Semchunk(),
        ChonkieToken(),
        ChonkieSentence(),
        ChonkieRecursive(),
    )
)

LIBRARY_SPLITTERS: tuple[str, ...] = tuple(ADAPTERS)


def adapter_settings(settings: ChunkSettings) -> AdapterSettings:
    """The library settings our chunk settings name (their splitter is a library one)."""
    return AdapterSettings(
        adapter=settings.splitter,
        unit=settings.unit,
        size=settings.size,
        overlap=settings.overlap,
        encoding=settings.encoding,
        options={k: cast("OptionValue", v) for k, v in settings.options},
    )


def regex_options(settings: ChunkSettings) -> tuple[str, ...]:
    """The options of ``settings`` that hold a regular expression of the user's (none for our
    own splitters, which take no patterns): see :attr:`AdapterSettings.regexes`."""
    if settings.splitter not in ADAPTERS:
        return ()
    return adapter_settings(settings).regexes


def _split(doc: Document, settings: ChunkSettings) -> list[Chunk]:
    return split_library(doc, adapter_settings(settings)).chunks


def _register_all() -> None:
    """Each adapter as a splitter name everywhere; one without an overlap parameter gets a
    left-out overlap of 0 (an overlap asked for is still refused, by :class:`AdapterSettings`)."""
    for name, spec in ADAPTERS.items():
        register(name, _split, version=spec.version, check=adapter_settings, overlap=spec.overlap)


_register_all()

__all__ = [
    "ADAPTERS",
    "ADAPTER_UNITS",
    "LIBRARY_SPLITTERS",
    "SUMMARY_KEYS",
    "Adapter",
    "AdapterSettings",
    "Audit",
    "Call",
    "ChonkieRecursive",
    "ChonkieSentence",
    "ChonkieToken",
    "ChunkAudit",
    "Each",
    "FrozenOptions",
    "How",
    "LangChainMarkdown",
    "LangChainRecursive",
    "LangChainToken",
    "LibraryChunk",
    "LibraryChunking",
    "LlamaIndexMarkdown",
    "LlamaIndexSentence",
    "LlamaIndexToken",
    "Location",
    "OffsetKind",
    "Option",
    "OptionValue",
    "PerItem",
    "Placed",
    "Raw",
    "Recipe",
    "Ref",
    "Semchunk",
    "Step",
    "TextSplitterMarkdown",
    "TextSplitterText",
    "adapter",
    "adapter_settings",
    "adapters_by_group",
    "audit",
    "audit_ours",
    "chunks_from_texts",
    "locate_chunks",
    "regex_options",
    "shared_size",
    "split_library",
]
