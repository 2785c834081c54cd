"""Properties of the one answer path, :func:`explorer.answer.answer`, and of
:func:`explorer.evaluation.coverage.score`, which reads its metrics from those answers.

The references follow the module docstring of ``explorer/answer.py``: the candidates are the top
k (all chunks when k is ``None``); with a budget, hits are taken in rank order while the context
they make costs at most the budget, counted in cl100k tokens of the whole document, a piece at a
time (unmerged pieces each count); the first hit whose context would overflow stops it. The
pieces are :func:`~explorer.retrieval.context.context_pieces`' (its own properties are in
``test_properties_eval``), the tokens are counted here on units made afresh from the document
text. Documents are small and generated, chunked by the ``fixed`` splitter in characters, and
ranked by a generated ranking of every chunk, so nothing depends on BM25 (except in ``score``,
which ranks for itself).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from explorer.answer import Answer
from explorer.chunking.measures import Units, get_measure
from explorer.config import Config
from explorer.corpus import Corpus
from explorer.documents.model import Document
from explorer.evaluation.coverage import score
from explorer.evaluation.queries import Query
from explorer.retrieval.context import ContextPiece, context_pieces, union
from explorer.retrieval.evidence import locate
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import Hit
from tests.conftest import SAMPLES, answer_one, load_cached, make_doc, rank_one, retriever_of
from tests.test_properties_eval import (
    chars,
    markdown_texts,
    phrase_lists,
    ref_covered,
    ref_headers,
    ref_metrics,
    ref_section,
    table_texts,
    texts,
)

Span = tuple[int, int]

# --------------------------------------------------------------------------- strategies

WORDS = ["word", " word", "words", " seven", " days", "refund", " ", "\n", ".", "ab"]
documents = st.one_of(
    texts.filter(str.strip).map(lambda t: make_doc(t)),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(lambda w: make_doc("".join(w))),
    table_texts.map(lambda t: make_doc(t, kind="markdown", name="t.md")),
    table_texts.map(lambda t: make_doc(t, kind="markdown", name="t.md")),
    markdown_texts.map(lambda t: make_doc(t, kind="markdown", name="s.md")),
)
"""Plain text of every script and white space; words of several characters a token, which small
chunks cut (then a context can cost less as hits join); Markdown tables (header rows); Markdown
sections."""


@dataclass(frozen=True)
class Case:
    doc: Document
    retriever: Retriever
    """Under a configuration without ``fill``."""
    ranking: list[Hit]
    """Every chunk, in a generated order."""
    evidence: list[str]
    units: Units
    """cl100k units of the document text, made here (not the retriever's)."""

    def pieces(self, hits: Sequence[Hit]) -> list[ContextPiece]:
        c = self.retriever.config
        return context_pieces(
            hits,
            self.retriever.chunks,
            neighbours=c.neighbours,
            doc=self.doc,
            section=c.section,
            merge=c.merge,
            table_headers=c.table_headers,
        )

    def cost(self, spans: Sequence[Span]) -> int:
        """Tokens of ``spans`` sent as they are: each span counts in full."""
        return sum(self.units.size(s, e) for s, e in spans)

    def cost_of(self, hits: Sequence[Hit]) -> int:
        return self.cost(spans_of(self.pieces(hits)))

    def taken(self, candidates: Sequence[Hit], budget: int) -> int:
        """How many candidates a budget takes: up to the first whose context would overflow."""
        n = 0
        while n < len(candidates) and self.cost_of(candidates[: n + 1]) <= budget:
            n += 1
        return n

    def answer(
        self, *, k: int | None, budget: int | None = None, known: Sequence[Span | None] = ()
    ) -> Answer:
        """The answer under the configuration without fill, to the generated ranking."""
        return answer_one(
            self.retriever,
            "q",
            self.evidence,
            k=k,
            budget=budget,
            ranking=self.ranking,
            known=known,
        )


def spans_of(pieces: Sequence[ContextPiece]) -> list[Span]:
    return [(p.start, p.end) for p in pieces]


@st.composite
def cases(
    draw: st.DrawFn, docs: st.SearchStrategy[Document] = documents, smallest: int = 1
) -> Case:
    doc = draw(docs)
    size = draw(st.one_of(st.integers(smallest, 3), st.integers(smallest, 16)))
    config = Config(retriever="bm25").replace(
        splitter="fixed",
        unit="chars",
        size=size,
        overlap=draw(st.integers(0, size - 1)),
        carry=0.0,
        fill=False,
        merge=draw(st.booleans()),
        neighbours=draw(st.integers(0, 2)),
        section=draw(st.sampled_from([False, False, True])),
        table_headers=draw(st.sampled_from([True, True, False])),
    )
    retriever = retriever_of(doc, config)
    assume(retriever.chunks)
    order = draw(st.permutations(range(len(retriever.chunks))))
    ranking = [Hit(r + 1, i, 1.0 / (r + 1), "bm25") for r, i in enumerate(order)]
    evidence = draw(phrase_lists(doc.text))
    return Case(doc, retriever, ranking, evidence, get_measure("tokens").units(doc.text))


def ks_of(data: st.DataObject, case: Case) -> int | None:
    return data.draw(st.one_of(st.none(), st.integers(1, len(case.ranking) + 1)), label="k")


def budget_of(data: st.DataObject, case: Case, candidates: Sequence[Hit]) -> int:
    """A budget; often exactly what a prefix of the candidates costs (the edge of the rule)."""
    exact = sorted(
        {c for n in range(1, len(candidates) + 1) if (c := case.cost_of(candidates[:n]))}
    )
    anywhere = st.integers(1, case.units.total() + 5)
    return data.draw(st.one_of(anywhere, st.sampled_from(exact)) if exact else anywhere, "budget")


def located_of(a: Answer) -> list[tuple[Span, ...]]:
    return [e.spans for e in a.evidence]


def check_evidence(a: Answer, text: str) -> None:
    """Each phrase's place and whether the context holds it, from the definitions; the answer is
    covered (``Answer.covered``) exactly when every phrase found lies in its context."""
    inside = chars(a.context)
    for e in a.evidence:
        assert e.covered == any(chars([o]) <= inside for o in e.spans)
    located = located_of(a)
    assert a.covered == ref_covered(located, a.context)
    found = [e for e in a.evidence if e.found]
    assert a.covered == (bool(found) and all(e.covered for e in found))
    assert a.complete == (bool(a.evidence) and len(found) == len(a.evidence) and a.covered)


# --------------------------------------------------------------------------- found by these


def test_a_merged_context_can_cost_less() -> None:
    """Why the budget stops at the first overflow: a cost can fall as hits join.

    "word" is one cl100k token. Chunked one character a chunk, hits "w" then "d" each carry it
    (2 tokens); "o" and "r" join them into one piece (1 token). At a budget of 1 token only the
    first hit fits, although the fourth prefix costs 1 again.
    """
    doc = make_doc("word")
    config = Config(retriever="bm25").replace(
        splitter="fixed", unit="chars", size=1, overlap=0, carry=0.0, fill=False
    )
    r = retriever_of(doc, config)
    ranking = [Hit(n + 1, i, 0.0, "bm25") for n, i in enumerate((0, 3, 1, 2))]
    costs = [r.cost(r.pieces(ranking[:n])) for n in range(1, 5)]
    assert costs == [1, 2, 2, 1]
    a = answer_one(r, "q", ["d"], k=None, budget=1, ranking=ranking)
    assert a.hits == (ranking[0],) and a.context == ((0, 1),) and a.tokens == 1
    assert not a.complete  # "d" is the second hit: over the budget
    assert answer_one(r, "q", ["d"], k=None, budget=2, ranking=ranking).hits == tuple(ranking)
    # with fill, the one token the hit costs leaves nothing to widen with
    filled = answer_one(
        r.using(config.replace(fill=True)), "q", ["d"], k=None, budget=1, ranking=ranking
    )
    assert filled.context == a.context and not filled.widened


# --------------------------------------------------------------------------- the budget


@given(case=cases(), data=st.data())
def test_a_budget_takes_hits_in_rank_order_until_the_first_would_overflow(
    case: Case, data: st.DataObject
) -> None:
    k = ks_of(data, case)
    candidates = case.ranking[:k] if k is not None else case.ranking
    budget = budget_of(data, case, candidates)
    a = case.answer(k=k, budget=budget)
    n = case.taken(candidates, budget)
    assert a.ranking == tuple(case.ranking)
    assert a.hits == tuple(candidates[:n])  # a prefix of the candidates
    assert list(a.pieces) == case.pieces(candidates[:n])
    assert list(a.context) == spans_of(a.pieces) and not a.widened  # no fill: the pieces
    assert a.tokens == case.cost(a.context) <= budget
    if n < len(candidates):  # the first candidate not taken would overflow
        assert case.cost_of(candidates[: n + 1]) > budget
    check_evidence(a, case.doc.text)
    # a larger budget takes these hits and maybe more: coverage never falls (without fill)
    more = case.answer(k=k, budget=budget + data.draw(st.integers(1, 40), "more"))
    assert more.hits[:n] == a.hits
    assert chars(a.context) <= chars(more.context)
    assert more.covered or not a.covered
    assert all(m.covered or not e.covered for e, m in zip(a.evidence, more.evidence, strict=True))


@st.composite
def joining_cases(draw: st.DrawFn) -> Case:
    """Words cut into one-character chunks, ranked so that a token's first and last chunks come
    first and the chunks between them next: the context costs the token twice, then once."""
    doc = make_doc("".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))))
    config = Config(retriever="bm25").replace(
        splitter="fixed", unit="chars", size=1, overlap=0, carry=0.0, fill=False
    )
    retriever = retriever_of(doc, config)
    units = get_measure("tokens").units(doc.text)
    chunks = retriever.chunks
    runs = [
        inside
        for a, b in itertools.pairwise(units.bounds)
        if len(inside := [c.index for c in chunks if a <= c.start and c.end <= b]) >= 3
    ]
    assume(runs)
    run = draw(st.sampled_from(runs))
    rest = draw(st.permutations([c.index for c in chunks if c.index not in run]))
    order = [run[0], run[-1], *run[1:-1], *rest]
    ranking = [Hit(r + 1, i, 1.0 / (r + 1), "bm25") for r, i in enumerate(order)]
    return Case(doc, retriever, ranking, draw(phrase_lists(doc.text)), units)


@given(case=joining_cases())
def test_the_first_overflow_stops_the_budget_though_a_longer_prefix_would_fit(case: Case) -> None:
    """A cost can fall as hits join (see ``test_a_merged_context_can_cost_less``); the budget
    still stops at the first hit that would overflow it."""
    first = case.cost_of(case.ranking[:1])
    assert case.cost_of(case.ranking[:2]) > first  # the second hit would overflow ...
    n = len(case.ranking)
    refits = [m for m in range(3, n + 1) if case.cost_of(case.ranking[:m]) <= first]
    assert refits  # ... though a longer prefix (the run joined into one piece) fits again
    a = case.answer(k=None, budget=first)
    assert a.hits == (case.ranking[0],)
    assert a.tokens == case.cost(a.context) == first


@given(case=cases())
def test_without_a_budget_the_top_k_are_the_hits_and_coverage_never_falls_as_k_grows(
    case: Case,
) -> None:
    ks = range(1, len(case.ranking) + 2)
    answers = [case.answer(k=k) for k in ks]
    for k, a in zip(ks, answers, strict=True):
        assert a.hits == tuple(case.ranking[:k])
        assert list(a.pieces) == case.pieces(case.ranking[:k])
        assert list(a.context) == spans_of(a.pieces) and not a.widened
        assert a.tokens == case.cost(a.context)
        check_evidence(a, case.doc.text)
    everything = case.answer(k=None)
    assert (everything.hits, everything.context) == (answers[-1].hits, answers[-1].context)
    for a, b in itertools.pairwise(answers):
        assert located_of(a) == located_of(b)
        assert chars(a.context) <= chars(b.context)
        assert b.covered or not a.covered
        assert all(y.covered or not x.covered for x, y in zip(a.evidence, b.evidence, strict=True))


# --------------------------------------------------------------------------- what cut a phrase


@given(case=cases(), data=st.data())
def test_what_cut_a_phrase_is_the_limit_whose_lifting_alone_brings_it_in(
    case: Case, data: st.DataObject
) -> None:
    """``cut_by`` against a brute force: answer again with k lifted alone, with the budget
    lifted alone, and with both, and see whether the phrase comes in (issue 36.1)."""
    k = ks_of(data, case)
    candidates = case.ranking[:k] if k is not None else case.ranking
    budget = data.draw(st.one_of(st.none(), st.just(budget_of(data, case, candidates))), "b")
    a = case.answer(k=k, budget=budget)
    lifted_k = case.answer(k=None, budget=budget)
    lifted_budget = case.answer(k=k)
    lifted_both = case.answer(k=None)
    sentence = a.verdict.sentence() if a.verdict is not None else ""
    for i, e in enumerate(a.evidence):
        if not e.found or e.covered:
            assert e.cut_by is None
            continue
        by_k, by_budget = lifted_k.evidence[i].covered, lifted_budget.evidence[i].covered
        assert not (by_k and by_budget)  # either alone would reach it: the answer already does
        expected = (
            "k" if by_k
            else "budget" if by_budget
            else "both" if lifted_both.evidence[i].covered
            else "not retrieved"
        )  # fmt: skip
        assert e.cut_by == expected, (e, a.limits)
        if expected == "not retrieved":
            assert e.reached_at is None
        else:  # the hits to that rank, and no fewer, hold it
            assert e.reached_at is not None
            assert case.answer(k=e.reached_at).evidence[i].covered
            assert e.reached_at == 1 or not case.answer(k=e.reached_at - 1).evidence[i].covered
        if e.chunk_indices and k is not None and expected != "k":
            assert f"{e.phrase!r} is in chunk {e.chunk_indices[0]}, ranked" in sentence
            assert f"below the top {k}" not in sentence.split(repr(e.phrase), 2)[1]


def test_the_refund_line_of_the_issue_needs_both_the_budget_and_k() -> None:
    """``--k 3 --budget 120`` at 250 characters: the budget holds the top 2 and the exception's
    chunk ranks 5th, so neither raising k (the budget still stops after 2) nor lifting the budget
    (k = 3 still stops before the 5th) brings it in."""
    doc = load_cached(SAMPLES / "refund-policy.md")
    config = Config(retriever="bm25").replace(
        splitter="fixed", unit="chars", size=250, overlap=0, fill=False, carry=0.0
    )
    r = retriever_of(doc, config)
    # the CLI's hybrid ranking puts the exception's chunk (4) 5th; so does this one
    ranking = [Hit(n + 1, i, 1.0 / (n + 1), "bm25") for n, i in enumerate(range(len(r.chunks)))]
    phrase = "does not apply to downloaded materials"
    a = answer_one(r, "q", [phrase], k=3, budget=120, ranking=ranking)
    [e] = a.evidence
    assert a.limits is not None and a.limits.taken == 2 and e.best_rank == 5
    assert e.cut_by == "both" and e.reached_at == 5
    assert not answer_one(r, "q", [phrase], k=15, budget=120, ranking=ranking).covered
    assert not answer_one(r, "q", [phrase], k=3, ranking=ranking).covered
    assert answer_one(r, "q", [phrase], k=5, budget=1000, ranking=ranking).covered
    sentence = str(a.verdict)
    assert e.chunk_indices == (4,)
    assert "below the top 3" not in sentence
    assert "the 120-token budget held the top 2" in sentence and "both the budget and k" in sentence
    at_k5 = answer_one(r, "q", [phrase], k=5, budget=120, ranking=ranking)
    assert at_k5.evidence[0].cut_by == "budget" and "within the top 5" in str(at_k5.verdict)


# --------------------------------------------------------------------------- filling the budget


@given(case=cases(), data=st.data())
def test_filling_the_budget_never_uncovers_a_question(case: Case, data: st.DataObject) -> None:
    """With ``fill``, the context holds the hits' pieces (the hits those without fill take),
    costs at most the budget, and holds every phrase it holds without; a fill that adds
    nothing changes nothing, and without a budget fill does nothing."""
    k = ks_of(data, case)
    candidates = case.ranking[:k] if k is not None else case.ranking
    budget = budget_of(data, case, candidates)
    filling = case.retriever.using(case.retriever.config.replace(fill=True))
    plain = case.answer(k=k, budget=budget)
    filled = answer_one(filling, "q", case.evidence, k=k, budget=budget, ranking=case.ranking)
    assert filled.hits == plain.hits and filled.pieces == plain.pieces
    inside = chars(filled.context)
    assert chars(spans_of(filled.pieces)) <= inside
    assert filled.tokens == case.cost(filled.context) <= budget
    check_evidence(filled, case.doc.text)
    assert located_of(filled) == located_of(plain)
    assert filled.covered or not plain.covered
    assert all(
        f.covered or not p.covered for p, f in zip(plain.evidence, filled.evidence, strict=True)
    )
    if filled.widened:
        assert list(filled.context) == union(filled.context)  # disjoint, in document order
        assert inside > chars(plain.context)
        assert all(0 <= s < e <= len(case.doc.text) for s, e in filled.context)
        assert case.cost(union(plain.context)) < budget  # it had tokens to spend
    else:
        assert (filled.context, filled.tokens) == (plain.context, plain.tokens)
    unbounded = answer_one(filling, "q", case.evidence, k=k, ranking=case.ranking)
    assert not unbounded.widened
    assert unbounded.context == case.answer(k=k).context


# --------------------------------------------------------------------------- known evidence spans


@given(case=cases(), data=st.data())
def test_a_known_span_is_kept_only_when_it_is_an_occurrence(
    case: Case, data: st.DataObject
) -> None:
    text = case.doc.text
    spans = st.tuples(st.integers(0, len(text)), st.integers(0, len(text) + 2))
    known: list[Span | None] = []
    for phrase in case.evidence:
        occurrences = locate(phrase, text)
        choices = [st.none(), spans]
        if occurrences:
            choices.append(st.sampled_from(occurrences))
        known.append(data.draw(st.one_of(choices)))
    expected = [
        (given,) if given is not None and given in locate(p, text) else tuple(locate(p, text))
        for p, given in zip(case.evidence, known, strict=True)
        if p.strip()
    ]
    a = case.answer(k=ks_of(data, case), known=known)
    assert located_of(a) == expected
    check_evidence(a, text)


# --------------------------------------------------------------------------- score


WORD = "x" * 40
"""A word that some chunk of 2 to 16 characters holds whatever its cuts: bm25s cannot index
chunks that hold no word of two characters or more (it raises)."""
WORDED = st.tuples(st.one_of(table_texts, table_texts, markdown_texts), st.booleans()).map(
    lambda t: make_doc(t[0] + f"\n{WORD}\n" if t[1] else f"{WORD}\n\n" + t[0], kind="markdown")
)


def own_spans(case: Case, h: Hit) -> list[Span]:
    """What hit ``h`` brings on its own, from the definitions: its chunk widened to its
    neighbours or its section, then the header rows of the tables that reaches into."""
    c, chunks = case.retriever.config, case.retriever.chunks
    chunk = chunks[h.index]
    if c.section:
        s, e = ref_section(case.doc, chunk.start)
        span = (min(s, chunk.start), max(e, chunk.end))
    else:
        lo, hi = max(0, h.index - c.neighbours), min(len(chunks) - 1, h.index + c.neighbours)
        span = (chunks[lo].start, chunks[hi].end)
    return [span, *(ref_headers(case.doc, span) if c.table_headers else [])]


@given(case=cases(WORDED, smallest=2), data=st.data())
def test_score_reads_coverage_from_the_answers_and_counts_each_hit_with_its_header_rows(
    case: Case, data: st.DataObject
) -> None:
    """``score`` answers at every k and budget from one ranking; coverage is ``covered`` over each
    answer's context; recall, precision and IoU at k count what each of the top k hits brings
    on its own (with its table's header rows), with multiplicity; known spans are respected."""
    r = case.retriever
    question = data.draw(st.sampled_from(["text", "a b", "item one", WORD[:5]]), "question")
    evidence = [p for p in case.evidence if p.strip()]
    known = [
        data.draw(st.one_of(st.none(), st.sampled_from(locate(p, case.doc.text) or [(0, 1)])))
        for p in evidence
    ]
    # every hit among them (its header rows counted, whatever the ks drawn)
    ks = sorted({*data.draw(st.sets(st.integers(1, len(r.chunks) + 1), max_size=3)), len(r.chunks)})
    budgets = sorted(data.draw(st.sets(st.integers(1, case.units.total() + 5), max_size=2)))
    query = Query("q", "t.md", question, tuple(evidence), tuple(known))
    result = score(query, Corpus({"t.md": r}, r.config), ks, budgets)
    ranking = rank_one(r, question)
    assert sorted(h.index for h in ranking) == list(range(len(r.chunks)))
    located = [
        (given,) if given in locate(p, case.doc.text) else tuple(locate(p, case.doc.text))
        for p, given in zip(evidence, known, strict=True)
    ]
    assert list(result.located) == located
    assert result.scored == any(located)
    for k in ks:
        a = result.at_k[k]
        assert a.ranking == tuple(ranking) and a.hits == tuple(ranking[:k]) and a.budget is None
        assert result.covered_at_k[k] == ref_covered(located, a.context)
        flat = [sp for h in ranking[:k] for sp in own_spans(case, h)]
        recall, precision, iou = ref_metrics(located, flat)
        assert result.recall_at_k[k] == pytest.approx(recall)
        assert result.precision_at_k[k] == pytest.approx(precision)
        assert result.iou_at_k[k] == pytest.approx(iou)
    for b in budgets:
        a = result.at_budget[b]
        assert a.ranking == tuple(ranking) and a.k is None
        assert a.hits == tuple(ranking[: case.taken(ranking, b)])
        assert result.covered_at_budget[b] == ref_covered(located, a.context)
    # what each of the first hits brings, widened (the hits any answer reaches, k included)
    assert len(result.chunk_spans) == len(result.hits) >= min(ks[-1], len(ranking))
    assert list(result.chunk_spans) == [own_spans(case, h)[0] for h in result.hits]
