"""A corpus: one ranking over every document's chunks, answered document by document.

The invariant: a corpus of one document ranks exactly as that document's retriever does, and its
whole answer is its document's part, under every configuration (hits, ranks, scores, pieces,
context, tokens, evidence, verdict). Beyond one
document: BM25 statistics are the corpus's, the carry stays inside a document, no piece of
context crosses a document, the budget counts every document's tokens, a distractor document
crowds out a hit, and the evidence names the document it counts in.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.answer import Answer, CorpusAnswer
from explorer.config import Config
from explorer.corpus import Corpus
from explorer.documents.model import Document
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.queries import Query
from explorer.evaluation.reach import never_reached, retrieval_map
from explorer.retrieval.evidence import Evidence
from explorer.retrieval.scoring import Bm25
from explorer.workspace import Workspace
from tests.conftest import (
    RULE_THEN_EXCEPTION,
    SAMPLES,
    answer_corpus,
    load_cached,
    make_doc,
    rank_corpus,
    rank_one,
)

BM25 = Config().replace(retriever="bm25")
SAMPLE_DOCS = [
    SAMPLES / "refund-policy.md",
    SAMPLES / "writing-guide.md",
    SAMPLES / "field-manual.pdf",
]


def evidence_fields(e: Evidence) -> tuple[object, ...]:
    return tuple(getattr(e, f.name) for f in fields(Evidence))


def assert_same(one: CorpusAnswer, alone: Answer, name: str) -> None:
    """The whole answer of a one-document corpus is its document's part."""
    assert [h.hit for h in one.ranking] == list(alone.ranking)
    assert [h.hit for h in one.hits] == list(alone.hits)
    assert all(h.doc == name for h in one.ranking)
    assert [p.piece for p in one.pieces] == list(alone.pieces)
    assert one.context == tuple((name, s, e) for s, e in alone.context)
    assert (one.tokens, one.widened) == (alone.tokens, alone.widened)
    assert [evidence_fields(e) for e in one.evidence] == [
        evidence_fields(e) for e in alone.evidence
    ]
    assert one.verdict == alone.verdict
    assert str(one.verdict) == str(alone.verdict)
    assert one.complete == alone.complete and one.covered == alone.covered


configs = st.builds(
    lambda splitter, unit, size, share, carry, neighbours, section, merge, headers, fill, prefix: (
        BM25.replace(
            splitter=splitter,
            unit=unit,
            size=size,
            overlap=size * share // 4,
            carry=carry,
            neighbours=neighbours,
            section=section,
            merge=merge,
            table_headers=headers,
            fill=fill,
            heading_prefix=prefix,
        )
    ),
    st.sampled_from(["fixed", "sentence", "recursive", "structure"]),
    st.sampled_from(["chars", "tokens", "words"]),
    st.sampled_from([40, 64, 128, 300]),
    st.integers(0, 2),
    st.sampled_from([0.0, 0.3, 1.0]),
    st.integers(0, 2),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
QUESTIONS = [
    "How long do I have to ask for a refund?",
    "What does the exception say about downloaded materials?",
    "Which torque applies to the bolts?",
    "headings in a guide",
    "zzz nothing matches",
]


@given(
    config=configs,
    path=st.sampled_from(SAMPLE_DOCS),
    question=st.sampled_from(QUESTIONS),
    k=st.one_of(st.none(), st.integers(1, 8)),
    budget=st.one_of(st.none(), st.integers(1, 1500)),
    picks=st.lists(st.tuples(st.floats(0, 1), st.integers(3, 40)), max_size=3),
    known=st.booleans(),
)
def test_a_corpus_of_one_document_answers_as_its_retriever(
    config: Config,
    path: Path,
    question: str,
    k: int | None,
    budget: int | None,
    picks: list[tuple[float, int]],
    known: bool,
) -> None:
    doc = load_cached(path)
    if k is None and budget is None:
        budget = 400
    text = doc.text
    spans = [(int(a * max(len(text) - n, 0)), int(a * max(len(text) - n, 0)) + n) for a, n in picks]
    evidence = [text[s:e] for s, e in spans] + ["a phrase that is not there at all"]
    given_spans = [*spans, None] if known else []
    retriever = Workspace().retriever(doc, config)
    one = answer_corpus(
        Corpus({doc.name: retriever}, config),
        question,
        evidence,
        k=k,
        budget=budget,
        known=given_spans,
    )
    assert [h.hit for h in one.ranking] == rank_one(retriever, question)
    assert_same(one, one.answers[doc.name], doc.name)


def test_a_corpus_of_one_document_answers_as_its_retriever_with_the_model(model_embedder) -> None:  # type: ignore[no-untyped-def]
    """Hybrid and dense, with the real model: the same scores, hits, context and verdict."""
    doc = load_cached(SAMPLES / "refund-policy.md")
    ws = Workspace()
    for config in (Config(), Config().replace(retriever="dense", dense="chunks", fill=False)):
        retriever = ws.retriever(doc, config)
        assert retriever.embedder is model_embedder  # the process's one embedder
        for question in QUESTIONS[:3]:
            for k, budget in ((5, None), (None, 300), (3, 1024)):
                ev = ["within seven days", "downloaded materials"]
                one = ws.answer(question, ev, config=config, names=[doc], k=k, budget=budget)
                assert [h.hit for h in one.ranking] == rank_one(retriever, question)
                assert_same(one, one.answers[doc.name], doc.name)


# --------------------------------------------------------------------------- many documents

REFUNDS = make_doc(RULE_THEN_EXCEPTION, name="refunds.txt")
SHIPPING = make_doc(
    "Shipping takes three days within the country.\n\n"
    "Parcels abroad take two weeks; refunds for lost parcels are paid by the carrier.\n\n"
    "Returns are free for members.",
    name="shipping.txt",
)


def corpus_of(docs: list[Document], config: Config) -> Corpus:
    """The documents, by their names, as one corpus of a workspace of their own."""
    return Workspace(None, docs).corpus(config)


PARAGRAPHS = Config().replace(
    retriever="bm25", splitter="recursive", unit="chars", size=80, overlap=0, carry=0.0
)


def test_the_ranking_mixes_documents_and_names_them() -> None:
    corpus = corpus_of([REFUNDS, SHIPPING], PARAGRAPHS)
    ranked = rank_corpus(corpus, "How many days do refunds take?")
    assert len(ranked) == corpus.size == sum(len(c) for c in corpus.chunks.values())
    assert [h.rank for h in ranked] == list(range(1, len(ranked) + 1))
    top = {h.doc for h in ranked[:4]}
    assert top == {"refunds.txt", "shipping.txt"}
    got = answer_corpus(corpus, "How many days do refunds take?", k=4)
    assert {h.doc for h in got.hits} == top
    assert all(d in ("refunds.txt", "shipping.txt") for d, _, _ in got.context)


def test_bm25_statistics_are_the_corpus_s() -> None:
    """The scores are one BM25 index's over every chunk (a word all documents use weighs
    little), not each document's own."""
    corpus = corpus_of([REFUNDS, SHIPPING], PARAGRAPHS)
    texts = [t for n in corpus.names for t in corpus.retriever(n).bm25_texts]
    question = "refunds within seven days"
    expected = Bm25(texts).scores(question)
    got = {(h.doc, h.index): h.score for h in rank_corpus(corpus, question)}
    where = [(n, i) for n in corpus.names for i in range(len(corpus.chunks[n]))]
    assert [got[w] for w in where] == pytest.approx(expected)
    alone = rank_one(Workspace().retriever(REFUNDS, PARAGRAPHS), question)
    assert [h.score for h in alone] != pytest.approx(
        sorted((got[("refunds.txt", i)] for i in range(len(alone))), reverse=True)
    )


def test_the_carry_stays_inside_a_document() -> None:
    config = PARAGRAPHS.replace(carry=1.0)
    corpus = corpus_of([REFUNDS, SHIPPING], config)
    for h in rank_corpus(corpus, "refunds free shipping members days"):
        if h.index == 0:
            assert h.carried == 0.0  # a document's first chunk has nothing before it


def test_context_never_crosses_a_document() -> None:
    docs = [load_cached(p) for p in SAMPLE_DOCS]
    for config in (
        BM25.replace(neighbours=2),
        BM25.replace(section=True),
        BM25.replace(merge=False, neighbours=1),
    ):
        corpus = corpus_of(docs, config)
        for question in QUESTIONS:
            got = answer_corpus(corpus, question, k=8)
            for p in got.pieces:
                doc = corpus.document(p.doc)
                assert 0 <= p.start < p.end <= len(doc.text)
                assert all(i < len(corpus.chunks[p.doc]) for i in p.chunk_indices)
            for name, own in got.answers.items():  # each document's part is its retriever's
                hits = [h.hit for h in got.hits if h.doc == name]
                assert list(own.pieces) == corpus.retriever(name).pieces(hits)


def test_the_budget_counts_every_document_and_fill_widens_inside_each() -> None:
    docs = [load_cached(p) for p in SAMPLE_DOCS]
    corpus = corpus_of(docs, BM25)
    for budget in (100, 400, 1500):
        a = answer_corpus(corpus, QUESTIONS[0], k=None, budget=budget)
        if budget == 100:  # no chunk fits: no hit, no context
            assert (a.hits, a.context, a.tokens) == ((), (), 0)
            continue
        assert a.tokens <= budget
        assert a.tokens == sum(own.tokens for own in a.answers.values())
        per_doc = {d: corpus.retriever(d).units for d in corpus.names}
        assert a.tokens == sum(per_doc[d].size(s, e) for d, s, e in a.context)
        assert a.widened
        for d, s, e in a.context:  # every stretch holds its hits' pieces and stays in its document
            assert 0 <= s < e <= len(corpus.document(d).text)
        nofill = answer_corpus(
            corpus.using(BM25.replace(fill=False)), QUESTIONS[0], k=None, budget=budget
        )
        assert nofill.hits == a.hits and not nofill.widened
        more = answer_corpus(corpus, QUESTIONS[0], k=len(nofill.hits) + 1, budget=None)
        assert corpus.cost(list(more.pieces)) > budget  # the next hit would overflow


def test_evidence_names_its_document_and_a_named_document_is_the_only_one_searched() -> None:
    corpus = corpus_of([REFUNDS, SHIPPING], PARAGRAPHS)
    a = answer_corpus(
        corpus, "parcels abroad", ["two weeks", "within seven days", "not anywhere"], k=1
    )
    weeks, seven, nowhere = a.evidence
    assert (weeks.doc, weeks.covered, weeks.best_rank) == ("shipping.txt", True, 1)
    assert seven.doc == "refunds.txt" and seven.found and not seven.covered
    assert nowhere.doc is None and not nowhere.found
    assert "of refunds.txt" in str(a.verdict)
    assert "'not anywhere' was not found in any document" in str(a.verdict)
    named = answer_corpus(corpus, "parcels abroad", ["two weeks"], k=1, doc="refunds.txt")
    assert not named.evidence[0].found  # only refunds.txt was searched
    assert "not found in refunds.txt" in str(named.verdict)
    assert set(named.answers) == {"refunds.txt", "shipping.txt"}  # the named one, and the hit's


# --------------------------------------------------------------------------- evaluation

DISTRACTOR = make_doc(
    "Refund days: how many days do I have to get a refund after purchase? Days and days.\n\n"
    "Refund purchase days refund purchase days.",
    name="faq.txt",
)


def test_a_distractor_document_crowds_out_the_hit_in_corpus_scope() -> None:
    q = Query(
        "q1", "refunds.txt", "How many days after purchase can I get a refund?", ("seven days",)
    )
    ws = Workspace(None, {"refunds.txt": REFUNDS, "faq.txt": DISTRACTOR})
    doc_scope = evaluate([q], ws, PARAGRAPHS, ks=(1, 2), budgets=(40,))
    corpus_scope = evaluate([q], ws, PARAGRAPHS, ks=(1, 2), budgets=(40,), scope="corpus")
    assert doc_scope.coverage_at_k == {1: 1.0, 2: 1.0}
    assert corpus_scope.coverage_at_k[1] == 0.0  # the FAQ outranks the rule
    for k in (1, 2):
        assert corpus_scope.coverage_at_k[k] <= doc_scope.coverage_at_k[k]
    assert corpus_scope.coverage_at_budget[40] <= doc_scope.coverage_at_budget[40]
    whole = corpus_scope.results[0].corpus_at_k[1]
    assert whole.hits[0].doc == "faq.txt"
    assert corpus_scope.scope == "corpus" and set(corpus_scope.documents) == {
        "refunds.txt",
        "faq.txt",
    }
    data = corpus_scope.to_json(ws)
    assert data["scope"] == "corpus"
    assert data["per_query"][0]["at_k"]["1"]["hits"][0]["doc"] == "faq.txt"
    assert data["per_query"][0]["at_k"]["1"]["context"][0][0] == "faq.txt"
    assert doc_scope.to_json(ws)["scope"] == "document"


def test_corpus_scope_over_one_document_scores_as_document_scope() -> None:
    qs = [
        Query(
            "a", "refunds.txt", "How many days after purchase can I get a refund?", ("seven days",)
        ),
        Query("b", "refunds.txt", "Are downloads refunded?", ("downloaded materials",)),
    ]
    ws = Workspace(None, {"refunds.txt": REFUNDS})
    a = evaluate(qs, ws, PARAGRAPHS, ks=(1, 2), budgets=(30, 60))
    b = evaluate(qs, ws, PARAGRAPHS, ks=(1, 2), budgets=(30, 60), scope="corpus")
    assert a.coverage_at_k == b.coverage_at_k and a.coverage_at_budget == b.coverage_at_budget
    for name in ("recall_at_k", "precision_at_k", "iou_at_k"):
        assert a.mean_at_k(name) == b.mean_at_k(name)
    assert [r.chunk_spans for r in a.results] == [r.chunk_spans for r in b.results]


# --------------------------------------------------------------------------- the retrieval map

BOILERPLATE = "Glossary: alpha beta gamma delta epsilon zeta."
TOPICS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]


def test_never_and_always_retrieved_on_a_small_set() -> None:
    body = "\n\n".join(f"The {t} rule is number {n}." for n, t in enumerate(TOPICS))
    text = f"{BOILERPLATE}\n\n{body}\n\nAn appendix nobody asks about, with other words."
    doc = make_doc(text, name="rules.txt")
    qs = [
        Query(t, "rules.txt", f"{t} rule", (f"{t} rule is number {n}",))
        for n, t in enumerate(TOPICS)
    ]
    ws = Workspace(None, {"rules.txt": doc})
    config = PARAGRAPHS.replace(size=50, neighbours=0, merge=False, fill=False)
    for scope in ("document", "corpus"):
        report = evaluate(qs, ws, config, ks=(2,), budgets=(), scope=scope)
        reach = retrieval_map(report, ws)["rules.txt"]
        assert reach.questions == 6
        appendix = text.index("An appendix")
        assert reach.never == ((appendix, len(text)),)
        visible = len("".join(text.split()))
        assert reach.never_fraction == pytest.approx(
            len("".join(text[appendix:].split())) / visible
        )
        [always] = reach.always
        assert text[always.start : always.end] == BOILERPLATE
        assert always.questions == always.unrelated >= 4  # unrelated to every question it serves
    strict = retrieval_map(report, ws, min_questions=7)["rules.txt"]
    assert strict.always == ()


def test_a_page_no_question_reaches_is_wholly_never_reached() -> None:
    """White space is neither reached nor missed: the untouched page is 100% never reached,
    not 99.9% for the new lines that end it (issue 36.10)."""
    body = "\n\n".join(f"The {t} rule is number {n}." for n, t in enumerate(TOPICS))
    other = "Kestrel nesting sites along the ridge.\n\nMigration notes in spring.\n\n\n"
    docs = {
        "rules.txt": make_doc(body, name="rules.txt"),
        "birds.txt": make_doc(other, name="birds.txt"),
    }
    qs = [
        Query(t, "rules.txt", f"{t} rule", (f"{t} rule is number {n}",))
        for n, t in enumerate(TOPICS)
    ]
    ws = Workspace(None, docs)
    config = PARAGRAPHS.replace(size=50, neighbours=0, merge=False, fill=False)
    report = evaluate(qs, ws, config, ks=(1,), budgets=(), scope="corpus")
    birds = retrieval_map(report, ws)["birds.txt"]
    assert birds.never == ((0, len(other.rstrip())),)
    assert birds.never_fraction == 1.0
    assert f"{birds.never_fraction:.1%}" == "100.0%"


def test_never_reached_trims_white_space() -> None:
    text = "  ab  cd \n\n ef  "
    assert never_reached(text, []) == ((2, 14),)
    assert never_reached(text, [(2, 4)]) == ((6, 14),)
    assert never_reached(text, [(0, len(text))]) == ()
    assert never_reached(text, [(6, 8), (2, 4)]) == ((12, 14),)


# --------------------------------------------------------------------------- command line


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    (d / "refunds.txt").write_text(REFUNDS.text, encoding="utf-8")
    (d / "shipping.txt").write_text(SHIPPING.text, encoding="utf-8")
    (d / "faq.txt").write_text(DISTRACTOR.text, encoding="utf-8")
    (d / "empty.md").write_bytes(b"")
    return d


def test_query_docs_retrieves_across_documents_and_lists_what_is_skipped(folder: Path) -> None:
    res = run_cli(
        "query", "--docs", str(folder), "How long do parcels abroad take?", "--evidence",
        "two weeks", "--retriever", "bm25", "--k", "3", "--splitter", "recursive", "--unit",
        "chars", "--size", "80", "--overlap", "0",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "skipped: empty.md" in res.stderr
    out = json.loads(res.stdout)
    assert out["hits"][0]["doc"] == "shipping.txt"
    assert all({"doc", "rank", "index", "start", "end"} <= set(h) for h in out["hits"])
    assert all("doc" in c for c in out["context"])
    assert out["evidence"][0]["doc"] == "shipping.txt" and out["evidence"][0]["covered"]
    assert {d["name"] for d in out["documents"]} == {"refunds.txt", "shipping.txt", "faq.txt"}
    # the question before --docs, and files given one by one
    res = run_cli(
        "query", "parcels", "--docs", str(folder / "refunds.txt"), str(folder / "shipping.txt"),
        "--retriever", "bm25",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert {h["doc"] for h in json.loads(res.stdout)["hits"]} <= {"refunds.txt", "shipping.txt"}
    res = run_cli("query", "--docs", str(folder / "empty.md"), "q", "--retriever", "bm25")
    assert res.returncode == 2 and "error:" in res.stderr and "Traceback" not in res.stderr


def test_eval_scope_corpus_json(folder: Path, tmp_path: Path) -> None:
    qs = tmp_path / "q.json"
    qs.write_text(
        json.dumps(
            [
                {
                    "id": "r1",
                    "doc": "refunds.txt",
                    "query": "How many days after purchase can I get a refund?",
                    "evidence": ["seven days"],
                },
                {
                    "id": "s1",
                    "doc": "shipping.txt",
                    "query": "How long do parcels abroad take?",
                    "evidence": ["two weeks"],
                },
            ]
        ),
        encoding="utf-8",
    )
    common = ["--queries", str(qs), "--docs", str(folder), "--retriever", "bm25"]
    common += ["--splitter", "recursive", "--unit", "chars", "--size", "80", "--overlap", "0"]
    common += ["--json"]
    res = run_cli("eval", *common, "--scope", "corpus", "--k", "1,2")
    assert res.returncode == 0, res.stderr
    assert "skipped: empty.md" in res.stderr
    out = json.loads(res.stdout)
    assert out["scope"] == "corpus"
    assert set(out["documents"]) == {"refunds.txt", "shipping.txt", "faq.txt"}  # all, not 2
    answer = out["per_query"][0]["at_k"]["1"]
    assert answer["hits"][0]["doc"] == "faq.txt" and not answer["covered"]
    assert all(isinstance(c[0], str) for c in answer["context"])
    assert set(out["retrieval_map"]["documents"]) == set(out["documents"])
    assert out["retrieval_map"]["k"] == 2
    doc = run_cli("eval", *common, "--k", "1,2")
    assert doc.returncode == 0, doc.stderr
    dout = json.loads(doc.stdout)
    assert dout["scope"] == "document" and set(dout["documents"]) == {"refunds.txt", "shipping.txt"}
    assert dout["coverage_at_k"]["1"] >= out["coverage_at_k"]["1"]
    text = run_cli("eval", *common[:-1], "--scope", "corpus")
    assert text.returncode == 0 and "scope: corpus (3 documents" in text.stdout
    assert "never reached" in text.stdout


def test_unknown_document_name_in_corpus_fails_clearly() -> None:
    corpus = corpus_of([REFUNDS], PARAGRAPHS)
    from explorer.errors import SettingsError

    with pytest.raises(SettingsError, match="no document named"):
        answer_corpus(corpus, "q", ["x"], doc="nope.txt")
    with pytest.raises(SettingsError, match="share the name"):
        Workspace(None, [REFUNDS, REFUNDS])
