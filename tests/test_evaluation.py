"""Evaluation metrics on hand-computed cases, query-set parsing, and the eval/sweep CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.chunking.splitters import ChunkSettings
from explorer.errors import SettingsError
from explorer.evaluation.evaluate import (
    RECOMMENDED,
    EvalConfig,
    Workspace,
    budget_cut,
    evaluate,
    flipped,
    locate_evidence,
    score_query,
    sweep,
)
from explorer.evaluation.queries import (
    Query,
    QuerySetError,
    dump_queries,
    load_queries,
    parse_queries,
)
from explorer.retrieval.index import CARRY
from tests.conftest import CARRY_QUESTION, RULE_THEN_EXCEPTION, SAMPLES

Q = Query("q", "d.md", "question", ("e1", "e2"))


def test_overlapping_hits_count_twice_for_precision_and_iou() -> None:
    # evidence [10, 20); hits [0, 15) and [5, 25) overlap on [5, 15)
    m = score_query(Q, [((10, 20),)], [(0, 15), (5, 25)], [5, 5], ks=[1, 2], budgets=[])
    assert m["covered_at_k"] == {1: False, 2: True}
    assert m["recall_at_k"][1] == pytest.approx(5 / 10)
    assert m["recall_at_k"][2] == pytest.approx(1.0)
    # retrieved characters with multiplicity: 15 + 20 = 35
    assert m["precision_at_k"][2] == pytest.approx(10 / 35)
    assert m["iou_at_k"][2] == pytest.approx(10 / (35 + 10 - 10))
    assert m["precision_at_k"][1] == pytest.approx(5 / 15)
    assert m["iou_at_k"][1] == pytest.approx(5 / (15 + 10 - 5))


def test_evidence_straddling_two_adjacent_retrieved_chunks_is_covered() -> None:
    located = [((8, 14),)]
    spans = [(0, 10), (10, 20), (20, 30)]
    m = score_query(Q, located, spans, [1, 1, 1], ks=[1, 2], budgets=[])
    assert m["covered_at_k"] == {1: False, 2: True}
    # ranked apart (a gap between them) it is not covered
    m = score_query(Q, located, [(0, 10), (20, 30), (10, 20)], [1, 1, 1], ks=[2, 3], budgets=[])
    assert m["covered_at_k"] == {2: False, 3: True}


def test_evidence_not_located_is_neither_hit_nor_miss() -> None:
    # e1 located and covered, e2 not located: the query is covered on what can be checked
    m = score_query(Q, [((0, 5),), ()], [(0, 10)], [3], ks=[1], budgets=[100])
    assert m["covered_at_k"] == {1: True}
    assert m["recall_at_k"][1] == 1.0
    # nothing located: never covered, and the report leaves the query out of the averages
    m = score_query(Q, [(), ()], [(0, 10)], [3], ks=[1], budgets=[100])
    assert m["covered_at_k"] == {1: False}


def test_budget_cut_stops_at_the_first_hit_that_overflows() -> None:
    assert budget_cut([300, 300, 100, 50], 512) == 1
    assert budget_cut([300, 200, 100], 512) == 2
    assert budget_cut([600, 10], 512) == 0
    assert budget_cut([100, 100], 1024) == 2
    located = [((50, 60),)]
    spans = [(0, 10), (100, 200), (40, 70)]
    m = score_query(Q, located, spans, [300, 300, 100], ks=[3], budgets=[512, 1024])
    assert m["covered_at_budget"] == {512: False, 1024: True}


def test_a_phrase_occurring_twice_scores_on_its_best_covered_occurrence() -> None:
    located = [((0, 10), (100, 110))]
    m = score_query(Q, located, [(95, 120)], [1], ks=[1], budgets=[])
    assert m["covered_at_k"][1] and m["recall_at_k"][1] == 1.0


def test_given_spans_win_over_search_when_they_match() -> None:
    text = "alpha beta. alpha beta."
    q = Query("q", "d", "x", ("alpha beta",), spans=((12, 22),))
    assert locate_evidence(q, text) == (((12, 22),),)
    q = Query("q", "d", "x", ("alpha beta",), spans=((3, 9),))  # stale span: search instead
    assert locate_evidence(q, text) == (((0, 10), (12, 22)),)


def test_query_set_parsing_errors_name_the_entry(tmp_path: Path) -> None:
    ok = parse_queries([{"id": "a", "doc": "x.md", "query": "q", "evidence": ["e"], "kind": "k"}])
    assert ok[0].evidence == ("e",)
    assert parse_queries(json.loads(dump_queries(ok))) == ok
    for bad, message in [
        ({}, "expected a JSON list"),
        ([1], "entry 1 is not an object"),
        ([{"id": "a", "doc": "x", "query": ""}], "'query' must be"),
        ([{"id": "a", "doc": "x", "query": "q", "evidence": "e"}], "must be a list"),
        (
            [
                {"id": "a", "doc": "x", "query": "q", "evidence": []},
                {"id": "a", "doc": "x", "query": "q", "evidence": []},
            ],
            "duplicate id",
        ),
    ]:
        with pytest.raises(QuerySetError, match=message):
            parse_queries(bad)
    p = tmp_path / "broken.json"
    p.write_text("[{]")
    with pytest.raises(QuerySetError, match="not valid JSON"):
        load_queries(p)
    with pytest.raises(QuerySetError, match="no such query set"):
        load_queries(tmp_path / "missing.json")


REFUND_QUERIES = [
    Query(
        "rule-exception",
        "refund-policy.md",
        "How long do I have to ask for a refund?",
        (
            "Refunds are available within seven days.",
            "This does not apply to downloaded materials.",
        ),
    ),
    Query("absent", "refund-policy.md", "anything", ("this phrase is nowhere",)),
]


def test_evaluate_end_to_end_with_bm25_and_a_sweep() -> None:
    ws = Workspace(SAMPLES)
    fixed = EvalConfig(
        ChunkSettings(splitter="fixed", unit="chars", size=40, overlap=0), retriever="bm25"
    )
    structure = EvalConfig(
        ChunkSettings(splitter="structure", unit="tokens", size=256, overlap=0), retriever="bm25"
    )
    a = evaluate(REFUND_QUERIES, ws, fixed, ks=[1], budgets=[1024])
    b = evaluate(REFUND_QUERIES, ws, structure, ks=[1], budgets=[1024])
    assert a.counts()["not_located"] == 1 and a.counts()["scored_queries"] == 1
    assert a.coverage_at_k == {1: 0.0} and b.coverage_at_k == {1: 1.0}
    assert flipped(a, b, k=1) == [("rule-exception", False, True)]
    out = b.to_json()
    assert set(out) >= {"config", "counts", "coverage_at_k", "coverage_at_budget", "per_query"}
    assert out["coverage_at_k"] == {"1": 1.0}
    hits = out["per_query"][0]["hits"]
    assert sum(h["tokens"] for h in hits[:-1]) <= 1024 or len(hits) == b.chunks
    grid = sweep(REFUND_QUERIES, ws, fixed, sizes=[40, 400], overlaps=[0, 100], ks=[1])
    assert [(r.config.settings.size, r.config.settings.overlap) for r in grid] == [
        (40, 0),
        (400, 0),
        (400, 100),
    ]


def test_eval_cli_json_and_min_coverage(tmp_path: Path) -> None:
    qfile = tmp_path / "q.json"
    qfile.write_text(dump_queries(REFUND_QUERIES))
    base = [sys.executable, "-m", "explorer", "eval", "--queries", str(qfile), "--docs"]
    res = subprocess.run(
        [*base, str(SAMPLES), "--retriever", "bm25", "--k", "1,3", "--budget", "256,1024",
         "--json", "--min-coverage", "0.5"],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out["coverage_at_k"]) == {"1", "3"}
    assert set(out["coverage_at_budget"]) == {"256", "1024"}
    assert out["counts"]["queries"] == 2 and out["counts"]["not_located"] == 1
    assert out["config"]["splitter"] == "structure"  # the recommended default
    res = subprocess.run(
        [*base, str(SAMPLES), "--retriever", "bm25", "--splitter", "fixed", "--unit", "chars",
         "--size", "40", "--k", "1", "--min-coverage", "0.9"],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 1 and b"below --min-coverage" in res.stderr
    res = subprocess.run(
        [*base, str(tmp_path / "nowhere")], capture_output=True, timeout=300, check=False
    )
    assert res.returncode == 2 and b"not in" in res.stderr and res.stderr.count(b"\n") == 1


def test_merged_context_counts_shared_text_once_in_the_budget() -> None:
    # costs are the tokens of the merged context after n hits, not the sum of the hits
    located = [((40, 60),)]
    spans = [(0, 50), (30, 70)]  # overlapping hits; together they hold the evidence
    m = score_query(Q, located, spans, [50, 40], ks=[2], budgets=[80], costs=[50, 70])
    assert m["covered_at_budget"] == {80: True}
    # summed per hit (50 + 40 = 90) the second hit would not fit a budget of 80
    m = score_query(Q, located, spans, [50, 40], ks=[2], budgets=[80])
    assert m["covered_at_budget"] == {80: False}


def test_merge_and_neighbours_in_evaluate() -> None:
    ws = Workspace(SAMPLES)
    base = ChunkSettings(splitter="fixed", unit="tokens", size=12, overlap=6)
    plain = evaluate(REFUND_QUERIES, ws, EvalConfig(base, retriever="bm25"), ks=[1], budgets=[24])
    merged = evaluate(
        REFUND_QUERIES, ws, EvalConfig(base, retriever="bm25", merge=True), ks=[1], budgets=[24]
    )
    wide = evaluate(
        REFUND_QUERIES, ws, EvalConfig(base, retriever="bm25", neighbours=2), ks=[1], budgets=[24]
    )
    assert merged.coverage_at_k == plain.coverage_at_k  # merging never changes the top-k text
    assert wide.coverage_at_k[1] >= plain.coverage_at_k[1]
    assert wide.to_json()["config"]["merge"] is True


def test_one_workspace_serves_bm25_then_hybrid(model_embedder) -> None:  # type: ignore[no-untyped-def]
    queries = [
        Query(
            "q1",
            "refund-policy.md",
            "How long do I have to ask for a refund?",
            ("within seven days",),
        )
    ]
    ws = Workspace(SAMPLES)
    settings = ChunkSettings("structure", "tokens", 256, 64)
    lexical = evaluate(queries, ws, EvalConfig(settings=settings, retriever="bm25"))
    hybrid = evaluate(queries, ws, EvalConfig(settings=settings, retriever="hybrid"))
    assert lexical.results[0].hits[0].retriever == "bm25"
    assert hybrid.results[0].hits[0].retriever == "hybrid"


def test_eval_cli_defaults_are_the_recommended_configuration() -> None:
    from explorer.cli import build_parser, eval_config_from

    def config(*options: str) -> EvalConfig:
        args = build_parser().parse_args(["eval", "--queries", "q.json", "--docs", ".", *options])
        return eval_config_from(args)

    assert config() == RECOMMENDED  # merge, prefix and dense source included
    changed = config("--merge", "off", "--neighbours", "1", "--dense", "chunks", "--size", "128")
    assert (changed.merge, changed.neighbours, changed.dense) == (False, 1, "chunks")
    assert (changed.settings.size, changed.settings.overlap) == (128, 0)
    assert changed.settings.splitter == RECOMMENDED.settings.splitter
    assert RECOMMENDED.table_headers and not config("--table-headers", "off").table_headers
    assert RECOMMENDED.carry == CARRY and config("--carry", "0").carry == 0.0
    assert RECOMMENDED.fill and not config("--fill", "off").fill


def test_a_workspace_evaluates_documents_loaded_in_memory(tmp_path: Path) -> None:
    from explorer.documents.load import load_document

    text = "# Policy\n\nRefunds are available within seven days. This does not apply to sales.\n"
    uploaded = load_document(text.encode(), name="upload.md")
    q = Query("u1", "upload.md", "refund period", ("within seven days",))
    ws = Workspace(None, documents={"upload.md": uploaded})
    report = evaluate([q], ws, EvalConfig(retriever="bm25"))
    assert report.coverage_at_k[1] == 1.0
    # an upload wins over a file of the same name in the folder
    (tmp_path / "upload.md").write_text("# Other\n\nNothing about refunds here.\n")
    both = Workspace(tmp_path, documents={"upload.md": uploaded})
    assert both.document("upload.md") is uploaded
    with pytest.raises(QuerySetError, match=r"'missing\.md' is not in the loaded documents"):
        Workspace(None).document("missing.md")


def test_table_headers_cover_a_row_question_and_are_charged_to_the_budget() -> None:
    from explorer.documents.load import load_document

    text = (
        "# Plans\n\nEvery plan can be cancelled.\n\n"
        "| Plan | Refund window | Notice |\n|---|---|---|\n"
        + "".join(f"| Plan {i} | {i} days | {i} weeks |\n" for i in range(1, 41))
    )
    doc = load_document(text.encode(), name="plans.md")
    q = Query("t1", "plans.md", "How long for plan 30?", ("Refund window", "| Plan 30 | 30 days |"))
    ws = Workspace(None, documents={"plans.md": doc})
    settings = ChunkSettings(splitter="structure", unit="tokens", size=64, overlap=0)
    off = EvalConfig(settings, retriever="bm25", heading_prefix=False, merge=True)
    on = EvalConfig(settings, retriever="bm25", heading_prefix=False, table_headers=True)
    assert on.merges and on.describe()["table_headers"] is True
    without = evaluate([q], ws, off, ks=[1], budgets=[1000])
    hit = without.results[0].chunk_spans[0]
    assert "| Plan 30 |" in text[hit[0] : hit[1]] and "Refund window" not in text[hit[0] : hit[1]]
    assert without.coverage_at_k[1] == 0.0

    header = (text.index("| Plan |"), text.index("\n|---"))
    units = ws.doc_units("plans.md")
    cost = units.size(*hit) + units.size(*header)  # what the LLM gets: the row chunk and header
    with_headers = evaluate([q], ws, on, ks=[1], budgets=[cost, cost - 1])
    r = with_headers.results[0]
    assert r.extra_spans is not None and r.extra_spans[0] == (header,)
    assert r.covered_at_k == {1: True}
    assert r.covered_at_budget == {cost - 1: False, cost: True}
    assert with_headers.to_json()["per_query"][0]["hits"][0]["table_headers"] == [list(header)]


def test_bench_eval_slices_coverage_by_kind(tmp_path: Path) -> None:
    from benchmarks.bench_eval import by_kind, kinds_of

    items = [
        {"id": "a", "doc": "refund-policy.md", "query": "refund period", "kind": "rule"},
        {"id": "b", "doc": "refund-policy.md", "query": "x", "kind": "rule"},
        {"id": "c", "doc": "refund-policy.md", "query": "y"},
    ]
    path = tmp_path / "q.json"
    path.write_text(json.dumps(items))
    assert kinds_of(path) == {"a": "rule", "b": "rule", "c": "(none)"}
    queries = [
        Query("a", "refund-policy.md", "How long for a refund?", ("within seven days",)),
        Query("b", "refund-policy.md", "zzz", ("We answer within two working days.",)),
        Query("c", "refund-policy.md", "anything", ("this phrase is nowhere",)),  # not scored
    ]
    report = evaluate(
        queries, Workspace(SAMPLES), EvalConfig(retriever="bm25"), budgets=[512, 1024]
    )
    covered = [r.covered_at_budget[512] for r in report.results[:2]]
    assert by_kind(report, kinds_of(path)) == {
        "rule": (
            2,
            sum(covered) / 2,
            sum(r.covered_at_budget[1024] for r in report.results[:2]) / 2,
        )
    }


def test_carry_brings_the_exception_into_the_top_two() -> None:
    from explorer.documents.load import load_document

    text = RULE_THEN_EXCEPTION
    doc = load_document(text.encode(), name="policy.md")
    q = Query(
        "r1",
        "policy.md",
        CARRY_QUESTION,
        ("within seven days", "does not apply to downloaded materials"),
    )
    ws = Workspace(None, documents={"policy.md": doc})
    settings = ChunkSettings(splitter="recursive", unit="words", size=10, overlap=0)
    plain = EvalConfig(settings, retriever="bm25", heading_prefix=False, merge=True)
    carried = EvalConfig(settings, retriever="bm25", heading_prefix=False, merge=True, carry=0.3)
    assert carried.describe()["carry"] == 0.3 and plain.describe()["carry"] == 0.0
    without = evaluate([q], ws, plain, ks=[1, 2], budgets=[25])
    with_carry = evaluate([q], ws, carried, ks=[1, 2], budgets=[25])
    assert without.coverage_at_k == {1: 0.0, 2: 0.0}
    assert with_carry.coverage_at_k == {1: 0.0, 2: 1.0}
    # the rule and its exception touch, so the two hits cost one stretch of text
    assert with_carry.coverage_at_budget == {25: 1.0} and without.coverage_at_budget == {25: 0.0}
    hit = with_carry.to_json()["per_query"][0]["hits"][1]
    assert hit["carried"] > 0 and hit["score"] == pytest.approx(hit["carried"])  # all carried
    with pytest.raises(SettingsError, match="carry must be between 0 and 1"):
        EvalConfig(settings, carry=-0.5)


def test_filling_the_budget_brings_the_exception_after_the_rule() -> None:
    from explorer.documents.load import load_document

    text = (
        "Refunds are available within seven days of purchase.\n\n"
        "This does not apply to downloaded materials.\n\n"
        "Gift cards are valid until spent, whatever the purchase.\n\n"
        "Shipping is free for orders over fifty euros."
    )
    doc = load_document(text.encode(), name="policy.md")
    q = Query("r1", "policy.md", CARRY_QUESTION, ("within seven days", "downloaded materials"))
    ws = Workspace(None, documents={"policy.md": doc})
    settings = ChunkSettings(splitter="recursive", unit="words", size=10, overlap=0)
    plain = EvalConfig(settings, retriever="bm25", heading_prefix=False, merge=True)
    filled = replace(plain, fill=True)
    assert filled.merges and filled.describe()["fill"] is True and RECOMMENDED.fill
    units = ws.doc_units("policy.md")
    # the rule is hit 1; the gift-card chunk, hit 2, does not fit. Filled, the rule's chunk
    # (at the document's start, so all the tokens left go after it) reaches the exception
    # once the budget holds the text up to the exception's end, and not one token before.
    need = units.size(0, text.index("downloaded materials") + len("downloaded materials"))
    budgets = [need - 1, need]
    without = evaluate([q], ws, plain, ks=[1], budgets=budgets)
    with_fill = evaluate([q], ws, filled, ks=[1], budgets=budgets)
    r = with_fill.results[0]
    assert [h.index for h in r.hits[:2]] == [0, 2]
    assert without.results[0].covered_at_budget == {need - 1: False, need: False}
    assert r.covered_at_budget == {need - 1: False, need: True}
    assert r.budget_context is not None
    for b, spans in r.budget_context.items():
        assert spans[0][0] == 0 and sum(units.size(s, e) for s, e in spans) <= b
    assert with_fill.to_json()["per_query"][0]["context_at_budget"] == {
        str(b): [list(sp) for sp in spans] for b, spans in r.budget_context.items()
    }
    assert "context_at_budget" not in without.to_json()["per_query"][0]
