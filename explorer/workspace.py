"""The one owner of the work in progress: documents → chunkings → retrievers → vectors.

A :class:`Workspace` reads each document once, chunks it once per chunking, builds one retriever
per ranking configuration, and embeds through one embedder per model (whose vectors are also kept
in the lasting index on disk). It says what is still to embed (:meth:`Workspace.pending`) and
prepares it with one progress callback (:meth:`Workspace.prepare`), and it answers — one document
being a corpus of one — through :func:`explorer.answer.answer`. The app's pages, the command
line, evaluation, the A/B, the sweep, lessons and version comparison all ask it; none builds its
own retriever or cache::

    from explorer import Config, Workspace

    ws = Workspace("queries/docs")
    answer = ws.answer("How long do I have to ask for a refund?", ["within seven days"],
                       config=Config())               # every document of the folder
    one = ws.ask("refund-policy.md", "How long do I have to ask for a refund?")

Names are this workspace's own (a folder's files, documents added); what is computed is keyed by
content (:attr:`Document.key`) and configuration, and shared with every workspace made from it
with :meth:`Workspace.view` — the app keeps one per process and gives each session a view of its
own documents, so the bytes two sessions share are read, chunked and embedded once, while neither
sees the other's names. Every cache is bounded (least recently used first out) and safe to use
from several threads: a value being made is made once, the others wait for it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Unpack

from explorer.answer import DEFAULT_K, Answer, CorpusAnswer, How, answer
from explorer.chunking.edits import Edit, encode_edits
from explorer.chunking.measures import DEFAULT_ENCODING
from explorer.chunking.splitters import Chunk, ChunkSettings, split
from explorer.config import Config, dense_config
from explorer.corpus import Corpus
from explorer.documents.folder import Loaded, Skipped, load_folder, load_paths
from explorer.documents.load import load_document
from explorer.documents.model import Document, document_name, leaves_folder, sha256_of
from explorer.errors import EditError, QuerySetError, SettingsError
from explorer.progress import Progress, Rate, quiet, scaled
from explorer.retrieval.context import Span
from explorer.retrieval.retriever import Retriever

if TYPE_CHECKING:
    from explorer.chunking.adapters import LibraryChunking
    from explorer.chunking.diagnostics import Diagnosis
    from explorer.chunking.diff import ChunkDiff
    from explorer.chunking.measures import Units
    from explorer.chunking.tables import TableAudit
    from explorer.documents.markdown_view import Rendered
    from explorer.retrieval.embeddings import Embedder

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MODEL_NOTE = "loading the embedding model (about 15 s the first time)"


class Memo(Generic[K, V]):
    """A bounded cache that makes each value once, even when several threads ask at once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[K, threading.Lock] = {}

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            making = self._making.setdefault(key, threading.Lock())
        with making:
            with self._lock:
                if key in self._items:
                    return self._items[key]
            try:
                value = make()
            finally:
                with self._lock:
                    self._making.pop(key, None)
            with self._lock:
                self._items[key] = value
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            return value

    def peek(self, key: K) -> V | None:
        with self._lock:
            return self._items.get(key)

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True)
class Pending:
    """What preparing some documents under a configuration still has to do."""

    texts: int
    """Distinct texts not embedded yet (neither in memory nor in the lasting index)."""
    what: str
    """What they are: ``"passages"`` or ``"chunk texts"``."""
    model: str
    load_model: bool
    """The model has to be loaded first (it is needed and not in memory)."""

    @property
    def ready(self) -> bool:
        """Nothing to embed and no model to load: answering takes milliseconds."""
        return not self.texts and not self.load_model


@dataclass(frozen=True)
class Indexed:
    """What :meth:`Workspace.index` did: the documents and chunks it covered, the distinct texts
    whose vectors the lasting index now holds for them, how many it embedded and how many were
    there already, and how long it took."""

    documents: int
    chunks: int
    texts: int
    """Distinct texts to keep (passages or chunk texts, and the questions given)."""
    what: str
    embedded: int
    already: int
    """Texts whose vectors were stored (or in memory) before the run."""
    seconds: float
    """The whole run: reading, chunking, loading the model, embedding."""
    embedding_seconds: float
    """The embedding alone (what :attr:`rate` divides by)."""
    threads: int
    """Threads the model ran on (0: nothing was embedded)."""

    @property
    def rate(self) -> float:
        """Texts embedded a second (0.0 when none was)."""
        if not self.embedded or self.embedding_seconds <= 0:
            return 0.0
        return self.embedded / self.embedding_seconds

    def to_json(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "chunks": self.chunks,
            "texts": self.texts,
            "what": self.what,
            "embedded": self.embedded,
            "already_stored": self.already,
            "seconds": round(self.seconds, 3),
            "embedding_seconds": round(self.embedding_seconds, 3),
            "rate_per_second": round(self.rate, 1),
            "threads": self.threads,
        }


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
    keeping about ``keep`` documents' worth."""

    def __init__(self, keep: int) -> None:
        self.documents: Memo[tuple[str, str], Document] = Memo(keep)
        self.chunkings: Memo[tuple[str, str], Chunking] = Memo(4 * keep)
        self.passages: Memo[str, list[Chunk]] = Memo(keep)
        self.units: Memo[tuple[str, str, str], Units] = Memo(2 * keep)
        self.rendered: Memo[str, Rendered | None] = Memo(keep)
        self.retrievers: Memo[tuple[str, str, str], Retriever] = Memo(4 * keep)
        self.corpora: Memo[tuple[tuple[tuple[str, str, str], ...], str], Corpus] = Memo(16)
        self.edited: Memo[tuple[str, str], Chunking] = Memo(EDITED)
        """Chunkings after what-if edits: a few at a time (a suggested repair tries a dozen)."""
        self.edited_retrievers: Memo[tuple[str, str, str], Retriever] = Memo(EDITED)
        self.folders: Memo[tuple[str, bool, str], Loaded] = Memo(8)
        # derived work, keyed as the chunkings are (see "Derived work" at the end of Workspace)
        self.diagnoses: Memo[tuple[str, str, bool], Diagnosis] = Memo(4 * keep)
        self.table_audits: Memo[tuple[str, str], TablesByChunk] = Memo(4 * keep)
        self.version_diffs: Memo[tuple[str, str, str], ChunkDiff] = Memo(16)
        self.loads = 0
        """Documents parsed (a document asked for again is served from the cache)."""
        self.lock = threading.Lock()


class Workspace:
    """Named documents, and everything made from them (see the module).

    ``docs_dir`` is a folder whose files are documents named by their file name (read on first
    need); ``documents`` are loaded documents, by the name to use (a mapping) or by their own
    name; they win over files of the same name in ``docs_dir``. ``keep`` bounds how many
    documents' work is kept (the least recently used goes first).
    """

    def __init__(
        self,
        docs_dir: str | Path | None = None,
        documents: Mapping[str, Document] | Iterable[Document] = (),
        *,
        keep: int = KEEP,
        _shared: _Shared | None = None,
    ) -> None:
        self.docs_dir = Path(docs_dir) if docs_dir is not None else None
        self._shared = _shared if _shared is not None else _Shared(keep)
        self._named: dict[str, Document] = {}
        self._folder: Loaded | None = None
        items = (
            list(documents.items())
            if isinstance(documents, Mapping)
            else [(d.name, d) for d in documents]
        )
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
    ) -> Workspace:
        """A workspace with names of its own that shares this one's documents, chunkings,
        retrievers and vectors."""
        return Workspace(docs_dir, documents, _shared=self._shared)

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
        from explorer.documents.load import read_file

        p = Path(path)
        return self.load(read_file(p), name=document_name(p))

    def load_folder(
        self, folder: str | Path, *, recursive: bool = False, progress: Progress = quiet
    ) -> Loaded:
        """Every file of ``folder`` that loads (see :func:`explorer.documents.load_folder`), each
        parsed once; a folder whose files have not changed is not read again. ``progress``
        follows the files as they are read."""
        path = Path(folder)
        key = self._folder_key(path, recursive)
        return self._shared.folders.get(
            key,
            lambda: load_folder(path, recursive=recursive, load=self._loader, progress=progress),
        )

    def folder_is_read(self, folder: str | Path, *, recursive: bool = False) -> bool:
        """Whether :meth:`load_folder` has the folder as it is now (nothing would be read)."""
        return self._shared.folders.peek(self._folder_key(Path(folder), recursive)) is not None

    @staticmethod
    def _folder_key(path: Path, recursive: bool) -> tuple[str, bool, str]:
        return (str(path.resolve()), recursive, _listing(path))

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
            self._folder = (
                self.load_folder(self.docs_dir) if self.docs_dir is not None else Loaded((), (), ())
            )
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
            if path.is_file():
                doc = self.load_path(path)
                self._named[name] = doc
                return doc
        where = self.docs_dir if self.docs_dir is not None else "the loaded documents"
        raise QuerySetError(f"document {name!r} is not in {where}")

    def inside(self, name: str) -> Path:
        """The file ``name`` names in ``docs_dir``; a name that reaches outside it (an absolute
        path, a ``..`` that climbs out, a link that leaves the folder) is refused, whether or
        not the file exists. Links are judged as loading the folder judges them
        (:func:`~explorer.documents.model.leaves_folder`): one that stays inside is followed."""
        assert self.docs_dir is not None
        relative = os.path.normpath(name) if name else ""
        if (
            not relative
            or Path(name).is_absolute()
            or relative == ".."
            or relative.startswith(".." + os.sep)
            or Path(name).drive
        ):
            raise QuerySetError(
                f"document {name!r} is outside the documents folder {self.docs_dir}; a query "
                "set names documents by their path inside it"
            )
        path = self.docs_dir / relative
        if leaves_folder(path, self.docs_dir):
            raise QuerySetError(
                f"document {name!r} is a link that leaves the documents folder {self.docs_dir}; "
                "links that leave the folder are not followed"
            )
        return path

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
        from explorer.retrieval.index import PASSAGES, passages

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
            return Chunking(split(d, settings, units=units, embed=embed))

        return self._shared.chunkings.get((d.key, key), make)

    def chunks(
        self,
        doc: str | Document,
        config: Config | ChunkSettings,
        *,
        edits: Sequence[Edit] = (),
        progress: Progress = quiet,
    ) -> list[Chunk]:
        """The document's chunks under ``config``'s chunking and ``edits`` (see
        :meth:`chunking`)."""
        return self.chunking(doc, config, edits=edits, progress=progress).chunks

    def cached_chunks(self, doc: str | Document, config: Config) -> list[Chunk] | None:
        """The chunks if they are made already, else ``None`` (nothing is computed)."""
        d = self.document(doc)
        made = self._shared.chunkings.peek((d.key, self.chunking_key(config)))
        return made.chunks if made is not None else None

    # ------------------------------------------------------------------ retrieval

    def embedder(self, model: str) -> Embedder:
        """The process's one embedder for ``model`` (its vectors kept in memory and in the
        lasting index); the model itself is loaded on first use."""
        from explorer.retrieval.embeddings import embedder

        return embedder(model)

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
                passages=self.passages(d) if config.dense == "passages" else None,
                units=lambda: self.units(d),
                rendered=lambda: self.rendered(d),
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

    def pending(
        self,
        names: Sequence[str | Document],
        config: Config,
        *,
        question: str | None = None,
    ) -> Pending:
        """What answering from ``names`` under ``config`` still has to embed (after reading the
        lasting index), and whether the model has to be loaded — for ``question`` too."""
        what = "passages" if config.dense == "passages" else "chunk texts"
        if not config.needs_model:
            return Pending(0, what, config.model, False)
        emb = self.embedder(config.model)
        todo = 0
        if config.retriever != "bm25":
            texts = self._dense_texts(names, config)
            emb.prefetch([*texts, *([question] if question else [])])
            todo = len({t for t in texts if not emb.cached(t)})
        semantic = config.chunking.splitter == "semantic" and any(
            self.cached_chunks(n, config) is None for n in names
        )
        needs_query = (
            bool(question) and config.retriever != "bm25" and not emb.cached(question or "")
        )
        return Pending(
            todo, what, config.model, not emb.loaded and (todo > 0 or semantic or needs_query)
        )

    def _dense_texts(self, names: Sequence[str | Document], config: Config) -> list[str]:
        return [t for n in names for t in self.retriever(n, config).index.dense_texts]

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
        hybrid ranking, embed what is new, with ``progress`` through the slow steps: the model's
        loading, the semantic splitter's embedding, then the passages or chunks (counts, rate
        and the time left)."""
        edits = edits or {}
        semantic = config.chunking.splitter == "semantic"  # it embeds sentences to find cuts
        if semantic and not self.embedder(config.model).loaded:
            progress(0.0, MODEL_NOTE)
            self.embedder(config.model).model  # noqa: B018 - load it now, under its message
        dense = config.retriever != "bm25"
        chunk_share = 0.1 if dense else 1.0
        for n, name in enumerate(names):
            label = name if isinstance(name, str) else name.name
            progress(chunk_share * n / max(len(names), 1), f"chunking {label}")
            self.chunks(
                name, config, progress=scaled(progress, 0.0, chunk_share, "sentence groups: ")
            )
            self.retriever(name, config, edits=edits.get(label, ()))
        if not dense:
            progress(1.0, "done")
            return
        pending = self.pending(names, config, question=question)
        emb = self.embedder(config.model)
        if pending.load_model:  # all stored: the model is not even loaded
            progress(chunk_share, MODEL_NOTE)
            emb.model  # noqa: B018 - load it now, under its own message
        rate, done = Rate(pending.texts), 0
        for name in names:
            label = name if isinstance(name, str) else name.name
            index = self.retriever(name, config, edits=edits.get(label, ())).index
            todo = len({t for t in index.dense_texts if not emb.cached(t)})

            def embedding(
                fraction: float,
                _message: str,
                *,
                before: int = done,
                todo: int = todo,
                label: str = label,
            ) -> None:
                now = before + round(fraction * todo)
                note = f"embedding {label}: {rate.note(now, pending.what)}"
                progress(chunk_share + (1 - chunk_share) * rate.fraction(now), note)

            index.vectors(progress=embedding if todo else None)
            done += todo
        if question:
            emb.embed_query(question)
        progress(1.0, "done")

    def chunk_vectors(
        self,
        doc: str | Document,
        config: Config,
        *,
        edits: Sequence[Edit] = (),
        progress: Progress = quiet,
    ) -> Any:
        """One unit vector per chunk of ``doc`` under ``config`` (and ``edits``), as its index
        embeds it: the chunk's own vector (``dense="chunks"``) or the normalised mean of the
        passages it holds (``"passages"``). A ``bm25`` configuration's chunks are embedded as
        ``dense`` would embed them. What is new is embedded as :meth:`prepare` embeds it, with
        ``progress``; ask :meth:`pending` (of :func:`~explorer.config.dense_config`) first to
        know whether that takes a while."""
        import numpy as np

        config = dense_config(config)
        name = self._name_of(doc)
        self.prepare([name], config, progress, edits={name: edits} if edits else None)
        index = self.retriever(name, config, edits=edits).index
        vectors = np.asarray(index.vectors(), dtype=np.float32)
        if config.dense == "passages":
            dim = vectors.shape[1] if vectors.ndim == 2 else 0
            means = [
                vectors[lo:hi].mean(axis=0) if hi > lo else np.zeros(dim, np.float32)
                for lo, hi in index.held
            ]
            vectors = np.stack(means) if means else np.zeros((0, dim), np.float32)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        return vectors

    def index(
        self,
        names: Sequence[str | Document],
        config: Config,
        progress: Progress = quiet,
        *,
        questions: Sequence[str] = (),
    ) -> Indexed:
        """Fill the lasting index ahead of time: chunk every named document under ``config`` and
        embed, on every core, each passage or chunk text (and each of ``questions``) the index
        does not hold yet, so that answering from them later embeds nothing.

        Vectors are written to the index batch by batch as the model finishes them: a run
        stopped part way (Ctrl-C is a ``KeyboardInterrupt``, which ``progress`` may raise too)
        keeps what it wrote, and the next run embeds only the rest. Raises
        :class:`~explorer.errors.SettingsError` for a configuration with nothing to embed, and
        :class:`~explorer.errors.EmbeddingError` when there is no lasting index, or when the
        vectors would not fit its cap (it would drop some to make room)."""
        from explorer.errors import EmbeddingError
        from explorer.retrieval.store import ROW_OVERHEAD

        if not config.needs_model:
            raise SettingsError(
                "this configuration ranks with BM25 only (retriever=bm25): there is nothing to "
                "embed; give --retriever hybrid or dense"
            )
        emb = self.embedder(config.model)
        if emb.store is None:
            raise EmbeddingError(
                "the lasting embedding index is turned off (--no-cache or "
                "CHUNK_EXPLORER_CACHE=off), so indexing would keep nothing; give --cache-dir DIR"
            )
        started = time.monotonic()
        what = "passages" if config.dense == "passages" else "chunk texts"
        dense = config.retriever != "bm25"
        chunk_share = 0.1 if dense else 1.0
        chunks = 0
        texts: dict[str, None] = {}
        for n, name in enumerate(names):
            label = name if isinstance(name, str) else name.name
            progress(
                chunk_share * n / max(len(names), 1),
                f"chunking {label} ({n + 1:,} of {len(names):,} documents)",
            )
            chunks += len(
                self.chunks(
                    name, config, progress=scaled(progress, 0.0, chunk_share, "sentence groups: ")
                )
            )
            if dense:
                texts.update(dict.fromkeys(self.retriever(name, config).index.dense_texts))
        texts.update(dict.fromkeys(q for q in questions if q))
        emb.prefetch(list(texts))
        todo = [t for t in texts if not emb.cached(t)]
        already = len(texts) - len(todo)
        threads, embedding_seconds = 0, 0.0
        if todo:
            store = emb.store
            progress(chunk_share, MODEL_NOTE if not emb.loaded else f"embedding {len(todo):,}")
            from explorer.retrieval.embeddings import use_all_cores

            threads = use_all_cores()
            need = len(texts) * (4 * emb.dimension + ROW_OVERHEAD)
            if store is not None and need > store.max_bytes:
                raise EmbeddingError(
                    f"these {len(texts):,} vectors need about {need / 1e6:,.0f} MB, over the "
                    f"lasting index's cap of {store.max_bytes / 1e6:,.0f} MB: it would drop some "
                    "to make room; raise the cap with CHUNK_EXPLORER_CACHE_MB="
                    f"{need * 1.2 / 1e6:,.0f}"
                )
            rate = Rate(len(todo))

            def embedding(fraction: float, _message: str) -> None:
                stored = f"({already:,} stored already) " if already else ""
                note = f"embedding {stored}{rate.note(round(fraction * len(todo)), what)}"
                progress(chunk_share + (1 - chunk_share) * fraction, note)

            emb.embed(todo, progress=embedding)
            embedding_seconds = rate.elapsed()
        progress(1.0, "done")
        return Indexed(
            documents=len(names),
            chunks=chunks,
            texts=len(texts),
            what=what,
            embedded=len(todo),
            already=already,
            seconds=time.monotonic() - started,
            embedding_seconds=embedding_seconds,
            threads=threads,
        )

    # ------------------------------------------------------------------ answers

    def answer(
        self,
        question: str,
        evidence: Sequence[str] = (),
        *,
        config: Config,
        names: Sequence[str | Document] | None = None,
        edits: Mapping[str, Sequence[Edit]] | None = None,
        **how: Unpack[How],
    ) -> CorpusAnswer:
        """The answer to ``question`` from the named documents (default: all) under ``config``
        and the what-if ``edits`` (by document name): :func:`explorer.answer.answer` over them
        as one corpus, ``how`` as it takes it (``k``, ``budget``, ``ranking``, ``known``,
        ``doc``)."""
        return answer(self.corpus(config, names, edits=edits), question, evidence, **how)

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
        from explorer.chunking.diagnostics import diagnose
        from explorer.chunking.measures import get_measure

        d = self.document(doc)
        key = (d.key, self.chunking_key(config, edits=edits), config.heading_prefix)
        return self._shared.diagnoses.get(
            key,
            lambda: diagnose(
                d,
                self.chunks(d, config, edits=edits),
                heading_prefix=config.heading_prefix,
                model_measure=get_measure("model-tokens"),
            ),
        )

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


def _listing(path: Path) -> str:
    """The names, sizes and times of the files in ``path``: a file added, removed or rewritten
    changes it."""
    try:
        entries = sorted(
            (e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in path.iterdir() if e.is_file()
        )
    except OSError:
        return ""
    return sha256_of(repr(entries).encode("utf-8", "surrogateescape"))


_SHARED: Workspace | None = None
_SHARED_LOCK = threading.Lock()


def shared_workspace() -> Workspace:
    """The process's default workspace (what :func:`explorer.ask` uses)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = Workspace()
        return _SHARED


def ask(doc: Document, question: str, evidence: Sequence[str] = (), **how: Any) -> Answer:
    """Answer ``question`` from ``doc``: hits, context, evidence and verdict (the rule is
    :func:`explorer.answer.answer`'s). ``how`` is what :meth:`Workspace.ask` takes (``config``,
    default the recommended one; ``k``; ``budget``; ``known``), asked of the process's shared
    workspace, so asking again about the same document chunks and embeds nothing."""
    return shared_workspace().ask(doc, question, evidence, **how)
