"""Shared fixtures: hypothesis profiles, the real corpus, small documents built in memory."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from explorer.answer import DEFAULT_K, Answer, CorpusAnswer, answer
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.corpus import Corpus, CorpusHit, Ranking
from explorer.documents.load import load_path, markdown_structure
from explorer.documents.model import Document
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import Hit

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_docs"
RULE_THEN_EXCEPTION = (
    "Shipping is free for orders over fifty euros.\n\n"
    "Refunds are available within seven days of purchase.\n\n"
    "This does not apply to downloaded materials.\n\n"
    "Gift cards are valid until spent, whatever the purchase."
)
"""Four paragraphs where the exception (the third) shares no word with :data:`CARRY_QUESTION`:
ranked on its own words it comes last, carried by the rule before it, second."""
CARRY_QUESTION = "How many days after purchase can I get a refund?"
# CI clones the repository next to shared/, as this checkout is.
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
BENCHMARK = SHARED / "benchmarks" / "chroma-chunking-eval"

# The lasting embedding index of a test session is a folder of its own, removed at the end: the
# tests (and the command lines and apps they start, which inherit the variable) never read or
# write the user's cache, and every session starts empty.
_SESSION_CACHE = tempfile.TemporaryDirectory(prefix="chunk-explorer-test-cache-")
os.environ["CHUNK_EXPLORER_CACHE"] = _SESSION_CACHE.name
os.environ.pop("CHUNK_EXPLORER_CACHE_MB", None)

settings.register_profile(
    "ci", max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "large", max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def corpus_files(*suffixes: str) -> list[Path]:
    if not CORPUS.is_dir():  # pragma: no cover - the corpus is part of the workplace
        raise RuntimeError(f"the shared corpus is missing at {CORPUS}")
    return sorted(p for p in CORPUS.iterdir() if p.suffix in suffixes and p.name != "SOURCES.md")


def make_doc(text: str, *, kind: str = "text", name: str = "t.txt") -> Document:
    """A document straight from a string (Markdown structure parsed when kind is markdown)."""
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if kind == "markdown":
        blocks, headings = markdown_structure(text)
        return Document(
            name=name, kind="markdown", sha256=sha, text=text, blocks=blocks, headings=headings
        )
    return Document(name=name, kind="text", sha256=sha, text=text)


_loaded: dict[Path, Document] = {}


def make_chunks(text: str, spans: Iterable[tuple[int, int]]) -> list[Chunk]:
    """Chunks of ``text`` at ``spans``, numbered in order (no splitter involved)."""
    return [
        Chunk(
            id=f"c{i}",
            index=i,
            start=s,
            end=e,
            text=text[s:e],
            size=e - s,
            overlap=0,
            heading_path=(),
            page_start=None,
            page_end=None,
        )
        for i, (s, e) in enumerate(spans)
    ]


def retriever_of(doc: Document, config: Config, **kw: Any) -> Retriever:
    """A retriever for ``doc`` under ``config`` from a workspace of its own (``chunks``, when
    given, are used instead of the splitter's)."""
    from explorer.workspace import Workspace

    if "chunks" in kw:
        return Retriever(doc, config, **kw)
    return Workspace().retriever(doc, config)


def rank_one(retriever: Retriever, question: str) -> list[Hit]:
    """Every chunk of ``retriever``'s document ranked for ``question`` by the one ranking
    (:meth:`Corpus.rank`, a corpus of one), the question embedded by the retriever's embedder as
    the workspace embeds it."""
    corpus = Corpus({retriever.doc.name: retriever}, retriever.config)
    vector = None
    if retriever.config.retriever != "bm25" and retriever.chunks:
        assert retriever.embedder is not None
        vector = retriever.embedder.embed_query(question)
    return [h.hit for h in corpus.rank(question, vector)]


def rank_corpus(corpus: Corpus, question: str) -> Ranking:
    """Every chunk of ``corpus`` ranked for ``question`` (:meth:`Corpus.rank`), the question
    embedded by the process's embedder of the corpus's model, as the workspace embeds it."""
    from explorer.workspace import shared_workspace

    vector = shared_workspace().question_vector(question, corpus.config) if corpus.size else None
    return corpus.rank(question, vector)


def answer_corpus(
    corpus: Corpus, question: str, evidence: Sequence[str] = (), **how: Any
) -> CorpusAnswer:
    """The answer rule over ``corpus`` and its ranking for ``question`` (:func:`rank_corpus`)."""
    return answer(corpus, question, evidence, ranking=rank_corpus(corpus, question), **how)


def rank_chunks(
    chunks: Sequence[Chunk],
    question: str,
    retriever: str = "hybrid",
    *,
    doc: Document | None = None,
    embedder: Any = None,
    carry: float = 0.0,
    dense: str = "chunks",
    passages: Sequence[Chunk] | None = None,
    heading_prefix: bool = False,
    context_header: str = "off",
) -> list[Hit]:
    """``chunks`` (of ``doc``; any document when dense scores come from the chunks) ranked for
    ``question`` by the one ranking under the recommended configuration with ``retriever``,
    ``carry`` (none unless given), ``dense`` and the headers given; ``embedder`` embeds."""
    config = Config().replace(
        retriever=retriever,
        carry=carry,
        dense=dense,
        heading_prefix=heading_prefix,
        context_header=context_header,
    )
    if doc is None:
        doc = make_doc("\n\n".join(c.text for c in chunks))
    made = Retriever(
        doc,
        config,
        chunks=chunks,
        embedder=embedder if retriever != "bm25" else None,
        passages=passages,
    )
    return rank_one(made, question)


def answer_one(
    retriever: Retriever,
    question: str,
    evidence: Sequence[str] = (),
    *,
    k: int | None = DEFAULT_K,
    budget: int | None = None,
    ranking: Sequence[Hit] | None = None,
    known: Sequence[tuple[int, int] | None] = (),
) -> Answer:
    """The answer rule (:func:`explorer.answer.answer`) over ``retriever``'s document as a corpus
    of one, ``ranking`` (of its chunks) given in place of its own (:func:`rank_one`)."""
    name = retriever.doc.name
    corpus = Corpus({name: retriever}, retriever.config)
    hits = ranking if ranking is not None else rank_one(retriever, question)
    ranked = [CorpusHit(name, h.rank, h.index, h.score, h.retriever, h.carried) for h in hits]
    whole = answer(
        corpus, question, evidence, k=k, budget=budget, ranking=ranked, known=known, doc=name
    )
    return whole.answers[name]


def load_cached(path: Path) -> Document:
    if path not in _loaded:
        _loaded[path] = load_path(path)
    return _loaded[path]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    assert CORPUS.is_dir(), f"the shared corpus is missing at {CORPUS}"
    return CORPUS


@pytest.fixture(scope="session")
def model_embedder():  # type: ignore[no-untyped-def]
    """The real bundled all-MiniLM-L6-v2, loaded offline once for the whole test session."""
    from explorer.workspace import Workspace

    emb = Workspace().embedder(Config().model)
    emb.model  # noqa: B018 - load now, so a missing or corrupt model fails here loudly
    return emb


@pytest.fixture(scope="module", name="app_url")
def app_url() -> Iterator[str]:
    """The app, started once for a browser test module (at a free port, on the bundled sample)."""
    from tests.browser_util import app_url_fixture

    yield from app_url_fixture()


@pytest.fixture(scope="module", name="chromium")
def chromium() -> Iterator[Any]:
    """One system Chromium for a browser test module (missing: a skip, or under CI a failure)."""
    from tests.browser_util import chromium_fixture, require_chromium

    require_chromium()
    yield from chromium_fixture()


def assert_span_counts_alone(text: str, a: int, length: int) -> None:
    """The token counter's count of ``text[a:a+length]`` (clamped) is that span encoded alone."""
    from explorer.chunking.measures import (
        DEFAULT_ENCODING,
        get_measure,
        standalone_counter,
        tiktoken_encoding,
    )

    measure = get_measure("tokens")
    counter = standalone_counter(measure, text, measure.units(text))
    assert counter is not None
    a = min(a, len(text))
    b = min(len(text), a + length)
    assert counter(a, b) == len(tiktoken_encoding(DEFAULT_ENCODING).encode_ordinary(text[a:b]))
