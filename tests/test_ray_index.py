"""``explorer index DIR --engine ray``: the lasting index filled on Ray Data is the single
process's, row for row and bit for bit, and every answer and evaluation over it is the same; a
failed or stopped run keeps what it wrote and the next one embeds only the rest.

One local Ray for the module (two CPUs, no dashboard), a few small documents and the real
bundled model: the rows are compared with those :meth:`Workspace.index` writes.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer import distributed
from explorer.cli import main
from explorer.config import BUNDLED, Config
from explorer.distributed import Embed, check_address, ray_index
from explorer.errors import EmbeddingError, EngineError
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.queries import load_queries
from explorer.retrieval.embeddings import BATCH, Embedder
from explorer.retrieval.store import FILENAME, Store
from explorer.workspace import Workspace
from tests.conftest import REPO, SAMPLES

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")

DOCS = ("refund-policy.md", "writing-guide.md", "lab-rules.md", "backup-tool.md")
CONFIG = Config()
QUERY_SETS = ("holdout-questions.json", "boundary-questions.json")


class FreshWorkspace(Workspace):
    """A workspace with an embedder of its own over ``store``, its memory empty: what a new
    process would have (the model itself is loaded once per process and shared)."""

    def __init__(self, folder: Path, store: Store) -> None:
        super().__init__(folder)
        self.emb = Embedder(BUNDLED, store=store)

    def embedder(self, model: str) -> Any:
        return self.emb


def rows(folder: Path) -> list[tuple[Any, ...]]:
    """Every row of a lasting index as written: model, key, dimension, vector bytes, check."""
    db = sqlite3.connect(folder / FILENAME)
    try:
        return db.execute(
            "SELECT model, key, dim, vector, digest FROM vectors ORDER BY model, key"
        ).fetchall()
    finally:
        db.close()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """One Ray on this machine for the module; the runs use it as it is."""
    for key, value in distributed.RAY_ENV.items():
        os.environ.setdefault(key, value)
    # the workers unpickle this module's test workers by value: no path to it is needed there
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    distributed.quiet_data(ray)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs")
    for name in DOCS:
        shutil.copy(SAMPLES / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def queries(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The published questions about these documents (holdout and boundary sets)."""
    items = [
        q
        for name in QUERY_SETS
        for q in json.loads((REPO / "queries" / name).read_text(encoding="utf-8"))
        if q["doc"] in DOCS
    ]
    path = tmp_path_factory.mktemp("queries") / "set.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    return load_queries(path)


@pytest.fixture(scope="module")
def plain(docs: Path, queries: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lasting index as the single process fills it (``index`` without ``--engine``)."""
    folder = tmp_path_factory.mktemp("plain")
    with Store(folder) as store:
        ws = FreshWorkspace(docs, store)
        done = ws.index(ws.names(), CONFIG, questions=[q.query for q in queries])
        assert done.embedded == done.texts > 3 * BATCH
    return folder


def run_ray(docs: Path, cache: Path, queries: Any, **kw: Any) -> distributed.RayIndexed:
    with Store(cache) as store:
        ws = FreshWorkspace(docs, store)
        return ray_index(ws, ws.names(), CONFIG, questions=[q.query for q in queries], **kw)


def test_the_ray_index_is_the_plain_one_and_answers_every_question_the_same(
    local_ray: Any, docs: Path, queries: Any, plain: Path, tmp_path: Path
) -> None:
    done = run_ray(docs, tmp_path / "ray", queries)
    assert done.indexed.embedded == done.indexed.texts == len(rows(plain))
    assert done.indexed.chunks > 0 and done.indexed.already == 0 and done.workers == 1
    assert rows(tmp_path / "ray") == rows(plain)  # every vector bit for bit, with its check

    reports = []
    for folder in (plain, tmp_path / "ray"):
        with Store(folder) as store:
            ws = FreshWorkspace(docs, store)  # a new process: memory empty, the store full
            report = evaluate(queries, ws, CONFIG, scope="corpus")
            assert report.timing.embedded == 0 and ws.emb.encoded == 0  # nothing embedded again
            reports.append(report)
    ours, theirs = reports
    assert len(ours.results) == len(queries) > 10
    for a, b in zip(ours.results, theirs.results, strict=True):
        for k, answer in a.corpus_at_k.items():
            got = [(h.doc, h.index, h.score) for h in b.corpus_at_k[k].hits]
            assert got == [(h.doc, h.index, h.score) for h in answer.hits], a.query.query
        assert a.recall_at_k == b.recall_at_k and a.mrr_at_k == b.mrr_at_k
    assert ours.coverage_at_k == theirs.coverage_at_k
    assert ours.coverage_at_budget == theirs.coverage_at_budget


class FailingEmbed(Embed):
    """A worker whose last batch raises, as a bug or a bad input on a worker would."""

    def before(self, group: list[str]) -> None:
        if len(group) < BATCH:  # the shortest texts come last, in the one short batch
            raise RuntimeError("the worker's disk is full")


def test_a_failing_batch_keeps_what_was_written_and_a_rerun_embeds_only_the_rest(
    local_ray: Any,
    docs: Path,
    queries: Any,
    plain: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(distributed, "GROUPS_PER_CALL", 1)  # each batch written on its own
    cache = tmp_path / "cache"
    with pytest.raises(EngineError) as caught:
        run_ray(docs, cache, queries, embed_class=FailingEmbed)
    message = str(caught.value)
    assert message.startswith("a Ray worker failed while embedding (")
    assert "the worker's disk is full" in message and "\n" not in message
    assert "run the command again to finish only what is left" in message
    written = len(rows(cache))
    assert f"the {written:,} vectors written before it are kept" in message
    assert written < len(rows(plain))

    rest = run_ray(docs, cache, queries)
    assert rest.indexed.already == written  # nothing embedded twice
    assert rest.indexed.embedded == len(rows(plain)) - written
    assert rows(cache) == rows(plain)


class DyingEmbed(Embed):
    """A worker whose process dies at its second batch, once (the marker file says it did)."""

    marker = ""
    calls = 0

    def before(self, group: list[str]) -> None:
        self.calls += 1
        if self.calls == 2 and self.marker and not os.path.exists(self.marker):
            Path(self.marker).write_text("died", encoding="utf-8")
            os._exit(1)


def test_a_worker_killed_mid_run_stops_with_one_message_and_a_rerun_finishes_the_rest(
    local_ray: Any,
    docs: Path,
    queries: Any,
    plain: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ray 2.60 restarts a killed actor but its pool never sends the lost batch again (the run
    waited for ever): the engine asks for no restart, stops at once with one message saying a
    worker was lost; what was written stays and the next run embeds only the rest."""
    monkeypatch.setattr(distributed, "GROUPS_PER_CALL", 1)  # each batch written on its own
    marker = tmp_path / "died"

    class Dying(DyingEmbed):
        pass

    Dying.marker = str(marker)
    cache = tmp_path / "cache"
    with pytest.raises(EngineError) as caught:
        run_ray(docs, cache, queries, embed_class=Dying)
    assert marker.exists()  # the worker did die
    message = str(caught.value)
    # Ray's ActorDiedError, or the driver's own look at the actor table if it comes first
    assert message.startswith("a Ray worker was lost while embedding ("), message
    assert "ActorDiedError" in message or "WORKER_DIED" in message, message
    assert "\n" not in message and "run the command again to finish only what is left" in message
    written = len(rows(cache))
    assert f"the {written:,} vectors written before it are kept" in message
    assert written < len(rows(plain))

    rest = run_ray(docs, cache, queries)
    assert rest.indexed.already == written  # nothing embedded twice
    assert rest.indexed.embedded == len(rows(plain)) - written
    assert rows(cache) == rows(plain)


class Silent:
    """A Ray dataset whose iterator gives one batch, then neither another nor its end (a worker
    stuck, or lost and not replaced) until ``release`` is set."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked: dict[str, Any] = {}

    def iter_batches(self, **kw: Any) -> Iterator[dict[str, Any]]:
        self.asked = kw
        yield {"n": 1}
        self.release.wait(60)


def test_a_run_that_stops_answering_ends_at_the_bound_with_one_message() -> None:
    """Every wait on Ray is bounded: the driver reads Ray's iterator on a thread and stops when
    nothing comes back for ``stall`` seconds, saying so and what was kept."""
    silent = Silent()
    got = []
    started = time.monotonic()
    with pytest.raises(distributed.Stalled) as caught:
        for batch in distributed._watched(ray, silent, stall=0.5, step="embedding"):
            got.append(batch)
    waited = time.monotonic() - started
    silent.release.set()
    assert got == [{"n": 1}] and caught.value.seconds == 0.5
    assert 0.5 <= waited < 30  # the bound, not the iterator's 60 s
    assert silent.asked == {"batch_size": None, "batch_format": "numpy"}

    message = str(distributed._stalled("embedding", 0.5, 64))
    assert message.startswith("the Ray run stopped answering while embedding: nothing came back")
    assert "the 64 vectors written before it are kept" in message and "\n" not in message
    assert message.endswith("run the command again to finish only what is left")
    first = str(distributed._stalled("embedding", 600, 0))
    assert "the first batch includes starting the workers and loading the model" in first


def test_a_second_run_on_a_locked_cache_says_so_and_loses_nothing(
    local_ray: Any, docs: Path, queries: Any, plain: Path, tmp_path: Path
) -> None:
    """Another run holding the store's write lock: this one waits for it as today's ``index``
    does, then stops with the store's own message; the rows already there stay."""
    cache = tmp_path / "cache"
    shutil.copy(plain / FILENAME, cache.mkdir() or cache / FILENAME)
    with sqlite3.connect(cache / FILENAME) as db:  # one row missing: one to embed
        db.execute("DELETE FROM vectors WHERE id = (SELECT MAX(id) FROM vectors)")
    holder = sqlite3.connect(cache / FILENAME, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the other run, writing
    try:
        with Store(cache, timeout=0.5) as store:
            ws = FreshWorkspace(docs, store)
            questions = [q.query for q in queries]
            with pytest.raises(EmbeddingError, match="stayed locked by another process"):
                ray_index(ws, ws.names(), CONFIG, questions=questions)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(rows(cache)) == len(rows(plain)) - 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_an_address_nobody_answers_is_one_message_and_nothing_is_embedded(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    cache = tmp_path / "cache"
    address = f"127.0.0.1:{port}"
    code = main(
        ["index", str(docs), "--engine", "ray", "--address", address, "--cache-dir", str(cache)]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: nobody answers at --address 127.0.0.1:{port} (")
    assert "Nothing was embedded." in lines[0]
    assert not rows(cache)
    with pytest.raises(EngineError, match="is not host:port"):
        check_address("headnode")
    assert main(["index", str(docs), "--workers", "2"]) == 2
    assert "go with --engine ray" in capsys.readouterr().err


def test_the_command_over_a_folder_with_unreadable_files(
    local_ray: Any,
    docs: Path,
    plain: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each file that cannot be used is one ``skipped:`` line; the others are indexed (here all
    stored already, so nothing is embedded) and the summary says what the engine did."""
    folder = tmp_path / "docs"
    shutil.copytree(docs, folder)
    (folder / "truncated.pdf").write_bytes((SAMPLES / "field-manual.pdf").read_bytes()[:900])
    (folder / "empty.md").write_bytes(b"")
    (folder / "binary.txt").write_bytes(b"abc\x00def")
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copy(plain / FILENAME, cache / FILENAME)
    code = main(["index", str(folder), "--engine", "ray", "--cache-dir", str(cache), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out)
    assert (got["documents"], got["skipped"], got["engine"], got["workers"]) == (4, 3, "ray", 1)
    assert got["embedded"] == 0 and got["already_stored"] == got["texts"] > 0
    skipped = sorted(
        line.removeprefix("skipped: ").split()[0].rstrip(":")
        for line in err.splitlines()
        if line.startswith("skipped:")
    )
    assert skipped == ["binary.txt", "empty.md", "truncated.pdf"], err
    assert "Traceback" not in err


def test_the_engine_turns_rays_usage_report_off_whatever_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing may reach the network at run time: Ray's usage report is off even when the
    environment asked for it."""
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "1")
    distributed.import_ray()
    assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"
