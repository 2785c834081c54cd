"""The map of the embedding space: PCA with fixed signs, the question on the chunks' axes, the
answer path's hits, the workspace's vectors, and ``explorer map``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from explorer import cli
from explorer.config import Config, dense_config
from explorer.errors import SettingsError
from explorer.retrieval.embedding_map import (
    NO_SECTION,
    map_points,
    pca,
    sections_of,
)
from explorer.workspace import Workspace
from tests.conftest import SAMPLES, make_chunks

GUIDE = SAMPLES / "writing-guide.md"
QUESTION = "How long should a sentence be?"


def test_pca_finds_the_spread_and_fixes_the_signs() -> None:
    rng = np.random.default_rng(7)
    base = rng.normal(size=(200, 3)) * np.array([5.0, 2.0, 0.1])  # spread along x, then y
    rotation, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    vectors = np.hstack([base, np.zeros((200, 3))]) @ rotation + 3.0
    proj = pca(vectors)
    assert proj.axes.shape == (2, 6) and proj.mean.shape == (6,)
    np.testing.assert_allclose(proj.mean, vectors.mean(axis=0))
    np.testing.assert_allclose(proj.axes @ proj.axes.T, np.eye(2), atol=1e-9)
    # the two axes are the first two rotated directions, up to sign
    assert abs(proj.axes[0] @ rotation[0]) > 0.99 and abs(proj.axes[1] @ rotation[1]) > 0.99
    total = base.var(axis=0, ddof=0).sum()
    assert proj.explained[0] == pytest.approx(base[:, 0].var() / total, rel=0.05)
    assert proj.explained[0] > proj.explained[1] > 0
    for axis in proj.axes:  # the sign rule: the largest component is positive
        assert axis[np.argmax(np.abs(axis))] > 0
    # the same picture from the vectors reordered or with each axis's sign in the SVD flipped
    again = pca(vectors[::-1])
    np.testing.assert_allclose(again.axes, proj.axes, atol=1e-9)
    xy = proj.project(vectors)
    assert xy.shape == (200, 2) and proj.project(vectors[0]).shape == (2,)
    np.testing.assert_allclose(xy, (vectors - proj.mean) @ proj.axes.T)
    np.testing.assert_allclose(xy.mean(axis=0), 0.0, atol=1e-9)


def test_pca_of_too_few_vectors() -> None:
    one = pca(np.ones((1, 4)))
    assert one.explained == (0.0, 0.0) and not one.axes.any()
    two = pca(np.array([[1.0, 0, 0], [0, 1.0, 0]]))
    assert two.explained == (1.0, 0.0) and not two.axes[1].any()
    with pytest.raises(SettingsError):
        pca(np.zeros((0, 3)))


def test_sections_are_the_first_level_where_headings_differ() -> None:
    chunks = make_chunks("a b c d", [(0, 1), (2, 3), (4, 5), (6, 7)])
    paths = [(), ("Title",), ("Title", "One"), ("Title", "Two", "Deep")]
    chunks = [
        c.__class__(**{**_fields(c), "heading_path": p}) for c, p in zip(chunks, paths, strict=True)
    ]
    assert sections_of(chunks) == [NO_SECTION, "Title", "One", "Two"]
    with pytest.raises(SettingsError):
        map_points(chunks, np.zeros((3, 2)))


def _fields(c: Any) -> dict[str, Any]:
    return {f: getattr(c, f) for f in c.__dataclass_fields__}


@pytest.mark.usefixtures("model_embedder")
@pytest.mark.parametrize("dense", ["passages", "chunks"])
def test_the_map_of_a_real_document(dense: str) -> None:
    ws = Workspace()
    doc = ws.load_path(GUIDE)
    config = Config().replace(dense=dense)
    made = ws.embedding_map(doc, QUESTION, config=config, k=4)
    chunks = ws.chunks(doc, config)
    vectors = ws.chunk_vectors(doc, config)
    assert vectors.shape == (len(chunks), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    if dense == "chunks":
        np.testing.assert_allclose(vectors, ws.retriever(doc, config).vectors())
    assert [p.index for p in made.points] == [c.index for c in chunks]
    proj = pca(vectors)
    q = ws.embedder(config.model).embed_query(QUESTION)
    # the question's point: its vector on the chunks' own mean and axes
    np.testing.assert_allclose(made.question_xy, proj.project(q), atol=1e-6)
    np.testing.assert_allclose([(p.x, p.y) for p in made.points], proj.project(vectors), atol=1e-6)
    assert made.explained == pytest.approx(proj.explained)
    # the hits are the answer path's, and each point's cosine is its vector's with the question's
    asked = ws.ask(doc, QUESTION, config=config, k=4)
    assert [(h.rank, h.index) for h in made.hits] == [(h.rank, h.index) for h in asked.hits]
    sims = vectors @ q
    assert [p.similarity for p in made.points] == pytest.approx(sims.tolist(), abs=1e-6)
    assert len(made.sections) > 2 and made.vectors == dense
    # deterministic: the same map again
    assert ws.embedding_map(doc, QUESTION, config=config, k=4).to_json() == made.to_json()


@pytest.mark.usefixtures("model_embedder")
def test_a_bm25_configuration_is_mapped_with_dense_vectors() -> None:
    ws = Workspace()
    doc = ws.load_path(GUIDE)
    config = Config().replace(retriever="bm25")
    assert dense_config(config).retriever == "dense"
    assert dense_config(Config()) == Config()
    made = ws.embedding_map(doc, QUESTION, config=config, k=3)
    asked = ws.ask(doc, QUESTION, config=config, k=3)
    assert [h.index for h in made.hits] == [h.index for h in asked.hits]
    assert made.hits[0].score == pytest.approx(asked.hits[0].score)
    no_question = ws.embedding_map(doc, None, config=config)
    assert no_question.question_xy is None and not no_question.hits
    assert [p.x for p in no_question.points] == [p.x for p in made.points]


@pytest.mark.usefixtures("model_embedder")
def test_cli_map_json_and_listing(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["map", str(GUIDE), "--question", QUESTION, "--k", "3"]
    assert cli.main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    ws = Workspace()
    doc = ws.load_path(GUIDE)
    chunks = ws.chunks(doc, Config())
    assert len(result["points"]) == len(chunks)
    assert set(result["points"][0]) >= {"index", "x", "y", "section", "similarity"}
    assert result["question"]["text"] == QUESTION
    assert set(result["question"]) == {"text", "x", "y"}
    assert [h["rank"] for h in result["hits"]] == [1, 2, 3]
    assert len(result["explained_variance"]) == 2 and result["model"] == Config().model
    assert cli.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"writing-guide.md: {len(chunks)} chunks")
    assert [ln.split()[0] for ln in lines[2:]] == ["#1", "#2", "#3"]


def test_cli_map_bad_k_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["map", str(GUIDE), "--question", QUESTION, "--k", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --k must be at least 1")


def test_pca_gives_the_same_axes_through_either_matrix() -> None:
    """More vectors than dimensions go through the scatter matrix, fewer through the vectors:
    the same data, padded with zero dimensions to take the other route, gives the same axes."""
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(8, 5)) * np.array([4.0, 2.0, 1.0, 0.5, 0.1])
    wide = np.hstack([vectors, np.zeros((8, 6))])  # 8 vectors of 11 dimensions: the SVD route
    tall, through = pca(vectors), pca(wide)
    np.testing.assert_allclose(through.axes[:, :5], tall.axes, atol=1e-9)
    assert through.explained == pytest.approx(tall.explained)
    np.testing.assert_allclose(through.project(wide), tall.project(vectors), atol=1e-9)
