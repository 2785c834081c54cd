"""The embedding map of one document's chunks, with a question's point and its hits: the
workspace's vectors projected (:mod:`explorer.retrieval.embedding_map` holds the pure parts),
the hits the one answer path gives. :meth:`explorer.workspace.Workspace.embedding_map` asks it,
passing itself as the :class:`MapMaker`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from explorer.answer import DEFAULT_K
from explorer.config import Config, dense_config
from explorer.errors import SettingsError
from explorer.progress import Progress, quiet
from explorer.retrieval.embedding_map import EmbeddingMap, MapHit, map_points

if TYPE_CHECKING:
    from explorer.answer import Answer
    from explorer.chunking.edits import Edit
    from explorer.chunking.records import Chunk
    from explorer.documents.model import Document
    from explorer.retrieval.context import Span
    from explorer.retrieval.embeddings import Vectors


class MapMaker(Protocol):
    """What the map asks of the workspace."""

    def chunks(
        self, doc: str | Document, config: Config, *, edits: Sequence[Edit] = ...
    ) -> list[Chunk]: ...

    def chunk_vectors(
        self,
        doc: str | Document,
        config: Config,
        *,
        edits: Sequence[Edit] = ...,
        progress: Progress = ...,
    ) -> Any: ...

    def question_vector(self, question: str, config: Config) -> Vectors | None: ...

    def ask(
        self,
        doc: str | Document,
        question: str,
        evidence: Sequence[str] = ...,
        *,
        config: Config | None = ...,
        k: int | None = ...,
        budget: int | None = ...,
        known: Sequence[Span | None] = ...,
        edits: Sequence[Edit] = ...,
    ) -> Answer: ...


def embedding_map(
    ws: MapMaker,
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
    and the hits ``ws`` answers it with at ``k`` and ``budget``; vectors embedded with
    ``progress`` if new."""
    chunks = ws.chunks(doc, config, edits=edits)
    if not chunks:
        raise SettingsError(f"{doc.name} has no chunks to map")
    vc = dense_config(config)
    vectors = ws.chunk_vectors(doc, config, edits=edits, progress=progress or quiet)
    query_vector = ws.question_vector(question, vc) if question else None
    proj, points = map_points(chunks, vectors, query_vector=query_vector, doc=doc.name)
    hits: tuple[MapHit, ...] = ()
    question_xy = None
    if question and query_vector is not None:
        qx, qy = proj.project(query_vector)
        question_xy = (float(qx), float(qy))
        answer = ws.ask(
            doc,
            question,
            config=config,
            k=DEFAULT_K if k is None and budget is None else k,
            budget=budget,
            edits=edits,
        )
        hits = tuple(MapHit(rank=h.rank, index=h.index, score=h.score) for h in answer.hits)
    return EmbeddingMap(
        doc=doc.name,
        model=vc.model,
        vectors=vc.dense,
        points=points,
        explained=proj.explained,
        question=question or None,
        question_xy=question_xy,
        hits=hits,
    )
