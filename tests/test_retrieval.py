"""Embedding, retrieval, the evidence check and the semantic splitter, with the real model."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.chunking.records import ChunkSettings, chunks_from_texts, embedded_text
from explorer.chunking.splitters import semantic_breaks, split
from explorer.config import CARRY, Config
from explorer.documents.load import load_document
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.retrieval import evidence
from explorer.retrieval.embeddings import BUNDLED_SHA256, file_sha256, verified_bundled_dir
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import Hit, ScoringInputs, pair_vectors
from tests.conftest import (
    CARRY_QUESTION,
    RULE_THEN_EXCEPTION,
    SAMPLES,
    load_cached,
    make_doc,
    rank_chunks,
)

REFUND = SAMPLES / "refund-policy.md"
RULE = "within seven days"
EXCEPTION = "does not apply to downloaded materials"
QUESTION = "How long do I have to ask for a refund?"


def passage_retriever(chunks: list, doc: Document, embedder: object = None) -> Retriever:  # type: ignore[type-arg]
    """``doc``'s ``chunks`` made ready with dense scores from its passages."""
    config = Config().replace(dense="passages")
    return Retriever(doc, config, chunks=chunks, embedder=embedder)  # type: ignore[arg-type]


def test_bundled_model_is_the_official_file_and_loads_offline(model_embedder) -> None:  # type: ignore[no-untyped-def]
    folder = verified_bundled_dir()
    assert file_sha256(Path(folder) / "model.safetensors") == BUNDLED_SHA256
    vecs = model_embedder.embed(["a cat sat on the mat", "a cat sat on the mat"])
    assert vecs.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert model_embedder.max_tokens == 256


def test_embedding_cache_never_re_embeds_a_text(model_embedder) -> None:  # type: ignore[no-untyped-def]
    before = model_embedder.encoded
    texts = ["alpha unique text 1", "beta unique text 2", "alpha unique text 1"]
    seen: list[tuple[float, str]] = []
    model_embedder.embed(texts, progress=lambda f, m: seen.append((f, m)))
    assert model_embedder.encoded - before == 2  # the duplicate is embedded once
    assert seen[0] == (0.0, "0 of 2") and seen[-1] == (1.0, "2 of 2")
    model_embedder.embed(texts[:2])
    assert model_embedder.encoded - before == 2


def test_dense_ranks_the_obvious_match_first(model_embedder) -> None:  # type: ignore[no-untyped-def]
    text = (
        "Cats are small furry pets that purr.\n\n"
        "The stock market fell sharply on Tuesday.\n\n"
        "Photosynthesis turns sunlight into chemical energy in plants.\n\n"
        "Refunds are available within seven days of purchase."
    )
    chunks = split(
        make_doc(text), ChunkSettings(splitter="recursive", unit="words", size=12, overlap=0)
    )
    assert len(chunks) == 4

    def dense(q: str) -> list[Hit]:
        return rank_chunks(chunks, q, "dense", embedder=model_embedder)

    assert dense("How do plants make energy from light?")[0].index == 2
    assert dense("money back after buying")[0].index == 3


def test_bm25_and_hybrid_orders_on_a_small_fixture(model_embedder) -> None:  # type: ignore[no-untyped-def]
    text = (
        "Apples and pears grow on trees.\n\n"
        "Refund requests for downloaded materials are refused.\n\n"
        "Our refund window is seven days.\n\n"
        "Shipping takes five days."
    )
    chunks = split(
        make_doc(text), ChunkSettings(splitter="recursive", unit="words", size=9, overlap=0)
    )

    def rank(q: str, retriever: str) -> list[Hit]:
        return rank_chunks(chunks, q, retriever, embedder=model_embedder)

    bm25 = rank("refund downloaded", "bm25")
    assert [h.index for h in bm25][:2] == [1, 2]  # both terms, then one (stemmed "refund")
    assert bm25[-1].score == 0.0
    assert [h.rank for h in bm25] == [1, 2, 3, 4]
    dense = rank("refund downloaded", "dense")
    hybrid = rank("refund downloaded", "hybrid")
    # hybrid: each ranking's scores min-max normalised over all chunks, then averaged
    d = {h.index: h.score for h in dense}
    b = {h.index: h.score for h in bm25}

    def norm(x: dict[int, float]) -> dict[int, float]:
        lo, hi = min(x.values()), max(x.values())
        return {i: (v - lo) / (hi - lo) for i, v in x.items()}

    nd, nb = norm(d), norm(b)
    combined = {i: 0.5 * nd[i] + 0.5 * nb[i] for i in range(4)}
    assert [h.index for h in hybrid] == sorted(combined, key=lambda i: (-combined[i], i))
    assert [h.score for h in hybrid] == pytest.approx(sorted(combined.values(), reverse=True))
    assert hybrid[0].retriever == "hybrid" and 0.0 <= hybrid[-1].score <= hybrid[0].score <= 1.0
    assert rank("the of and", "bm25")[0].score == 0.0  # only stop words: no signal
    with pytest.raises(SettingsError, match="unknown retriever"):
        rank("x", "magic")


def test_heading_prefix_changes_only_what_is_embedded() -> None:
    doc = make_doc("# Policy\n\n## Refunds\n\nWithin seven days.", kind="markdown", name="p.md")
    chunk = split(doc, ChunkSettings(splitter="structure", unit="words", size=3, overlap=0))[-1]
    assert chunk.text == "Within seven days."
    assert embedded_text(chunk, heading_prefix=False) == "Within seven days."
    assert embedded_text(chunk, heading_prefix=True) == "Policy > Refunds\n\nWithin seven days."


# --------------------------------------------------------------------------- evidence


def test_locate_ignores_case_white_space_and_quote_styles() -> None:
    text = "Refunds are available WITHIN\n  seven days. It’s final — really."
    start = text.index("WITHIN")
    assert evidence.locate("within seven days", text) == [(start, text.index("."))]
    start = text.index("It’s")
    assert evidence.locate("it's final - really", text) == [
        (start, start + len("It’s final — really"))
    ]
    assert evidence.locate("fourteen days", text) == []
    assert evidence.locate("   ", text) == []


def test_evidence_straddling_two_retrieved_neighbours_is_covered() -> None:
    doc = make_doc("aaaa bbbb cccc dddd")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=7, overlap=0))
    assert [c.text for c in chunks] == ["aaaa bb", "bb cccc", "dddd"]
    ranking = [Hit(1, 0, 1.0, "x"), Hit(2, 1, 0.5, "x"), Hit(3, 2, 0.1, "x")]
    ctx = [(c.start, c.end) for c in chunks[:2]]
    [r] = evidence.check(["bbbb cccc"], doc.text, chunks, ranking, context=ctx)
    assert r.covered and r.cut_by_boundary and r.chunk_ids == () and r.best_rank is None
    [r] = evidence.check(["bbbb cccc"], doc.text, chunks, ranking, context=ctx[:1])
    assert not r.covered
    assert "cut by a chunk boundary" in str(evidence.Verdict((r,)))


def test_evidence_not_found_is_said_plainly() -> None:
    doc = make_doc("Some text.")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=50, overlap=0))
    [r] = evidence.check(["missing phrase"], doc.text, chunks, [], context=[(0, 10)])
    assert not r.found and not r.covered
    assert (
        str(evidence.Verdict((r,))) == "unchecked: 'missing phrase' was not found in the document"
    )


def refund_check(settings: ChunkSettings, k: int, embedder) -> tuple[list[evidence.Evidence], str]:  # type: ignore[no-untyped-def]
    from explorer.documents.load import load_path

    doc = load_path(REFUND)
    chunks = split(doc, settings)
    ranking = rank_chunks(chunks, QUESTION, "hybrid", embedder=embedder)
    ctx = [(chunks[h.index].start, chunks[h.index].end) for h in ranking[:k]]
    results = evidence.check([RULE, EXCEPTION], doc.text, chunks, ranking, context=ctx)
    return results, str(evidence.Verdict(tuple(results)))


def test_refund_case_fixed_40_chars_misses_the_exception(model_embedder) -> None:  # type: ignore[no-untyped-def]
    results, verdict = refund_check(
        ChunkSettings(splitter="fixed", unit="chars", size=40, overlap=0), 1, model_embedder
    )
    exception = results[1]
    assert exception.found and not exception.covered
    assert verdict.startswith("incomplete:") and EXCEPTION in verdict


def test_refund_case_structure_splitter_is_complete(model_embedder) -> None:  # type: ignore[no-untyped-def]
    results, verdict = refund_check(
        ChunkSettings(splitter="structure", unit="tokens", size=256, overlap=0), 1, model_embedder
    )
    assert all(r.covered for r in results)
    assert verdict.startswith("complete")


# --------------------------------------------------------------------------- semantic


def test_semantic_splitter_cuts_at_the_topic_shift(model_embedder) -> None:  # type: ignore[no-untyped-def]
    cooking = [
        "Preheat the oven to two hundred degrees.",
        "Whisk the eggs with sugar until pale.",
        "Fold the flour gently into the batter.",
        "Bake the cake for thirty minutes.",
        "Let the cake cool before icing it.",
    ]
    space = [
        "The rocket engines ignited at dawn.",
        "The spacecraft reached low Earth orbit.",
        "Astronauts docked with the space station.",
        "The crew performed a spacewalk to repair a panel.",
        "Mission control confirmed the orbit was stable.",
    ]
    text = " ".join(cooking + space)
    shift = text.index(space[0])
    breaks = semantic_breaks(text, model_embedder.embed, percentile=90)
    # the one break above the 90th percentile is the gap (white space) before the shift
    assert len(breaks) == 1 and breaks[0] <= shift and not text[breaks[0] : shift].strip()
    doc = make_doc(text)
    settings = ChunkSettings(splitter="semantic", unit="tokens", size=200, percentile=90, overlap=0)
    chunks = split(doc, settings, embed=model_embedder.embed)
    assert shift in {c.start for c in chunks}
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)


def test_query_cli_prints_hits_evidence_and_config() -> None:
    res = subprocess.run(
        [
            sys.executable, "-m", "explorer", "query", str(REFUND), QUESTION,
            "--splitter", "fixed", "--unit", "chars", "--size", "40", "--k", "1",
            "--evidence", RULE, "--evidence", EXCEPTION,
        ],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert len(out["hits"]) == 1
    assert {"rank", "id", "start", "end", "score", "carried", "tokens"} <= out["hits"][0].keys()
    ev = {e["phrase"]: e for e in out["evidence"]}
    assert set(ev[EXCEPTION]) >= {
        "phrase", "found", "spans", "covered", "chunk_ids", "best_rank", "cut_by_boundary"
    }  # fmt: skip
    assert ev[EXCEPTION]["found"] and not ev[EXCEPTION]["covered"]
    assert out["config"]["retriever"] == "hybrid" and out["k"] == 1
    assert out["config"]["carry"] == CARRY  # the recommended carry unless --carry says otherwise
    assert out["config"]["splitter"] == "fixed"  # the flat configuration
    assert out["verdict"].startswith("incomplete")
    bad = subprocess.run(
        [sys.executable, "-m", "explorer", "query", str(REFUND), "q", "--k", "0"],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and b"--k must be at least 1" in bad.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "explorer", "query", str(REFUND), "q", "--carry", "1.5"],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr == b"error: carry must be between 0 and 1, got 1.5\n"


# --------------------------------------------------------------------------- context


def test_context_merges_overlapping_and_adjacent_hits() -> None:
    from explorer.retrieval.context import context_pieces

    doc = make_doc("aaaa bbbb cccc dddd eeee ffff")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="words", size=2, overlap=1))
    assert [c.text for c in chunks][:3] == ["aaaa bbbb", "bbbb cccc", "cccc dddd"]
    hits = [Hit(1, 0, 1.0, "x"), Hit(2, 4, 0.9, "x"), Hit(3, 1, 0.8, "x")]
    pieces = context_pieces(hits, chunks, doc=doc)
    assert [(doc.text[p.start : p.end], p.ranks) for p in pieces] == [
        ("aaaa bbbb cccc", (1, 3)),  # chunks 0 and 1 overlap: one piece
        ("eeee ffff", (2,)),
    ]
    unmerged = context_pieces(hits, chunks, doc=doc, merge=False)
    assert len(unmerged) == 3
    widened = context_pieces([Hit(1, 2, 1.0, "x")], chunks, neighbours=1, doc=doc)
    assert doc.text[widened[0].start : widened[0].end] == "bbbb cccc dddd eeee"


def test_context_expands_to_the_enclosing_section() -> None:
    from explorer.retrieval.context import context_pieces, section_span

    text = "# A\n\nintro\n\n## B\n\none two three four\n\nfive six\n\n## C\n\nother"
    doc = make_doc(text, kind="markdown", name="s.md")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="words", size=2, overlap=0))
    holder = next(c for c in chunks if "five" in c.text)
    assert section_span(doc, holder.start) == (text.index("## B"), text.index("## C"))
    [piece] = context_pieces([Hit(1, holder.index, 1.0, "x")], chunks, doc=doc, section=True)
    assert text[piece.start : piece.end].strip() == "## B\n\none two three four\n\nfive six"


PLANS = (
    "# Plans\n\nEvery plan can be cancelled.\n\n"
    "| Plan | Refund window | Notice |\n|---|---|---|\n"
    + "".join(f"| Plan {i} | {i} days | {i} weeks |\n" for i in range(1, 41))
    + "\nAfter the table.\n"
)


def test_a_hit_on_table_rows_brings_the_header_rows() -> None:
    from explorer.retrieval.context import TableHeaders, context_pieces

    doc = make_doc(PLANS, kind="markdown", name="plans.md")
    chunks = split(doc, ChunkSettings(splitter="structure", unit="tokens", size=64, overlap=0))
    header = (PLANS.index("| Plan |"), PLANS.index("\n|---"))
    assert PLANS[header[0] : header[1]] == "| Plan | Refund window | Notice |"
    assert TableHeaders.of(doc).tables == (
        ((PLANS.index("| Plan |"), PLANS.index("\n\nAfter")), header),
    )
    first = next(c for c in chunks if "| Plan |" in c.text)
    row = next(c for c in chunks if "| Plan 30 |" in c.text)
    after = next(c for c in chunks if "After the table." in c.text)
    headers = TableHeaders.of(doc)
    assert headers.for_span(row.start, row.end) == (header,)
    assert headers.for_span(first.start, first.end) == ()  # the header is in the hit already
    if "| Plan" not in after.text:
        assert headers.for_span(after.start, after.end) == ()  # no table rows in it

    hits = [Hit(1, row.index, 1.0, "x"), Hit(2, row.index + 1, 0.9, "x")]
    pieces = context_pieces(hits, chunks, doc=doc, table_headers=True)
    assert doc.text[pieces[0].start : pieces[0].end] == "| Plan | Refund window | Notice |"
    assert pieces[0].headers == (header,) and pieces[0].chunk_indices == ()
    assert pieces[0].ranks == (1, 2)  # brought by both hits, sent once
    assert [p.chunk_indices for p in pieces[1:]] == [(row.index, row.index + 1)]
    assert context_pieces(hits, chunks, doc=doc) == pieces[1:]  # off: only the rows


# --------------------------------------------------------------------------- passages


def test_passages_are_the_same_whatever_the_chunking_and_fit_the_window() -> None:
    from explorer.chunking.measures import get_measure
    from explorer.retrieval.scoring import PASSAGE_TOKENS, passages

    doc = load_cached(SAMPLES / "writing-guide.md")
    ps = passages(doc)
    assert ps and all(doc.text[p.start : p.end] == p.text for p in ps)
    assert all(a.end <= b.start for a, b in itertools.pairwise(ps))
    tok = get_measure("tokens")
    assert all(tok.count(p.text) <= PASSAGE_TOKENS + 2 or "oversize" in p.flags for p in ps)
    model_pieces = get_measure("model-tokens")
    assert max(model_pieces.count(p.text) for p in ps) < 254  # the window minus [CLS], [SEP]
    small = passage_retriever(split(doc, ChunkSettings("structure", "tokens", 128, 0)), doc)
    large = passage_retriever(split(doc, ChunkSettings("fixed", "chars", 900, 300)), doc)
    assert small.dense_texts == large.dense_texts  # one set of vectors serves both


def test_a_passage_counts_for_the_chunk_holding_most_of_it() -> None:
    from explorer.retrieval.scoring import passages_of

    text = "One two three. Four five six. Seven eight nine."
    doc = make_doc(text)
    sentences = split(doc, ChunkSettings("sentence", "words", 3, 0))
    assert [s.text for s in sentences] == ["One two three.", "Four five six.", "Seven eight nine."]
    # chunk 0 ends two characters into "Four five six."; chunk 1 holds the rest of it
    cut = text.index("Four") + 2
    chunks = chunks_from_texts(doc, [text[:cut], text[cut:]])
    assert passages_of(chunks, sentences) == [(0, 1), (1, 3)]
    # a chunk inside one passage takes that passage
    inner = chunks_from_texts(doc, ["five"])
    assert passages_of(inner, sentences) == [(1, 2)]


def test_passage_scores_rank_the_chunk_holding_the_best_sentence(model_embedder) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(REFUND)
    chunks = split(doc, ChunkSettings("structure", "tokens", 256, 0))
    index = passage_retriever(chunks, doc, model_embedder)
    q = model_embedder.embed_query(QUESTION)
    sims = index.vectors() @ q
    dense = rank_chunks(
        chunks, QUESTION, "dense", doc=doc, embedder=model_embedder, dense="passages"
    )
    pairs = pair_vectors(index.vectors()) @ q
    for hit in dense:
        texts = index.embedded_for(hit.index)
        lo = index.dense_texts.index(texts[0])
        hi = lo + len(texts)
        best = max(float(max(sims[lo:hi])), max((float(x) for x in pairs[lo : hi - 1]), default=-1))
        assert hit.score == pytest.approx(best)
    best = int(np.argmax(sims))
    holder = chunks[dense[0].index]
    p = index.passages[best]
    assert holder.start <= p.start and p.end <= holder.end
    assert RULE in holder.text


SPLIT_RULE = (
    b"# Refunds\n\nRefunds are available within seven days of purchase.\n\n"
    b"This does not apply to downloaded materials.\n\n"
    b"# Shipping\n\nParcels leave our warehouse every Monday.\n"
)


def test_two_neighbouring_passages_score_together(model_embedder) -> None:  # type: ignore[no-untyped-def]
    """A question that needs the rule and its exception, which sit in two passages: the chunk
    holding both scores as the pair (higher than either alone); a chunk holding one of them
    scores as that one, not as a pair reaching outside it."""
    doc = load_document(SPLIT_RULE, name="refunds.md")
    question = "Are downloaded materials refundable within seven days?"
    index = passage_retriever(
        split(doc, ChunkSettings("structure", "tokens", 256, 0)), doc, model_embedder
    )
    rule, exception = index.passages[0], index.passages[1]
    assert "seven days" in rule.text and exception.text.startswith("This does not apply")
    q = model_embedder.embed_query(question)
    sims = [float(x) for x in index.vectors() @ q]
    together = float(pair_vectors(index.vectors())[0] @ q)
    assert together > max(sims[0], sims[1]) + 0.05  # the pair says what the question asks

    section = chunks_from_texts(doc, [doc.text[: exception.end], doc.text[exception.end :].strip()])
    apart = chunks_from_texts(doc, [doc.text[: rule.end], doc.text[exception.start :]])

    def dense_scores(chunks: list) -> dict[int, float]:  # type: ignore[type-arg]
        ranked = rank_chunks(
            chunks, question, "dense", doc=doc, embedder=model_embedder, dense="passages"
        )
        return {h.index: h.score for h in ranked}

    assert dense_scores(section)[0] == pytest.approx(together)
    assert dense_scores(apart)[0] == pytest.approx(sims[0])
    # the second chunk holds the exception and the next section: its best pair is
    # (exception, shipping heading), not (rule, exception)
    cut = passage_retriever(apart, doc, model_embedder)
    pairs = [float(x) for x in pair_vectors(cut.vectors()) @ q]
    assert dense_scores(apart)[1] == pytest.approx(max(sims[1], *sims[2:], *pairs[1:]))


def test_pair_vectors_are_the_normalised_sums() -> None:
    vecs = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    pairs = pair_vectors(vecs)
    assert pairs.shape == (2, 3)
    assert np.allclose(np.linalg.norm(pairs, axis=1), 1.0)
    q = np.array([1, 1, 0], dtype=np.float32) / np.sqrt(2)
    assert float(pairs[0] @ q) == pytest.approx(1.0)  # each half alone: 0.707 and 0.707
    assert pair_vectors(vecs[:1]).shape == (0, 3)
    assert pair_vectors(vecs[:0]).shape == (0, 3)


def test_passages_need_the_document() -> None:
    doc = make_doc("Some text here.")
    chunks = split(doc, ChunkSettings("sentence", "words", 5, 0))
    with pytest.raises(SettingsError, match="need the document"):
        ScoringInputs(chunks, dense="passages")
    with pytest.raises(SettingsError, match="unknown dense source"):
        ScoringInputs(chunks, doc=doc, dense="sentences")


def test_hybrid_without_a_matching_term_is_the_dense_order(model_embedder) -> None:  # type: ignore[no-untyped-def]
    from explorer.corpus import combined, normalised

    def floats(xs: list[float]) -> np.ndarray:  # type: ignore[type-arg]
        return np.array(xs, dtype=np.float64)

    assert normalised(floats([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert normalised(floats([1.5, 1.5])).tolist() == [0.0, 0.0]  # equal: they tell nothing
    mixed = combined(floats([0.2, 0.6, 0.4]), floats([0.0, 0.0, 0.0]))
    assert mixed.tolist() == pytest.approx([0.0, 0.5, 0.25])
    doc = load_cached(REFUND)
    chunks = split(doc, ChunkSettings("sentence", "tokens", 40, 0))
    index = passage_retriever(chunks, doc, model_embedder)
    question = "zzzqx wobble"  # no term BM25 knows
    assert all(s == 0.0 for s in index.bm25().scores(question))

    def order(retriever: str) -> list[int]:
        ranked = rank_chunks(
            chunks, question, retriever, doc=doc, embedder=model_embedder, dense="passages"
        )
        return [h.index for h in ranked]

    assert order("hybrid") == order("dense")


def test_embedding_cache_survives_a_save_and_load(tmp_path, model_embedder) -> None:  # type: ignore[no-untyped-def]
    from explorer.retrieval.embeddings import Embedder, EmbeddingError

    texts = ["a saved text: naïve café ✓ 𝄞", "another saved text"]
    model_embedder.embed(texts)
    path = tmp_path / "vectors.npz"
    assert model_embedder.save(path) >= 2
    fresh = Embedder(model_embedder.name)
    fresh._model = model_embedder.model  # the same weights, but an empty cache
    assert fresh.load(path) >= 2
    assert np.allclose(fresh.embed(texts), model_embedder.embed(texts))
    assert fresh.encoded == 0  # nothing embedded again
    other = Embedder("some/other-model")
    with pytest.raises(EmbeddingError, match="holds vectors of 'all-MiniLM-L6-v2'"):
        other.load(path)
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(EmbeddingError, match="cannot read the embedding cache"):
        fresh.load(tmp_path / "junk.npz")


def test_the_embedding_cache_is_bounded_and_drops_the_oldest(model_embedder) -> None:  # type: ignore[no-untyped-def]
    from explorer.retrieval.embeddings import Embedder

    small = Embedder(model_embedder.name, max_entries=3)
    small._model = model_embedder.model
    texts = ["text 1", "text 2", "text 3", "text 4", "text 5"]  # one length: embedded in order
    first = small.embed(texts)  # a request larger than the cap
    assert first.shape == (5, 384)  # is still answered in full
    assert [small.cached(t) for t in texts] == [False, False, True, True, True]
    small.embed(["text 6"])
    assert not small.cached("text 3") and small.cached("text 6")


class CosineEmbedder:
    """Each chunk's vector is a unit vector whose cosine with every question is given (the
    question's vector is the first axis), so the ranking's own scores are known."""

    name = "cosines"

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines

    def embed(self, texts: list[str], *, progress: object = None) -> np.ndarray:  # type: ignore[type-arg]
        rows = [(self.cosines[t], float(np.sqrt(1 - self.cosines[t] ** 2))) for t in texts]
        return np.array(rows, dtype=np.float32).reshape(-1, 2)

    def embed_query(self, question: str) -> np.ndarray:  # type: ignore[type-arg]
        return np.array([1.0, 0.0], dtype=np.float32)


def carried_scores(cosines: list[float], carry: float) -> list[float]:
    """The dense ranking's scores, in chunk order, of chunks whose cosines are given."""
    text = "\n\n".join(f"chunk{i}" for i in range(len(cosines)))
    doc = make_doc(text)
    chunks = split(doc, ChunkSettings("recursive", "words", 1, 0))
    emb = CosineEmbedder({c.text: x for c, x in zip(chunks, cosines, strict=True)})
    ranked = rank_chunks(chunks, "q", "dense", doc=doc, embedder=emb, carry=carry)
    return [h.score for h in sorted(ranked, key=lambda h: h.index)]


def test_carry_adds_a_share_of_the_previous_chunks_own_score() -> None:
    # a negative lifts nothing
    assert carried_scores([1.0, 0.0, -0.5, 0.2], 0.5) == pytest.approx([1.0, 0.5, -0.5, 0.2])
    # the chunk before passes on its own score, not what it was carried: one step only
    assert carried_scores([1.0, 0.0, 0.0], 0.5) == pytest.approx([1.0, 0.5, 0.0])
    assert carried_scores([0.3, 0.7], 0.0) == pytest.approx([0.3, 0.7])
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(SettingsError, match="carry must be between 0 and 1"):
            carried_scores([1.0], bad)


def test_carry_lifts_the_exception_after_the_rule_it_completes() -> None:
    text = RULE_THEN_EXCEPTION
    chunks = split(
        make_doc(text), ChunkSettings(splitter="recursive", unit="words", size=10, overlap=0)
    )
    assert [c.text.split()[0] for c in chunks] == ["Shipping", "Refunds", "This", "Gift"]
    question = CARRY_QUESTION
    plain = rank_chunks(chunks, question, "bm25")
    # the exception shares no word with the question: BM25 alone puts it last, below gift cards
    assert [h.index for h in plain][:2] == [1, 3] and plain[-1].index == 2
    assert all(h.carried == 0.0 for h in plain)
    lifted = rank_chunks(chunks, question, "bm25", carry=0.3)
    assert [h.index for h in lifted][:2] == [1, 2]
    own = {h.index: h.score for h in plain}
    second = lifted[1]
    assert second.carried == pytest.approx(0.3 * own[1])
    assert second.score == pytest.approx(own[2] + 0.3 * own[1])
    with pytest.raises(SettingsError, match="carry must be between 0 and 1"):
        rank_chunks(chunks, question, "bm25", carry=2.0)


def test_widen_to_budget_brings_the_text_just_past_a_hit() -> None:
    from explorer.chunking.measures import get_measure
    from explorer.retrieval.context import widen_to_budget

    text = RULE_THEN_EXCEPTION
    units = get_measure("tokens").units(text)
    rule = (text.index("Refunds"), text.index("\n\nThis"))
    exception = (text.index("This"), text.index("\n\nGift"))
    cost = units.size(*rule)
    assert widen_to_budget([rule], units, cost) == [rule]  # nothing left to spend
    assert widen_to_budget([rule], units, cost - 5) == [rule]  # over the budget: as it was
    # half the tokens left go before the hit, half after: twice the gap to the exception's end
    budget = cost + 2 * units.size(rule[1], exception[1])
    [(s, e)] = widen_to_budget([rule], units, budget)
    assert s < rule[0] and e >= exception[1]
    assert units.size(s, e) <= budget
    # at the document's start the half that cannot go before goes after, to the budget exactly
    first = (0, text.index("\n\nRefunds"))
    [(s, e)] = widen_to_budget([first], units, units.size(*first) + 10)
    assert s == 0 and units.size(s, e) == units.size(*first) + 10
    # two stretches share what is left; ones that meet are merged
    gift = (text.index("Gift"), len(text))
    assert widen_to_budget([first, gift], units, units.total() + 2) == [(0, len(text))]


def test_bm25_over_chunks_without_one_indexable_word_ranks_them_all_at_zero() -> None:
    doc = make_doc("| 1 | 2 |\n\nthe and of\n\n42")
    chunks = split(doc, ChunkSettings("recursive", "words", 3, 0))
    ranking = rank_chunks(chunks, "what is it?", "bm25", doc=doc)
    assert [h.score for h in ranking] == [0.0] * len(chunks) and len(ranking) == len(chunks)


def test_passages_never_cross_a_block_start_but_keep_a_heading_with_its_text() -> None:
    from explorer.chunking.splitters import passage_cuts, split_passages
    from explorer.retrieval.scoring import PASSAGES

    text = (
        "# Refunds\n\nAsk within 30 days. We pay back the price.\n\n"
        "| plan | refund window |\n|---|---|\n| basic | 14 days |\n| pro | 30 days |\n\n"
        "- one item\n- two item\n\n```\ncode line\n```\nAfter the code."
    )
    doc = make_doc(text, kind="markdown")
    table, items, code, after = (text.index(s) for s in ("| plan", "- one", "```", "After"))
    assert passage_cuts(doc) == [table, items, code, after]
    assert [p.text for p in split_passages(doc, PASSAGES)] == [
        "# Refunds\n\nAsk within 30 days. We pay back the price.",  # the heading with its text
        "| plan | refund window |\n|---|---|\n| basic | 14 days |\n| pro | 30 days |",
        "- one item\n- two item",  # a list's items pack like sentences
        "```\ncode line\n```",
        "After the code.",  # not glued to the code block before it
    ]


def test_a_table_rows_passage_is_embedded_after_the_tables_header() -> None:
    """What is embedded for a passage of body rows starts with the header rows; its span and text
    stay the rows'."""
    from explorer.chunking.splitters import split_passages
    from explorer.retrieval.scoring import PASSAGES, passage_texts

    header = "| state | mail your claim to |\n|---|---|"
    rows = [
        f"| State number {i} | Contractor {i}, P.O. Box {1000 + i}, Town {i} |" for i in range(9)
    ]
    text = "Where to mail it:\n\n" + header + "\n" + "\n".join(rows) + "\n\nThe end."
    doc = make_doc(text, kind="markdown")
    ps = split_passages(doc, PASSAGES)
    texts = passage_texts(doc, ps, heading_prefix=False)
    in_table = [(p, t) for p, t in zip(ps, texts, strict=True) if "State number" in p.text]
    assert len(in_table) >= 2  # the table is longer than one passage
    assert in_table[0][0].text.startswith(header) and in_table[0][1] == in_table[0][0].text
    for p, t in in_table[1:]:
        assert not p.text.startswith("| state")
        assert t == "| state | mail your claim to |\n" + p.text  # the header row, not |---|
        assert doc.text[p.start : p.end] == p.text
    outside = [t for p, t in zip(ps, texts, strict=True) if "State number" not in p.text]
    assert outside == ["Where to mail it:", "The end."]
