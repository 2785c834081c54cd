"""The lasting embedding index: vectors kept on disk between runs, keyed by the model's name and
the sha256 of the exact text embedded, so an unchanged passage is never embedded twice — not in
this run, not in the next one, not in another session on the same machine.

One SQLite file (``embeddings.sqlite3`` in the cache folder), no pickle: each row holds the model
name, the text's sha256, the vector as little-endian float32 bytes with its dimension, its check
(:func:`row_digest`) and when it was last used. The file is in WAL mode with a busy timeout, and
every write is one ``BEGIN IMMEDIATE`` transaction, so several sessions and processes can read and
write at once without losing or damaging rows. Beyond :data:`DEFAULT_MAX_BYTES` (or the
``max_bytes`` given), the least recently used rows are dropped.

A vector is served only as it was written, for the text and model it was written for. Damage
that keeps a vector's length (a flipped bit, bytes overwritten, a row's vector under another
row's key) would rank passages wrongly without a word, so every row carries a digest of its
model, its text's key, its dimension and its vector's bytes, and every read checks it. A row
that fails is deleted and left out of what the read returns, so the embedder embeds its text
again and writes a good row; the read warns once (a :class:`StoreWarning`) with how many rows
failed. A file in an older format, whose rows have no check, is emptied when it is opened, with
a warning: nothing vouches for its vectors.

Where it lives (:func:`cache_dir`): ``$CHUNK_EXPLORER_CACHE`` (``off`` turns it off), else
``$XDG_CACHE_HOME/chunk-explorer``, else ``~/.cache/chunk-explorer``. A folder that cannot be
made, or a file that is not an index, fails with an :class:`~explorer.errors.EmbeddingError` that
says how to fix it; ``python -m explorer cache --clear`` empties (or, when damaged, removes) it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.errors import EmbeddingError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ENV",
    "FILENAME",
    "ROW_OVERHEAD",
    "Store",
    "StoreStats",
    "StoreWarning",
    "cache_dir",
    "open_store",
    "row_digest",
    "text_key",
]

ENV = "CHUNK_EXPLORER_CACHE"
"""The environment variable naming the cache folder; ``off`` keeps embeddings in memory only."""
ENV_MAX_MB = "CHUNK_EXPLORER_CACHE_MB"
"""The environment variable giving the size cap in megabytes (10⁶ bytes) to :func:`open_store`."""
FILENAME = "embeddings.sqlite3"
DEFAULT_MAX_BYTES = 1 << 30
"""1 GiB: about 650,000 vectors of 384 dimensions."""
ROW_OVERHEAD = 192  # written into the file's triggers: a new value needs a new SCHEMA
"""Bytes counted for each row besides its vector: the 32-byte key, the 16-byte digest, the model's
name, SQLite's record and its two index entries. Measured on 20,000 vectors of 384 dimensions in
8 KiB pages: the file holds 1,536 + 192 bytes a row (with the digest or without: five rows fill
a page either way), so the counted size is the size on disk."""
PAGE_SIZE = 8192
"""The page size of a new file: two 1.5 KB vectors waste a third of a 4 KiB page, not of 8 KiB."""
WAL_LIMIT = 64 * 1024 * 1024
"""The write-ahead log is cut back to this size after each checkpoint."""
TOUCH_SECONDS = 60.0
"""A row read again within this many seconds of its last use is not written again: reading
stays a read, and the order of use is kept to the minute."""
TOUCH_WAIT = 0.5
"""Seconds a read waits for the write lock to mark its rows used before it leaves them."""
SCHEMA = 2
"""The file's format (``PRAGMA user_version``). 1 had no check on its rows; 2 adds ``digest``."""
DIGEST_BYTES = 16
"""The size of a row's check: 128 bits make a damaged row that passes by chance unthinkable."""
_PERSON = b"chunk-explorer"  # blake2b's personalisation: these digests are of nothing else
_BATCH = 500  # keys per SELECT, well under SQLite's limit on bound parameters

_SCHEMA_SQL = (
    """CREATE TABLE IF NOT EXISTS vectors (
        id INTEGER PRIMARY KEY,
        model TEXT NOT NULL,
        key BLOB NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        digest BLOB NOT NULL,
        used REAL NOT NULL,
        UNIQUE (model, key)
    )""",
    "CREATE INDEX IF NOT EXISTS vectors_by_use ON vectors (used, id)",
    """CREATE TABLE IF NOT EXISTS totals (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        rows INTEGER NOT NULL,
        bytes INTEGER NOT NULL
    )""",
    "INSERT OR IGNORE INTO totals VALUES (1, 0, 0)",
    f"""CREATE TRIGGER IF NOT EXISTS vectors_added AFTER INSERT ON vectors BEGIN
        UPDATE totals SET rows = rows + 1, bytes = bytes + length(NEW.vector) + {ROW_OVERHEAD};
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS vectors_dropped AFTER DELETE ON vectors BEGIN
        UPDATE totals SET rows = rows - 1, bytes = bytes - length(OLD.vector) - {ROW_OVERHEAD};
    END""",
    """CREATE TRIGGER IF NOT EXISTS vectors_replaced AFTER UPDATE OF vector ON vectors BEGIN
        UPDATE totals SET bytes = bytes + length(NEW.vector) - length(OLD.vector);
    END""",
)
"""One statement each: they run inside a transaction the store opens itself, which
``executescript`` would commit first."""


class StoreWarning(UserWarning):
    """Something the user should know about the lasting embedding index, which the run survives:
    it cannot be used (embeddings are kept in memory only), or rows in it failed their check or
    were in an older format (they were dropped and are embedded again)."""


def row_digest(model: str, key: bytes, dim: int, vector: bytes) -> bytes:
    """The check of a row: blake2b over the model's name, the text's key, the dimension and the
    vector's bytes. It covers the model and the key, not only the vector, so a vector moved to
    another text's row (or another model's) fails too. Not keyed with a secret: it guards against
    damage, and whoever can write the file could read a key kept beside it."""
    head = _model_part(model) + key + dim.to_bytes(4, "little")
    return hashlib.blake2b(head + vector, digest_size=DIGEST_BYTES, person=_PERSON).digest()


@functools.lru_cache(maxsize=16)
def _model_part(model: str) -> bytes:
    """The model's name as the digest takes it: length first, so that no two rows' fields run
    together into the same bytes."""
    name = model.encode("utf-8", "surrogatepass")
    return len(name).to_bytes(4, "little") + name


def text_key(text: str) -> bytes:
    """The key of a text: the sha256 of its UTF-8 bytes (lone surrogates kept as they are)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _sound(model: str, key: object, dim: object, blob: object, digest: object) -> bool:
    """Whether a row read back is the one written: its fields of the types written, the vector as
    long as its dimension says, the digest that of the rest (damage can change a field's type)."""
    return (
        isinstance(key, bytes)
        and isinstance(dim, int)
        and isinstance(blob, bytes)
        and len(blob) == 4 * dim
        and digest == row_digest(model, key, dim, blob)
    )


def cache_dir() -> Path | None:
    """The cache folder: ``$CHUNK_EXPLORER_CACHE`` (None when it is ``off``), else the user's
    cache directory (``$XDG_CACHE_HOME`` or ``~/.cache``) + ``chunk-explorer``."""
    given = os.environ.get(ENV, "").strip()
    if given.lower() == "off":
        return None
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "chunk-explorer"


def open_store(folder: str | Path | None = None, *, max_bytes: int | None = None) -> Store | None:
    """The store in ``folder`` (default :func:`cache_dir`; None when that is turned off).

    The cap is ``max_bytes``, else ``$CHUNK_EXPLORER_CACHE_MB`` megabytes, else
    :data:`DEFAULT_MAX_BYTES`. Raises :class:`EmbeddingError` when the store cannot be used.
    """
    where = Path(folder) if folder is not None else cache_dir()
    if where is None:
        return None
    if max_bytes is None:
        given = os.environ.get(ENV_MAX_MB, "").strip()
        try:
            max_bytes = int(float(given) * 1_000_000) if given else DEFAULT_MAX_BYTES
        except ValueError:
            raise EmbeddingError(
                f"{ENV_MAX_MB}={given!r} is not a number of megabytes; set it to e.g. 500"
            ) from None
    return Store(where, max_bytes=max_bytes)


@dataclass(frozen=True)
class StoreStats:
    """What the store holds: rows, the bytes counted against the cap, and the file's size."""

    path: Path
    rows: int
    bytes: int
    max_bytes: int
    file_bytes: int
    """The database file and its write-ahead log on disk."""
    models: tuple[tuple[str, int], ...]
    """Rows per model name, most first."""

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "rows": self.rows,
            "bytes": self.bytes,
            "max_bytes": self.max_bytes,
            "file_bytes": self.file_bytes,
            "models": dict(self.models),
        }


class Store:
    """Vectors on disk by (model, sha256 of the text); see the module docstring.

    Safe to share between threads (one SQLite connection per thread) and between processes
    (SQLite's locking; a process started with ``fork`` opens its own connection). Raises
    :class:`EmbeddingError` with a message saying what to do when the file cannot be used.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise EmbeddingError(f"the cache's size cap must be 0 or more bytes, got {max_bytes!r}")
        self.folder = Path(folder).expanduser()
        self.path = self.folder / FILENAME
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.clock = clock
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EmbeddingError(
                f"cannot make the embedding cache folder {self.folder} "
                f"({exc.strerror or exc}); give a folder you can write with --cache-dir or "
                f"{ENV}, or set {ENV}=off"
            ) from None
        self._connect()  # fails now, with its message, rather than in the middle of a run

    # ----------------------------------------------------------------------- reading, writing

    def get(self, model: str, texts: Sequence[str]) -> dict[str, Vector]:
        """The stored vectors of those ``texts`` that have a sound one (texts without one are left
        out). Rows that fail their check are deleted and left out, with one :class:`StoreWarning`
        for the whole call: the caller embeds those texts again, as it does texts never stored."""
        import numpy as np

        keys = {text_key(t): t for t in texts}
        found: dict[str, Vector] = {}
        stale: list[bytes] = []
        bad: list[tuple[int, object, object]] = []
        now = self.clock()
        with self._errors("read"):
            db = self._db()
            items = list(keys)
            for i in range(0, len(items), _BATCH):
                batch = items[i : i + _BATCH]
                marks = ",".join("?" * len(batch))
                rows = db.execute(
                    "SELECT id, key, dim, vector, digest, used FROM vectors "
                    f"WHERE model = ? AND key IN ({marks})",
                    (model, *batch),
                )
                for row_id, key, dim, blob, digest, used in rows:
                    if not _sound(model, key, dim, blob, digest):
                        bad.append((row_id, blob, digest))
                        continue
                    found[keys[key]] = np.frombuffer(blob, dtype="<f4")
                    if used < now - TOUCH_SECONDS:
                        stale.append(key)
            if stale or bad:
                self._tidy(db, model, stale, bad, now)
        if bad:
            n = len(bad)
            what = f"{n:,} vectors" if n > 1 else "1 vector"
            they = "their check" if n > 1 else "its check"
            warnings.warn(
                f"{what} in the embedding cache {self.path} failed {they} (damaged, or stored "
                "under another text or model); dropped, and embedded again",
                StoreWarning,
                stacklevel=2,
            )
        return found

    def _tidy(
        self,
        db: sqlite3.Connection,
        model: str,
        stale: list[bytes],
        bad: list[tuple[int, object, object]],
        now: float,
    ) -> None:
        """Mark rows used and delete the ``bad`` ones (as read: a row another process has since
        written again is kept), if the write lock comes within :data:`TOUCH_WAIT`. A read is
        never held up long by another process's write: the rows are marked at a later read, and
        a bad row is replaced when its text's new vector is written."""
        db.execute(f"PRAGMA busy_timeout = {int(TOUCH_WAIT * 1000)}")
        try:
            with self._write(db):
                for i in range(0, len(stale), _BATCH):
                    batch = stale[i : i + _BATCH]
                    marks = ",".join("?" * len(batch))
                    db.execute(
                        f"UPDATE vectors SET used = ? WHERE model = ? AND key IN ({marks})",
                        (now, model, *batch),
                    )
                db.executemany(
                    "DELETE FROM vectors WHERE id = ? AND vector IS ? AND digest IS ?", bad
                )
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Keep ``vectors`` (text → vector) for ``model``, then drop the least recently used rows
        while the store is over its cap."""
        import numpy as np

        now = self.clock()
        rows = []
        for text, v in vectors.items():
            arr = np.ascontiguousarray(v, dtype="<f4").reshape(-1)
            key, dim, blob = text_key(text), int(arr.shape[0]), arr.tobytes()
            rows.append((model, key, dim, blob, row_digest(model, key, dim, blob), now))
        if not rows:
            return
        with self._errors("write"):
            db = self._db()
            with self._write(db):
                db.executemany(
                    "INSERT INTO vectors (model, key, dim, vector, digest, used) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model, key) DO UPDATE SET "
                    "dim = excluded.dim, vector = excluded.vector, digest = excluded.digest, "
                    "used = excluded.used",
                    rows,
                )
                self._evict(db)

    def _evict(self, db: sqlite3.Connection) -> None:
        """Within the caller's transaction: oldest rows first until the total fits the cap."""
        (total,) = db.execute("SELECT bytes FROM totals").fetchone()
        while total > self.max_bytes:
            oldest = db.execute(
                "SELECT id, length(vector) FROM vectors ORDER BY used, id LIMIT ?", (_BATCH,)
            ).fetchall()
            if not oldest:
                break
            drop = []
            for row_id, size in oldest:
                if total <= self.max_bytes:
                    break
                drop.append((row_id,))
                total -= size + ROW_OVERHEAD
            db.executemany("DELETE FROM vectors WHERE id = ?", drop)

    # ----------------------------------------------------------------------- upkeep

    def stats(self) -> StoreStats:
        with self._errors("read"):
            db = self._db()
            rows, counted = db.execute("SELECT rows, bytes FROM totals").fetchone()
            models = db.execute(
                "SELECT model, COUNT(*) AS n FROM vectors GROUP BY model ORDER BY n DESC, model"
            ).fetchall()
        on_disk = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                on_disk += os.path.getsize(f"{self.path}{suffix}")
        return StoreStats(
            self.path, rows, counted, self.max_bytes, on_disk, tuple((m, n) for m, n in models)
        )

    def clear(self) -> int:
        """Drop every row (the file shrinks too); returns how many there were."""
        with self._errors("write"):
            db = self._db()
            with self._write(db):
                (rows,) = db.execute("SELECT rows FROM totals").fetchone()
                db.execute("DELETE FROM vectors")
                db.execute("UPDATE totals SET rows = 0, bytes = 0")
            self._shrink(db)
        return int(rows)

    def _shrink(self, db: sqlite3.Connection) -> None:
        """Give an emptied file's space back, when no one else is using it (else it stays, and
        is filled again as rows are written)."""
        db.execute("PRAGMA busy_timeout = 2000")
        with contextlib.suppress(sqlite3.OperationalError):  # busy: another session reads
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")

    @staticmethod
    def remove(folder: str | Path) -> bool:
        """Delete the store's files in ``folder`` whatever they hold (for a damaged file);
        returns whether there was one."""
        path = Path(folder).expanduser() / FILENAME
        there = path.exists()
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{path}{suffix}")
        return there

    def close(self) -> None:
        """Close every connection this store opened (in any thread)."""
        with self._all_lock:
            for db in self._all:
                with contextlib.suppress(sqlite3.Error):
                    db.close()
            self._all.clear()
        self._local = threading.local()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.folder)!r}, max_bytes={self.max_bytes})"

    # ----------------------------------------------------------------------- connections

    def _db(self) -> sqlite3.Connection:
        here = getattr(self._local, "db", None)
        if here is None or self._local.pid != os.getpid():
            return self._connect()
        db: sqlite3.Connection = here
        return db

    def _connect(self) -> sqlite3.Connection:
        """A connection of this thread's, the file made or checked. Two processes making one new
        file at once both turn it to WAL, and SQLite refuses one of them at once ("database is
        locked", without waiting: each holds what the other needs); that one tries again, within
        :attr:`timeout`."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                db = sqlite3.connect(
                    self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
                )
            except sqlite3.Error as exc:
                raise self._unusable(exc) from None
            try:
                dropped = self._open(db)
                break
            except sqlite3.Error as exc:
                db.close()  # rolls back a schema left half-made
                if "locked" in str(exc) and time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                raise self._unusable(exc) from None
            except BaseException:
                db.close()
                raise
        self._local.db, self._local.pid = db, os.getpid()
        with self._all_lock:
            self._all.append(db)
        if dropped:
            warnings.warn(
                f"the embedding cache {self.path} was in an older format, without a check on "
                f"each vector; its {dropped:,} vectors were dropped and are embedded again as "
                "they are needed",
                StoreWarning,
                stacklevel=3,
            )
        return db

    def _open(self, db: sqlite3.Connection) -> int:
        """Set ``db`` up and check the file's format (made when new, made again when older);
        returns how many rows an older file held (dropped)."""
        db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA:
            raise EmbeddingError(
                f"the embedding cache {self.path} was written by a newer chunk-explorer "
                f"(format {version}); upgrade, or give another --cache-dir"
            )
        if version == 0:  # before anything is written (and before WAL, which fixes it)
            db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        db.execute("PRAGMA journal_mode = WAL")  # stays as it was where WAL cannot work
        db.execute("PRAGMA synchronous = NORMAL")  # safe in WAL; a cache needs no more
        db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
        dropped = self._make(db) if version < SCHEMA else 0
        db.execute("SELECT rows, bytes FROM totals").fetchone()
        db.execute("SELECT model, key, dim, vector, digest, used FROM vectors LIMIT 1").fetchall()
        if dropped:
            self._shrink(db)
        return dropped

    def _make(self, db: sqlite3.Connection) -> int:
        """Make the tables of a new file, or make again those of a file in an older format;
        returns how many rows the older file held. They are dropped, not given a check: they
        were written without one, so nothing vouches that they are still what was written.

        Under the write lock, with the format read again: a file another process made or made
        again while this one waited is left as it is."""
        with self._write(db):
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if version >= SCHEMA:
                return 0
            dropped = 0
            if version > 0:  # a store of an older format (a file of another program fails here)
                (dropped,) = db.execute("SELECT rows FROM totals").fetchone()
                db.execute("SELECT model, key, dim, vector, used FROM vectors LIMIT 1").fetchall()
                db.execute("DROP TABLE vectors")  # with its index and triggers
                db.execute("DROP TABLE totals")
            for statement in _SCHEMA_SQL:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA}")
        return int(dropped)

    @contextlib.contextmanager
    def _write(self, db: sqlite3.Connection) -> Iterator[None]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``), so that two writers wait
        for each other (up to the timeout) instead of failing half-way."""
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextlib.contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise EmbeddingError(
                    f"the embedding cache {self.path} stayed locked by another process for "
                    f"{self.timeout:g} s ({what}); try again, or give another --cache-dir"
                ) from None
            raise self._unusable(exc) from None
        except sqlite3.Error as exc:
            raise self._unusable(exc) from None

    def _unusable(self, exc: sqlite3.Error) -> EmbeddingError:
        text = str(exc)
        if "not a database" in text or "malformed" in text or "no such" in text:
            return EmbeddingError(
                f"the embedding cache {self.path} is damaged or is not a cache ({text}); empty "
                "it with `python -m explorer cache --clear` (it is rebuilt as you go)"
            )
        return EmbeddingError(
            f"cannot use the embedding cache {self.path} ({text}); give a folder you can write "
            f"with --cache-dir or {ENV}, or set {ENV}=off"
        )
