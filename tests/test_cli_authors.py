"""The authors' commands: ``explorer ab`` (an honest A/B) and ``explorer diff`` (what changed
between two versions of a document), end to end."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from explorer.cli import main
from tests.conftest import CORPUS, REPO, SAMPLES

QUERIES = REPO / "queries" / "boundary-questions.json"
DOCS = REPO / "queries" / "docs"


def cli(*args: str) -> dict[str, Any]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(list(args)) == 0
    out: dict[str, Any] = json.loads(printed.getvalue())
    return out


def test_ab_of_a_configuration_against_itself_finds_no_difference() -> None:
    out = cli("ab", "--queries", str(QUERIES), "--docs", str(DOCS), "--a", "retriever=bm25",
              "--b", "retriever=bm25", "--k", "1,5", "--budget", "512", "--json")  # fmt: skip
    assert set(out["comparisons"]) == {"k=1", "k=5", "512 tokens"}
    for c in out["comparisons"].values():
        assert c["p_value"] == 1.0 and c["verdict"] == "no detectable difference"
        assert c["flips"] == {"a_only": [], "b_only": []} and c["ci95"] == [0.0, 0.0]
    assert out["a"] == out["b"] and out["a"]["retriever"] == "bm25"


def test_ab_names_the_default_better_than_fixed_500_character_windows() -> None:
    fixed = "splitter=fixed,unit=chars,size=500,overlap=0,retriever=bm25"
    out = cli("ab", "--queries", str(QUERIES), "--docs", str(DOCS), "--a", fixed,
              "--b", "retriever=bm25", "--json")  # fmt: skip
    at5 = out["comparisons"]["k=5"]
    assert at5["verdict"].startswith("B better") and at5["p_value"] < 0.05
    assert len(at5["flips"]["b_only"]) > len(at5["flips"]["a_only"])
    lo, hi = at5["ci95"]
    assert 0 < lo <= at5["difference"] <= hi
    assert out["a"]["splitter"] == "fixed" and out["b"]["splitter"] == "structure"


def edited(text: str) -> str:
    """Three edits: a word near the start, a paragraph inserted in the middle, the last sentence
    of a paragraph near the end removed."""
    paragraphs = text.split("\n\n")
    first = next(i for i, p in enumerate(paragraphs) if len(p) > 80 and not p.startswith("#"))
    paragraphs[first] = paragraphs[first].replace(" the ", " THE ", 1)
    middle = len(paragraphs) // 2
    paragraphs.insert(middle, "An inserted paragraph that says something entirely new here.")
    last = max(i for i, p in enumerate(paragraphs) if p.count(". ") >= 1 and not p.startswith("#"))
    paragraphs[last] = paragraphs[last].rsplit(". ", 1)[0] + "."
    return "\n\n".join(paragraphs)


def test_diff_lists_unchanged_changed_added_and_removed_chunks(tmp_path: Path) -> None:
    source = CORPUS / "curl-vulnerability-disclosure-policy.md"
    text = source.read_text(encoding="utf-8")
    old, new = tmp_path / "old" / source.name, tmp_path / "new" / source.name
    old.parent.mkdir()
    new.parent.mkdir()
    old.write_text(text, encoding="utf-8")
    new.write_text(edited(text), encoding="utf-8")
    out = cli("diff", str(old), str(new), "--splitter", "structure", "--size", "128",
              "--overlap", "0", "--retriever", "bm25", "--json")  # fmt: skip
    counts = out["counts"]
    assert counts["unchanged"] > 0 and counts["changed"] + counts["added"] >= 2
    every_new = [c["index"] for c in (*out["unchanged"], *out["changed"], *out["added"])]
    assert len(every_new) == len(set(every_new))
    assert set(every_new) == set(range(out["new"]["chunks"]))  # each new chunk once
    assert counts["reembed"] >= counts["changed"] + counts["added"] - 1
    new_text = new.read_text(encoding="utf-8")
    assert any(
        "inserted paragraph" in new_text[c["start"] : c["end"]]
        for c in (*out["added"], *out["changed"])
    )
    # what an index must delete: every removed chunk and every chunk a changed one replaces
    stale = {c["id"] for c in out["removed"]} | {
        r["id"] for c in out["changed"] for r in c["replaces"]
    }
    assert len(stale) == counts["stale"]


def test_diff_with_questions_names_the_verdicts_that_change(tmp_path: Path) -> None:
    text = (SAMPLES / "refund-policy.md").read_text(encoding="utf-8")
    old, new = tmp_path / "a" / "refund-policy.md", tmp_path / "b" / "refund-policy.md"
    old.parent.mkdir()
    new.parent.mkdir()
    old.write_text(text, encoding="utf-8")
    new.write_text(text.replace("within seven days", "within thirty days"), encoding="utf-8")
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps([
        {"id": "days", "doc": "refund-policy.md", "query": "How long do I have for a refund?",
         "evidence": ["within seven days"]},
        {"id": "other", "doc": "elsewhere.md", "query": "?", "evidence": ["x"]},
    ]))  # fmt: skip
    out = cli("diff", str(old), str(new), "--queries", str(queries), "--retriever", "bm25",
              "--json")  # fmt: skip
    assert [v["id"] for v in out["verdicts"]] == ["days"]  # only questions about this document
    assert out["verdict_changes"] == ["days"]
    (v,) = out["verdicts"]
    assert v["old"].startswith("complete") and "was not found" in v["new"]


def test_chunk_and_audit_with_a_library_splitter(tmp_path: Path) -> None:
    import subprocess
    import sys

    doc = CORPUS / "docker-container-run.md"
    options = ["--splitter", "langchain-recursive", "--unit", "tokens", "--size", "256",
               "--overlap", "32"]  # fmt: skip
    res = subprocess.run(
        [sys.executable, "-m", "explorer", "chunk", str(doc), *options],
        capture_output=True, check=True, timeout=300,
    )  # fmt: skip
    lines = [json.loads(x) for x in res.stdout.decode().splitlines()]
    text = doc.read_text(encoding="utf-8")
    wrong = 0
    for r in lines:
        assert {"library_start", "audit"} <= set(r)
        if r["start"] is not None:
            assert text[r["start"] : r["end"]] == r["text"]
        # an independent count: the library's start is wrong when it is not the true one
        wrong += r["library_start"] != r["start"]
        assert ("offset_wrong" in r["audit"]) == (r["library_start"] != r["start"])
    summary = cli("audit", str(doc), *options, "--json")
    assert summary["library"] == "langchain-text-splitters" and summary["chunks"] == len(lines)
    assert summary["offset_wrong"] == wrong > 0
    assert "RecursiveCharacterTextSplitter" in summary["snippet"]
    ours = cli("audit", str(doc), "--splitter", "structure", "--json")
    assert ours["offset_wrong"] == ours["not_found"] == ours["over_limit"] == 0


SITE = REPO / "tests" / "data" / "markdownlint-site"
SITE_QUERIES = REPO / "tests" / "data" / "markdownlint-questions.json"


def test_ab_in_corpus_scope_ranks_every_page_of_the_site_and_reads_lower(tmp_path: Path) -> None:
    """The site's 24 near-identical rule pages as one index (all of them, read from its doc/
    folder, the one page no question names too): each question competes with its siblings, so
    coverage@1 reads lower than when each page is ranked alone; a preset is A/B'd against the
    recommended configuration there, with the lasting index in --cache-dir."""
    common = ("ab", "--queries", str(SITE_QUERIES), "--docs", str(SITE), "--a", "retriever=bm25",
              "--preset", "langchain-1000-200", "--b", "retriever=bm25", "--k", "1,3",
              "--budget", "512", "--json", "--cache-dir", str(tmp_path / "cache"))  # fmt: skip
    corpus = cli(*common, "--scope", "corpus")
    alone = cli(*common, "--scope", "document")
    assert corpus["scope"] == "corpus" and alone["scope"] == "document"
    assert corpus["documents"] == 24 and corpus["questions"] == 23 and not corpus["left_out"]
    at1, at1_alone = corpus["comparisons"]["k=1"], alone["comparisons"]["k=1"]
    assert at1["coverage_a"] < at1_alone["coverage_a"]  # the siblings crowd the right page out
    assert corpus["b"]["splitter"] == "langchain-recursive" and corpus["b"]["size"] == 1000


def test_ab_refuses_an_empty_cache_dir_and_an_unknown_scope() -> None:
    for bad in (["--cache-dir", ""], ["--scope", "site"]):
        with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as exited:
            main(["ab", "--queries", str(SITE_QUERIES), "--docs", str(SITE), *bad])
        assert exited.value.code == 2, bad
