"""The lasting embedding index never serves a wrong vector: damage that keeps a vector's length
(a flipped bit, random bytes, rows swapped, a bit flipped in the file on disk) is caught by each
row's check, the bad rows are dropped and embedded again with one warning, and the next read is
clean. A file of the older format, whose rows have no check, is emptied with a warning.

Every damage here keeps the vector's length — asserted before the read — which is exactly what
the length check alone let through."""

from __future__ import annotations

import multiprocessing
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from explorer.errors import EmbeddingError
from explorer.retrieval.store import (
    FILENAME,
    ROW_OVERHEAD,
    SCHEMA,
    Store,
    StoreWarning,
    row_digest,
    text_key,
)
from tests.conftest import REPO
from tests.test_store import MODEL, _writer, counting_embedder, vec

TEXTS = [f"passage {i}: the refund window is {i % 30} days, unless it is not." for i in range(1200)]
"""More than two of the store's SELECT batches (500 keys), so one read spans three of them."""
SHARE = 0.05
"""The share of rows damaged: 1 in 20."""
OTHER = "other-model"

Row = tuple[int, bytes, int, bytes, bytes]  # id, key, dim, vector, digest
Damage = Callable[[Path, list[Row], np.random.Generator], None]


def fresh(texts: list[str]) -> np.ndarray:
    """What an embedder with no cache at all returns: the fake model's own outputs."""
    emb, _ = counting_embedder(None)
    return emb.embed(texts)


def rows_of(path: Path, model: str = MODEL) -> list[Row]:
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT id, key, dim, vector, digest FROM vectors WHERE model = ? ORDER BY id", (model,)
    ).fetchall()
    db.close()
    return rows


def rewrite(path: Path, changes: list[tuple[bytes, bytes, int]]) -> None:
    """Set (vector, digest) of rows by id, behind the store's back."""
    db = sqlite3.connect(path)
    db.executemany("UPDATE vectors SET vector = ?, digest = ? WHERE id = ?", changes)
    db.commit()
    db.close()


def flip_bit(blob: bytes, rng: np.random.Generator) -> bytes:
    out = bytearray(blob)
    bit = int(rng.integers(8 * len(out)))
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def partners(victims: list[Row]) -> list[tuple[Row, Row]]:
    """Each row with the one it swaps with: the first with the second, the third with the
    fourth..."""
    a, b = victims[0::2], victims[1::2]
    return [*zip(a, b, strict=True), *zip(b, a, strict=True)]


# --------------------------------------------------------------------------- kinds of damage


def one_bit_flipped(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    rewrite(path, [(flip_bit(v, rng), d, i) for i, _, _, v, d in victims])


def random_bytes(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    rewrite(path, [(rng.bytes(len(v)), d, i) for i, _, _, v, d in victims])


def vectors_swapped(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    """Pairs of rows exchange their vectors; each keeps its own digest."""
    rewrite(path, [(y[3], x[4], x[0]) for x, y in partners(victims)])


def rows_swapped(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    """Pairs of rows exchange vector and digest both: each vector is intact, and its digest is
    the right one for it — for the other text. Only the key in the digest tells."""
    rewrite(path, [(y[3], y[4], x[0]) for x, y in partners(victims)])


def models_swapped(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    """The same text's rows of two models exchange vector and digest: only the model in the
    digest tells."""
    theirs = {key: (i, v, d) for i, key, _, v, d in rows_of(path, OTHER)}
    changes = []
    for i, key, _, v, d in victims:
        j, w, e = theirs[key]
        changes += [(w, e, i), (v, d, j)]
    rewrite(path, changes)


def digest_flipped(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    rewrite(path, [(v, flip_bit(d, rng), i) for i, _, _, v, d in victims])


def bit_flipped_on_disk(path: Path, victims: list[Row], rng: np.random.Generator) -> None:
    """One bit of each vector flipped in the database file itself, as a bad disk or a stray
    write would (SQLite keeps no checksum of its pages, so it reads the damaged bytes back)."""
    data = bytearray(path.read_bytes())
    for _, _, _, v, _ in victims:
        at = data.find(v)
        assert at >= 0 and data.find(v, at + 1) < 0  # the vector's bytes, once, in the file
        data[at : at + len(v)] = flip_bit(v, rng)
    path.write_bytes(bytes(data))


DAMAGE: dict[str, Damage] = {
    "one bit flipped": one_bit_flipped,
    "random bytes of the right length": random_bytes,
    "two rows' vectors swapped": vectors_swapped,
    "two rows swapped, digests and all": rows_swapped,
    "a row swapped with another model's": models_swapped,
    "a bit of the digest flipped": digest_flipped,
    "one bit flipped in the file on disk": bit_flipped_on_disk,
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damage_that_keeps_the_length_is_caught_and_embedded_again(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / FILENAME
    want = fresh(TEXTS)
    with Store(tmp_path) as store:
        first, _ = counting_embedder(store)
        assert first.embed(TEXTS).tobytes() == want.tobytes()
        store.put(OTHER, {t: -v for t, v in zip(TEXTS, want, strict=True)})
    # (closed: the write-ahead log is folded into the file, which the last damage edits)
    before = rows_of(path)
    rng = np.random.default_rng(29)
    victims = [before[i] for i in sorted(rng.choice(len(before), int(SHARE * len(TEXTS)), False))]
    DAMAGE[kind](path, victims, rng)

    after = rows_of(path)
    assert [(i, len(v)) for i, _, _, v, _ in after] == [(i, len(v)) for i, _, _, v, _ in before]
    changed = {r[1] for r, s in zip(before, after, strict=True) if r != s}
    assert changed == {key for _, key, _, _, _ in victims}  # those rows, and only those

    by_key = {text_key(t): t for t in TEXTS}
    with Store(tmp_path) as store:
        emb, model = counting_embedder(store)  # a new session: nothing in memory
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = emb.embed(TEXTS)
        assert got.tobytes() == want.tobytes()
        assert [str(w.message) for w in caught] == [
            f"{len(victims)} vectors in the embedding cache {path} failed their check (damaged, "
            "or stored under another text or model); dropped, and embedded again"
        ]
        assert caught[0].category is StoreWarning
        assert sorted(model.seen) == sorted(by_key[k] for k in changed)  # the bad rows, no more

        again, again_model = counting_embedder(store)  # the rows were written again: all sound
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert again.embed(TEXTS).tobytes() == want.tobytes()
        assert again_model.seen == [] and again.from_store == len(TEXTS)
        stats = store.stats()
        assert stats.rows == 2 * len(TEXTS)
        assert stats.bytes == stats.rows * (8 * 4 + ROW_OVERHEAD)  # the totals kept up
    assert {k for _, k, _, _, _ in rows_of(path)} == set(by_key)


def test_a_bad_row_is_deleted_and_the_totals_follow(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.put(MODEL, {"a": vec(1), "b": vec(2)})
        [row_a, _] = rows_of(tmp_path / FILENAME)
        one_bit_flipped(tmp_path / FILENAME, [row_a], np.random.default_rng(0))
        with pytest.warns(StoreWarning) as caught:
            got = store.get(MODEL, ["a", "b", "c"])
        assert len(caught) == 1
        assert str(caught[0].message).startswith("1 vector in the embedding cache ")
        assert "failed its check" in str(caught[0].message)
        assert set(got) == {"b"} and got["b"].tobytes() == vec(2).tobytes()
        stats = store.stats()
        assert (stats.rows, stats.bytes) == (1, 8 * 4 + ROW_OVERHEAD)
        assert [k for _, k, _, _, _ in rows_of(tmp_path / FILENAME)] == [text_key("b")]


def test_a_bad_row_is_left_out_even_while_another_process_writes(tmp_path: Path) -> None:
    """The read cannot delete it (the write lock is taken): it still never serves it, and the
    next write of that text replaces it."""
    with Store(tmp_path) as store:
        store.put(MODEL, {"a": vec(1), "b": vec(2)})
        [row_a, _] = rows_of(tmp_path / FILENAME)
        random_bytes(tmp_path / FILENAME, [row_a], np.random.default_rng(0))
        peek = sqlite3.connect(tmp_path / FILENAME, timeout=0.1, isolation_level=None)
        peek.execute("BEGIN IMMEDIATE")
        try:
            with pytest.warns(StoreWarning, match="^1 vector .* failed its check"):
                assert set(store.get(MODEL, ["a", "b"])) == {"b"}
        finally:
            peek.execute("ROLLBACK")
            peek.close()
        assert len(rows_of(tmp_path / FILENAME)) == 2  # still there, and still refused
        with pytest.warns(StoreWarning, match="^1 vector"):
            assert set(store.get(MODEL, ["a", "b"])) == {"b"}
        store.put(MODEL, {"a": vec(1)})  # as the embedder does next (here: deleted already)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = store.get(MODEL, ["a", "b"])
        assert got["a"].tobytes() == vec(1).tobytes()


def test_the_check_covers_model_key_dimension_and_bytes() -> None:
    key, blob = text_key("a"), vec(1).tobytes()
    base = row_digest(MODEL, key, 8, blob)
    assert len(base) == 16 and row_digest(MODEL, key, 8, blob) == base
    assert row_digest(OTHER, key, 8, blob) != base
    assert row_digest(MODEL, text_key("b"), 8, blob) != base
    assert row_digest(MODEL, key, 4, blob) != base
    assert row_digest(MODEL, key, 8, flip_bit(blob, np.random.default_rng(0))) != base
    # the model's name is length-prefixed: its last bytes cannot pass for the key's first
    assert row_digest("m", b"x" + key[:-1], 8, blob) != row_digest("mx", key[:-1], 8, blob)


# --------------------------------------------------------------------------- the older format

V1_SCHEMA = f"""
BEGIN IMMEDIATE;
CREATE TABLE vectors (
    id INTEGER PRIMARY KEY, model TEXT NOT NULL, key BLOB NOT NULL, dim INTEGER NOT NULL,
    vector BLOB NOT NULL, used REAL NOT NULL, UNIQUE (model, key)
);
CREATE INDEX vectors_by_use ON vectors (used, id);
CREATE TABLE totals (
    one INTEGER PRIMARY KEY CHECK (one = 1), rows INTEGER NOT NULL, bytes INTEGER NOT NULL
);
INSERT INTO totals VALUES (1, 0, 0);
CREATE TRIGGER vectors_added AFTER INSERT ON vectors BEGIN
    UPDATE totals SET rows = rows + 1, bytes = bytes + length(NEW.vector) + {ROW_OVERHEAD};
END;
CREATE TRIGGER vectors_dropped AFTER DELETE ON vectors BEGIN
    UPDATE totals SET rows = rows - 1, bytes = bytes - length(OLD.vector) - {ROW_OVERHEAD};
END;
PRAGMA user_version = 1;
COMMIT;
"""
"""The file format 1 wrote (chunk-explorer before the check), as it wrote it."""


def make_v1(folder: Path, texts: list[str]) -> None:
    db = sqlite3.connect(folder / FILENAME, isolation_level=None)
    db.execute("PRAGMA page_size = 8192")
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(V1_SCHEMA)
    db.executemany(
        "INSERT INTO vectors (model, key, dim, vector, used) VALUES (?, ?, 8, ?, 0)",
        [(MODEL, text_key(t), vec(i).tobytes()) for i, t in enumerate(texts)],
    )
    db.close()


def test_a_file_of_the_older_format_is_emptied_with_a_warning(tmp_path: Path) -> None:
    make_v1(tmp_path, [f"old {i}" for i in range(3000)])
    with pytest.warns(StoreWarning) as caught:
        store = Store(tmp_path)
    assert [str(w.message) for w in caught] == [
        f"the embedding cache {tmp_path / FILENAME} was in an older format, without a check on "
        "each vector; its 3,000 vectors were dropped and are embedded again as they are needed"
    ]
    with store:
        assert store.get(MODEL, ["old 1"]) == {}
        stats = store.stats()
        assert (stats.rows, stats.bytes) == (0, 0)
        assert stats.file_bytes < 3000 * 8 * 4  # the space is given back
        emb, model = counting_embedder(store)
        emb.embed(["old 1", "new"])
        assert model.seen == ["old 1", "new"]
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA,)
    db.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # opened again: nothing more to say
        with Store(tmp_path) as again:
            assert set(again.get(MODEL, ["old 1", "new"])) == {"old 1", "new"}


def test_an_empty_file_of_the_older_format_is_made_again_quietly(tmp_path: Path) -> None:
    make_v1(tmp_path, [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Store(tmp_path) as store:
            store.put(MODEL, {"a": vec(1)})
            assert set(store.get(MODEL, ["a"])) == {"a"}


def test_a_process_that_waited_finds_the_format_made_and_keeps_its_rows(tmp_path: Path) -> None:
    """Two processes open an older file at once: both read format 1, one makes the new tables
    and writes, the other then takes the write lock — and must read the format again, not drop
    the tables a second time. (That second step, run by hand here.)"""
    make_v1(tmp_path, ["old"])
    with pytest.warns(StoreWarning, match="older format"):
        store = Store(tmp_path)
    with store:
        store.put(MODEL, {"a": vec(1)})
        assert store._make(store._db()) == 0
        assert set(store.get(MODEL, ["a"])) == {"a"}


def test_two_processes_opening_a_file_of_the_older_format_at_once(tmp_path: Path) -> None:
    make_v1(tmp_path, [f"old {i}" for i in range(100)])
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 50)) for w in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with Store(tmp_path) as store:
        assert store.stats().rows == 75  # each one's 50, 25 of them shared; none of the old


def test_another_programs_file_of_format_one_is_refused_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    db = sqlite3.connect(tmp_path / FILENAME)
    db.execute("CREATE TABLE vectors (x)")
    db.execute("INSERT INTO vectors VALUES ('keep me')")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with pytest.raises(EmbeddingError, match="is damaged or is not a cache"):
        Store(tmp_path)
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("SELECT x FROM vectors").fetchall() == [("keep me",)]
    assert db.execute("PRAGMA user_version").fetchone() == (1,)
    db.close()


# --------------------------------------------------------------------------- faults that stay

KILLED_WRITER = """
import sys
import numpy as np
from explorer.retrieval.store import Store
store = Store(sys.argv[1])
rng = np.random.default_rng(0)
for n in range(10_000):
    store.put("m", {f"t{n}-{j}": rng.standard_normal(384).astype(np.float32) for j in range(200)})
    if n == 2:
        print("writing", flush=True)
"""


def test_a_writer_killed_mid_write_leaves_only_sound_rows(tmp_path: Path) -> None:
    """kill -9 in the middle of the writes: each batch is there whole or not at all, and every
    row there passes its check."""
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    proc.stdout.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Store(tmp_path) as store:
            rows = store.stats().rows
            assert rows >= 600 and rows % 200 == 0
            texts = [f"t{n}-{j}" for n in range(rows // 200 + 5) for j in range(200)]
            assert len(store.get("m", texts)) == rows


def test_a_truncated_file_is_one_clear_error_not_wrong_vectors(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.put(MODEL, {f"t{i}": vec(i, dim=384) for i in range(3000)})
    path = tmp_path / FILENAME
    whole = path.read_bytes()
    for cut in (100, len(whole) // 2, len(whole) - 8192):
        path.write_bytes(whole[:cut])
        with (
            pytest.raises(EmbeddingError, match="is damaged or is not a cache"),
            Store(tmp_path) as store,
        ):
            store.get(MODEL, [f"t{i}" for i in range(3000)])
