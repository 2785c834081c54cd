"""What the lasting embedding index's row check costs: ``python -m benchmarks.bench_store``.

Each run writes ``--vectors`` vectors of 384 dimensions (as all-MiniLM-L6-v2 gives) into a new
store in a temporary folder, in batches of 32 (as :class:`~explorer.retrieval.embeddings.Embedder`
writes them, one transaction a batch), then opens the store again (a new connection, as the next
session does) and reads them back, all in one call (as an ``eval`` over a stored corpus does) and
in calls of 32 (as the app's pages ask). The rows were just written, so a read marks none of them
used: a read is reads and checks only. Figures are microseconds per vector, median (min–max) over
``--repeat`` runs, as wall time and as the process's CPU time (user + system: less shaken by
other work on the machine). Each run is its own process, the contenders taking turns so that a
busy moment of the machine hits all of them.

The contenders: this checkout; this checkout with the check turned off (no digest computed on a
write, none compared on a read: the check's own cost, the rest of the code the same); and, with
``--base DIR``, another checkout (e.g. the commit before the check: its store as it was). The last
column is the check alone: :func:`~explorer.retrieval.store.row_digest` over one row.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ONE_RUN = """
import json, sys, tempfile, time
import numpy as np
import explorer.retrieval.store as store_module
from explorer.retrieval.store import Store

n, check, where = int(sys.argv[1]), sys.argv[2] == "on", sys.argv[3] or None
if not check:  # the check turned off: no digest made, only the length compared
    store_module.row_digest = lambda model, key, dim, vector: b""
    store_module._sound = lambda model, key, dim, blob, digest: len(blob) == 4 * dim
rng = np.random.default_rng(0)
texts = [f"passage {i} of the benchmark" for i in range(n)]
vectors = {t: v for t, v in zip(texts, rng.standard_normal((n, 384)).astype(np.float32))}
model = "all-MiniLM-L6-v2"
out = {}

class timed:
    def __init__(self, name):
        self.name = name
    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
    def __exit__(self, *exc):
        out["wall " + self.name] = (time.perf_counter() - self.wall) / n * 1e6
        out["cpu " + self.name] = (time.process_time() - self.cpu) / n * 1e6

with tempfile.TemporaryDirectory(prefix="bench-store-", dir=where) as folder:
    with Store(folder) as store, timed("write"):
        for i in range(0, n, 32):
            store.put(model, {x: vectors[x] for x in texts[i : i + 32]})
    with Store(folder) as store:
        with timed("read all"):
            got = store.get(model, texts)
        assert len(got) == n
        with timed("read 32s"):
            for i in range(0, n, 32):
                store.get(model, texts[i : i + 32])
        out["file"] = store.stats().file_bytes / n
digest = getattr(store_module, "row_digest", None)
if digest is not None and check:
    key, blob = b"k" * 32, vectors[texts[0]].tobytes()
    with timed("digest"):
        for _ in range(n):
            digest(model, key, 384, blob)
print(json.dumps(out))
"""
"""One run, in the checkout it is started in (its own modules): the figures as JSON."""

STEPS = ("write", "read all", "read 32s", "digest")


def one_run(root: Path, n: int, check: bool, where: str) -> dict[str, float]:
    res = subprocess.run(
        [sys.executable, "-c", ONE_RUN, str(n), "on" if check else "off", where],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(res.stdout.splitlines()[-1])
    return figures


def cell(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_store", description=__doc__)
    parser.add_argument("--vectors", type=int, default=20_000, help="vectors per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs per contender")
    parser.add_argument("--base", type=Path, help="another checkout to time beside this one")
    parser.add_argument(
        "--tmp", default="", help="where the stores are made (default: the system's temporary "
        "folder; /dev/shm takes the disk out of the figures)"
    )  # fmt: skip
    args = parser.parse_args(argv)

    contenders = [("this checkout", REPO, True), ("this checkout, check off", REPO, False)]
    if args.base is not None:
        contenders.append((f"base ({args.base})", args.base.resolve(), True))
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in contenders}
    for _ in range(args.repeat):
        for label, root, check in contenders:
            runs[label].append(one_run(root, args.vectors, check, args.tmp))

    print(
        f"{args.vectors:,} vectors of 384 dimensions in {args.tmp or tempfile.gettempdir()}; "
        f"µs per vector, median (min–max) of {args.repeat} runs"
    )
    for clock in ("wall", "cpu"):
        print(f"\n{clock + ' time':<28}" + "".join(f"{s:>22}" for s in STEPS))
        for label, figures in runs.items():
            cells = [
                cell([r[f"{clock} {s}"] for r in figures if f"{clock} {s}" in r]) for s in STEPS
            ]
            print(f"{label:<28}" + "".join(f"{c:>22}" for c in cells))
    sizes = {
        label: statistics.median(r["file"] for r in figures) for label, figures in runs.items()
    }
    print("\nfile bytes per vector: " + ", ".join(f"{k} {v:,.0f}" for k, v in sizes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
