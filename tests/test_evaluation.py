"""Evaluation metrics on hand-computed cases, query-set parsing, and the eval/sweep CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from explorer.config import CARRY, Config
from explorer.errors import QuerySetError, SettingsError
from explorer.evaluation.coverage import char_metrics, evaluate, flipped, sweep
from explorer.evaluation.queries import Query, dumps, load_queries, parse_queries
from explorer.retrieval.scoring import Hit
from explorer.workspace import Workspace
from tests.conftest import CARRY_QUESTION, RULE_THEN_EXCEPTION, SAMPLES, answer_one, retriever_of
from tests.test_properties_eval import holds

PLAIN = Config(
    retriever="bm25", heading_prefix=True, merge=False, table_headers=False, carry=0.0, fill=False
)
"""A plain pipeline: BM25, hits as they are (no merge, headers, carry or fill)."""


def test_overlapping_hits_count_twice_for_precision_and_iou() -> None:
    # evidence [10, 20); hits [0, 15) and [5, 25) overlap on [5, 15)
    located = [((10, 20),)]
    assert not holds(located, [(0, 15)]) and holds(located, [(0, 15), (5, 25)])
    recall, precision, iou = char_metrics(located, [(0, 15)])
    assert (recall, precision, iou) == pytest.approx((5 / 10, 5 / 15, 5 / (15 + 10 - 5)))
    # retrieved characters with multiplicity: 15 + 20 = 35
    recall, precision, iou = char_metrics(located, [(0, 15), (5, 25)])
    assert (recall, precision, iou) == pytest.approx((1.0, 10 / 35, 10 / (35 + 10 - 10)))


def test_evidence_straddling_two_adjacent_retrieved_chunks_is_covered() -> None:
    located = [((8, 14),)]
    assert not holds(located, [(0, 10)]) and holds(located, [(0, 10), (10, 20)])
    # ranked apart (a gap between them) it is not covered
    assert not holds(located, [(0, 10), (20, 30)])
    assert holds(located, [(0, 10), (20, 30), (10, 20)])


def test_evidence_not_located_is_neither_hit_nor_miss() -> None:
    # e1 located and covered, e2 not located: the query is covered on what can be checked
    assert holds([((0, 5),), ()], [(0, 10)])
    assert char_metrics([((0, 5),), ()], [(0, 10)])[0] == 1.0
    # nothing located: never covered, and the report leaves the query out of the averages
    assert not holds([(), ()], [(0, 10)])


def test_a_budget_stops_at_the_first_hit_that_overflows() -> None:
    from explorer.documents.load import load_document

    doc = load_document(" ".join(f"w{i}" for i in range(200)).encode(), name="w.txt")
    ready = retriever_of(doc, PLAIN.replace(splitter="fixed", unit="tokens", size=40, overlap=0))
    chunks = ready.chunks
    cost = [ready.units.size(c.start, c.end) for c in chunks]
    order = [2, 0, 3, 1]  # rank order of the first four chunks
    ranking = [Hit(r + 1, i, 1.0 / (r + 1), "bm25") for r, i in enumerate(order)]
    two = cost[2] + cost[0]
    answer = answer_one(ready, "q", k=None, budget=two, ranking=ranking)
    assert [h.index for h in answer.hits] == [2, 0] and answer.tokens == two
    # one token short of the second hit: only the first, though a later one may be smaller
    answer = answer_one(ready, "q", k=None, budget=two - 1, ranking=ranking)
    assert [h.index for h in answer.hits] == [2]
    assert answer_one(ready, "q", k=None, budget=cost[2] - 1, ranking=ranking).hits == ()
    # k still caps the hits within a budget
    assert len(answer_one(ready, "q", k=1, budget=10_000, ranking=ranking).hits) == 1


def test_a_phrase_occurring_twice_scores_on_its_best_covered_occurrence() -> None:
    located = [((0, 10), (100, 110))]
    assert holds(located, [(95, 120)]) and char_metrics(located, [(95, 120)])[0] == 1.0


def test_given_spans_win_over_search_when_they_match() -> None:
    from explorer.retrieval.evidence import check

    text = "alpha beta. alpha beta."
    (found,) = check(["alpha beta"], text, [], [], context=[], known=[(12, 22)])
    assert found.spans == ((12, 22),)
    # a stale span: search instead
    (found,) = check(["alpha beta"], text, [], [], context=[], known=[(3, 9)])
    assert found.spans == ((0, 10), (12, 22))


def test_query_set_parsing_errors_name_the_entry(tmp_path: Path) -> None:
    ok = parse_queries([{"id": "a", "doc": "x.md", "query": "q", "evidence": ["e"], "kind": "k"}])
    assert ok[0].evidence == ("e",)
    assert parse_queries(json.loads(dumps(ok))) == ok
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
    fixed = PLAIN.replace(splitter="fixed", unit="chars", size=40, overlap=0)
    structure = PLAIN.replace(splitter="structure", unit="tokens", size=256, overlap=0)
    a = evaluate(REFUND_QUERIES, ws, fixed, ks=[1], budgets=[1024])
    b = evaluate(REFUND_QUERIES, ws, structure, ks=[1], budgets=[1024])
    assert a.counts()["not_located"] == 1 and a.counts()["scored_queries"] == 1
    assert a.coverage_at_k == {1: 0.0} and b.coverage_at_k == {1: 1.0}
    assert flipped(a, b, k=1) == [("rule-exception", False, True)]
    out = b.to_json(ws)
    assert set(out) >= {"config", "counts", "coverage_at_k", "coverage_at_budget", "per_query"}
    assert out["coverage_at_k"] == {"1": 1.0}
    assert Config.from_json(out["config"]) == structure
    at_budget = out["per_query"][0]["at_budget"]["1024"]
    assert at_budget["tokens"] <= 1024 and at_budget["covered"] is True
    assert at_budget["verdict"].startswith("complete")
    grid = sweep(REFUND_QUERIES, ws, fixed, sizes=[40, 400], overlaps=[0, 100], ks=[1])
    assert [(r.config.chunking.size, r.config.chunking.overlap) for r in grid] == [
        (40, 0),
        (400, 0),
        (400, 100),
    ]


def test_eval_cli_json_and_min_coverage(tmp_path: Path) -> None:
    qfile = tmp_path / "q.json"
    qfile.write_text(dumps(REFUND_QUERIES))
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
    assert (
        res.returncode == 2
        and b"nowhere: no such folder" in res.stderr
        and res.stderr.count(b"\n") == 1
    )


def test_merged_context_counts_shared_text_once_in_the_budget() -> None:
    # two overlapping hits: merged, the context costs their union; unmerged, both in full
    from explorer.documents.load import load_document

    doc = load_document(" ".join(f"word{i}" for i in range(60)).encode(), name="w.txt")
    config = PLAIN.replace(splitter="fixed", unit="words", size=10, overlap=5)
    ready = retriever_of(doc, config.replace(merge=True))
    chunks = ready.chunks
    ranking = [Hit(r + 1, i, 1.0 / (r + 1), "bm25") for r, i in enumerate(range(len(chunks)))]
    union_cost = ready.units.size(chunks[0].start, chunks[1].end)
    both = ready.units.size(chunks[0].start, chunks[0].end) + ready.units.size(
        chunks[1].start, chunks[1].end
    )
    assert union_cost < both
    merged = answer_one(ready, "q", k=None, budget=union_cost, ranking=ranking)
    assert [h.index for h in merged.hits] == [0, 1] and merged.tokens == union_cost
    unmerged = answer_one(ready.using(config), "q", k=None, budget=union_cost, ranking=ranking)
    assert [h.index for h in unmerged.hits] == [0]


def test_merge_and_neighbours_in_evaluate() -> None:
    ws = Workspace(SAMPLES)
    base = PLAIN.replace(splitter="fixed", unit="tokens", size=12, overlap=6)
    plain = evaluate(REFUND_QUERIES, ws, base, ks=[1], budgets=[24])
    merged = evaluate(REFUND_QUERIES, ws, base.replace(merge=True), ks=[1], budgets=[24])
    wide = evaluate(REFUND_QUERIES, ws, base.replace(neighbours=2), ks=[1], budgets=[24])
    assert merged.coverage_at_k == plain.coverage_at_k  # merging never changes the top-k text
    assert wide.coverage_at_k[1] >= plain.coverage_at_k[1]
    assert wide.to_json()["config"]["neighbours"] == 2


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
    lexical = evaluate(queries, ws, Config(retriever="bm25"))
    hybrid = evaluate(queries, ws, Config(retriever="hybrid"))
    assert lexical.results[0].hits[0].retriever == "bm25"
    assert hybrid.results[0].hits[0].retriever == "hybrid"


def test_eval_cli_defaults_are_the_recommended_configuration() -> None:
    from explorer.cli import build_parser, config_from

    def config(*options: str) -> Config:
        args = build_parser().parse_args(["eval", "--queries", "q.json", "--docs", ".", *options])
        return config_from(args)

    recommended = Config()
    assert config() == recommended  # merge, prefix and dense source included
    changed = config("--merge", "off", "--neighbours", "1", "--dense", "chunks", "--size", "128")
    assert (changed.merge, changed.neighbours, changed.dense) == (False, 1, "chunks")
    # an overlap belongs to its size: left out, a quarter of the new size
    assert (changed.chunking.size, changed.chunking.overlap) == (128, 32)
    assert changed.chunking.splitter == recommended.chunking.splitter
    assert recommended.table_headers and not config("--table-headers", "off").table_headers
    assert recommended.carry == CARRY and config("--carry", "0").carry == 0.0
    assert config("--carry", "0.2").carry == 0.2
    assert recommended.fill and not config("--fill", "off").fill


def test_a_workspace_evaluates_documents_loaded_in_memory(tmp_path: Path) -> None:
    from explorer.documents.load import load_document

    text = "# Policy\n\nRefunds are available within seven days. This does not apply to sales.\n"
    uploaded = load_document(text.encode(), name="upload.md")
    q = Query("u1", "upload.md", "refund period", ("within seven days",))
    ws = Workspace(None, documents={"upload.md": uploaded})
    report = evaluate([q], ws, Config(retriever="bm25"))
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
    off = PLAIN.replace(
        splitter="structure", unit="tokens", size=64, overlap=0, heading_prefix=False, merge=True
    )
    on = off.replace(table_headers=True)
    without = evaluate([q], ws, off, ks=[1], budgets=[1000])
    hit = without.results[0].chunk_spans[0]
    assert "| Plan 30 |" in text[hit[0] : hit[1]] and "Refund window" not in text[hit[0] : hit[1]]
    assert without.coverage_at_k[1] == 0.0

    header = (text.index("| Plan |"), text.index("\n|---"))
    units = ws.retriever("plans.md", on).units
    cost = units.size(*hit) + units.size(*header)  # what the LLM gets: the row chunk and header
    with_headers = evaluate([q], ws, on, ks=[1], budgets=[cost, cost - 1])
    r = with_headers.results[0]
    assert r.at_k[1].headers == (header,)
    assert r.covered_at_k == {1: True}
    assert r.covered_at_budget == {cost - 1: False, cost: True}
    context = with_headers.to_json()["per_query"][0]["at_k"]["1"]["context"]
    assert [header[0], hit[1]] in context or list(header) in context


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
    report = evaluate(queries, Workspace(SAMPLES), Config(retriever="bm25"), budgets=[512, 1024])
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
    plain = PLAIN.replace(
        splitter="recursive", unit="words", size=10, overlap=0, heading_prefix=False, merge=True
    )
    carried = plain.replace(carry=0.3)
    assert carried.to_json()["carry"] == 0.3 and plain.to_json()["carry"] == 0.0
    without = evaluate([q], ws, plain, ks=[1, 2], budgets=[25])
    with_carry = evaluate([q], ws, carried, ks=[1, 2], budgets=[25])
    assert without.coverage_at_k == {1: 0.0, 2: 0.0}
    assert with_carry.coverage_at_k == {1: 0.0, 2: 1.0}
    # the rule and its exception touch, so the two hits cost one stretch of text
    assert with_carry.coverage_at_budget == {25: 1.0} and without.coverage_at_budget == {25: 0.0}
    hit = with_carry.to_json(ws)["per_query"][0]["at_k"]["2"]["hits"][1]
    assert hit["carried"] > 0 and hit["score"] == pytest.approx(hit["carried"])  # all carried
    with pytest.raises(SettingsError, match="carry must be between 0 and 1"):
        plain.replace(carry=-0.5)


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
    plain = PLAIN.replace(
        splitter="recursive", unit="words", size=10, overlap=0, heading_prefix=False, merge=True
    )
    filled = plain.replace(fill=True)
    units = ws.retriever("policy.md", filled).units
    # the rule is hit 1; the gift-card chunk, hit 2, does not fit. Filled, the rule's chunk
    # (at the document's start, so all the tokens left go after it) reaches the exception
    # once the budget holds the text up to the exception's end, and not one token before.
    need = units.size(0, text.index("downloaded materials") + len("downloaded materials"))
    budgets = [need - 1, need]
    without = evaluate([q], ws, plain, ks=[1], budgets=budgets)
    with_fill = evaluate([q], ws, filled, ks=[1], budgets=budgets)
    r = with_fill.results[0]
    assert [h.index for h in r.at_k[1].ranking[:2]] == [0, 2]
    assert without.results[0].covered_at_budget == {need - 1: False, need: False}
    assert r.covered_at_budget == {need - 1: False, need: True}
    for b, answer in r.at_budget.items():
        spans = answer.context
        assert spans[0][0] == 0 and sum(units.size(s, e) for s, e in spans) <= b
    assert {
        b: a["context"] for b, a in with_fill.to_json()["per_query"][0]["at_budget"].items()
    } == {str(b): [list(sp) for sp in a.context] for b, a in r.at_budget.items()}
    assert not any(a.widened for a in without.results[0].at_budget.values())


def test_a_blank_evidence_phrase_keeps_the_other_phrases_known_spans() -> None:
    (q,) = parse_queries(
        [{"id": "a", "doc": "d.md", "query": "?", "evidence": ["", "foo"], "spans": [None, [3, 6]]}]
    )
    assert q.evidence == ("foo",) and q.spans == ((3, 6),)


def test_query_and_eval_json_say_what_cut_each_missed_phrase(tmp_path: Path) -> None:
    """At 250 characters, k = 2 stops the ranking before one phrase's chunk; with k = 5 and a
    small budget, the budget does (with the tokens it had left)."""
    common = ["--retriever", "bm25", "--splitter", "fixed", "--unit", "chars", "--size", "250",
              "--overlap", "0", "--fill", "off", "--carry", "0"]  # fmt: skip
    question = "How long do I have to ask for a refund?"
    query = [sys.executable, "-m", "explorer", "query", str(SAMPLES / "refund-policy.md"),
             question, "--evidence", "within seven days", "--evidence",
             "does not apply to downloaded materials", *common]  # fmt: skip
    res = subprocess.run([*query, "--k", "2"], capture_output=True, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    missed = [e for e in out["evidence"] if not e["covered"]]
    assert missed, "at 250 characters, k = 2 misses one of the two"
    assert all(e["cut_by"] == "k" and e["rank"] > 2 for e in missed)
    assert all(e["cut_by"] is None and e["rank"] <= 2 for e in out["evidence"] if e["covered"])
    assert out["verdict_kind"] == "incomplete" and "below the top 2" in out["verdict"]
    res = subprocess.run(
        [*query, "--k", "5", "--budget", "120"], capture_output=True, timeout=300, check=False
    )
    out = json.loads(res.stdout)
    missed = [e for e in out["evidence"] if not e["covered"]]
    assert missed and all(e["cut_by"] == "budget" for e in missed if e["rank"] <= 5)
    assert out["taken"] < 5 and out["budget_left"] < out["next_cost"]
    assert "120-token budget held" in out["verdict"]
    qfile = tmp_path / "q.json"
    qfile.write_text(dumps(REFUND_QUERIES[:1]))
    res = subprocess.run(
        [sys.executable, "-m", "explorer", "eval", "--queries", str(qfile), "--docs",
         str(SAMPLES), *common, "--k", "1", "--budget", "60", "--json"],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    per = json.loads(res.stdout)["per_query"][0]
    for at in (per["at_k"]["1"], per["at_budget"]["60"]):
        for e in at["evidence"]:
            assert set(e) == {"phrase", "covered", "rank", "cut_by"}
            assert (e["cut_by"] is None) == e["covered"]


def test_an_evaluation_times_its_questions_and_counts_what_it_embedded(model_embedder) -> None:  # type: ignore[no-untyped-def]
    """``timing``: each question's answering (its embedding apart) and the texts embedded; a
    second evaluation in the same process embeds nothing (the in-process vectors)."""
    ws = Workspace(SAMPLES)
    queries = [
        *REFUND_QUERIES,
        Query("new", "refund-policy.md", f"A question new to this run? {uuid.uuid4()}", ("seven",)),
    ]
    first = evaluate(queries, ws, Config(), ks=[1, 3], budgets=[256])
    again = evaluate(queries, ws, Config(), ks=[1, 3], budgets=[256])
    for report in (first, again):
        timing = report.to_json()["timing"]
        assert set(timing) == {"query_ms_p50", "query_ms_p95", "queries", "embedded"}
        assert all(isinstance(v, int | float) for v in timing.values())
        assert timing["queries"] == len(queries)
        assert 0 < timing["query_ms_p50"] <= timing["query_ms_p95"]
    assert first.timing.embedded >= 1  # the new question at least
    assert again.timing.embedded == 0
    assert first.coverage_at_k == again.coverage_at_k


def test_a_bm25_evaluation_embeds_nothing() -> None:
    bm25 = Config().replace(retriever="bm25")
    report = evaluate(REFUND_QUERIES, Workspace(SAMPLES), bm25, ks=[1])
    assert report.timing.embedded == 0
    assert len(report.timing.query_ms) == len(REFUND_QUERIES)
