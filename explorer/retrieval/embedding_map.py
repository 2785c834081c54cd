"""A map of the embedding space: every chunk as a point in two dimensions, and a question.

The map is made by :meth:`explorer.workspace.Workspace.embedding_map`. The chunk vectors
(:meth:`explorer.workspace.Workspace.chunk_vectors`, what the retriever embeds) are projected on
their first two principal axes (:func:`pca`, numpy's SVD of the centred vectors, each axis's sign
fixed so the same vectors always give the same picture); the question's vector is projected with
the same mean and axes, so its point lies where its vector lies relative to the chunks'. The hits
are the answer path's (:meth:`~explorer.workspace.Workspace.ask`), so the lines from the question
lead to the chunks a reader of the answer sees. Two axes
keep only part of the variance (:attr:`EmbeddingMap.explained`): nearness on the map is a hint,
the cosine (``similarity``) is the measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.errors import SettingsError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from explorer.chunking.records import Chunk

NO_SECTION = "(before the first heading)"
PREVIEW_CHARS = 160


@dataclass(frozen=True)
class Projection:
    """Two principal axes of a set of vectors: their ``mean``, the unit ``axes`` (2 × d) and
    the share of the variance each axis keeps (``explained``)."""

    mean: npt.NDArray[np.float64]
    axes: npt.NDArray[np.float64]
    explained: tuple[float, float]

    def project(self, vectors: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Each vector (a row, or one vector) as its coordinates on the two axes."""
        import numpy as np

        v = np.asarray(vectors, dtype=np.float64)
        out: npt.NDArray[np.float64] = (v - self.mean) @ self.axes.T
        return out


def pca(vectors: npt.ArrayLike) -> Projection:
    """The first two principal axes of ``vectors`` (n × d), by numpy's SVD of the centred
    vectors, or of their d × d scatter matrix when there are more vectors than dimensions (the
    same axes and the squared singular values, from a much smaller matrix). Each axis points so
    that its largest component (by absolute value) is positive, so the same vectors give the
    same picture whatever the SVD's signs. Fewer than three distinct vectors leave an axis (or
    both) at zero."""
    import numpy as np

    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] == 0:
        raise SettingsError("a map needs at least one vector (n × d)")
    mean = v.mean(axis=0)
    centred = v - mean
    if centred.shape[0] > centred.shape[1]:
        _, var, vt = np.linalg.svd(centred.T @ centred, hermitian=True)
    else:
        _, s, vt = np.linalg.svd(centred, full_matrices=False)
        var = s**2
    axes = np.zeros((2, v.shape[1]))
    total = float(var.sum())
    explained = [0.0, 0.0]
    for i in range(min(2, len(var))):
        if var[i] <= 1e-20 * max(float(var[0]), 1.0):
            break
        axis = vt[i]
        axes[i] = axis if axis[np.argmax(np.abs(axis))] > 0 else -axis
        explained[i] = float(var[i] / total) if total > 0 else 0.0
    return Projection(mean=mean, axes=axes, explained=(explained[0], explained[1]))


@dataclass(frozen=True, slots=True)
class MapPoint:
    """A chunk on the map: its index, coordinates, ``section`` (:func:`sections_of`), heading
    path, the cosine of its vector with the question's, and the start of its text."""

    index: int
    x: float
    y: float
    section: str
    heading_path: tuple[str, ...]
    similarity: float | None
    preview: str
    doc: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "x": round(self.x, 6),
            "y": round(self.y, 6),
            "section": self.section,
            "heading_path": list(self.heading_path),
            "similarity": None if self.similarity is None else round(self.similarity, 6),
            "doc": self.doc,
        }


@dataclass(frozen=True, slots=True)
class MapHit:
    """A hit of the answer: its rank (1-based), chunk index and score."""

    rank: int
    index: int
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "index": self.index, "score": round(self.score, 6)}


@dataclass(frozen=True)
class EmbeddingMap:
    """The chunks of one document as points, the question's point and the answer's hits."""

    doc: str
    model: str
    vectors: str
    """What a point's vector is: ``"chunks"`` or ``"passages"`` (the mean of its passages)."""
    points: tuple[MapPoint, ...]
    explained: tuple[float, float]
    question: str | None = None
    question_xy: tuple[float, float] | None = None
    hits: tuple[MapHit, ...] = ()

    def __post_init__(self) -> None:
        if (self.question is None) != (self.question_xy is None):
            raise SettingsError("a map's question has a point, and a point its question")
        indices = {p.index for p in self.points}
        if any(h.index not in indices for h in self.hits):
            raise SettingsError("a map's hits are among its points")

    @property
    def sections(self) -> tuple[str, ...]:
        """The top-level sections, in document order."""
        return tuple(dict.fromkeys(p.section for p in self.points))

    def to_json(self) -> dict[str, Any]:
        question = None
        if self.question is not None and self.question_xy is not None:
            x, y = self.question_xy
            question = {"text": self.question, "x": round(x, 6), "y": round(y, 6)}
        return {
            "doc": self.doc,
            "model": self.model,
            "vectors": self.vectors,
            "explained_variance": [round(e, 6) for e in self.explained],
            "points": [p.to_json() for p in self.points],
            "question": question,
            "hits": [h.to_json() for h in self.hits],
        }

    def listing(self) -> list[str]:
        """A short text report: the axes, the question's point and each hit's."""
        e1, e2 = self.explained
        lines = [
            f"{self.doc}: {len(self.points)} chunks, {len(self.sections)} sections; {self.model} "
            f"({self.vectors}); the two axes keep {e1:.0%} and {e2:.0%} of the variance"
        ]
        if self.question is not None and self.question_xy is not None:
            lines.append(f"question at ({self.question_xy[0]:+.3f}, {self.question_xy[1]:+.3f})")
        at = {p.index: p for p in self.points}
        for h in self.hits:
            p = at[h.index]
            sim = "" if p.similarity is None else f" · cosine {p.similarity:.3f}"
            lines.append(
                f"  #{h.rank} chunk {p.index} at ({p.x:+.3f}, {p.y:+.3f}) · score {h.score:.3f}"
                f"{sim} · {' > '.join(p.heading_path) or NO_SECTION}"
            )
        return lines


def sections_of(chunks: Sequence[Chunk]) -> list[str]:
    """Each chunk's section: its heading at the first level of the heading paths where the
    chunks differ (under one title heading, the sections below it), or its deepest heading
    above that level; :data:`NO_SECTION` before the first heading."""
    paths = [tuple(c.heading_path) for c in chunks]
    depth = 0
    longest = max((len(p) for p in paths), default=0)
    while depth < longest - 1 and len({p[: depth + 1] for p in paths if p}) <= 1:
        depth += 1
    return [p[min(depth, len(p) - 1)] if p else NO_SECTION for p in paths]


def map_points(
    chunks: Sequence[Chunk],
    vectors: npt.ArrayLike,
    *,
    projection: Projection | None = None,
    query_vector: npt.ArrayLike | None = None,
    doc: str = "",
) -> tuple[Projection, tuple[MapPoint, ...]]:
    """The chunks as points on ``projection`` (default: the vectors' own :func:`pca`), each with
    its cosine to ``query_vector`` when one is given."""
    import numpy as np

    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] != len(chunks):
        raise SettingsError(f"{len(chunks)} chunks need as many vectors, got {v.shape[0]}")
    proj = projection if projection is not None else pca(v)
    xy = proj.project(v)
    sims = v @ np.asarray(query_vector, dtype=np.float64) if query_vector is not None else None
    sections = sections_of(chunks)
    points = tuple(
        MapPoint(
            index=c.index,
            x=float(xy[i, 0]),
            y=float(xy[i, 1]),
            section=sections[i],
            heading_path=tuple(c.heading_path),
            similarity=None if sims is None else float(sims[i]),
            preview=c.text[:PREVIEW_CHARS],
            doc=doc,
        )
        for i, c in enumerate(chunks)
    )
    return proj, points
