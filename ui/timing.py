"""How long the app's parts take, written to a file when ``CHUNK_EXPLORER_TIMINGS`` names one
(for ``benchmarks/bench_app`` and ``benchmarks/bench_load``): one line per part, tab-separated —
its name, milliseconds, the session's id, how deep it ran in another timed part (0: the
outermost, such as a whole rerun; a fragment's rerun is a part at depth 0 too), when it ended
(Unix time, seconds) and the milliseconds of processor time its thread spent in it (the rest of
its time the thread waited: for the interpreter's lock other sessions' threads held, for the
processor, for another thread's work).

``app.py`` times each rerun as ``rerun``; the document panel (a fragment) as ``document panel``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "CHUNK_EXPLORER_TIMINGS"
_depth = threading.local()
_write = threading.Lock()


def _session() -> str:
    """The running session's id (``-`` outside a session, as in a bare script)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else "-"


@contextmanager
def timed(part: str) -> Iterator[None]:
    """Time the block (nothing is measured or written unless :data:`ENV` is set). A block that
    ends by ``st.rerun()`` or ``st.stop()`` is timed too."""
    path = os.environ.get(ENV)
    if not path:
        yield
        return
    depth = getattr(_depth, "n", 0)
    _depth.n = depth + 1
    start, cpu = time.perf_counter(), time.thread_time()
    try:
        yield
    finally:
        took = (time.perf_counter() - start) * 1000
        spent = (time.thread_time() - cpu) * 1000
        _depth.n = depth
        line = f"{part}\t{took:.1f}\t{_session()}\t{depth}\t{time.time():.3f}\t{spent:.1f}\n"
        with _write, open(path, "a", encoding="utf-8") as f:
            f.write(line)
