"""The index on one process against Ray Data with one and two workers, and an ANN index's recall.

    python -m benchmarks.bench_ray [--docs DIR] [--runs N] [--ann N]

1. ``explorer index DIR`` (the single process) against ``--engine ray --workers 1`` and
   ``--workers 2``, each run as a whole command on an empty lasting index (so every passage is
   embedded), A B C A B C …: wall time per run, medians side by side, the ratio to the single
   process, and the Ray run's own split (start-up, chunking as tasks, embedding, writing) from
   its ``--json`` summary.
2. With ``--ann N`` (default 100,000): faiss's HNSW index (``faiss-cpu``, only for this
   benchmark) over N random unit 384-d vectors against exact numpy search: build time, query
   time per question and recall@10 over 200 questions.

The machine has two cores; say its load average beside the figures (it is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENGINES = {
    "local": [],
    "ray, 1 worker": ["--engine", "ray", "--workers", "1"],
    "ray, 2 workers": ["--engine", "ray", "--workers", "2"],
}


def index_once(docs: Path, extra: list[str]) -> tuple[float, dict[str, object]]:
    with tempfile.TemporaryDirectory() as cache:
        command = [sys.executable, "-m", "explorer", "index", str(docs), "--json"]
        command += ["--cache-dir", cache, *extra]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout.strip().splitlines()[-1])


SPLIT = ("start_seconds", "chunk_seconds", "embedding_seconds", "write_seconds")


def engines(docs: Path, runs: int) -> None:
    times: dict[str, list[float]] = {name: [] for name in ENGINES}
    summaries: dict[str, list[dict[str, object]]] = {name: [] for name in ENGINES}
    load_before = os.getloadavg()
    for _ in range(runs):
        for name, extra in ENGINES.items():
            seconds, summary = index_once(docs, extra)
            times[name].append(seconds)
            summaries[name].append(summary)
    load_after = os.getloadavg()
    base = statistics.median(times["local"])
    print(f"index of {docs} on an empty lasting index, {runs} runs each (A B C …)")
    print(
        f"load average (1, 5, 15 min) before: {', '.join(f'{x:.1f}' for x in load_before)}; "
        f"after: {', '.join(f'{x:.1f}' for x in load_after)}"
    )
    print(f"{'engine':<16}{'median s':>10}{'min':>8}{'max':>8}{'× local':>9}  embedded")
    for name, ts in times.items():
        m = statistics.median(ts)
        embedded = summaries[name][-1].get("embedded", "?")
        print(f"{name:<16}{m:>10.1f}{min(ts):>8.1f}{max(ts):>8.1f}{m / base:>9.2f}  {embedded}")
    print("the Ray runs' own split, median (min–max) seconds over the runs:")
    for name in ENGINES:
        if name == "local":
            continue
        parts = []
        for key in SPLIT:
            values = [float(str(s[key])) for s in summaries[name] if key in s]
            if values:
                parts.append(
                    f"{key.removesuffix('_seconds')} {statistics.median(values):.3f} "
                    f"({min(values):.3f}–{max(values):.3f})"
                )
        print(f"  {name}: {'; '.join(parts)}")


def ann(n: int, dim: int = 384, questions: int = 200, k: int = 10) -> None:
    import numpy as np

    try:
        import faiss  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        print("ANN: faiss-cpu is not installed (pip install faiss-cpu; only for this benchmark)")
        return
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((n, dim)).astype(np.float32)
    xs /= np.linalg.norm(xs, axis=1, keepdims=True)
    qs = rng.standard_normal((questions, dim)).astype(np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    start = time.perf_counter()
    exact = np.argsort(-(qs @ xs.T), axis=1)[:, :k]
    exact_s = (time.perf_counter() - start) / questions
    print(f"ANN over {n:,} random unit {dim}-d vectors, {questions} questions, recall@{k}")
    print(f"exact numpy: {exact_s * 1000:.2f} ms a question (all questions as one product)")
    for m, ef_search in ((32, 64), (32, 128), (32, 256)):
        index = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        start = time.perf_counter()
        index.add(xs)
        build = time.perf_counter() - start
        index.hnsw.efSearch = ef_search
        start = time.perf_counter()
        for q in qs:
            _, found = index.search(q[None, :], k)
        one_s = (time.perf_counter() - start) / questions
        _, found = index.search(qs, k)
        recall = np.mean([len(set(f) & set(e)) / k for f, e in zip(found, exact, strict=True)])
        print(
            f"faiss HNSW M={m} efSearch={ef_search}: build {build:.1f} s, "
            f"{one_s * 1000:.2f} ms a question, recall@{k} {recall:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=REPO / "sample_docs")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ann", type=int, default=100_000, help="0 leaves the ANN part out")
    parser.add_argument("--no-engines", action="store_true")
    args = parser.parse_args()
    if not args.no_engines:
        engines(args.docs, args.runs)
    if args.ann:
        ann(args.ann)


if __name__ == "__main__":
    main()
