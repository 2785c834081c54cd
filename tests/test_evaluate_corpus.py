"""The Evaluate page over the Corpus page's corpus (AppTest): a site uploaded as a folder is the
corpus every page sees; a query set about it, uploaded on the Evaluate page, matches its pages
by path or by file name, lists what does not match with why, runs in corpus scope by default
(a single run, with the gap to document scope and the pages that crowded the right one out),
and is A/B'd with a preset in the same scope. BM25 throughout: no model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.config import Config
from tests.conftest import REPO
from tests.hostile import plotly_figures
from tests.test_evaluate_page import APP, PAGE, QUICK, assert_ok
from ui.corpus.reach_map import SESSION
from ui.evaluate.single import OWN
from ui.settings import state_of

SITE = REPO / "tests" / "data" / "markdownlint-site"
QUESTIONS = json.loads((REPO / "tests" / "data" / "markdownlint-questions.json").read_text())


def site_files() -> list[tuple[str, bytes, str]]:
    """The site's files as a browser sends a folder: each under the folder's own name."""
    return [
        (f"markdownlint-site/{p.relative_to(SITE).as_posix()}", p.read_bytes(), "text/markdown")
        for p in sorted(SITE.rglob("*"))
        if p.is_file()
    ]


def site_uploaded(query_set: list[dict[str, Any]]) -> AppTest:
    """The app with the site uploaded as a folder on the Corpus page (BM25), then the
    Evaluate page with ``query_set``."""
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in state_of(Config().replace(retriever="bm25")).items():
        at.session_state[key] = value  # the sidebar: the recommended configuration, with BM25
    at.run()
    at.session_state["cp_samples"] = []
    at.switch_page("app_pages/corpus.py").run()
    at.file_uploader(key="cp_upload_dir").set_value(site_files()).run()  # type: ignore[attr-defined]
    assert not at.exception, [e.value for e in at.exception]
    for key, value in (QUICK | {"query_set": query_set}).items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert_ok(at)
    return at


def test_a_set_about_an_uploaded_site_runs_in_corpus_scope_and_shows_the_crowding() -> None:
    renamed = [dict(q, doc=q["doc"].split("/")[-1]) for q in QUESTIONS[:4]]  # file names only
    missing = [dict(QUESTIONS[0], id="gone", doc="doc/md999.md")]
    at = site_uploaded([*QUESTIONS[4:], *renamed, *missing])
    assert at.radio(key="eval_source").value == "corpus"
    assert at.radio(key="eval_scope").value == "corpus"  # a corpus is loaded: its scope first
    caption = " ".join(c.value for c in at.sidebar.caption)
    assert "23 of 24 questions will run, in corpus scope, over 24 documents" in caption, caption
    [left_out] = [w.value for w in at.warning if w.value.startswith("Left out")]
    assert "doc/md999.md (1 question): no document of the corpus has this path" in left_out
    assert "None" not in left_out and str(REPO) not in left_out
    at.session_state["eval_tab"] = "Run"
    at.run()
    at.button(key="run_run").click().run()
    assert_ok(at)
    result = at.session_state["run_result"]
    assert result["report"].scope == "corpus" and result["alone"].scope == "document"
    metrics = {m.label: m.value for m in at.metric}
    at5, alone5 = metrics["Coverage@5 (corpus scope)"], metrics["Coverage@5 (document scope)"]
    assert at5 and alone5
    at.segmented_control(key="run_k").set_value(1).run()
    gaps = next(d.value for d in at.dataframe if "corpus scope@1" in d.value.columns)
    lost = gaps[gaps["lost in the corpus"] == "✗ lost"]
    assert len(lost) > 0  # at k = 1 the siblings take the place of some pages
    crowded = 0
    for _, row in lost.iterrows():
        crowd = row["other documents in the top k (hits)"]
        if crowd != OWN:
            assert crowd.startswith("doc/md") and row["document"] not in crowd
            crowded += 1
    assert crowded > 0  # at least one lost to a sibling page
    report = result["report"]
    assert report.coverage_at_k[1] < result["alone"].coverage_at_k[1]


def test_an_a_b_of_a_preset_against_the_recommended_one_runs_in_corpus_scope() -> None:
    at = site_uploaded(QUESTIONS)
    at.selectbox(key="ab_B_preset").set_value("langchain-1000-200").run()
    for side in ("A", "B"):
        at.session_state[f"ab_{side}_retriever"] = "bm25"
    at.run()
    at.button(key="ab_run").click().run()
    assert_ok(at)
    result = at.session_state["ab_result"]
    assert result["a"].scope == result["b"].scope == "corpus"
    assert len(result["a"].documents) == 24  # every page, asked about or not
    labels = [m.label for m in at.metric]
    assert "Coverage@5 with A (corpus scope)" in labels
    assert "Chunks A / B (corpus)" in labels


def test_the_scope_chosen_stays_and_document_scope_is_one_click_away(tmp_path: Path) -> None:
    at = site_uploaded(QUESTIONS[:3])
    at.radio(key="eval_scope").set_value("document").run()
    assert_ok(at)
    at.switch_page("app_pages/corpus.py").run()
    at.switch_page(PAGE).run()
    assert at.radio(key="eval_scope").value == "document"
    caption = " ".join(c.value for c in at.sidebar.caption)
    assert "in document scope, over 3 documents" in caption


def test_the_never_reached_map_takes_the_set_uploaded_on_the_evaluate_page() -> None:
    by_name = [dict(q, doc=q["doc"].split("/")[-1]) for q in QUESTIONS[:5]]  # file names only
    at = site_uploaded([*by_name, dict(QUESTIONS[0], id="gone", doc="md999.md")])
    at.switch_page("app_pages/corpus.py").run()
    at.selectbox(key="cp_set").set_value(SESSION).run()
    assert_ok(at)
    run = at.button(key="cp_map_run")
    assert run.label == "Run 5 questions"
    assert any("md999.md (1 question)" in c.value for c in at.caption)
    run.click().run()
    assert_ok(at)
    rows = next(d.value for d in at.dataframe if "never reached" in d.value.columns)
    assert len(rows) == 24 and "doc/md001.md" in list(rows["document"])
    assert any("of 5 questions" in m.value for m in at.markdown)


def test_a_served_site_opens_alone_with_no_question_and_the_samples_one_click_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(SITE))
    at = AppTest.from_file(APP, default_timeout=180)
    at.switch_page("app_pages/corpus.py").run()
    assert not at.exception, [e.value for e in at.exception]
    rows = next(d.value for d in at.dataframe if "flagged" in d.value.columns)
    names = list(rows["document"])
    assert len(names) == 24 and all(n.startswith("doc/md") for n in names)  # the site alone
    assert at.session_state["cp_question"] == ""  # nothing asked: nothing embeds by itself
    assert any("Type a question" in c.value for c in at.caption)
    assert at.session_state["cp_samples"] == []
    at.button(key="cp_add_samples").click().run()
    rows = next(d.value for d in at.dataframe if "flagged" in d.value.columns)
    assert len(rows) > 24 and "refund-policy.md" in list(rows["document"])
    for key, value in (QUICK | {"query_set": QUESTIONS[:3]}).items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert_ok(at)
    assert at.radio(key="eval_source").value == "corpus"
    assert at.radio(key="eval_scope").value == "corpus"


def test_the_sweep_runs_over_the_corpus_and_its_charts_name_the_scope() -> None:
    at = site_uploaded(QUESTIONS[:6])
    at.session_state["eval_tab"] = "Sweep"
    at.session_state["sw_sizes"] = "128, 256"
    at.session_state["sw_overlaps"] = "0"
    at.run()
    at.button(key="sw_run").click().run()
    assert_ok(at)
    reports = at.session_state["sweep_result"]["reports"]
    assert len(reports) == 2 and all(r.scope == "corpus" for r in reports)
    assert all(len(r.documents) == 24 for r in reports)
    titles = [f["layout"]["title"]["text"] for f in plotly_figures(at)]
    assert any("(corpus scope)" in t for t in titles), titles
