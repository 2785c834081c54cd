"""Query benchmark: embedding throughput, query latency, and the embedding cache's hit rate.

Run ``python -m benchmarks.bench_query`` (options: ``--texts N``, ``--chunks N``,
``--queries N``, ``--repeat N``). It needs the shared corpus (``../shared/corpus``) and the
bundled all-MiniLM-L6-v2; everything runs offline on the CPU, in this process.

Texts. The corpus documents (Markdown first, then PDFs, each sorted by name) are cut with the
recursive splitter (at 128 cl100k tokens for (a); at 80 for (b), since the corpus gives about
760 chunks at 128) and their chunk texts taken in that order.

(a) Embedding throughput. The first ``--texts`` chunk texts are embedded by the model's own
    ``SentenceTransformer.encode`` (batch 32, normalised, as the pipeline asks for) and by the
    pipeline's :class:`explorer.embeddings.Embedder` (a fresh one each time, so nothing is
    cached: it de-duplicates, embeds in batches of 32, stores every vector). Both use the same
    loaded model, warmed up first; the two are interleaved ``--repeat`` times and the medians
    compared. Target: the pipeline at 0.9× the raw throughput or better. ``encode`` sorts its
    input by length before batching, so each batch is padded little; ``Embedder.embed`` cuts
    batches of 32 in the order it is given. The app therefore embeds through
    ``Embedder.embed`` (missing texts cut into batches of similar lengths, as ``encode`` does),
    the third row.
(b) Query time with the chunk vectors cached: ``--chunks`` chunks are embedded once, then each
    of ``--queries`` questions (from ``queries/boundary-questions.json``, each new to the
    embedder, so its embedding is part of the time) is embedded and ranked against all of them
    with :meth:`explorer.corpus.Corpus.rank` (the documents the chunks are of, as one corpus; the
    top 5 read) by each retriever, without a carry. Median and 90th
    percentile per retriever; the same questions asked again (query vector cached) for
    comparison. Target: median 100 ms or less.
(b2) The same with dense scores from passages (``dense="passages"``) over the corpus's longest
    document, cut at 80 tokens: the document's passages are embedded once, and a chunk scores as
    its best passage or its best pair of neighbouring passages.
(c) Cache hit rate after a one-step change: a corpus document is cut at 256 tokens and embedded
    into a fresh embedder, then cut at 257 tokens (and other one-step changes); the figure is
    the share of the new chunk texts that are already in the cache, i.e. need no embedding.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from explorer.chunking.records import Chunk, ChunkSettings, embedded_text
from explorer.chunking.splitters import split
from explorer.config import BUNDLED, RETRIEVERS, Config
from explorer.corpus import Corpus
from explorer.documents.load import load_path
from explorer.documents.model import Document
from explorer.retrieval.embeddings import Embedder, load_model
from explorer.retrieval.retriever import Retriever

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
QUERIES = REPO / "queries" / "boundary-questions.json"
HIT_RATE_DOC = "docker-container-run.md"
THROUGHPUT_TARGET = 0.9
QUERY_TARGET_MS = 100.0
BATCH = 32


def corpus_paths() -> list[Path]:
    """The corpus documents: Markdown, then PDFs, each by name."""
    paths = sorted(CORPUS.glob("*.md")) + sorted(CORPUS.glob("*.pdf"))
    paths = [p for p in paths if p.name != "SOURCES.md"]
    if not paths:
        raise SystemExit(f"no documents in {CORPUS}; the benchmark needs the shared corpus")
    return paths


def corpus_chunks(n: int, settings: ChunkSettings) -> list[Chunk]:
    """The first ``n`` chunks of the corpus documents (Markdown, then PDFs, by name)."""
    return [c for _, chunks in corpus_parts(n, settings) for c in chunks]


def corpus_parts(n: int, settings: ChunkSettings) -> list[tuple[Document, list[Chunk]]]:
    """The first ``n`` chunks of the corpus documents (Markdown, then PDFs, by name), with the
    document each is of."""
    out: list[tuple[Document, list[Chunk]]] = []
    total = 0
    for path in corpus_paths():
        doc = load_path(path)
        chunks = split(doc, settings)[: n - total]
        out.append((doc, chunks))
        total += len(chunks)
        if total >= n:
            return out
    raise SystemExit(f"the corpus gives only {total} chunks at {settings.key()}; ask for fewer")


def questions(n: int) -> list[str]:
    items = json.loads(QUERIES.read_text(encoding="utf-8"))
    found = list(dict.fromkeys(str(q["query"]) for q in items))
    if len(found) < n:
        raise SystemExit(f"{QUERIES} has {len(found)} distinct questions; ask for fewer")
    return found[:n]


def timed(fn: Callable[[], Any]) -> float:
    """Seconds taken by ``fn()`` (after a garbage collection, so it is not charged for one)."""
    gc.collect()
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def raw_encode(model: Any, texts: Sequence[str]) -> Any:
    return model.encode(
        list(texts),
        batch_size=BATCH,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --------------------------------------------------------------------------- (a)


def throughput(texts: Sequence[str], repeat: int) -> None:
    model = load_model(BUNDLED)
    raw_encode(model, texts[:BATCH])  # warm up: first-call allocations, thread pools
    raw: list[float] = []
    ours: list[float] = []
    for _ in range(repeat):
        raw.append(timed(partial(raw_encode, model, texts)))
        fresh = Embedder(BUNDLED)
        ours.append(timed(partial(fresh.embed, texts)))
        assert fresh.encoded == len(set(texts)), "a fresh embedder must embed every text"
    n = len(texts)
    words = sum(len(t.split()) for t in texts)
    print(f"\n(a) embedding throughput: {n} chunk texts ({words:,} words), {repeat} runs each")
    print(f"{'contender':<52}{'median s':>10}{'texts/s':>10}{'vs raw':>9}")
    raw_s, ours_s = (statistics.median(x) for x in (raw, ours))
    for label, s in (
        ("SentenceTransformer.encode (raw, batch 32)", raw_s),
        ("Embedder.embed (fresh cache, as the app uses it)", ours_s),
    ):
        print(f"{label:<52}{s:>10.2f}{n / s:>10.1f}{raw_s / s:>8.2f}×")
    for label, s in (("Embedder.embed", ours_s),):
        ratio = raw_s / s
        verdict = "meets" if ratio >= THROUGHPUT_TARGET else "MISSES"
        print(f"{label}: {ratio:.2f}× raw throughput {verdict} the {THROUGHPUT_TARGET}× target")


# --------------------------------------------------------------------------- (b)


def top_five(corpus: Corpus, emb: Embedder, question: str) -> Any:
    """The question embedded (unless BM25 ranks alone) and its top 5 hits."""
    vector = emb.embed_query(question) if corpus.config.retriever != "bm25" else None
    return corpus.rank(question, vector)[:5]


def query_time(
    parts: Sequence[tuple[Document, Sequence[Chunk]]],
    asked: Sequence[str],
    per: int,
    *,
    passages: bool = False,
) -> None:
    """``asked`` holds ``per`` questions for each retriever, so every one is new to the embedder
    (BM25 embeds nothing; dense and hybrid each embed their own questions). With ``passages``,
    dense scores come from the documents' passages."""
    emb = Embedder(BUNDLED)
    base = Config().replace(dense="passages" if passages else "chunks", carry=0.0)
    corpora: dict[str, Corpus] = {}
    for retriever in RETRIEVERS:
        config = base.replace(retriever=retriever)
        made = {d.name: Retriever(d, config, chunks=c, embedder=emb) for d, c in parts}
        corpora[retriever] = Corpus(made, config)
    hybrid = corpora["hybrid"]

    def embed_all() -> None:
        for name in hybrid.names:
            hybrid.retriever(name).vectors()

    embed_s = timed(embed_all)
    for corpus in corpora.values():  # BM25 built once, like the vectors: the app keeps it
        top_five(corpus, emb, "warm up")
    n_chunks = sum(len(chunks) for _, chunks in parts)
    what = (
        f"{n_chunks:,} chunks embedded once"
        if not passages
        else f"{n_chunks:,} chunks of {', '.join(d.name for d, _ in parts)}, its "
        f"{sum(len(hybrid.retriever(n).passages) for n in hybrid.names):,} passages "
        "embedded once"
    )
    print(
        f"\n(b{'2' if passages else ''}) query time: {what} ({embed_s:.1f} s), "
        f"{per} questions per retriever, k=5"
    )
    print(f"{'retriever':<12}{'new question: median ms':>25}{'p90 ms':>9}{'asked again: ms':>18}")
    medians: dict[str, float] = {}
    for n, retriever in enumerate(RETRIEVERS):
        mine = asked[n * per : (n + 1) * per]
        corpus = corpora[retriever]
        new = [timed(partial(top_five, corpus, emb, q)) * 1000 for q in mine]
        again = [timed(partial(top_five, corpus, emb, q)) * 1000 for q in mine]
        medians[retriever] = statistics.median(new)
        print(
            f"{retriever:<12}{statistics.median(new):>25.1f}{percentile(new, 0.9):>9.1f}"
            f"{statistics.median(again):>18.1f}"
        )
    worst = max(medians.values())
    verdict = "meets" if worst <= QUERY_TARGET_MS else "MISSES"
    print(f"slowest median {worst:.1f} ms {verdict} the {QUERY_TARGET_MS:.0f} ms target")
    print("new question: includes embedding the question; asked again: its vector is cached")


# --------------------------------------------------------------------------- (c)


def hit_rates() -> None:
    doc = load_path(CORPUS / HIT_RATE_DOC)
    steps: list[tuple[str, ChunkSettings, dict[str, Any]]] = [
        (
            "recursive, tokens 256 → 257",
            ChunkSettings("recursive", "tokens", 256, overlap=0),
            {"size": 257},
        ),
        (
            "structure, tokens 256 → 257",
            ChunkSettings("structure", "tokens", 256, overlap=0),
            {"size": 257},
        ),
        (
            "sentence, tokens 256 → 257",
            ChunkSettings("sentence", "tokens", 256, overlap=0),
            {"size": 257},
        ),
        (
            "recursive, overlap 0 → 16",
            ChunkSettings("recursive", "tokens", 256, overlap=0),
            {"overlap": 16},
        ),
        (
            "fixed, tokens 256 → 257",
            ChunkSettings("fixed", "tokens", 256, overlap=0),
            {"size": 257},
        ),
    ]
    print(f"\n(c) cache hit rate after a one-step change ({HIT_RATE_DOC}, {len(doc.text):,} chars)")
    print(f"{'change':<32}{'chunks':>8}{'cached':>8}{'hit rate':>10}{'embed s':>9}{'vs all':>8}")
    for label, before, change in steps:
        emb = Embedder(BUNDLED)
        emb.embed([embedded_text(c, heading_prefix=False) for c in split(doc, before)])
        after = dataclasses.replace(before, **change)
        texts = [embedded_text(c, heading_prefix=False) for c in split(doc, after)]
        cached = sum(emb.cached(t) for t in set(texts))
        unique = len(set(texts))
        new_s = timed(partial(emb.embed, texts))
        all_s = timed(partial(Embedder(BUNDLED).embed, texts))
        print(
            f"{label:<32}{len(texts):>8}{cached:>8}{cached / unique:>9.0%}{new_s:>9.2f}"
            f"{new_s / all_s:>7.0%}"
        )
    print("cached: chunk texts of the new cut already embedded; 'vs all': time vs embedding all")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_query", description=__doc__)
    parser.add_argument("--texts", type=int, default=300, help="texts for throughput (a)")
    parser.add_argument("--chunks", type=int, default=1000, help="chunks for query time (b)")
    parser.add_argument("--queries", type=int, default=20, help="questions for query time (b)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per contender in (a)")
    parser.add_argument("--skip", default="", help="parts to skip, e.g. 'ab'")
    args = parser.parse_args(argv)

    t = time.perf_counter()
    load_model(BUNDLED)
    print(f"model {BUNDLED} loaded in {time.perf_counter() - t:.1f} s (CPU, offline)")
    if "a" not in args.skip:
        chunks = corpus_chunks(args.texts, ChunkSettings("recursive", "tokens", 128, overlap=0))
        print(f"\ntexts for (a): the first {len(chunks):,} corpus chunks, recursive, tokens 128")
        throughput([c.text for c in chunks], args.repeat)
    if "b" not in args.skip:
        parts = corpus_parts(args.chunks, ChunkSettings("recursive", "tokens", 80, overlap=0))
        n_chunks = sum(len(chunks) for _, chunks in parts)
        print(f"\nchunks for (b): the first {n_chunks:,} corpus chunks, recursive, tokens 80")
        per = args.queries
        query_time(parts, questions(per * len(RETRIEVERS)), per)
        longest = max(corpus_paths(), key=lambda p: len(load_path(p).text))
        doc = load_path(longest)
        chunks = split(doc, ChunkSettings("recursive", "tokens", 80, overlap=0))
        query_time([(doc, chunks)], questions(per * len(RETRIEVERS)), per, passages=True)
    if "c" not in args.skip:
        hit_rates()
    return 0


if __name__ == "__main__":
    sys.exit(main())
