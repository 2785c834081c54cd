"""How a corpus scales: ``python -m benchmarks.bench_corpus``.

Builds corpora of 1, 10, 100 and 1,000 documents from the sections of the shared corpus and the
benchmark texts (``queries/docs``: every Markdown section, long ones cut at paragraphs into
parts of about :data:`PART_CHARS` characters; when more documents are asked for than there are
parts, a part is reused under a first line of its own, so every document's bytes differ), and
measures, for each size, in a fresh process:

* load: bytes to :class:`~explorer.documents.Document`;
* chunk: every document's retriever (the default structure splitter, 256/64 tokens);
* embed: the dense vectors of every document's passages, *cold* (an empty lasting index; the
  model's loading timed apart) and *warm* (a second process on the same index);
* index: the corpus (BM25 over all chunks, built on the first question);
* query: latency of :meth:`explorer.corpus.Corpus.answer` at a 1,024-token budget, p50 and p95
  over 24 questions new to the run (each embeds its question);
* peak memory: the process's maximum resident set size.

A reused part has the passages of the part it repeats, so its vectors are not embedded again:
the embed column also gives the distinct passages embedded. Where a cold run would take longer
than ``--max-cold`` seconds (estimated from the rate the smaller cold runs measured), it is not
run, and the table gives the estimate instead.

Writes the table and a plotly figure (its JSON, and a PNG drawn by Chromium) with
``--write`` into BENCHMARKS.md's "Corpus scaling" section.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SOURCES = REPO / "queries" / "docs"
SIZES = (1, 10, 100, 1000)
PART_CHARS = 6000
QUESTIONS = [
    "How long do I have to ask for a refund?",
    "What is the penalty for late filing?",
    "Which dependencies can be specified with a git URL?",
    "How do I report a security vulnerability?",
    "What does the container do when it exits?",
    "Who may request a Medicare record?",
    "What are the rates of withholding?",
    "What did the president say about the economy?",
    "Which proteins were measured in the study?",
    "What was the revenue in the last quarter?",
    "How is the high performance computing system protected?",
    "What torque applies to the bolts?",
]


def parts() -> list[tuple[str, str]]:
    """``(title, markdown)`` parts of every Markdown document of the benchmark texts: its
    paragraphs in order, cut into parts of at least :data:`PART_CHARS` characters."""
    out: list[tuple[str, str]] = []
    for path in sorted(SOURCES.glob("*.md")):
        chunk: list[str] = []
        size = 0
        for p in path.read_text(encoding="utf-8").split("\n\n"):
            chunk.append(p)
            size += len(p) + 2
            if size >= PART_CHARS:
                out.append((f"{path.stem} part {len(out)}", "\n\n".join(chunk)))
                chunk, size = [], 0
        if "".join(chunk).strip():
            out.append((f"{path.stem} part {len(out)}", "\n\n".join(chunk)))
    return out


def corpus_bytes(n: int) -> list[tuple[str, bytes]]:
    pool = parts()
    docs = []
    for i in range(n):
        title, text = pool[i % len(pool)]
        if i >= len(pool):  # reused: a first line of its own, so the bytes differ
            text = f"Copy {i // len(pool)} of {title}.\n\n{text}"
        docs.append((f"doc-{i:04d}.md", text.encode("utf-8")))
    return docs


def measure(n: int, store_dir: str, run: str) -> dict[str, Any]:
    """One size in this process: the timings and the peak memory."""
    from explorer.answer import answer
    from explorer.config import Config
    from explorer.retrieval.embeddings import using_store
    from explorer.retrieval.store import open_store
    from explorer.workspace import Workspace

    config = Config()
    out: dict[str, Any] = {"documents": n}
    raw = corpus_bytes(n)
    ws = Workspace()
    t = time.perf_counter()
    docs = [ws.load(data, name=name) for name, data in raw]
    out["load_s"] = time.perf_counter() - t
    out["chars"] = sum(len(d.text) for d in docs)
    store = open_store(store_dir)
    with using_store(store):
        emb = ws.embedder(config.model)
        t = time.perf_counter()
        retrievers = {d.name: ws.retriever(d, config) for d in docs}
        out["chunk_s"] = time.perf_counter() - t
        out["chunks"] = sum(len(r.chunks) for r in retrievers.values())
        texts = [t for r in retrievers.values() for t in r.index.dense_texts]
        out["passages"] = len(texts)
        t = time.perf_counter()
        emb.prefetch(texts)
        todo = len({x for x in texts if not emb.cached(x)})
        out["model_s"] = 0.0
        if todo:  # loading the model is timed apart from embedding
            m = time.perf_counter()
            emb.model  # noqa: B018
            out["model_s"] = time.perf_counter() - m
        t = time.perf_counter()
        for r in retrievers.values():
            r.index.vectors()
        out["embed_s"] = time.perf_counter() - t
        out["embedded"] = todo
        t = time.perf_counter()
        corpus = ws.corpus(config, docs)
        corpus.rank("warm up the index")  # builds BM25 over every chunk
        out["index_s"] = time.perf_counter() - t
        emb.model  # noqa: B018 - questions are new to every run: the model embeds them
        answer(corpus, "a first question, not timed", budget=1024, k=None)
        lat: list[float] = []
        for q in QUESTIONS * 2:
            t = time.perf_counter()
            answer(corpus, f"{q} ({run}, {len(lat)})", budget=1024, k=None)
            lat.append(time.perf_counter() - t)
        lat.sort()
        out["query_p50_ms"] = 1000 * statistics.median(lat)
        out["query_p95_ms"] = 1000 * lat[int(0.95 * (len(lat) - 1))]
    if store is not None:
        store.close()
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_size(n: int, store_dir: str, run: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.bench_corpus", "--one", str(n)]
    res = subprocess.run(
        [*command, "--store", store_dir, "--run", run],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    row: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| documents | run | characters | chunks | passages (embedded) | load s | chunk s "
        "| model s | embed s | index s | query p50 / p95 ms | peak MB |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    lines = []
    for r in rows:
        if r.get("estimated"):
            lines.append(
                f"| {r['documents']:,} | cold (estimated) | {r['chars']:,} | – "
                f"| {r['passages']:,} ({r['embedded']:,}) | – | – | – | ≈ {r['embed_s']:,.0f} "
                "| – | – | – |"
            )
            continue
        lines.append(
            f"| {r['documents']:,} | {r['run']} | {r['chars']:,} | {r['chunks']:,} "
            f"| {r['passages']:,} ({r['embedded']:,}) | {r['load_s']:.2f} | {r['chunk_s']:.2f} "
            f"| {r['model_s']:.1f} | {r['embed_s']:.1f} | {r['index_s']:.2f} "
            f"| {r['query_p50_ms']:.0f} / {r['query_p95_ms']:.0f} | {r['peak_mb']:,.0f} |"
        )
    return head + "\n".join(lines) + "\n"


def figure(rows: list[dict[str, Any]]) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    for run in ("cold", "warm"):
        got = [r for r in rows if r.get("run") == run]
        for key, label in (("embed_s", "embed s"), ("chunk_s", "chunk s")):
            fig.add_trace(
                go.Scatter(
                    x=[r["documents"] for r in got],
                    y=[max(r[key], 1e-3) for r in got],
                    name=f"{label}, {run}",
                    mode="lines+markers",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=[r["documents"] for r in got],
                y=[r["query_p50_ms"] / 1000 for r in got],
                name=f"query p50 s, {run}",
                mode="lines+markers",
            )
        )
    fig.update_layout(
        title="Corpus scaling (default configuration, 2 cores)",
        xaxis={"type": "log", "title": "documents"},
        yaxis={"type": "log", "title": "seconds"},
    )
    return fig


def draw_png(fig: Any, path: Path, *, width: int = 900, height: int = 500) -> None:
    """The figure as a PNG, drawn by the Chromium the browser tests use (kaleido is not part of
    the install)."""
    from playwright.sync_api import sync_playwright

    fig.update_layout(width=width, height=height)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "figure.html"
        fig.write_html(html, include_plotlyjs=True, full_html=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--headless", "--no-sandbox", "--disable-gpu"],
            )
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(html.as_uri())
            page.wait_for_selector(".main-svg")
            page.screenshot(path=str(path))
            browser.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_corpus", description=__doc__)
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    p.add_argument("--store", help=argparse.SUPPRESS)
    p.add_argument("--run", default="cold", help=argparse.SUPPRESS)
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--max-cold", type=float, default=600, help="seconds (default 600)")
    p.add_argument("--write", action="store_true", help="write the section into BENCHMARKS.md")
    args = p.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, args.store, args.run)))
        return 0
    rows: list[dict[str, Any]] = []
    rate = None  # seconds per distinct passage, from the last cold run
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="bench-corpus-") as store:
            sample = corpus_bytes(n)
            chars = sum(len(d) for _, d in sample)
            if rate is not None and rows:
                last = next(r for r in reversed(rows) if r.get("run") == "cold")
                guess = last["embedded"] * chars / max(last["chars"], 1)
                distinct = min(
                    guess,
                    sum(len(t) for _, t in parts()) * last["embedded"] / max(last["chars"], 1),
                )
                if distinct * rate > args.max_cold:
                    rows.append(
                        {
                            "documents": n,
                            "estimated": True,
                            "chars": chars,
                            "passages": int(guess),
                            "embedded": int(distinct),
                            "embed_s": distinct * rate,
                        }
                    )
                    print(json.dumps(rows[-1]), file=sys.stderr)
                    continue
            for run in ("cold", "warm"):
                row = run_size(n, store, run)
                row["run"] = run
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
            cold = rows[-2]
            if cold["embedded"]:
                rate = cold["embed_s"] / cold["embedded"]
    text = table(rows)
    print(text)
    if args.write:
        fig = figure(rows)
        out = REPO / "benchmarks" / "corpus_scaling"
        out.mkdir(exist_ok=True)
        (out / "figure.json").write_text(fig.to_json(), encoding="utf-8")
        image = ""
        try:
            draw_png(fig, out / "figure.png")
            image = "\n![Corpus scaling](benchmarks/corpus_scaling/figure.png)\n"
        except Exception as exc:  # no Chromium: the JSON is written
            why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            image = f"\nThe figure: `benchmarks/corpus_scaling/figure.json` (no PNG: {why})\n"
        write_section(text + image)
    return 0


def write_section(body: str) -> None:
    path = REPO / "BENCHMARKS.md"
    text = path.read_text(encoding="utf-8")
    head = "## Corpus scaling"
    section = (
        f"{head}\n\n`python -m benchmarks.bench_corpus --write` (the default configuration, "
        "hybrid, on 2 cores; see the script's docstring for how the corpora are built):\n\n"
        f"{body}"
    )
    if head in text:
        before, rest = text.split(head, 1)
        after = rest.split("\n## ", 1)
        text = before + section + ("\n## " + after[1] if len(after) > 1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
