"""Presets of the published baselines; MRR, precision and IoU on hand-built cases; the A/B and
the sweep carrying every measure and the table audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.config import Config
from explorer.errors import SettingsError
from explorer.evaluation.claims import VERDICTS as CLAIM_VERDICTS
from explorer.evaluation.coverage import char_metrics, reciprocal_rank
from explorer.evaluation.presets import (
    PRESETS,
    VERDICTS,
    agreement,
    claim_for,
    preset,
    preset_config,
    spec_config,
    spec_preset,
)
from explorer.evaluation.stats import compare_paired
from explorer.workspace import Workspace
from tests.conftest import SAMPLES

REFUND = [
    {
        "id": "rp-01",
        "doc": "refund-policy.md",
        "query": "Can I get my money back for a downloaded e-book?",
        "evidence": [
            "Refunds are available within seven days.",
            "This does not apply to downloaded materials.",
        ],
    },
    {
        "id": "rp-02",
        "doc": "refund-policy.md",
        "query": "Will an automatic annual renewal be refunded?",
        "evidence": ["Annual subscriptions renew automatically."],
    },
]


@pytest.fixture()
def qset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHUNK_EXPLORER_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "set.json"
    path.write_text(json.dumps(REFUND))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    got = capsys.readouterr()
    return code, got.out, got.err


# --------------------------------------------------------------------------- metrics by hand


def test_precision_iou_recall_by_hand() -> None:
    # evidence [10, 20) and [30, 40): 20 characters
    located = [((10, 20),), ((30, 40),)]
    # one hit [0, 25): holds 10 evidence characters of 25 retrieved
    r, p, iou = char_metrics(located, [(0, 25)])
    assert (r, p, iou) == (10 / 20, 10 / 25, 10 / (25 + 10))  # union 0-25 + 30-40 = 35
    # two overlapping hits [0, 25) and [15, 45): evidence all retrieved; 25 + 30 = 55 retrieved
    # with multiplicity (Chroma's denominator), though their union is 45 characters
    r, p, iou = char_metrics(located, [(0, 25), (15, 45)])
    assert (r, p, iou) == (1.0, 20 / 55, 20 / 55)
    # characters from another document count as retrieved, never as evidence
    r, p, iou = char_metrics(located, [(10, 20)], elsewhere=30)
    assert (r, p, iou) == (0.5, 10 / 40, 10 / (40 + 10))
    # nothing retrieved
    assert char_metrics(located, []) == (0.0, 0.0, 0.0)


def test_a_phrase_found_twice_counts_its_best_occurrence() -> None:
    located = [((0, 10), (50, 60))]
    r, p, iou = char_metrics(located, [(48, 62)])
    assert (r, p, iou) == (1.0, 10 / 14, 10 / 14)


def test_mrr_is_the_first_hit_holding_a_phrase_whole() -> None:
    located = [((10, 20),), ((30, 40),)]
    brought = [[(0, 15)], [(25, 45)], [(5, 25)]]  # hit 1 cuts phrase 1; hit 2 holds phrase 2
    assert reciprocal_rank(located, brought, k=1) == 0.0
    assert reciprocal_rank(located, brought, k=2) == 0.5
    assert reciprocal_rank(located, brought, k=3) == 0.5
    # a hit bringing several pieces (a table's header and its rows) holds what one piece holds
    assert reciprocal_rank(located, [[(0, 5), (28, 41)]], k=1) == 1.0
    # a phrase no hit holds whole: 0, even when two neighbours cover it together
    assert reciprocal_rank([((10, 20),)], [[(0, 15)], [(15, 30)]], k=5) == 0.0
    assert reciprocal_rank([()], [[(0, 100)]], k=1) == 0.0  # nothing located


# --------------------------------------------------------------------------- presets


def test_the_presets_the_issue_asks_for_exist_with_source_and_claim() -> None:
    names = set(PRESETS)
    assert {"ours", "langchain-1000-200", "openai-800-400", "chroma-recursive-200",
            "chroma-recursive-400", "semchunk-256", "page"} <= names  # fmt: skip
    assert preset("ours").config() == Config()
    lc = preset("langchain-1000-200").config().chunking
    assert (lc.splitter, lc.unit, lc.size, lc.overlap) == (
        "langchain-recursive",
        "chars",
        1000,
        200,
    )
    oa = preset("openai-800-400").config().chunking
    assert (oa.unit, oa.size, oa.overlap) == ("tokens", 800, 400)
    for name, size in (("chroma-recursive-200", 200), ("chroma-recursive-400", 400)):
        c = preset(name).config().chunking
        assert (c.splitter, c.unit, c.size, c.overlap) == ("langchain-recursive", "tokens", size, 0)
    assert preset("semchunk-256").config().chunking.splitter == "semchunk"
    assert preset("page").config().chunking.splitter == "page"
    for p in PRESETS.values():
        assert p.source and p.url and p.claim and p.title
    assert preset("openai-800-400").expectation is not None
    assert preset("openai-800-400").expectation.direction == "lower"  # type: ignore[union-attr]


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_chunks_a_sample_with_exact_offsets(name: str) -> None:
    ws = Workspace(SAMPLES)
    config = preset(name).config()
    assert Config.from_json(config.to_json()) == config  # validates and round-trips
    doc = ws.document("refund-policy.md")
    chunks = ws.chunks("refund-policy.md", config)
    assert chunks
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text


def test_a_preset_with_changes_and_specs() -> None:
    c = preset_config("openai-800-400", {"retriever": "bm25"})
    assert c.retriever == "bm25" and c.chunking.size == 800
    c = spec_config("preset=chroma-recursive-200, size=300")
    assert (c.chunking.splitter, c.chunking.size) == ("langchain-recursive", 300)
    assert spec_config("size=300") == Config().replace(size=300)
    assert spec_preset("preset=page") is preset("page")
    assert spec_preset("preset=page,size=512") is None
    with pytest.raises(SettingsError, match="unknown preset 'nope'; choose one of ours"):
        spec_config("preset=nope")
    with pytest.raises(SettingsError, match="at most once"):
        spec_config("preset=page,preset=ours")


def test_claim_for_recognises_a_preset_against_ours() -> None:
    ours, oa = Config(), preset("openai-800-400").config()
    assert claim_for(ours, oa) == (preset("openai-800-400"), "B")
    assert claim_for(oa, ours) == (preset("openai-800-400"), "A")
    bm25 = {"retriever": "bm25"}
    assert claim_for(ours.replace(**bm25), oa.replace(**bm25)) == (preset("openai-800-400"), "B")
    assert claim_for(ours, oa.replace(**bm25)) is None  # not the same retriever
    assert claim_for(ours, oa.replace(size=700)) is None
    assert claim_for(ours, preset("semchunk-256").config()) is None  # no checkable claim
    assert claim_for(oa, preset("page").config()) is None  # neither side is ours


def test_agreement_reads_the_paired_test_in_the_claims_direction() -> None:
    ids = [f"q{i}" for i in range(12)]
    ours_wins = compare_paired([True] * 12, [False] * 12, ids=ids)
    ties = compare_paired([True] * 12, [True] * 12, ids=ids)
    lower, higher = preset("openai-800-400"), preset("page")
    assert agreement(lower, ours_wins, measure="coverage@5").verdict == "agrees"  # type: ignore[union-attr]
    assert agreement(higher, ours_wins, measure="coverage@5").verdict == "disagrees"  # type: ignore[union-attr]
    assert agreement(lower, ties, measure="coverage@5").verdict == VERDICTS[1]  # type: ignore[union-attr]
    # the preset as A, ours as B: the same reading
    said = agreement(
        lower, compare_paired([False] * 12, [True] * 12, ids=ids), measure="c", side="A"
    )
    assert said is not None and said.verdict == "agrees" and said.difference == -1.0
    assert "1.00 below ours on c" in said.sentence()
    assert agreement(preset("semchunk-256"), ties, measure="c") is None


def test_presets_command_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "presets", "--json")
    listed = json.loads(out)
    assert code == 0 and [p["name"] for p in listed] == list(PRESETS)
    oa = next(p for p in listed if p["name"] == "openai-800-400")
    assert oa["settings"]["size"] == 800 and oa["settings"]["overlap"] == 400
    assert "below-average recall" in oa["claim"] and oa["url"].startswith("https://")
    assert oa["expectation"]["direction"] == "lower"
    code, out, _ = run(capsys, "presets")
    assert code == 0 and "openai-800-400: OpenAI Assistants default" in out
    assert "splitter=fixed,size=800,overlap=400" in out


# --------------------------------------------------------------------------- --preset on commands


def test_preset_on_chunk_query_eval_sweep(qset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = str(SAMPLES / "refund-policy.md")
    code, out, _ = run(capsys, "chunk", doc, "--preset", "langchain-1000-200")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and records[0]["unit"] == "chars" and max(r["size"] for r in records) <= 1000
    code, out, _ = run(
        capsys, "query", doc, "renewal refund", "--preset", "openai-800-400", "--retriever", "bm25"
    )
    cfg = json.loads(out)["config"]
    assert code == 0 and (cfg["splitter"], cfg["size"], cfg["retriever"]) == ("fixed", 800, "bm25")
    common = ["--queries", str(qset), "--docs", str(SAMPLES), "--retriever", "bm25", "--json"]
    code, out, _ = run(capsys, "eval", *common, "--preset", "page")
    got = json.loads(out)
    assert code == 0 and got["config"]["splitter"] == "page"
    assert set(got["mrr_at_k"]) == {"1", "3", "5"}
    code, out, _ = run(capsys, "sweep", *common, "--preset", "chroma-recursive-200", "--sizes",
                       "100,200")  # fmt: skip
    grid = json.loads(out)
    assert code == 0 and grid["config"]["splitter"] == "langchain-recursive"
    assert [row["size"] for row in grid["grid"]] == [100, 200]
    for row in grid["grid"]:
        assert {"recall@5", "precision@5", "iou@5", "mrr@5"} <= set(row)
        assert {"tables split", "rows cut", "cohesion"} <= set(row)


@pytest.mark.parametrize("command", ["chunk", "query", "eval", "sweep", "ab"])
def test_an_unknown_preset_exits_2_naming_them(
    command: str, qset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = str(SAMPLES / "refund-policy.md")
    q = ["--queries", str(qset), "--docs", str(SAMPLES)]
    args = {
        "chunk": [doc], "query": [doc, "refund"], "eval": q, "sweep": [*q, "--sizes", "100"],
        "ab": q,
    }[command]  # fmt: skip
    code, out, err = run(capsys, command, *args, "--preset", "nope")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown preset 'nope'")
    assert "ours, langchain-1000-200, openai-800-400" in lines[0]


def test_ab_against_a_preset_carries_measures_tables_and_the_claim(
    qset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["ab", "--queries", str(qset), "--docs", str(SAMPLES), "--json"]
    code, out, _ = run(capsys, *common, "--a", "retriever=bm25", "--b",
                       "preset=openai-800-400,retriever=bm25")  # fmt: skip
    got = json.loads(out)
    assert code == 0 and got["b"]["size"] == 800 and got["b"]["retriever"] == "bm25"
    for name in ("coverage@5", "recall@5", "precision@5", "iou@5", "mrr@5", "coverage@512 tokens"):
        m = got["measures"][name]
        assert m["difference"] == pytest.approx(m["b"] - m["a"])
    assert set(got["tables"]["a"]) >= {"tables", "split", "rows_cut", "cohesion"}
    # B is the preset, both retrieve with BM25: the claim is about chunking, so it is checked
    assert got["claim"]["preset"] == "openai-800-400"
    code, out, _ = run(capsys, *common, "--a", "retriever=bm25", "--b",
                       "preset=openai-800-400,retriever=bm25,size=700")  # fmt: skip
    assert json.loads(out)["claim"] is None  # a changed preset is not the published setting
    code, out, _ = run(capsys, *common, "--preset", "openai-800-400")
    got = json.loads(out)
    assert got["b"]["size"] == 800 and got["claim"]["preset"] == "openai-800-400"
    claim = got["claim"]
    assert claim["verdict"] in CLAIM_VERDICTS
    # judged on the measures the claim names, at equal k and at equal budget side by side
    assert claim["measures"] == ["recall", "precision", "iou"]
    read = {(r["measure"], r["basis"]) for r in claim["readings"]}
    assert {("precision@5", "equal k"), ("iou@5", "equal k"), ("recall@5", "equal k")} <= read
    assert {
        ("coverage@512 tokens", "equal budget"),
        ("coverage@1024 tokens", "equal budget"),
    } <= read
    for r in claim["readings"]:  # each reading is the two runs' own figure
        if r["basis"] == "equal budget":
            assert r["ours"] == pytest.approx(got["measures"][r["measure"]]["a"])
            assert r["preset"] == pytest.approx(got["measures"][r["measure"]]["b"])
    code, out, _ = run(capsys, *common[:-1], "--preset", "openai-800-400")
    assert code == 0 and "mrr@5" in out and "rows cut" in out and "Smith & Troynikov" in out


def test_eval_text_report_and_the_page_rows_show_every_measure_and_the_tables(
    qset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from explorer.evaluation.coverage import evaluate, sweep
    from explorer.evaluation.queries import load_queries
    from ui.evaluate_view import summary_rows, sweep_rows

    common = ["--queries", str(qset), "--docs", str(SAMPLES), "--retriever", "bm25"]
    code, out, _ = run(capsys, "eval", *common, "--no-cache")
    line = next(x for x in out.splitlines() if x.strip().startswith("coverage@5 "))
    assert code == 0 and all(w in line for w in ("recall", "precision", "iou", "mrr"))
    ws = Workspace(SAMPLES)
    queries = load_queries(qset)
    a = evaluate(queries, ws, Config().replace(retriever="bm25"))
    b = evaluate(queries, ws, preset("page").config().replace(retriever="bm25"))
    rows = {r["measure"]: r for r in summary_rows(a, b, ws)}
    assert {"mrr@1", "mrr@5", "tables split", "rows cut", "cohesion"} <= set(rows)
    assert rows["mrr@5"]["A"] == format(a.mean_at_k("mrr_at_k")[5], ".0%")
    cells = sweep(queries, ws, Config().replace(retriever="bm25"), sizes=[64, 128], overlaps=[0])
    for row in sweep_rows(cells, k=5, workspace=ws):
        assert {"mrr@5", "iou@5", "tables split", "rows cut", "cohesion"} <= set(row)
    assert "rows cut" not in sweep_rows(cells)[0]  # without the workspace, no audit


def test_a_claims_verdict_rests_on_the_measures_with_a_detectable_difference(
    qset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The verdict names what it rests on, and those readings go the way it says; the k the
    page shows is no part of it: read at the run's largest k, it is the same with k = 1 added
    (issue 36.3: the OpenAI claim flipped between k = 1 and k = 5)."""
    common = ["ab", "--queries", str(qset), "--docs", str(SAMPLES), "--json"]
    _, out, _ = run(capsys, *common, "--preset", "openai-800-400", "--k", "5")
    claim = json.loads(out)["claim"]
    _, out, _ = run(capsys, *common, "--preset", "openai-800-400", "--k", "1,5")
    again = json.loads(out)["claim"]
    assert again["verdict"] == claim["verdict"] and again["rests_on"] == claim["rests_on"]
    rests = [r for r in claim["readings"] if f"{r['measure']} ({r['basis']})" in claim["rests_on"]]
    assert all(r["reading"] != "no detectable difference" for r in rests)
    ways = {r["reading"] for r in rests}
    expected = {
        frozenset(): "no detectable difference",
        frozenset({"agrees"}): "agrees",
        frozenset({"disagrees"}): "disagrees",
        frozenset({"agrees", "disagrees"}): "mixed",
    }[frozenset(ways)]
    assert claim["verdict"] == expected
    for r in rests:  # "lower" is the claim: a reading for it has the preset below ours
        assert (r["difference"] < 0) == (r["reading"] == "agrees")
    if rests:
        assert rests[0]["measure"] in claim["sentence"] and "rests on" in claim["sentence"]
