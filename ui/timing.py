"""How long the app's parts take, written to a file when ``CHUNK_EXPLORER_TIMINGS`` names one
(for ``benchmarks/bench_app``): one line per part, its name and milliseconds, tab-separated."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "CHUNK_EXPLORER_TIMINGS"


@contextmanager
def timed(part: str) -> Iterator[None]:
    """Time the block (nothing is measured or written unless :data:`ENV` is set)."""
    path = os.environ.get(ENV)
    if not path:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{part}\t{(time.perf_counter() - start) * 1000:.1f}\n")
