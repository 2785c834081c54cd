"""Preparing documents for answering: what is still to embed (:func:`pending`), chunking and
embedding it with one progress callback (:func:`prepare`), filling the lasting index ahead of
time (:func:`fill_index`, the ``index`` command's work) and the map's vector of each chunk
(:func:`chunk_vectors`).

The workspace asks these of itself (:meth:`explorer.workspace.Workspace.prepare` and the
others): each takes it as the :class:`Maker` of chunks, retrievers and embedders, so that what
they make is the workspace's, kept and shared as everything else it makes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from explorer.errors import SettingsError
from explorer.progress import Progress, Rate, quiet, scaled

if TYPE_CHECKING:
    from explorer.chunking.edits import Edit
    from explorer.chunking.records import Chunk
    from explorer.config import Config
    from explorer.documents.model import Document
    from explorer.retrieval.embeddings import Embedder
    from explorer.retrieval.retriever import Retriever

MODEL_NOTE = "loading the embedding model (about 15 s the first time)"
CHUNK_SHARE = 0.1
"""The share of a dense preparation's progress that chunking takes (the embedding the rest)."""


class Maker(Protocol):
    """What preparing asks of the workspace: each document's chunks and retriever under a
    configuration (made once, and kept), and the process's embedder of a model."""

    def chunks(
        self,
        doc: str | Document,
        config: Config,
        *,
        edits: Sequence[Edit] = (),
        progress: Progress = quiet,
    ) -> list[Chunk]: ...

    def cached_chunks(self, doc: str | Document, config: Config) -> list[Chunk] | None: ...

    def retriever(
        self, doc: str | Document, config: Config, *, edits: Sequence[Edit] = ()
    ) -> Retriever: ...

    def embedder(self, model: str) -> Embedder: ...


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
    """What :func:`fill_index` did: the documents and chunks it covered, the distinct texts whose
    vectors the lasting index now holds for them, how many it embedded and how many were there
    already, and how long it took."""

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


def embedded_kind(config: Config) -> str:
    """What ``config`` embeds for dense scores: ``"passages"`` or ``"chunk texts"``."""
    return "passages" if config.dense == "passages" else "chunk texts"


def label_of(name: str | Document) -> str:
    return name if isinstance(name, str) else name.name


def pending(
    maker: Maker,
    names: Sequence[str | Document],
    config: Config,
    *,
    question: str | None = None,
) -> Pending:
    """What answering from ``names`` under ``config`` still has to embed (after reading the
    lasting index), and whether the model has to be loaded — for ``question`` too."""
    what = embedded_kind(config)
    if not config.needs_model:
        return Pending(0, what, config.model, False)
    emb = maker.embedder(config.model)
    todo = 0
    if config.retriever != "bm25":
        texts = [t for n in names for t in maker.retriever(n, config).dense_texts]
        emb.prefetch([*texts, *([question] if question else [])])
        todo = len({t for t in texts if not emb.cached(t)})
    semantic = config.chunking.splitter == "semantic" and any(
        maker.cached_chunks(n, config) is None for n in names
    )
    needs_query = bool(question) and config.retriever != "bm25" and not emb.cached(question or "")
    return Pending(
        todo, what, config.model, not emb.loaded and (todo > 0 or semantic or needs_query)
    )


def chunked(
    maker: Maker,
    names: Sequence[str | Document],
    config: Config,
    progress: Progress,
    *,
    share: float,
    edits: Mapping[str, Sequence[Edit]] | None = None,
    retrievers: bool = True,
) -> Iterator[tuple[str, list[Chunk], Retriever | None]]:
    """Chunk each of ``names`` in turn (the first ``share`` of ``progress``, a semantic split's
    sentence groups inside it): each document's name, its chunks and, with ``retrievers``, its
    retriever (after its what-if ``edits``, by name)."""
    edits = edits or {}
    for n, name in enumerate(names):
        label = label_of(name)
        of = f" ({n + 1:,} of {len(names):,} documents)" if len(names) > 1 else ""
        progress(share * n / max(len(names), 1), f"chunking {label}{of}")
        chunks = maker.chunks(
            name, config, progress=scaled(progress, 0.0, share, "sentence groups: ")
        )
        made = maker.retriever(name, config, edits=edits.get(label, ())) if retrievers else None
        yield label, chunks, made


def prepare(
    maker: Maker,
    names: Sequence[str | Document],
    config: Config,
    progress: Progress = quiet,
    *,
    question: str | None = None,
    edits: Mapping[str, Sequence[Edit]] | None = None,
) -> None:
    """Chunk every named document (after its what-if ``edits``, by name) and, for dense or
    hybrid ranking, embed what is new, with ``progress`` through the slow steps: the model's
    loading, the semantic splitter's embedding, then the passages or chunks (counts, rate and
    the time left)."""
    semantic = config.chunking.splitter == "semantic"  # it embeds sentences to find cuts
    if semantic and not maker.embedder(config.model).loaded:
        progress(0.0, MODEL_NOTE)
        maker.embedder(config.model).model  # noqa: B018 - load it now, under its message
    dense = config.retriever != "bm25"
    share = CHUNK_SHARE if dense else 1.0
    done = list(chunked(maker, names, config, progress, share=share, edits=edits))
    made = [r for _, _, r in done]
    if not dense:
        progress(1.0, "done")
        return
    emb = maker.embedder(config.model)
    texts = [t for r in made if r is not None for t in r.dense_texts]
    emb.prefetch([*texts, *([question] if question else [])])
    todo = [t for t in dict.fromkeys(texts) if not emb.cached(t)]
    if not emb.loaded and (todo or (question and not emb.cached(question))):
        progress(share, MODEL_NOTE)
        emb.model  # noqa: B018 - load it now, under its own message
    what = embedded_kind(config)
    if todo:  # every document's texts in one run: batches of like lengths, one estimate
        # one document's run names it; several are one run over all their texts
        label = f"embedding {done[0][0]}: " if len(done) == 1 else "embedding "
        embed_texts(emb, todo, scaled(progress, share, 1.0, label), what=what)
    for retriever in made:
        assert retriever is not None
        retriever.vectors()  # from memory now
    if question:
        emb.embed_query(question)
    progress(1.0, "done")


def embedding_rate(
    emb: Embedder, texts: Sequence[str], *, clock: Callable[[], float] = time.monotonic
) -> tuple[list[str], Rate]:
    """The texts of ``texts`` ``emb`` still has to embed, in the order it embeds them, and the
    :class:`~explorer.progress.Rate` of their run, weighted by what each costs
    (:func:`~explorer.retrieval.embeddings.encoding_costs`) and what each batch costs apart
    (learnt from the run's batches); its clock starts now, after the model is loaded."""
    from explorer.retrieval.embeddings import BATCH, BATCH_COST, encoding_costs, encoding_order

    ordered = encoding_order([t for t in texts if not emb.cached(t)])
    if ordered:
        emb.model  # noqa: B018 - loaded before the clock starts: the rate is the model's
    work = encoding_costs(ordered)
    return ordered, Rate(len(ordered), work=work, batch=BATCH, batch_cost=BATCH_COST, clock=clock)


def embed_texts(
    emb: Embedder,
    texts: Sequence[str],
    progress: Progress = quiet,
    *,
    what: str = "",
    clock: Callable[[], float] = time.monotonic,
) -> Rate:
    """Embed ``texts`` (those not in memory) in one run, with ``progress`` at each batch: the
    share of the work done, and a note with the counts, the rate and the time left, estimated
    from the work done a second so far (:func:`~explorer.retrieval.embeddings.encoding_costs`:
    its first batch is its longest, so counting texts would overestimate the time left at the
    start). Vectors reach the lasting index batch by batch. Returns the run's
    :class:`~explorer.progress.Rate` (its :meth:`~explorer.progress.Rate.elapsed` is the
    embedding's time)."""
    ordered, rate = embedding_rate(emb, texts, clock=clock)

    def embedding(fraction: float, _message: str) -> None:
        done = round(fraction * len(ordered))
        progress(rate.work_fraction(done), rate.note(done, what))

    if ordered:
        emb.embed(ordered, progress=embedding)
    return rate


def chunk_vectors(
    maker: Maker,
    name: str,
    config: Config,
    *,
    edits: Sequence[Edit] = (),
    progress: Progress = quiet,
) -> Any:
    """One unit vector per chunk of the document ``name`` under ``config`` (a dense or hybrid
    one) and ``edits``, as its retriever embeds it: the chunk's own vector (``dense="chunks"``)
    or the normalised mean of the passages it holds (``"passages"``). What is new is embedded as
    :func:`prepare` embeds it, with ``progress``."""
    import numpy as np

    prepare(maker, [name], config, progress, edits={name: edits} if edits else None)
    retriever = maker.retriever(name, config, edits=edits)
    vectors = np.asarray(retriever.vectors(), dtype=np.float32)
    if config.dense == "passages":
        dim = vectors.shape[1] if vectors.ndim == 2 else 0
        means = [
            vectors[lo:hi].mean(axis=0) if hi > lo else np.zeros(dim, np.float32)
            for lo, hi in retriever.held
        ]
        vectors = np.stack(means) if means else np.zeros((0, dim), np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    return vectors


def fill_index(
    maker: Maker,
    names: Sequence[str | Document],
    config: Config,
    progress: Progress = quiet,
    *,
    questions: Sequence[str] = (),
) -> Indexed:
    """Fill the lasting index ahead of time: chunk every named document under ``config`` and
    embed, on every core, each passage or chunk text (and each of ``questions``) the index does
    not hold yet, so that answering from them later embeds nothing.

    Vectors are written to the index batch by batch as the model finishes them: a run stopped
    part way (Ctrl-C is a ``KeyboardInterrupt``, which ``progress`` may raise too) keeps what it
    wrote, and the next run embeds only the rest. Raises :class:`~explorer.errors.SettingsError`
    for a configuration with nothing to embed, and :class:`~explorer.errors.EmbeddingError` when
    there is no lasting index, or when the vectors would not fit its cap (it would drop some to
    make room)."""
    from explorer.errors import EmbeddingError
    from explorer.retrieval.store import ROW_OVERHEAD

    if not config.needs_model:
        raise SettingsError(
            "this configuration ranks with BM25 only (retriever=bm25): there is nothing to "
            "embed; give --retriever hybrid or dense"
        )
    emb = maker.embedder(config.model)
    if emb.store is None:
        raise EmbeddingError(
            "the lasting embedding index is turned off (--no-cache or "
            "CHUNK_EXPLORER_CACHE=off), so indexing would keep nothing; give --cache-dir DIR"
        )
    started = time.monotonic()
    what = embedded_kind(config)
    dense = config.retriever != "bm25"
    share = CHUNK_SHARE if dense else 1.0
    chunks = 0
    texts: dict[str, None] = {}
    for _, made, retriever in chunked(
        maker, names, config, progress, share=share, retrievers=dense
    ):
        chunks += len(made)
        if retriever is not None:
            texts.update(dict.fromkeys(retriever.dense_texts))
    texts.update(dict.fromkeys(q for q in questions if q))
    emb.prefetch(list(texts))
    todo = [t for t in texts if not emb.cached(t)]
    already = len(texts) - len(todo)
    threads, embedding_seconds = 0, 0.0
    if todo:
        store = emb.store
        progress(share, MODEL_NOTE if not emb.loaded else f"embedding {len(todo):,}")
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
        stored = f"({already:,} stored already) " if already else ""
        rate = embed_texts(
            emb,
            todo,
            lambda fraction, note: progress(
                share + (1 - share) * fraction, f"embedding {stored}{note}"
            ),
            what=what,
        )
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
