"""How true the embedding bar's time left is, all the way through a cold run (issue 37):
``python -m benchmarks.bench_estimate [--record] [--sets site undici npm]``.

``--record`` embeds each set cold once (a fresh lasting index in a temporary folder, the
recommended configuration's dense texts, :meth:`Workspace.prepare` as the app runs it) and keeps
its trace: the time of every progress step with the texts done, and the lengths of the texts in
the order they were embedded (``~/.cache/chunk-explorer-bench/estimate-SET.json``). Without it,
the traces kept are read. Each trace is then replayed through the bar's own estimate
(:func:`explorer.preparing.embedding_rate`'s :class:`~explorer.progress.Rate`, on the trace's
clock) and every step after the first 5% of the work is judged against the time really left to
the last text: the share of steps within 25%, the worst error (over all steps, and over those
with 5 s or more really left) and the error at each tenth of the work.

The sets: ``site`` (bench_site's 262 stylelint pages), ``undici`` and ``npm`` (the documents of
``queries/undici-docs`` and ``queries/npm-docs``). Replaying lets an estimator be changed and
judged on the same runs; a new estimator should be judged on a set it was not changed on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CACHE = Path.home() / ".cache" / "chunk-explorer-bench"
SETS = ("site", "undici", "npm")


def pages_of(which: str) -> list[tuple[str, str]]:
    if which == "site":
        from benchmarks.bench_site import site

        return site(CACHE / "site")
    root = ROOT / "queries" / f"{which}-docs"
    return [
        (p.relative_to(root).as_posix(), p.read_text("utf-8")) for p in sorted(root.rglob("*.md"))
    ]


def record(which: str) -> dict[str, Any]:
    """One cold embedding of the set, in this process, with a fresh lasting index."""
    with tempfile.TemporaryDirectory(prefix="bench-estimate-") as tmp:
        os.environ["CHUNK_EXPLORER_CACHE"] = tmp
        from benchmarks.bench_site import _workspace
        from explorer.config import Config
        from explorer.preparing import embedding_rate

        config = Config()
        ws, docs = _workspace(pages_of(which))
        names = list(docs)
        steps: list[tuple[float, str]] = []
        ws.prepare(names, config, lambda _f, m: steps.append((time.perf_counter(), m)))
        counted = [
            (t, int(g[1].replace(",", "")))
            for t, m in steps
            if m.startswith("embedding") and (g := re.search(r"([\d,]+) of ([\d,]+)", m))
        ]
        texts = [t for n in names for t in ws.retriever(n, config).dense_texts]

        class Cold:  # what the run saw: no text in memory yet
            model = None

            def cached(self, _text: str) -> bool:
                return False

        ordered, _ = embedding_rate(Cold(), texts)  # type: ignore[arg-type]
    return {"steps": counted, "lengths": [len(t) for t in ordered]}


def replay(trace: dict[str, Any]) -> list[tuple[float, float, float]]:
    """``(share of the work, time left shown, time really left)`` at each step after 5%."""
    from explorer.progress import Rate
    from explorer.retrieval.embeddings import BATCH, BATCH_COST, encoding_costs

    steps, lengths = trace["steps"], trace["lengths"]
    clock = [steps[0][0]]
    texts = ["x" * n for n in lengths]  # the costs read only the lengths
    rate = Rate(len(texts), work=encoding_costs(texts), batch=BATCH, batch_cost=BATCH_COST,
                clock=lambda: clock[0])  # fmt: skip
    end = steps[-1][0]
    out = []
    for t, done in steps[1:-1]:
        clock[0] = t
        share, left = rate.work_fraction(done), rate.left(done)
        if share >= 0.05 and left is not None and end - t > 0:
            out.append((share, left, end - t))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="embed each set cold first")
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    args = parser.parse_args()
    for which in args.sets:
        path = CACHE / f"estimate-{which}.json"
        if args.record or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record(which)), encoding="utf-8")
        trace = json.loads(path.read_text(encoding="utf-8"))
        points = replay(trace)
        errors = [(s, abs(shown - truth) / truth, truth) for s, shown, truth in points]
        within = sum(e <= 0.25 for _, e, _ in errors) / max(len(errors), 1)
        judged = [e for _, e, truth in errors if truth >= 2.0]  # the bar's last seconds apart
        within_2s = sum(e <= 0.25 for e in judged) / max(len(judged), 1)
        worst = max(errors, key=lambda x: x[1])
        long = max((x for x in errors if x[2] >= 5.0), key=lambda x: x[1], default=None)
        run = trace["steps"][-1][0] - trace["steps"][0][0]
        print(f"{which}: {len(trace['lengths']):,} texts in {run:.1f} s; {len(errors)} steps after "
              f"5%: {within:.0%} within 25% ({within_2s:.0%} of those with ≥ 2 s left); "
              f"worst {worst[1]:.0%} at {worst[0]:.1%} of the work "
              f"({worst[2]:.1f} s left)" + (f"; worst with ≥ 5 s left {long[1]:.0%} at "
              f"{long[0]:.1%}" if long else ""))  # fmt: skip
        tenths = []
        for k in range(1, 10):
            near = min(points, key=lambda p: abs(p[0] - k / 10))
            tenths.append(f"{k * 10}% {near[1]:.1f}/{near[2]:.1f} s")
        print("  shown/really left at each tenth: " + ", ".join(tenths))


if __name__ == "__main__":
    main()
