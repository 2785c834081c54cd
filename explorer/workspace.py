"""The one owner of the work in progress: documents → chunkings → retrievers → vectors.

A :class:`Workspace` reads each document once, chunks it once per chunking, builds one retriever
per ranking configuration, and embeds through one embedder per model (whose vectors are also kept
in the lasting index on disk). It says what is still to embed (:meth:`Workspace.pending`) and
prepares it with one progress callback (:meth:`Workspace.prepare`; both in
:mod:`explorer.preparing`), it embeds each question (:meth:`Workspace.question_vector`) for the
one ranking (:meth:`explorer.corpus.Corpus.rank`), and it answers — one document being a corpus
of one — through :func:`explorer.answer.answer`. The app's pages, the command line, evaluation,
the A/B, the sweep, lessons and version comparison all ask it; none builds its own retriever or
cache::

    from explorer import Config, Workspace

    ws = Workspace("queries/docs")
    answer = ws.answer("How long do I have to ask for a refund?", ["within seven days"],
                       config=Config())               # every document of the folder
    one = ws.ask("refund-policy.md", "How long do I have to ask for a refund?")

Names are this workspace's own (a folder's files, documents added); what is computed is keyed by
content (:attr:`Document.key`) and configuration, and shared with every workspace made from it
with :meth:`Workspace.view`. The process has one shared workspace (:func:`shared_workspace`,
what :func:`explorer.ask` and the app use; the app gives each session a view of its own
documents, so the bytes two sessions share are read, chunked and embedded once, while neither
sees the other's names). It owns the process's embedders and their lasting index: every
workspace of the process embeds through them (:meth:`Workspace.using_store` points them at
another lasting index). Every cache is bounded (least recently used first out; a corpus is held
whole, :meth:`Workspace.hold`) and thread-safe: a value is made once, the others wait for it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from explorer import preparing
from explorer.answer import DEFAULT_K, Answer, CorpusAnswer, How, answer
from explorer.chunking.edits import Edit, encode_edits
from explorer.chunking.measures import DEFAULT_ENCODING
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import DOCUMENT_LEVELS, Levels, split, split_levels
from explorer.config import Config, dense_config
from explorer.corpus import Corpus, CorpusHit, Ranking
from explorer.documents.folder import (
    Loaded,
    Skipped,
    folder_key,
    inside_folder,
    load_folder,
    load_paths,
)
from explorer.documents.load import load_document, read_file
from explorer.documents.model import Document, document_name, sha256_of
from explorer.errors import EditError, QuerySetError, SettingsError
from explorer.memo import Memo
from explorer.preparing import Indexed, Pending
from explorer.progress import Progress, quiet
from explorer.retrieval.context import Span
from explorer.retrieval.embeddings import Embedders
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.words import Words, words_of

if TYPE_CHECKING:
    from explorer.chunking.adapters import LibraryChunking
    from explorer.chunking.churn import Churn
    from explorer.chunking.diagnostics import Diagnosis
    from explorer.chunking.diff import ChunkDiff
    from explorer.chunking.measures import Units
    from explorer.chunking.tables import TableAudit
    from explorer.documents.markdown_view import Rendered
    from explorer.retrieval.embedding_map import EmbeddingMap
    from explorer.retrieval.embeddings import Embedder, Vectors
    from explorer.retrieval.store import Store


@dataclass(frozen=True)
class Chunking:
    """One document's chunks under one chunking, and, for another library's splitter, what it
    returned with the audit of it (:func:`explorer.chunking.adapters.split_library`)."""

    chunks: list[Chunk]
    library: LibraryChunking | None = None


TablesByChunk = tuple["TableAudit", dict[int, frozenset[str]]]
"""The table audit of a chunking and each chunk's table problems (by chunk index)."""

EDITED = 64
"""Edited chunkings (and their retrievers) kept: the least recently used go first."""
KEEP = 100_000
"""Documents a workspace keeps by default (in effect all: a corpus needs every one of its own)."""


class _Shared:
    """What every view of a workspace shares: the caches, keyed by content and settings, each
    keeping about ``keep`` documents' worth, and the ``embedders`` (the process's: see
    :func:`shared_workspace`)."""

    def __init__(self, keep: int, embedders: Embedders) -> None:
        self.embedders = embedders
        self.documents: Memo[tuple[str, str], Document] = Memo(keep)
        self.chunkings: Memo[tuple[str, str], Chunking] = Memo(keep)
        self.passages: Memo[str, list[Chunk]] = Memo(keep)
        self.units: Memo[tuple[str, str, str], Units] = Memo(keep)
        self.levels: Memo[tuple[str, str, tuple[str, ...]], Levels] = Memo(keep)
        self.words: Memo[str, Words | None] = Memo(keep)
        self.rendered: Memo[str, Rendered | None] = Memo(keep)
        self.retrievers: Memo[tuple[str, str, str], Retriever] = Memo(keep)
        self.corpora: Memo[tuple[tuple[tuple[str, str, str], ...], str], Corpus] = Memo(16)
        self.edited: Memo[tuple[str, str], Chunking] = Memo(EDITED)
        """Chunkings after what-if edits: a few at a time (a suggested repair tries a dozen)."""
        self.edited_retrievers: Memo[tuple[str, str, str], Retriever] = Memo(EDITED)
        self.folders: Memo[tuple[str, bool, str], Loaded] = Memo(8)
        # derived work, keyed as the chunkings are (see "Derived work" at the end of Workspace)
        self.diagnoses: Memo[tuple[str, str, bool, str], Diagnosis] = Memo(4 * keep)
        self.table_audits: Memo[tuple[str, str], TablesByChunk] = Memo(4 * keep)
        self.keep = keep
        self.version_diffs: Memo[tuple[str, str, str], ChunkDiff] = Memo(16)
        self.loads = 0
        """Documents parsed (a document asked for again is served from the cache)."""
        self.lock = threading.Lock()
        self.bound(keep)

    def bound(self, keep: int) -> None:
        """Keep about ``keep`` documents' worth from now on (the least recently used go first
        as new work comes in): a document, up to four chunkings, retrievers, diagnoses and
        table audits of it, three measures of its text."""
        self.keep = keep
        for memo, times in ((self.documents, 1), (self.chunkings, 4), (self.passages, 1),
                            (self.units, 3), (self.levels, 1), (self.words, 1),
                            (self.rendered, 1), (self.retrievers, 4), (self.diagnoses, 4),
                            (self.table_audits, 4)):  # fmt: skip
            memo.size = times * keep


class Workspace:
    """Named documents, and everything made from them (see the module).

    ``docs_dir``'s files are documents named by their path in it (read on first need; with
    ``recursive``, a site's: the files of its folders too); ``documents`` are loaded documents,
    by the name to use (a mapping) or their own; they win over files of the same name in
    ``docs_dir``. ``keep`` bounds how many documents' work is kept (least recently used first out).
    """

    def __init__(
        self,
        docs_dir: str | Path | None = None,
        documents: Mapping[str, Document] | Iterable[Document] = (),
        *,
        recursive: bool = False,
        keep: int = KEEP,
        _shared: _Shared | None = None,
    ) -> None:
        self.docs_dir = Path(docs_dir) if docs_dir is not None else None
        self.recursive = recursive
        self._shared = _shared or _Shared(keep, shared_workspace().embedders)
        self._named: dict[str, Document] = {}
        self._folder: Loaded | None = None
        if isinstance(documents, Mapping):
            items = list(documents.items())
        else:
            items = [(d.name, d) for d in documents]
        names = [n for n, _ in items]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise SettingsError(f"two documents share the name {twice[0]!r}; rename one of them")
        for name, doc in items:
            self.add(doc, name=name)

    def view(
        self,
        docs_dir: str | Path | None = None,
        documents: Mapping[str, Document] | Iterable[Document] = (),
        *,
        recursive: bool = False,
    ) -> Workspace:
        """A workspace with names of its own that shares this one's documents, chunkings,
        retrievers and vectors (``recursive``: ``docs_dir``'s subfolders' files are its too)."""
        return Workspace(docs_dir, documents, recursive=recursive, _shared=self._shared)

    def hold(self, documents: int) -> None:
        """Keep at least ``documents`` documents' work: a corpus needs all of its own each run."""
        with self._shared.lock:
            self._shared.bound(max(self._shared.keep, documents))

    @property
    def embedders(self) -> Embedders:
        """The embedders this workspace embeds through (the process's: see
        :func:`shared_workspace`)."""
        return self._shared.embedders

    @contextmanager
    def using_store(self, store: Store | None) -> Iterator[None]:
        """Inside the block, the embedders read and write ``store`` (None: memory only);
        afterwards, what they used before. For the command line's ``--cache-dir`` and
        ``--no-cache``, and for tests."""
        with self._shared.embedders.using(store):
            yield

    # ------------------------------------------------------------------ documents

    @property
    def loads(self) -> int:
        """How many documents have been parsed (by this workspace and every view of it)."""
        return self._shared.loads

    def load(self, data: bytes, *, name: str, progress: Progress = quiet) -> Document:
        """The document in ``data`` (its kind by ``name``'s suffix), parsed once per content: the
        same bytes loaded again, on any page or in any view, are not parsed again. ``progress``
        follows the parsing (see :func:`explorer.documents.load_document`)."""
        sha = sha256_of(data)
        suffix = Path(name).suffix.lower()

        def parse() -> Document:
            doc = load_document(data, name=name, progress=progress)
            with self._shared.lock:
                self._shared.loads += 1
            return doc

        doc = self._shared.documents.get((sha, suffix), parse)
        return doc if doc.name == name else replace(doc, name=name)

    def load_path(self, path: str | Path) -> Document:
        """The file at ``path``, loaded as :func:`explorer.documents.load_path` does (once)."""
        p = Path(path)
        return self.load(read_file(p), name=document_name(p))

    def load_folder(
        self, folder: str | Path, *, recursive: bool = False, progress: Progress = quiet
    ) -> Loaded:
        """Every file of ``folder`` that loads (see :func:`explorer.documents.load_folder`), each
        parsed once; a folder whose files have not changed is not read again. ``progress``
        follows the files as they are read."""
        path = Path(folder)

        def read() -> Loaded:
            return load_folder(path, recursive=recursive, load=self._loader, progress=progress)

        return self._shared.folders.get(folder_key(path, recursive=recursive), read)

    def folder_read(self, folder: str | Path, *, recursive: bool = False) -> Loaded | None:
        """What :meth:`load_folder` gives for the folder as it is now if that reads nothing, else
        ``None``: one look at its files (a site's 10,000 take about 0.25 s a look)."""
        return self._shared.folders.peek(folder_key(Path(folder), recursive=recursive))

    def load_paths(self, paths: Iterable[str | Path], *, recursive: bool = False) -> Loaded:
        """Files and folders, as :func:`explorer.documents.load_paths`, each file parsed once."""
        return load_paths(paths, recursive=recursive, load=self._loader)

    def _loader(self, data: bytes, name: str) -> Document:
        return self.load(data, name=name)

    def add(self, doc: Document, *, name: str | None = None) -> str:
        """Name a loaded document in this workspace (default: its own name); returns the name."""
        name = name if name is not None else doc.name
        self._named[name] = doc
        return name

    def names(self) -> tuple[str, ...]:
        """Every document: those added, then every file of ``docs_dir`` that loads, in name
        order."""
        return tuple(dict.fromkeys([*self._named, *self._read_folder().names]))

    @property
    def skipped(self) -> tuple[Skipped, ...]:
        """The files of ``docs_dir`` that :meth:`names` could not load, each with its reason."""
        return self._read_folder().skipped

    def _read_folder(self) -> Loaded:
        if self._folder is None:
            none, folder = Loaded((), (), ()), self.docs_dir
            self._folder = self.load_folder(folder, recursive=self.recursive) if folder else none
        return self._folder

    def document(self, name: str | Document) -> Document:
        """The document called ``name`` (a document given is its own answer)."""
        if isinstance(name, Document):
            return name
        if name in self._named:
            return self._named[name]
        if self.docs_dir is not None:
            if self._folder is not None and name in self._folder.names:
                return self._folder.document(name)
            path = self.inside(name)
            if path.is_file():  # named by its path in the folder, as the folder's files are
                doc = self._named[name] = replace(self.load_path(path), name=name)
                return doc
        where = self.docs_dir if self.docs_dir is not None else "the loaded documents"
        raise QuerySetError(f"document {name!r} is not in {where}")

    def inside(self, name: str) -> Path:
        """The file ``name`` names in ``docs_dir``; a name that reaches outside it (an absolute
        path, a ``..`` that climbs out, a link that leaves the folder) is refused, whether or
        not the file exists. Links are judged as loading the folder judges them
        (:func:`~explorer.documents.model.leaves_folder`): one that stays inside is followed."""
        assert self.docs_dir is not None
        return inside_folder(self.docs_dir, name)

    def _name_of(self, doc: str | Document) -> str:
        if isinstance(doc, str):
            return doc
        for name, d in self._named.items():
            if d is doc:
                return name
        return self.add(doc)

    # ------------------------------------------------------------------ chunkings

    def passages(self, doc: str | Document) -> list[Chunk]:
        """The document's sentence passages (what dense scores come from)."""
        from explorer.retrieval.scoring import PASSAGES, passages

        d = self.document(doc)
        return self._shared.passages.get(
            d.key,
            lambda: passages(d, units=self.units(d, PASSAGES.unit, PASSAGES.encoding)),
        )

    def units(
        self, doc: str | Document, unit: str = "tokens", encoding: str = DEFAULT_ENCODING
    ) -> Units:
        """The document's whole text measured in ``unit`` (default: cl100k tokens, what budgets
        count), made once per document and measure: every chunking in that unit cuts along the
        same units, so a new size or overlap does not tokenise the document again."""
        from explorer.chunking.measures import get_measure

        d = self.document(doc)
        key = (d.key, unit, encoding if unit == "tokens" else "-")
        return self._shared.units.get(key, lambda: get_measure(unit, encoding).units(d.text))

    def rendered(self, doc: str | Document) -> Rendered | None:
        """What a reader sees of a Markdown document, with source offsets (``None`` otherwise)."""
        from explorer.documents.markdown_view import rendered_text

        d = self.document(doc)
        return self._shared.rendered.get(d.key, lambda: rendered_text(d))

    def chunking(
        self,
        doc: str | Document,
        config: Config | ChunkSettings,
        *,
        edits: Sequence[Edit] = (),
        progress: Progress = quiet,
    ) -> Chunking:
        """The document's chunks under ``config``'s chunking, after the what-if ``edits``
        (:func:`explorer.chunking.edits.apply_edits`; a bad edit raises EditError); for another
        library's splitter, with what the library returned and the audit. The semantic splitter
        embeds with the configuration's model (``progress`` follows it)."""
        d = self.document(doc)
        settings = config.chunking if isinstance(config, Config) else config
        model = config.model if isinstance(config, Config) else Config().model
        key = self.chunking_key(config)
        edits = tuple(edits)
        if edits:
            from explorer.chunking.edits import apply_edits

            base = self.chunking(d, config, progress=progress)

            def edited() -> Chunking:
                units = self.units(d, settings.unit, settings.encoding)
                chunks = apply_edits(d, base.chunks, edits, settings, units=units)
                return Chunking(chunks, base.library)

            return self._shared.edited.get((d.key, self.chunking_key(config, edits=edits)), edited)

        def make() -> Chunking:
            from explorer.chunking.adapters import ADAPTERS, adapter_settings, split_library

            if settings.splitter in ADAPTERS:
                library = split_library(d, adapter_settings(settings))
                return Chunking(library.chunks, library)
            embed = None
            if settings.splitter == "semantic":
                emb = self.embedder(model)

                def embed(texts: Sequence[str]) -> Any:
                    return emb.embed(texts, progress=progress)

            units = self.units(d, settings.unit, settings.encoding)
            levels = None
            if settings.splitter in DOCUMENT_LEVELS:  # the same cuts for every size and overlap
                at = (d.key, settings.splitter, settings.separators)
                levels = self._shared.levels.get(at, lambda: split_levels(d, settings))
            return Chunking(split(d, settings, units=units, embed=embed, levels=levels))

        return self._shared.chunkings.get((d.key, key), make)

    def chunks(
        self,
        doc: str | Document,
        config: Config | ChunkSettings,
        *,
        edits: Sequence[Edit] = (),
        progress: Progress = quiet,
    ) -> list[Chunk]:
        """The document's chunks under ``config``'s chunking and ``edits`` (:meth:`chunking`)."""
        return self.chunking(doc, config, edits=edits, progress=progress).chunks

    def cached_chunks(self, doc: str | Document, config: Config) -> list[Chunk] | None:
        """The chunks if they are made already, else ``None`` (nothing is computed)."""
        made = self._shared.chunkings.peek((self.document(doc).key, self.chunking_key(config)))
        return made.chunks if made is not None else None

    # ------------------------------------------------------------------ retrieval

    def embedder(self, model: str) -> Embedder:
        """The process's one embedder for ``model`` (its vectors kept in memory and in the
        lasting index); the model itself is loaded on first use."""
        return self._shared.embedders.get(model)

    def question_vector(self, question: str, config: Config) -> Vectors | None:
        """``question`` embedded by ``config``'s model, what the ranking's dense scores read (one
        text: torch runs on one thread for it); ``None`` when ``config`` ranks by BM25 alone."""
        if config.retriever == "bm25":
            return None
        return self.embedder(config.model).embed_query(question)

    def retriever(
        self, doc: str | Document, config: Config, *, edits: Sequence[Edit] = ()
    ) -> Retriever:
        """The document's retriever under ``config`` and the what-if ``edits`` (a dropped chunk
        is never ranked): one per ranking and edits, its context settings ``config``'s."""
        d = self.document(doc)
        edits = tuple(edits)

        def make() -> Retriever:
            return Retriever(
                d,
                config,
                chunks=self.chunks(d, config, edits=edits),
                embedder=self.embedder(config.model) if config.retriever != "bm25" else None,
                passages=(lambda: self.passages(d)) if config.dense == "passages" else None,
                units=lambda: self.units(d),
                rendered=lambda: self.rendered(d),
                words=lambda: self._shared.words.get(d.key, lambda: words_of(d.text)),
            )

        if edits:
            key = f"{config.index_key()}|edits={encode_edits(edits)}"
            made = self._shared.edited_retrievers.get((d.key, d.name, key), make)
        else:
            made = self._shared.retrievers.get((d.key, d.name, config.index_key()), make)
        return made.using(config)

    def corpus(
        self,
        config: Config,
        names: Sequence[str | Document] | None = None,
        *,
        edits: Mapping[str, Sequence[Edit]] | None = None,
    ) -> Corpus:
        """The named documents (default: all, :meth:`names`) as one :class:`Corpus`, made of
        the same retrievers as each document's own (nothing is chunked or embedded again);
        ``edits`` are what-if edits by document name."""
        docs = [self._name_of(n) for n in (names if names is not None else self.names())]
        edits = {n: tuple(e) for n, e in (edits or {}).items() if e}
        unknown = sorted(set(edits) - set(docs))
        if unknown:
            raise EditError(f"edits given for {unknown[0]!r}, which is not among the documents")
        key = (
            tuple((n, self.document(n).key, encode_edits(edits.get(n, ()))) for n in docs),
            config.index_key(),
        )

        def make() -> Corpus:
            return Corpus(
                {n: self.retriever(n, config, edits=edits.get(n, ())) for n in docs}, config
            )

        return self._shared.corpora.get(key, make).using(config)

    def ranking(
        self,
        question: str,
        config: Config,
        names: Sequence[str | Document] | None = None,
        *,
        edits: Mapping[str, Sequence[Edit]] | None = None,
    ) -> Ranking:
        """Every chunk of the named documents (default: all) ranked for ``question`` under
        ``config`` and the what-if ``edits``: the question embedded
        (:meth:`question_vector`), then :meth:`Corpus.rank`."""
        return self._rank(self.corpus(config, names, edits=edits), question)

    def _rank(self, corpus: Corpus, question: str) -> Ranking:
        vector = self.question_vector(question, corpus.config) if corpus.size else None
        return corpus.rank(question, vector)

    # ------------------------------------------------------------------ preparing

    def pending(
        self,
        names: Sequence[str | Document],
        config: Config,
        *,
        question: str | None = None,
    ) -> Pending:
        """What answering from ``names`` under ``config`` still has to embed (after reading the
        lasting index), and whether the model has to be loaded — for ``question`` too (see
        :func:`explorer.preparing.pending`)."""
        return preparing.pending(self, names, config, question=question)

    def prepare(
        self,
        names: Sequence[str | Document],
        config: Config,
        progress: Progress = quiet,
        *,
        question: str | None = None,
        edits: Mapping[str, Sequence[Edit]] | None = None,
    ) -> None:
        """Chunk every named document (after its what-if ``edits``, by name) and, for dense or
        hybrid ranking, embed what is new, with ``progress`` through the slow steps (see
        :func:`explorer.preparing.prepare`)."""
        preparing.prepare(self, names, config, progress, question=question, edits=edits)

    def chunk_vectors(
        self,
        doc: str | Document,
        config: Config,
        *,
        edits: Sequence[Edit] = (),
        progress: Progress = quiet,
    ) -> Any:
        """One unit vector per chunk of ``doc`` under ``config`` (and ``edits``), as its retriever
        embeds it (see :func:`explorer.preparing.chunk_vectors`). A ``bm25`` configuration's
        chunks are embedded as ``dense`` would embed them. What is new is embedded as
        :meth:`prepare` embeds it, with ``progress``; ask :meth:`pending` (of
        :func:`~explorer.config.dense_config`) first to know whether that takes a while."""
        name = self._name_of(doc)
        return preparing.chunk_vectors(
            self, name, dense_config(config), edits=edits, progress=progress
        )

    def index(
        self,
        names: Sequence[str | Document],
        config: Config,
        progress: Progress = quiet,
        *,
        questions: Sequence[str] = (),
    ) -> Indexed:
        """Fill the lasting index ahead of time, so that answering from ``names`` later embeds
        nothing (the ``index`` command; see :func:`explorer.preparing.fill_index`)."""
        return preparing.fill_index(self, names, config, progress, questions=questions)

    # ------------------------------------------------------------------ derived views

    def embedding_map(
        self,
        doc: Document,
        question: str | None,
        *,
        config: Config,
        k: int | None = None,
        budget: int | None = None,
        edits: Sequence[Edit] = (),
        progress: Progress | None = None,
    ) -> EmbeddingMap:
        """The map of ``doc``'s chunks under ``config`` (and ``edits``), with ``question``'s point
        and the hits the answer path gives it at ``k`` and ``budget``
        (:mod:`explorer.retrieval.embedding_map`). The vectors are :meth:`chunk_vectors`'
        (embedded with ``progress`` if new)."""
        from explorer.maps import embedding_map

        return embedding_map(
            self, doc, question, config=config, k=k, budget=budget, edits=edits, progress=progress
        )

    def churn(
        self, old: Document, new: Document, config: Config, splitters: Sequence[str]
    ) -> dict[str, Churn]:
        """The churn from ``old`` to ``new`` under each of ``splitters`` (at ``config``'s size,
        unit and overlap, see :func:`~explorer.config.splitter_config`; :mod:`explorer.chunking.
        churn`). Every name is checked before anything is split."""
        from explorer.chunking.churn import churn
        from explorer.config import splitter_config

        configs = {name: splitter_config(config, name) for name in splitters}
        return {
            name: churn(
                self.chunks(old, c),
                self.chunks(new, c),
                splitter=name,
                heading_prefix=c.heading_prefix,
            )
            for name, c in configs.items()
        }

    # ------------------------------------------------------------------ answers

    def answer(
        self,
        question: str,
        evidence: Sequence[str] = (),
        *,
        config: Config,
        names: Sequence[str | Document] | None = None,
        edits: Mapping[str, Sequence[Edit]] | None = None,
        ranking: Sequence[CorpusHit] | None = None,
        **how: Unpack[How],
    ) -> CorpusAnswer:
        """The answer to ``question`` from the named documents (default: all) under ``config``
        and the what-if ``edits`` (by document name): :func:`explorer.answer.answer` over them
        as one corpus and their :meth:`ranking` (unless one already made is given), ``how`` as it
        takes it (``k``, ``budget``, ``known``, ``doc``)."""
        corpus = self.corpus(config, names, edits=edits)
        if ranking is None:
            ranking = self._rank(corpus, question)
        return answer(corpus, question, evidence, ranking=ranking, **how)

    def ask(
        self,
        doc: str | Document,
        question: str,
        evidence: Sequence[str] = (),
        *,
        config: Config | None = None,
        k: int | None = DEFAULT_K,
        budget: int | None = None,
        known: Sequence[Span | None] = (),
        edits: Sequence[Edit] = (),
    ) -> Answer:
        """The answer to ``question`` from one document (a corpus of one), after the what-if
        ``edits`` to its chunking."""
        name = self._name_of(doc)
        config = config if config is not None else Config()
        whole = self.answer(
            question,
            evidence,
            config=config,
            names=[name],
            edits={name: edits},
            k=k,
            budget=budget,
            known=known,
        )
        return whole.answers[name]

    # ------------------------------------------------------------------ derived work
    # What the app's pages show of a chunking, made once and kept in the shared bounded caches,
    # keyed as the chunkings are (content key + settings + edits). Issue 35 part 4: keep these
    # methods together at the end of the class.

    @staticmethod
    def chunking_key(config: Config | ChunkSettings, *, edits: Sequence[Edit] = ()) -> str:
        """What a document's chunking is keyed by: the chunking settings, the model for the
        semantic splitter (it embeds to cut), and the what-if ``edits``."""
        settings = config.chunking if isinstance(config, Config) else config
        model = config.model if isinstance(config, Config) else Config().model
        key = settings.key() + (f"|model={model}" if settings.splitter == "semantic" else "")
        return f"{key}|edits={encode_edits(edits)}" if edits else key

    def diagnosis(
        self, doc: str | Document, config: Config, *, edits: Sequence[Edit] = ()
    ) -> Diagnosis:
        """The diagnostics of the document's chunks under ``config`` and ``edits``
        (:func:`explorer.chunking.diagnostics.diagnose`), each chunk's embedded text with the
        heading path when ``config.heading_prefix`` is on, counted in the model's word pieces."""
        from explorer.chunking.diagnostics import SPECIAL_TOKENS, diagnose
        from explorer.chunking.measures import count_each, get_measure

        d = self.document(doc)
        embeds = "none" if config.retriever == "bm25" else config.dense
        key = (d.key, self.chunking_key(config, edits=edits), config.heading_prefix, embeds)

        def make() -> Diagnosis:
            chunks = self.chunks(d, config, edits=edits)
            measure = get_measure("model-tokens")
            embedded: list[int] | None = None  # chunks embedded whole: their own text
            if embeds == "none":  # BM25 embeds nothing
                embedded = [0] * len(chunks)
            elif embeds == "passages":  # the passages each chunk holds are what is embedded
                r = self.retriever(d, config, edits=edits)
                each = [n + SPECIAL_TOKENS for n in count_each(measure, r.dense_texts)]
                embedded = [max(each[lo:hi], default=0) for lo, hi in r.held]
            return diagnose(
                d,
                chunks,
                heading_prefix=config.heading_prefix,
                model_measure=measure,
                embedded=embedded,
                units=self.units(d, "model-tokens"),
            )

        return self._shared.diagnoses.get(key, make)

    def table_audit(
        self, doc: str | Document, config: Config, *, edits: Sequence[Edit] = ()
    ) -> TablesByChunk:
        """The table audit of the document's chunks under ``config`` and ``edits``, and each
        chunk's table problems (:func:`explorer.chunking.tables.table_audit_by_chunk`)."""
        from explorer.chunking.tables import table_audit_by_chunk

        d = self.document(doc)
        key = (d.key, self.chunking_key(config, edits=edits))
        return self._shared.table_audits.get(
            key, lambda: table_audit_by_chunk(d, self.chunks(d, config, edits=edits))
        )

    def version_diff(
        self,
        old: str | Document,
        new: str | Document,
        config: Config,
        *,
        edits: Sequence[Edit] = (),
    ) -> ChunkDiff:
        """What changed from ``old`` to ``new`` chunk by chunk, both chunked under ``config``
        (``new`` after the what-if ``edits``): :func:`explorer.chunking.diff.diff_chunks`."""
        from explorer.chunking.diff import diff_chunks

        o, n = self.document(old), self.document(new)
        key = (o.key, n.key, self.chunking_key(config, edits=edits))
        return self._shared.version_diffs.get(
            key,
            lambda: diff_chunks(o, self.chunks(o, config), n, self.chunks(n, config, edits=edits)),
        )


_SHARED: Workspace | None = None
_SHARED_LOCK = threading.RLock()


def shared_workspace(*, keep: int | None = None) -> Workspace:
    """The process's one shared workspace (what :func:`explorer.ask` uses, and the app, whose
    sessions each take a view of it), made on first use keeping ``keep`` documents' work
    (default :data:`KEEP`); ``keep`` given again bounds it to that from then on. It owns the
    process's embedders and their lasting index (the default one, opened on first use): every
    workspace of the process embeds through them, so a text is embedded once per process."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = Workspace(_shared=_Shared(KEEP if keep is None else keep, Embedders()))
        elif keep is not None:
            _SHARED._shared.bound(keep)
        return _SHARED


def ask(doc: Document, question: str, evidence: Sequence[str] = (), **how: Any) -> Answer:
    """Answer ``question`` from ``doc``: hits, context, evidence and verdict (the rule is
    :func:`explorer.answer.answer`'s). ``how`` is what :meth:`Workspace.ask` takes (``config``,
    default the recommended one; ``k``; ``budget``; ``known``), asked of the process's shared
    workspace, so asking again about the same document chunks and embeds nothing."""
    return shared_workspace().ask(doc, question, evidence, **how)
