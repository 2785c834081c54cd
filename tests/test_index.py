"""``explorer index DIR`` / :meth:`Workspace.index`: the lasting index filled ahead of time,
resumable after an interrupt, so that answering from the folder later embeds nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from explorer.config import Config
from explorer.errors import EmbeddingError, SettingsError
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.queries import load_queries
from explorer.progress import Rate, duration
from explorer.retrieval.embeddings import BATCH, Embedder
from explorer.retrieval.store import Store
from explorer.workspace import Workspace
from tests.conftest import SAMPLES
from tests.test_store import MODEL, CountingModel, run_cli

MARKDOWN = (
    "refund-policy.md",
    "lab-rules.md",
    *(
        p.name
        for p in sorted(SAMPLES.glob("*.md"))
        if p.name not in {"SOURCES.md", "refund-policy.md", "lab-rules.md"}
    ),
)
CONFIG = Config.from_json({"model": MODEL})


class StoredWorkspace(Workspace):
    """A workspace whose embedder is a counting stand-in for the model over a real store (a
    fresh embedder each time: what a new process would have, memory empty)."""

    def __init__(self, folder: Path, store: Store) -> None:
        super().__init__(folder)
        self.emb = Embedder(MODEL, store=store)
        self.emb._model = self.model = CountingModel()

    def embedder(self, model: str) -> Any:
        return self.emb


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in MARKDOWN:
        shutil.copy(SAMPLES / name, folder / name)
    return folder


def queries_for(tmp_path: Path) -> Path:
    items = [
        {"id": "a", "doc": "refund-policy.md", "query": "Refund window?", "evidence": ["seven"]},
        {"id": "b", "doc": "lab-rules.md", "query": "Who may enter the lab?", "evidence": []},
    ]
    path = tmp_path / "set.json"
    path.write_text(json.dumps(items))
    return path


def test_index_embeds_each_text_once_and_a_second_run_only_counts_them(
    docs: Path, tmp_path: Path
) -> None:
    with Store(tmp_path / "cache") as store:
        first_ws = StoredWorkspace(docs, store)
        names = first_ws.names()
        first = first_ws.index(names, CONFIG, questions=["Refund window?"])
        texts = {t for n in names for t in first_ws.retriever(n, CONFIG).dense_texts}
        assert first.documents == len(MARKDOWN)
        assert first.chunks == sum(len(first_ws.chunks(n, CONFIG)) for n in names)
        assert first.texts == len(texts) + 1 > 2 * BATCH
        assert (first.embedded, first.already) == (first.texts, 0)
        assert sorted(first_ws.model.seen) == sorted([*texts, "Refund window?"])  # each once
        assert store.stats().rows == first.texts
        assert first.threads >= 1 and first.rate > 0

        again_ws = StoredWorkspace(docs, store)
        again = again_ws.index(again_ws.names(), CONFIG, questions=["Refund window?"])
        assert (again.embedded, again.already, again.texts) == (0, first.texts, first.texts)
        assert again_ws.model.seen == []
        out = again.to_json()
        assert out["already_stored"] == first.texts and out["embedded"] == 0
        assert {"documents", "chunks", "texts", "seconds", "rate_per_second"} <= set(out)


def test_an_interrupted_index_keeps_its_batches_and_the_next_run_embeds_the_rest(
    docs: Path, tmp_path: Path
) -> None:
    """Ctrl-C (a KeyboardInterrupt, here raised by the progress callback after two batches)
    leaves the finished batches in the store; the next run embeds only what is missing."""
    batches: list[str] = []

    def stop_after_two(fraction: float, message: str) -> None:
        if message.startswith("embedding") and fraction > 0.1:
            batches.append(message)
            if len(batches) == 2:
                raise KeyboardInterrupt

    with Store(tmp_path / "cache") as store:
        ws = StoredWorkspace(docs, store)
        with pytest.raises(KeyboardInterrupt):
            ws.index(ws.names(), CONFIG, stop_after_two)
        assert store.stats().rows == 2 * BATCH
        assert "a second" in batches[0] and "left" in batches[0]

        rest_ws = StoredWorkspace(docs, store)
        rest = rest_ws.index(rest_ws.names(), CONFIG)
        assert rest.already == 2 * BATCH
        assert rest.embedded == rest.texts - 2 * BATCH == len(rest_ws.model.seen)
        assert store.stats().rows == rest.texts


def test_after_index_an_eval_and_a_corpus_question_embed_nothing(
    docs: Path, tmp_path: Path
) -> None:
    queries = load_queries(queries_for(tmp_path))
    with Store(tmp_path / "cache") as store:
        ws = StoredWorkspace(docs, store)
        ws.index(ws.names(), CONFIG, questions=[q.query for q in queries])

        later = StoredWorkspace(docs, store)  # a new process: memory empty, the store full
        report = evaluate(queries, later, CONFIG, scope="corpus")
        assert report.timing.embedded == 0 and later.model.seen == []
        assert len(report.timing.query_ms) == len(queries)

        asking = StoredWorkspace(docs, store)  # query --docs: only the new question is left
        pending = asking.pending(asking.names(), CONFIG)
        assert pending.texts == 0 and not pending.load_model


def test_index_refuses_what_it_cannot_keep(docs: Path, tmp_path: Path) -> None:
    with Store(tmp_path / "cache") as store:
        ws = StoredWorkspace(docs, store)
        with pytest.raises(SettingsError, match="BM25 only"):
            ws.index(ws.names(), CONFIG.replace(retriever="bm25"))
        ws.emb.store = None
        with pytest.raises(EmbeddingError, match="turned off"):
            ws.index(ws.names(), CONFIG)
    with Store(tmp_path / "small", max_bytes=10_000) as small:
        ws = StoredWorkspace(docs, small)
        with pytest.raises(EmbeddingError, match="CHUNK_EXPLORER_CACHE_MB"):
            ws.index(ws.names(), CONFIG)
        assert small.stats().rows == 0  # refused before anything was embedded


def test_rate_counts_the_rate_and_the_time_left() -> None:
    now = [100.0]
    rate = Rate(1_000, clock=lambda: now[0])
    assert rate.note(0, "passages") == "0 of 1,000 passages"  # no estimate before the first
    now[0] += 10.0
    assert rate.note(250, "passages") == "250 of 1,000 passages · 25 a second · about 30 s left"
    assert rate.left(250) == pytest.approx(30.0)
    assert rate.note(1_000) == "1,000 of 1,000"  # done: nothing left to estimate
    assert rate.fraction(250) == 0.25 and Rate(0).fraction(0) == 1.0
    assert (duration(40), duration(720), duration(5 * 3600)) == ("40 s", "12 min", "5.0 h")


# --------------------------------------------------------------------------- the command line


def test_cli_index_then_eval_in_corpus_scope_embeds_nothing(tmp_path: Path) -> None:
    """With the real bundled model: ``index`` fills the store, a second ``index`` embeds
    nothing and says how many were there, and ``eval --scope corpus`` reports 0 embedded."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in MARKDOWN[:2]:
        shutil.copy(SAMPLES / name, docs / name)
    (docs / "broken.txt").write_bytes(b"abc\x00def")
    queries = queries_for(tmp_path)
    cache = str(tmp_path / "cache")
    first = run_cli("index", str(docs), "--queries", str(queries), "--cache-dir", cache, "--json")
    assert first.returncode == 0, first.stderr
    got = json.loads(first.stdout)
    assert got["documents"] == 2 and got["skipped"] == 1
    assert got["embedded"] == got["texts"] > 0 and got["already_stored"] == 0
    assert "skipped: broken.txt" in first.stderr
    again = run_cli("index", str(docs), "--queries", str(queries), "--cache-dir", cache)
    assert again.returncode == 0, again.stderr
    assert f"0 passages embedded, {got['texts']:,} stored already" in again.stdout
    ev = run_cli(
        "eval", "--queries", str(queries), "--docs", str(docs), "--scope", "corpus",
        "--cache-dir", cache, "--json",
    )  # fmt: skip
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["timing"]["embedded"] == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--retriever", "bm25"], "BM25 only"),
        (["--no-cache"], "turned off"),
        (["--size", "0"], "size"),
    ],
)
def test_cli_index_bad_input_is_one_error_line(docs: Path, extra: list[str], message: str) -> None:
    res = run_cli("index", str(docs), *extra)
    assert res.returncode == 2 and not res.stdout
    assert res.stderr.count("error:") == 1 and message in res.stderr, res.stderr


def test_cli_index_of_a_missing_folder(tmp_path: Path) -> None:
    res = run_cli("index", str(tmp_path / "nowhere"))
    assert res.returncode == 2 and res.stderr.strip().startswith("error:")
    assert "no such folder" in res.stderr


def test_timed_adds_the_time_left_where_a_message_has_none() -> None:
    """The app's bars (A/B, sweep, query set, uploads) and the CLI's eval/sweep/ab progress."""
    from explorer.progress import time_left, timed

    now = [0.0]
    seen: list[tuple[float, str]] = []
    progress = timed(lambda f, m: seen.append((f, m)), clock=lambda: now[0])
    progress(0.0, "query q1")
    now[0] = 20.0
    progress(0.25, "query q9")
    progress(0.5, "embedding: 10 of 20 passages · 2 a second · about 5 s left")
    progress(1.0, "done")
    assert seen == [
        (0.0, "query q1"),  # no pace yet: no estimate
        (0.25, "query q9 · about 60 s left"),
        (0.5, "embedding: 10 of 20 passages · 2 a second · about 5 s left"),  # its own
        (1.0, "done"),
    ]
    assert time_left(0.5, 0.5) is None and time_left(0.1, 10.0) == pytest.approx(90.0)


def test_the_embedder_keeps_rows_of_what_it_returns_not_second_copies(tmp_path: Path) -> None:
    """One copy of each vector: the cache's entries are rows of the array a document holds
    (read-only, so neither can change the other), whether embedded or read from the store."""
    import numpy as np

    texts = [f"passage number {i}" for i in range(40)]
    with Store(tmp_path / "cache") as store:
        for _ in range(2):  # embedded by the model, then read back from the store
            emb = Embedder(MODEL, store=store)
            emb._model = CountingModel()
            out = emb.embed([*texts, texts[0]])
            assert not out.flags.writeable
            assert all(np.shares_memory(emb._cache[t], out) for t in texts)
            assert np.array_equal(emb.embed(texts[:3]), out[:3])
