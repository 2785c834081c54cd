"""How a corpus scales: ``python -m benchmarks.bench_corpus``.

Builds corpora of 1, 10, 100 and 1,000 documents (``--sizes``; 10,000 too) from the benchmark
texts (``queries/docs``: every Markdown document, cut at paragraphs into parts of about
:data:`PART_CHARS` characters). When more documents are asked for than there are parts, a part is
used again with a third of its words, drawn at random (seeded by the document's number), replaced
by words of all the benchmark texts, under a first line of its own: every document's text differs
and so do nearly all its passages (no text is reused; the embed column gives the distinct
passages). For each size, in a fresh process, it measures:

* load: bytes to :class:`~explorer.documents.Document`;
* chunk: every document's retriever (the default structure splitter, 256/64 tokens);
* embed: the dense vectors of every document's passages, *cold* (an empty lasting index; the
  model's loading timed apart) and *warm* (a second process on the same index);
* index: the corpus (BM25 over all chunks, built on the first question);
* query: latency of :func:`explorer.answer.answer` at a 1,024-token budget (``k=None``), p50 and
  p95 over 24 questions new to the run, each embedded first and timed apart, so the two
  latencies are with the question's embedding and without it ("rank");
* peak memory: the process's maximum resident set size.

With ``--random-vectors`` a passage not in the lasting index is not embedded: it gets a random
unit vector (seeded by its text), stored in the lasting index as the model's would be, so the
warm run reads it back — query latency, BM25, chunking and memory are measured as they are,
without the hours a cold embedding of tens of thousands of passages takes on these cores; the
questions are still embedded by the model. Without it, where a cold run would take longer than
``--max-cold`` seconds (estimated from the rate the smaller cold runs measured), it is not run,
and the table gives the estimate instead.

``--code DIR`` measures the library of another checkout (``DIR/explorer``, e.g. the commit this
one started from) on the same corpora, questions and options.

Writes the table and a plotly figure (its JSON, and a PNG drawn by Chromium) with
``--write`` into BENCHMARKS.md's "Corpus scaling" section.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
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


WORD = re.compile(r"[A-Za-z]{3,}")


def corpus_bytes(n: int) -> list[tuple[str, bytes]]:
    """``n`` documents' names and bytes, each text its own (see the module)."""
    pool = parts()
    words = sorted({w for _, text in pool for w in WORD.findall(text)})
    docs = []
    for i in range(n):
        title, text = pool[i % len(pool)]
        if i >= len(pool):  # a part again, a third of its words replaced
            rng = random.Random(i)

            def swap(m: re.Match[str], rng: random.Random = rng) -> str:
                return rng.choice(words) if rng.random() < 1 / 3 else m.group()

            text = f"Copy {i // len(pool)} of {title}.\n\n{WORD.sub(swap, text)}"
        docs.append((f"doc-{i:05d}.md", text.encode("utf-8")))
    return docs


def random_vectors(emb: Any, texts: list[str]) -> int:
    """Give each text the embedder has no vector for a random unit vector (seeded by the text),
    in memory and in the lasting index; returns how many."""
    import numpy as np

    todo = [t for t in dict.fromkeys(texts) if not emb.cached(t)]
    if not todo:
        return 0
    dim = emb.dimension
    for i in range(0, len(todo), 4096):
        fresh = {}
        for t in todo[i : i + 4096]:
            seed = int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogatepass")).digest()[:8])
            v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
            fresh[t] = v / np.linalg.norm(v)
        emb._cache.update(fresh)
        emb._to_store(fresh)
    return len(todo)


def measure(n: int, store_dir: str, run: str, *, fake: bool = False) -> dict[str, Any]:
    """One size in this process: the timings and the peak memory."""
    from explorer.answer import answer
    from explorer.config import Config
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
    with ws.using_store(store):
        emb = ws.embedder(config.model)
        t = time.perf_counter()
        retrievers = {d.name: ws.retriever(d, config) for d in docs}
        out["chunk_s"] = time.perf_counter() - t
        out["chunks"] = sum(len(r.chunks) for r in retrievers.values())
        texts = [t for r in retrievers.values() for t in r.dense_texts]
        out["passages"] = len(texts)
        # every passage's vector stays in memory while the corpus is made
        emb.max_entries = max(emb.max_entries, 2 * len(texts))
        t = time.perf_counter()
        emb.prefetch(texts)
        out["read_s"] = time.perf_counter() - t
        todo = len({x for x in texts if not emb.cached(x)})
        out["model_s"] = 0.0
        if todo:  # loading the model is timed apart from embedding (and random vectors)
            m = time.perf_counter()
            emb.model  # noqa: B018
            out["model_s"] = time.perf_counter() - m
        t = time.perf_counter()
        out["random"] = random_vectors(emb, texts) if fake else 0
        for r in retrievers.values():
            r.vectors()
        out["embed_s"] = time.perf_counter() - t
        out["embedded"] = todo
        t = time.perf_counter()
        corpus = ws.corpus(config, docs)
        warm = "warm up the index"
        corpus.rank(warm, ws.question_vector(warm, config))  # builds BM25 over every chunk
        out["index_s"] = time.perf_counter() - t
        emb.model  # noqa: B018 - questions are new to every run: the model embeds them
        first = "a first question, not timed"
        ranking = corpus.rank(first, ws.question_vector(first, config))
        answer(corpus, first, ranking=ranking, budget=1024, k=None)
        lat: list[float] = []
        ranked: list[float] = []
        for q in QUESTIONS * 2:
            question = f"{q} ({run}, {len(lat)})"
            t = time.perf_counter()
            vector = ws.question_vector(question, config)
            m = time.perf_counter()
            ranking = corpus.rank(question, vector)
            answer(corpus, question, ranking=ranking, budget=1024, k=None)
            done = time.perf_counter()
            lat.append(done - t)
            ranked.append(done - m)
        for key, got in (("query", lat), ("rank", ranked)):
            got.sort()
            out[f"{key}_p50_ms"] = 1000 * statistics.median(got)
            out[f"{key}_p95_ms"] = 1000 * got[int(0.95 * (len(got) - 1))]
    if store is not None:
        store.close()
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_size(
    n: int, store_dir: str, run: str, *, fake: bool = False, code: str | None = None
) -> dict[str, Any]:
    """One size in a fresh process (the library of ``code`` when given, else this checkout's)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one", str(n)]
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve() if code else REPO)}
    res = subprocess.run(
        [*command, "--store", store_dir, "--run", run, *(["--random-vectors"] if fake else [])],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env=env,
    )
    row: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| documents | run | characters | chunks | passages (embedded) | load s | chunk s "
        "| model s | embed s | index s | query p50 / p95 ms | rank p50 / p95 ms | peak MB |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    lines = []
    for r in rows:
        if r.get("estimated"):
            lines.append(
                f"| {r['documents']:,} | cold (estimated) | {r['chars']:,} | – "
                f"| {r['passages']:,} ({r['embedded']:,}) | – | – | – | ≈ {r['embed_s']:,.0f} "
                "| – | – | – | – |"
            )
            continue
        run = r["run"] + (f", {r['random']:,} random vectors" if r.get("random") else "")
        lines.append(
            f"| {r['documents']:,} | {run} | {r['chars']:,} | {r['chunks']:,} "
            f"| {r['passages']:,} ({r['embedded']:,}) | {r['load_s']:.2f} | {r['chunk_s']:.2f} "
            f"| {r['model_s']:.1f} | {r['embed_s']:.1f} | {r['index_s']:.2f} "
            f"| {r['query_p50_ms']:.0f} / {r['query_p95_ms']:.0f} "
            f"| {r['rank_p50_ms']:.0f} / {r['rank_p95_ms']:.0f} | {r['peak_mb']:,.0f} |"
        )
    return head + "\n".join(lines) + "\n"


def figure(rows: list[dict[str, Any]]) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    for run in ("cold", "warm"):
        got = [r for r in rows if r.get("run") == run]
        embed = "embed s" + (" (random vectors)" if any(r.get("random") for r in got) else "")
        for key, label in (("embed_s", embed), ("chunk_s", "chunk s")):
            fig.add_trace(
                go.Scatter(
                    x=[r["documents"] for r in got],
                    y=[max(r[key], 1e-3) for r in got],
                    name=f"{label}, {run}",
                    mode="lines+markers",
                )
            )
        for key, label in (("query", "query"), ("rank", "rank (question embedded)")):
            fig.add_trace(
                go.Scatter(
                    x=[r["documents"] for r in got],
                    y=[r[f"{key}_p50_ms"] / 1000 for r in got if f"{key}_p50_ms" in r],
                    name=f"{label} p50 s, {run}",
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
    p.add_argument(
        "--random-vectors",
        action="store_true",
        help="a random unit vector for each passage not in the lasting index (see above)",
    )
    p.add_argument("--code", help="measure the library of this checkout instead")
    p.add_argument("--json", help="also write the rows to this file")
    args = p.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, args.store, args.run, fake=args.random_vectors)))
        return 0
    rows: list[dict[str, Any]] = []
    rate = None  # seconds per distinct passage, from the last cold run
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="bench-corpus-") as store:
            sample = corpus_bytes(n)
            chars = sum(len(d) for _, d in sample)
            if rate is not None and rows and not args.random_vectors:
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
                row = run_size(n, store, run, fake=args.random_vectors, code=args.code)
                row["run"] = run
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
            cold = rows[-2]
            if cold["embedded"]:
                rate = cold["embed_s"] / cold["embedded"]
    text = table(rows)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
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
        write_section(text, image)
    return 0


def write_section(table_text: str, image: str, path: Path = REPO / "BENCHMARKS.md") -> None:
    """Put ``table_text`` in place of the first table of the "Corpus scaling" section, keeping
    everything written around it (the reading, the comparisons); without the section, append
    one with the table and ``image``."""
    text = path.read_text(encoding="utf-8")
    head = "## Corpus scaling"
    if head in text:
        before, rest = text.split(head, 1)
        lines = rest.split("\n")
        start = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
        if start is not None:
            end = start
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            lines[start:end] = table_text.strip("\n").split("\n")
            path.write_text(before + head + "\n".join(lines), encoding="utf-8")
            return
    section = (
        f"{head}\n\n`python -m benchmarks.bench_corpus --write` (the default configuration, "
        "hybrid, on 2 cores; see the script's docstring for how the corpora are built):\n\n"
        f"{table_text}{image}"
    )
    path.write_text(text.rstrip("\n") + "\n\n" + section, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
