"""The lasting embedding index on the command line: the store a command's embedders use while it
runs (the one place the command line chooses it), the count of what a command embedded, and
``python -m explorer cache`` (its size, or empty it)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from explorer.cli.options import Subparsers, cache_options
from explorer.config import Config
from explorer.errors import EmbeddingError
from explorer.workspace import Workspace


@contextlib.contextmanager
def lasting_index(args: argparse.Namespace, config: Config) -> Iterator[None]:
    """The shared embedders use the store the options choose while the command runs. A store
    named by ``--cache-dir`` that cannot be used is an error; the default one, a warning."""
    from explorer.retrieval.store import open_store
    from explorer.workspace import shared_workspace

    store = None
    if config.needs_model and not args.no_cache:
        try:
            store = open_store(args.cache_dir)
        except EmbeddingError as exc:
            if args.cache_dir is not None:
                raise
            print(f"warning: {exc}; embeddings are kept in memory for this run", file=sys.stderr)
    try:
        with shared_workspace().using_store(store):
            yield
    finally:
        if store is not None:
            store.close()


@contextlib.contextmanager
def embedding_count(config: Config) -> Iterator[None]:
    """Say on stderr how many texts the command embedded, and how many came from the store."""
    if not config.needs_model:
        yield
        return
    emb = Workspace().embedder(config.model)
    encoded, stored = emb.encoded, emb.from_store
    yield
    new, hits = emb.encoded - encoded, emb.from_store - stored
    where = f"{hits:,} from the cache in {emb.store.folder}" if emb.store else "no cache"
    print(f"embedded {new:,} new texts ({where})", file=sys.stderr)


def add_cache(sub: Subparsers) -> None:
    cache = sub.add_parser("cache", help="the lasting embedding index: its size, or empty it")
    what = cache.add_mutually_exclusive_group(required=True)
    what.add_argument("--stats", action="store_true", help="print where it is and what it holds")
    what.add_argument("--clear", action="store_true", help="empty it (a damaged file is removed)")
    cache.add_argument("--json", action="store_true", help="--stats as one JSON object")
    cache_options(cache, switch=False)


def run_cache(args: argparse.Namespace, out: TextIO) -> int:
    from explorer.retrieval.store import Store, cache_dir, open_store

    folder = Path(args.cache_dir) if args.cache_dir is not None else cache_dir()
    if folder is None:
        raise EmbeddingError(
            "the lasting embedding index is turned off (CHUNK_EXPLORER_CACHE=off); give "
            "--cache-dir DIR to look at one"
        )
    try:
        store = open_store(folder)
    except EmbeddingError:
        if not args.clear:
            raise
        Store.remove(folder)  # damaged beyond reading: start again
        out.write(f"removed the damaged embedding cache in {folder}\n")
        return 0
    assert store is not None
    with store:
        if args.clear:
            rows = store.clear()
            out.write(f"emptied the embedding cache in {folder}: {rows:,} vectors removed\n")
            return 0
        st = store.stats()
    if args.json:
        out.write(json.dumps(st.to_json(), ensure_ascii=False) + "\n")
        return 0
    models = ", ".join(f"{m} ({n:,})" for m, n in st.models) or "none"
    out.write(
        f"{st.path}\n{st.rows:,} vectors, {st.bytes / 1e6:,.1f} MB of "
        f"{st.max_bytes / 1e6:,.1f} MB (the file: {st.file_bytes / 1e6:,.1f} MB)\n"
        f"models: {models}\n"
    )
    return 0
