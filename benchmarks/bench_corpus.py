"""How cost grows with the corpus: ``python -m benchmarks.bench_corpus``.

Builds corpora of 1, 10, 100 and 1,000 documents from the shared corpus and the Chroma
benchmark's texts (each source cut at blank lines into pieces of about 1,200 characters: a short
documentation page; every piece is distinct, Markdown stays Markdown) and measures,
with the default configuration (structure 256/64 tokens, hybrid, passages):

* **load**: reading every document from its bytes;
* **chunk**: splitting every document and finding its passages (:class:`explorer.Corpus`);
* **embed**: embedding every passage not in the lasting index (the model loaded beforehand, its
  load time reported apart);
* **index**: the first question, which builds the corpus-wide BM25 index and stacks the vectors;
* **query p50 / p95**: the answer path over the whole corpus (rank, context at k=5 and a 1,024
  token budget, evidence check) for 40 questions;
* **peak RSS** of the process.

Each corpus size runs twice in its own fresh process, both with one lasting index in a temporary
folder: *cold* (the index is empty) and *warm* (what the cold run stored). ``--sizes`` picks
sizes; ``--markdown`` prints the table for BENCHMARKS.md; ``--figure PATH`` writes the plotly
figure as a PNG (drawn by the Chromium the browser tests use) and its JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median, quantiles
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SOURCES = [SHARED / "corpus", SHARED / "benchmarks" / "chroma-chunking-eval" / "docs"]
PIECE = 1_200
"""Characters a document holds at least (cut at the next blank line)."""
SIZES = (1, 10, 100, 1_000)
QUESTIONS = 40
BUDGET = 1_024


# --------------------------------------------------------------------------- the documents


def pieces_of(text: str, *, size: int = PIECE) -> list[str]:
    """``text`` cut into pieces of at least ``size`` characters: at blank lines, or inside a
    paragraph longer than twice that, at line ends and then after full stops."""
    units: list[str] = []
    for para in text.split("\n\n"):
        if len(para) <= 2 * size:
            units.append(para)
            continue
        for line in para.split("\n"):
            units += [s + "." for s in line.split(". ")] if len(line) > 2 * size else [line]
    out: list[str] = []
    cur: list[str] = []
    length = 0
    for unit in units:
        cur.append(unit)
        length += len(unit) + 2
        if length >= size:
            out.append("\n\n".join(cur).strip())
            cur, length = [], 0
    if cur:
        out.append("\n\n".join(cur).strip())
    return [p for p in out if p]


def documents(count: int) -> list[tuple[str, bytes]]:
    """``count`` distinct documents (name, bytes), taken in turn from each source so a small
    corpus mixes them."""
    from explorer.documents.load import load_path

    per_source: list[list[tuple[str, bytes]]] = []
    for folder in SOURCES:
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() not in (".md", ".pdf") or path.name == "SOURCES.md":
                continue
            if path.suffix.lower() == ".md":
                text, suffix = path.read_text(encoding="utf-8"), ".md"
            else:
                text, suffix = load_path(path).text, ".txt"
            per_source.append(
                [
                    (f"{path.stem}-{n:04d}{suffix}", piece.encode("utf-8"))
                    for n, piece in enumerate(pieces_of(text))
                ]
            )
    out: list[tuple[str, bytes]] = []
    seen: set[bytes] = set()
    depth = 0
    while len(out) < count and any(depth < len(s) for s in per_source):
        for source in per_source:
            if depth < len(source) and len(out) < count and source[depth][1] not in seen:
                seen.add(source[depth][1])
                out.append(source[depth])
        depth += 1
    if len(out) < count:
        raise SystemExit(f"the sources make only {len(out)} distinct documents, not {count}")
    return out


def questions() -> list[tuple[str, list[str]]]:
    """Questions with their evidence: Chroma's and ours, alternately."""
    chroma = json.loads(
        (SHARED / "benchmarks" / "chroma-chunking-eval" / "questions.json").read_text()
    )
    ours = json.loads((REPO / "queries" / "boundary-questions.json").read_text())
    mixed = [q for pair in zip(chroma, ours, strict=False) for q in pair]
    return [(q["query"], list(q["evidence"])) for q in mixed[:QUESTIONS]]


# --------------------------------------------------------------------------- one run


def run_one(count: int, store_dir: str) -> dict[str, Any]:
    """Measure one corpus size in this process (see the module)."""
    from explorer.config import Config
    from explorer.corpus import Corpus
    from explorer.documents.load import load_document
    from explorer.retrieval.embeddings import Embedder
    from explorer.retrieval.store import Store

    config = Config()
    raw = documents(count)
    asked = questions()
    out: dict[str, Any] = {"documents": count, "characters": sum(len(b) for _, b in raw)}

    t = time.perf_counter()
    docs = [load_document(data, name=name) for name, data in raw]
    out["load_s"] = time.perf_counter() - t

    emb = Embedder(config.model, store=Store(Path(store_dir)))
    t = time.perf_counter()
    emb.model  # noqa: B018 - loaded apart: its cost does not grow with the corpus
    out["model_load_s"] = time.perf_counter() - t

    t = time.perf_counter()
    corpus = Corpus(docs, config, embedder=emb)
    out["chunk_s"] = time.perf_counter() - t
    texts = [t for name in corpus.names for t in corpus.retriever(name).index.dense_texts]
    out["chunks"] = corpus.size
    out["passages"] = len(texts)

    t = time.perf_counter()
    emb.embed(texts)
    for name in corpus.names:
        corpus.retriever(name).index.vectors()
    out["embed_s"] = time.perf_counter() - t
    out["embedded"] = emb.encoded
    out["from_store"] = emb.from_store

    emb.embed([q for q, _ in asked])  # the questions' vectors: not part of a query's latency
    t = time.perf_counter()
    corpus.answer(asked[0][0], asked[0][1], k=5, budget=BUDGET)
    out["index_s"] = time.perf_counter() - t

    latencies = []
    for q, evidence in asked:
        t = time.perf_counter()
        corpus.answer(q, evidence, k=5, budget=BUDGET)
        latencies.append(time.perf_counter() - t)
    out["query_p50_ms"] = 1000 * median(latencies)
    out["query_p95_ms"] = 1000 * quantiles(latencies, n=20)[-1]
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def measure(count: int, store_dir: str) -> dict[str, Any]:
    """``run_one`` in a fresh process (so peak memory is this size's alone)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_corpus", "--one", str(count), store_dir],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TOKENIZERS_PARALLELISM": "false"},
    )
    if done.returncode:
        raise SystemExit(f"the run over {count} documents failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --------------------------------------------------------------------------- reporting

COLUMNS = [
    ("documents", "documents", "{:,}"),
    ("run", "run", "{}"),
    ("characters", "characters", "{:,}"),
    ("chunks", "chunks", "{:,}"),
    ("passages", "passages", "{:,}"),
    ("load_s", "load s", "{:.2f}"),
    ("chunk_s", "chunk s", "{:.2f}"),
    ("embed_s", "embed s", "{:.1f}"),
    ("embedded", "embedded", "{:,}"),
    ("index_s", "index s", "{:.2f}"),
    ("query_p50_ms", "query p50 ms", "{:.0f}"),
    ("query_p95_ms", "query p95 ms", "{:.0f}"),
    ("peak_rss_mb", "peak RSS MB", "{:,.0f}"),
]


def table(rows: list[dict[str, Any]]) -> str:
    head = "| " + " | ".join(label for _, label, _ in COLUMNS) + " |"
    rule = "|" + "|".join("---:" if key != "run" else "---" for key, _, _ in COLUMNS) + "|"
    body = [
        "| " + " | ".join(fmt.format(row[key]) for key, _, fmt in COLUMNS) + " |" for row in rows
    ]
    return "\n".join([head, rule, *body])


def figure(rows: list[dict[str, Any]], path: Path) -> None:
    """The stages' seconds against corpus size (log-log), cold and warm, as PNG and JSON."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("Preparing the corpus (seconds)", "Answering one question (ms)"),
    )
    for run, dash in (("cold", "solid"), ("warm", "dot")):
        mine = [r for r in rows if r["run"] == run]
        xs = [r["documents"] for r in mine]
        for key, name in (("chunk_s", "chunk"), ("embed_s", "embed"), ("index_s", "index")):
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=[max(r[key], 1e-3) for r in mine],
                    name=f"{name} ({run})",
                    line={"dash": dash},
                ),
                row=1,
                col=1,
            )
        for key, name in (("query_p50_ms", "p50"), ("query_p95_ms", "p95")):
            fig.add_trace(
                go.Scatter(
                    x=xs, y=[r[key] for r in mine], name=f"{name} ({run})", line={"dash": dash}
                ),
                row=1,
                col=2,
            )
    fig.update_xaxes(type="log", title="documents")
    fig.update_yaxes(type="log")
    fig.update_layout(width=1100, height=450, template="plotly_white", margin={"t": 40})
    path.with_suffix(".json").write_text(fig.to_json())
    html = Path(tempfile.mkdtemp()) / "figure.html"
    fig.write_html(html, include_plotlyjs=True, full_html=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu"],
        )
        page = browser.new_page(viewport={"width": 1120, "height": 470})
        page.goto(html.as_uri())
        page.wait_for_selector(".main-svg")
        page.screenshot(path=str(path))
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--figure", type=Path)
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--one", nargs=2, metavar=("COUNT", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(int(args.one[0]), args.one[1])))
        return 0
    rows = []
    for count in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as store:
            for run in ("cold", "warm"):
                row = {"run": run, **measure(count, store)}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.figure:
        figure(rows, args.figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
