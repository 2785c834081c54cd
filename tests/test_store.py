"""The lasting embedding index: exact vectors back, keyed by model and exact text, a size cap that
drops the least recently used, safe with two writing processes, clear messages for a damaged
store, and a second ``eval`` on an unchanged corpus that embeds nothing."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from explorer.errors import EmbeddingError
from explorer.retrieval import embeddings
from explorer.retrieval.embeddings import Embedder, StoreWarning
from explorer.retrieval.store import (
    FILENAME,
    ROW_OVERHEAD,
    TOUCH_SECONDS,
    TOUCH_WAIT,
    Store,
    cache_dir,
    open_store,
    text_key,
)
from explorer.workspace import Workspace, shared_workspace
from tests.conftest import REPO

MODEL = "test-model"


def vec(seed: int, dim: int = 8) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


class Clock:
    """A clock the test moves by hand (the store reads it for "last used")."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def tick(self) -> None:
        self.now += 2 * TOUCH_SECONDS


class CountingModel:
    """Stands in for a sentence-transformers model: a vector from the text's hash, and a record
    of every text it was asked to embed."""

    max_seq_length = 256

    def __init__(self) -> None:
        self.seen: list[str] = []

    def get_embedding_dimension(self) -> int:
        return 8

    def encode(self, batch: list[str], **_: object) -> np.ndarray:
        self.seen.extend(batch)
        return np.stack([vec(int.from_bytes(text_key(t)[:4], "big")) for t in batch])


def counting_embedder(store: Store | None) -> tuple[Embedder, CountingModel]:
    emb = Embedder(MODEL, store=store)
    emb._model = model = CountingModel()
    return emb, model


# --------------------------------------------------------------------------- the store itself


def test_vectors_come_back_exactly(tmp_path: Path) -> None:
    texts = ["plain", "naïve café ✓ 𝄞", "lone \udc80 surrogate", "", "x" * 100_000]
    want = {t: vec(i, dim=384) for i, t in enumerate(texts)}
    want["tiny"] = np.array([np.float32(1e-45), np.float32(-0.0)], dtype=np.float32)
    with Store(tmp_path) as store:
        store.put(MODEL, want)
    with Store(tmp_path) as again:  # another connection: read from the file
        got = again.get(MODEL, [*want, "never stored"])
    assert set(got) == set(want)
    for t, v in want.items():
        assert got[t].dtype == np.float32 and got[t].tobytes() == v.tobytes(), t
    assert (tmp_path / FILENAME).is_file()
    assert not list(tmp_path.glob("*.pkl"))
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    dim, blob = db.execute(
        "SELECT dim, vector FROM vectors WHERE model = ? AND key = ?",
        (MODEL, text_key("plain")),
    ).fetchone()
    assert dim == 384 and blob == want["plain"].astype("<f4").tobytes()  # float32 bytes, no pickle
    db.close()


def test_vectors_are_keyed_by_model_and_exact_text(tmp_path: Path) -> None:
    text = "Refunds within 7 days."
    near = [text + " ", text + "\n", text.lower(), text.replace("7", "seven")]
    with Store(tmp_path) as store:
        store.put(MODEL, {text: vec(1)})
        store.put("other-model", {text: vec(2, dim=4)})
        assert store.get(MODEL, [text, *near]).keys() == {text}
        assert store.get(MODEL, [text])[text].tobytes() == vec(1).tobytes()
        assert store.get("other-model", [text])[text].tobytes() == vec(2, dim=4).tobytes()
        assert store.get("third-model", [text]) == {}
        # the same letters composed and decomposed are different texts to the model
        store.put(MODEL, {"caf\u00e9": vec(3)})
        assert store.get(MODEL, ["cafe\u0301"]) == {}
        assert store.stats().models == ((MODEL, 2), ("other-model", 1))


def test_the_cap_drops_the_least_recently_used(tmp_path: Path) -> None:
    row = 8 * 4 + ROW_OVERHEAD
    clock = Clock()
    with Store(tmp_path, max_bytes=3 * row, clock=clock) as store:
        for name in ("a", "b", "c"):
            store.put(MODEL, {name: vec(ord(name))})
            clock.tick()
        assert store.stats().rows == 3 and store.stats().bytes == 3 * row
        store.get(MODEL, ["a"])  # a is used again: b is now the least recently used
        clock.tick()
        store.put(MODEL, {"d": vec(4)})
        assert set(store.get(MODEL, ["a", "b", "c", "d"])) == {"a", "c", "d"}
        clock.tick()
        store.put(MODEL, {"e": vec(5), "f": vec(6)})  # c, then a (d, e, f are newer)
        assert set(store.get(MODEL, ["a", "b", "c", "d", "e", "f"])) == {"d", "e", "f"}
        stats = store.stats()
        assert (stats.rows, stats.bytes, stats.max_bytes) == (3, 3 * row, 3 * row)
    with Store(tmp_path, max_bytes=0) as none:  # a cap below one row keeps nothing
        none.put(MODEL, {"g": vec(7)})
        assert none.stats().rows == 0


def test_a_read_marks_rows_used_without_waiting_long_for_a_writer(tmp_path: Path) -> None:
    clock = Clock()
    start = clock.now
    with Store(tmp_path, clock=clock) as store:
        store.put(MODEL, {"a": vec(1)})
        peek = sqlite3.connect(tmp_path / FILENAME, timeout=0.1, isolation_level=None)

        def used() -> float:
            (value,) = peek.execute("SELECT used FROM vectors").fetchone()
            return float(value)

        peek.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            assert set(store.get(MODEL, ["a"])) == {"a"}  # within a minute: nothing to write
            clock.tick()
            began = time.monotonic()
            assert set(store.get(MODEL, ["a"])) == {"a"}  # read all the same
            assert time.monotonic() - began < TOUCH_WAIT + 2
        finally:
            peek.execute("ROLLBACK")
        assert used() == start  # left for a later read
        store.get(MODEL, ["a"])
        assert used() == clock.now
        peek.close()


def test_clear_empties_the_store_and_gives_the_space_back(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.put(MODEL, {f"text {i}": vec(i, dim=384) for i in range(2000)})
        big = store.stats()
        assert big.rows == 2000 and big.file_bytes > 2000 * 384 * 4
        # the counted size is what the file takes, within a tenth
        assert abs(big.file_bytes - big.bytes) < big.bytes / 10
        assert store.clear() == 2000
        empty = store.stats()
        assert (empty.rows, empty.bytes) == (0, 0) and empty.file_bytes < big.file_bytes / 20
        assert store.get(MODEL, ["text 1"]) == {}
        store.put(MODEL, {"after": vec(1)})
        assert store.stats().rows == 1


def _writer(folder: str, worker: int, count: int) -> None:
    """One process: ``count`` vectors in batches of 25, half of them shared with the other."""
    store = Store(folder, timeout=60)
    for start in range(0, count, 25):
        batch = {}
        for i in range(start, start + 25):
            shared = i % 2 == 0
            text = f"shared {i}" if shared else f"worker {worker} text {i}"
            batch[text] = vec(i if shared else 100_000 * (worker + 1) + i, dim=64)
        store.put(MODEL, batch)
        store.get(MODEL, list(batch)[:5])
    store.close()


def test_two_processes_writing_at_once_lose_and_damage_nothing(tmp_path: Path) -> None:
    count = 600
    Store(tmp_path).close()  # both find the file made (and one test of making it concurrently:)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, count)) for w in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with Store(tmp_path) as store:
        want = {f"shared {i}": vec(i, dim=64) for i in range(0, count, 2)}
        for w in (0, 1):
            want |= {
                f"worker {w} text {i}": vec(100_000 * (w + 1) + i, dim=64)
                for i in range(1, count, 2)
            }
        got = store.get(MODEL, list(want))
        assert set(got) == set(want)
        assert all(got[t].tobytes() == v.tobytes() for t, v in want.items())
        stats = store.stats()
        assert stats.rows == len(want) == count // 2 * 3
        assert stats.bytes == len(want) * (64 * 4 + ROW_OVERHEAD)  # the totals kept up
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_two_processes_making_a_new_store_at_once(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 50)) for w in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with Store(tmp_path) as store:
        assert store.stats().rows == 75


def test_a_new_file_another_connection_is_writing_is_waited_for_not_refused(tmp_path: Path) -> None:
    # what two processes making one new store at once meet: the other holds the file's write
    # lock while this one turns it to WAL, and SQLite refuses that at once, whatever the busy
    # timeout ("database is locked"); the store tries again until its timeout
    other = sqlite3.connect(tmp_path / FILENAME, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE scratch (a)")
    releaser = threading.Timer(0.5, lambda: other.execute("ROLLBACK"))
    releaser.start()
    started = time.monotonic()
    try:
        with Store(tmp_path, timeout=10) as store:
            store.put(MODEL, {"text": vec(1)})
            assert store.stats().rows == 1
    finally:
        releaser.join()
        other.close()
    assert 0.4 < time.monotonic() - started < 10


# --------------------------------------------------------------------------- damaged, unusable


def test_a_damaged_file_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / FILENAME).write_bytes(b"this is not a database, it is a shopping list\n" * 100)
    with pytest.raises(EmbeddingError) as err:
        Store(tmp_path)
    assert str(err.value) == (
        f"the embedding cache {tmp_path / FILENAME} is damaged or is not a cache (file is not a "
        "database); empty it with `python -m explorer cache --clear` (it is rebuilt as you go)"
    )


def test_another_sqlite_file_is_not_taken_for_a_store(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / FILENAME)
    db.execute("CREATE TABLE vectors (x)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with pytest.raises(EmbeddingError, match="is damaged or is not a cache"):
        Store(tmp_path)
    db = sqlite3.connect(tmp_path / FILENAME)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(EmbeddingError, match="written by a newer chunk-explorer"):
        Store(tmp_path)


def test_a_folder_that_cannot_be_made_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    with pytest.raises(EmbeddingError) as err:
        Store(tmp_path / "file" / "cache")
    assert str(err.value).startswith(f"cannot make the embedding cache folder {tmp_path}/file/")
    assert "CHUNK_EXPLORER_CACHE=off" in str(err.value)


def test_a_store_failing_mid_run_warns_and_the_embedder_goes_on_in_memory(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path, timeout=0.1)
    emb, model = counting_embedder(store)
    emb.embed(["one"])
    db = sqlite3.connect(tmp_path / FILENAME, timeout=0.1, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")  # another process keeps the file locked
    try:
        with pytest.warns(StoreWarning, match="stayed locked .* kept in memory only"):
            out = emb.embed(["one", "two"])
    finally:
        db.execute("ROLLBACK")
        db.close()
    assert out[1].tobytes() == vec(int.from_bytes(text_key("two")[:4], "big")).tobytes()
    assert emb.store is None and model.seen == ["one", "two"]
    emb.embed(["three"])  # in memory from now on, without a word
    store.close()


def test_the_shared_store_falls_back_to_memory_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / FILENAME).write_bytes(b"garbage" * 1000)
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE", str(tmp_path))
    shared = embeddings.Embedders()  # as the process's shared workspace makes them
    with pytest.warns(StoreWarning, match="is damaged or is not a cache"):
        assert shared.store is None
    assert shared.store is None  # once: not tried again in this process
    assert shared.get(MODEL).store is None


def test_a_store_that_fails_is_dropped_by_every_shared_embedder(tmp_path: Path) -> None:
    shared = embeddings.Embedders()
    with Store(tmp_path) as store, shared.using(store):
        emb = shared.get(MODEL)
        emb._model = CountingModel()
        other = shared.get("another-model")
        assert emb.store is store and other.store is store

        def broken(*_: object) -> None:
            raise EmbeddingError("the disk is gone")

        store.get = broken  # type: ignore[method-assign]
        with pytest.warns(StoreWarning, match="the disk is gone; embeddings are kept in memory"):
            emb.embed(["alpha"])
        assert emb.store is None and shared.store is None
        assert shared.get("another-model").store is None  # the others stop trying it too


# --------------------------------------------------------------------------- the embedder


def test_the_embedder_reads_the_store_before_the_model_and_writes_what_is_new(
    tmp_path: Path,
) -> None:
    texts = ["alpha", "beta", "gamma", "alpha"]
    with Store(tmp_path) as store:
        first, _ = counting_embedder(store)
        want = first.embed(texts)
        assert (first.encoded, first.from_store, first.requested) == (3, 0, 4)
        later, fresh_model = counting_embedder(store)  # a new session: an empty memory
        seen: list[tuple[float, str]] = []
        got = later.embed(texts, progress=lambda f, m: seen.append((f, m)))
        assert got.tobytes() == want.tobytes()
        assert (later.encoded, later.from_store) == (0, 3) and fresh_model.seen == []
        assert seen == [(1.0, "0 of 0")]
        later.embed(["beta", "delta"])  # beta from memory now, delta new
        assert fresh_model.seen == ["delta"] and (later.encoded, later.from_store) == (1, 3)
        third, third_model = counting_embedder(store)
        assert third.prefetch(["alpha", "delta", "epsilon"]) == 2
        assert [third.cached(t) for t in ("alpha", "delta", "epsilon")] == [True, True, False]
        assert third_model.seen == []


def test_an_embedder_without_a_store_writes_nothing(tmp_path: Path) -> None:
    emb, _ = counting_embedder(None)
    emb.embed(["alpha"])
    assert emb.prefetch(["alpha", "beta"]) == 0 and emb.from_store == 0
    assert list(tmp_path.iterdir()) == []


def test_using_store_points_the_shared_embedders_at_a_store_and_back(tmp_path: Path) -> None:
    ws = Workspace()
    before = ws.embedders.store
    with Store(tmp_path) as store, ws.using_store(store):
        assert ws.embedder(MODEL).store is store
        assert Workspace().embedder(MODEL).store is store  # every workspace's: the process's
        assert shared_workspace().embedder(MODEL) is ws.embedder(MODEL)
        with Workspace().using_store(None):
            assert ws.embedder(MODEL).store is None
        assert ws.embedder(MODEL).store is store
    assert ws.embedder(MODEL).store is before


def test_where_the_store_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the tests' own: a folder of this session, never the user's cache (see conftest)
    assert cache_dir() == Path(os.environ["CHUNK_EXPLORER_CACHE"])
    assert "chunk-explorer-test-cache-" in os.environ["CHUNK_EXPLORER_CACHE"]
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE", "off")
    assert cache_dir() is None and open_store() is None
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "chunk-explorer"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "chunk-explorer"
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE_MB", "2.5")
    store = open_store()
    assert store is not None and store.max_bytes == 2_500_000 and store.folder == tmp_path / "mine"
    store.close()
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE_MB", "lots")
    with pytest.raises(EmbeddingError, match="not a number of megabytes"):
        open_store()


# --------------------------------------------------------------------------- the command line


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True, text=True, timeout=600, check=False, cwd=REPO,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_cache_stats_and_clear(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.put(MODEL, {f"t{i}": vec(i) for i in range(3)})
    res = run_cli("cache", "--stats", "--json", "--cache-dir", str(tmp_path))
    assert res.returncode == 0, res.stderr
    stats = json.loads(res.stdout)
    assert stats["rows"] == 3 and stats["models"] == {MODEL: 3}
    assert stats["path"] == str(tmp_path / FILENAME)
    res = run_cli("cache", "--stats", "--cache-dir", str(tmp_path))
    assert res.stdout.splitlines()[1].startswith("3 vectors, 0.0 MB of 1,073.7 MB")
    res = run_cli("cache", "--clear", "--cache-dir", str(tmp_path))
    assert (res.returncode, res.stdout) == (
        0,
        f"emptied the embedding cache in {tmp_path}: 3 vectors removed\n",
    )
    res = run_cli("cache", "--stats", "--cache-dir", str(tmp_path), "--json")
    assert json.loads(res.stdout)["rows"] == 0
    res = run_cli("cache", "--stats", env={"CHUNK_EXPLORER_CACHE": "off"})
    assert res.returncode == 2 and "turned off" in res.stderr and res.stderr.count("\n") == 1
    res = run_cli("cache")
    assert res.returncode == 2 and "one of the arguments --stats --clear is required" in res.stderr


def test_a_damaged_cache_on_the_command_line(tmp_path: Path) -> None:
    (tmp_path / FILENAME).write_bytes(b"garbage" * 1000)
    res = run_cli("cache", "--stats", "--cache-dir", str(tmp_path))
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith("error: the embedding cache") and "cache --clear" in res.stderr
    doc = REPO / "sample_docs" / "refund-policy.md"
    res = run_cli("query", str(doc), "refund?", "--cache-dir", str(tmp_path))
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "is damaged" in res.stderr
    res = run_cli("query", str(doc), "refund?", "--retriever", "bm25", "--cache-dir", str(tmp_path))
    assert res.returncode == 0, res.stderr  # BM25 needs no embeddings: the cache is not opened
    res = run_cli("cache", "--clear", "--cache-dir", str(tmp_path))
    assert (
        res.returncode == 0 and res.stdout == f"removed the damaged embedding cache in {tmp_path}\n"
    )
    assert not (tmp_path / FILENAME).exists()
    res = run_cli("cache", "--stats", "--cache-dir", str(tmp_path), "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["rows"] == 0


SECOND_RUN = """
import sys
from explorer.cli import main
code = main(sys.argv[1:])
heavy = sorted(m for m in ("torch", "sentence_transformers") if m in sys.modules)
print("HEAVY", heavy, file=sys.stderr)
sys.exit(code)
"""


def test_a_second_eval_on_an_unchanged_corpus_embeds_nothing(tmp_path: Path) -> None:
    queries = json.loads((REPO / "queries" / "boundary-questions.json").read_text())
    small = [q for q in queries if q["doc"] == "refund-policy.md"]
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps(small))
    cache = tmp_path / "cache"
    docs = str(REPO / "queries" / "docs")
    args = ["eval", "--queries", str(qfile), "--docs", docs, "--retriever", "hybrid", "--json",
            "--cache-dir", str(cache)]  # fmt: skip
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    [line] = [x for x in first.stderr.splitlines() if x.startswith("embedded")]
    new = int(line.split()[1].replace(",", ""))
    assert new > len(small) and line == f"embedded {new:,} new texts (0 from the cache in {cache})"
    second = subprocess.run(
        [sys.executable, "-c", SECOND_RUN, *args],
        capture_output=True, text=True, timeout=600, check=False, cwd=REPO,
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert f"embedded 0 new texts ({new:,} from the cache in {cache})" in second.stderr
    assert "HEAVY []" in second.stderr  # the model was not even loaded
    again, before = json.loads(second.stdout), json.loads(first.stdout)
    assert before.pop("timing")["embedded"] == new and again.pop("timing")["embedded"] == 0
    assert again == before  # and the same report (but for its timing)


def test_no_cache_keeps_embeddings_in_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from explorer.cli import main

    docs = str(REPO / "queries" / "docs")
    queries = str(REPO / "queries" / "boundary-questions.json")
    q = [x for x in json.loads(Path(queries).read_text()) if x["doc"] == "refund-policy.md"]
    (tmp_path / "q.json").write_text(json.dumps(q))
    unused = tmp_path / "unused"
    args = ["eval", "--queries", str(tmp_path / "q.json"), "--docs", docs, "--json"]
    assert main([*args, "--no-cache", "--cache-dir", str(unused)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("embedded ") and err[-1].endswith(" new texts (no cache)")
    assert not unused.exists()
    assert main([*args, "--cache-dir", str(unused)]) == 0  # in memory already: none new
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"embedded 0 new texts (0 from the cache in {unused})"
    )
    with Store(unused) as store:  # what was in memory is not written back: only new vectors are
        assert store.stats().rows == 0


def test_threads_share_one_store(tmp_path: Path) -> None:
    """As the app's sessions do: one Store object, a connection per thread."""
    from concurrent.futures import ThreadPoolExecutor

    store = Store(tmp_path)

    def work(worker: int) -> int:
        batch = {f"thread {worker} text {i}": vec(worker * 1000 + i) for i in range(200)}
        for start in range(0, 200, 20):
            store.put(MODEL, dict(list(batch.items())[start : start + 20]))
        return len(store.get(MODEL, list(batch)))

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(work, range(4))) == [200] * 4
    assert store.stats().rows == 800
    store.close()


@pytest.mark.parametrize("command", ["chunk", "query", "eval", "sweep"])
def test_every_command_that_embeds_takes_the_cache_options(command: str) -> None:
    from explorer.cli import build_parser

    given = {
        "chunk": ["a.md"],
        "query": ["a.md", "a question"],
        "eval": ["--queries", "q.json", "--docs", "d"],
        "sweep": ["--queries", "q.json", "--docs", "d", "--sizes", "128"],
    }[command]
    args = build_parser().parse_args([command, *given, "--cache-dir", "here", "--no-cache"])
    assert (args.cache_dir, args.no_cache) == ("here", True)
    args = build_parser().parse_args([command, *given])
    assert (args.cache_dir, args.no_cache) == (None, False)
