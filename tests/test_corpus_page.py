"""The Corpus page through ``AppTest``: documents from every source, the overview, one question
over all of them with hits grouped by document, a hit opening its document on the main page,
bad files listed, and the retrieval map of a query set.

The app is opened on its Explore page (as a person opens it) with BM25, then the Corpus page is
visited: it takes the sidebar's configuration."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.answer import CorpusAnswer
from explorer.documents.load import load_path
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.queries import load_queries
from explorer.evaluation.reach import retrieval_map
from explorer.workspace import Workspace
from tests.conftest import REPO, SAMPLES
from ui import corpus_view as cv
from ui.allowed import docs_from_argv
from ui.lessons import OPENING
from ui.sources import sample_paths
from ui.view_state import query_keys
from ui.widget_keys import OPENING as OPENING_VIEW

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
"""Lesson 1's failing setting (configuration, k, budget): the one the app opens on."""

APP = str(REPO / "app.py")
PAGE = "app_pages/corpus.py"
EVAL_DOCS = REPO / "queries" / "docs"
CONFIG = START.config.replace(retriever="bm25")
"""What the Corpus page uses: the main page's configuration as it opens, with BM25."""


def corpus_page(**preset: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["retriever"] = "bm25"
    at.run()
    assert not at.exception
    for key, value in preset.items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def table(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert found, f"no table with a {column!r} column"
    return found


def samples() -> dict[str, object]:
    return {p.name: load_path(p) for p in sample_paths()}


def corpus_answer(config: object = CONFIG) -> CorpusAnswer:
    """What the library answers over the samples (the page's opening question, k and budget)."""
    ws = Workspace(None, samples())  # type: ignore[arg-type]
    return ws.answer(OPENING.question, OPENING.evidence, config=config, k=5, budget=1024)  # type: ignore[arg-type]


def test_it_opens_on_the_samples_with_their_overview() -> None:
    at = corpus_page()
    [overview] = table(at, "flagged")
    docs = samples()
    assert sorted(overview["document"]) == sorted(docs)  # the problems first: see test_overview
    ws = Workspace()
    want = [len(ws.chunks(d, CONFIG)) for d in docs.values()]  # type: ignore[arg-type]
    shown = dict(zip(overview["document"], overview["chunks"], strict=True))
    assert [shown[n] for n in docs] == want
    assert int(next(m.value for m in at.metric if m.label == "Chunks")) == sum(want)
    assert set(table(at, "flagged")[0].columns) >= {"chunks", "flagged"}  # drawn as bars there


def test_one_question_ranks_every_documents_chunks_and_groups_hits_by_document() -> None:
    at = corpus_page()
    want = corpus_answer()
    assert len({h.doc for h in want.hits}) >= 2, "the demo question reaches two documents"
    shown = table(at, "first words")
    groups = cv.group_hits(want)
    assert [list(t["rank"]) for t in shown] == [[h.rank for h in g.hits] for g in groups]
    assert [list(t["chunk"]) for t in shown] == [[h.index for h in g.hits] for g in groups]
    [evidence] = table(at, "phrase")
    assert list(evidence["document"]) == [e.doc for e in want.evidence]
    assert want.verdict is not None
    sentence = want.verdict.sentence()
    verdict = sentence[:1].upper() + sentence[1:]
    assert verdict in [e.value for e in (*at.success, *at.error)]


def test_when_the_budget_takes_fewer_than_k_the_page_says_the_budget_cut() -> None:
    """At k = 5 within 256 tokens the budget holds the top 3: "Top 3 of … chunks" is followed by
    the budget's ✂ line, and the evidence it keeps out is cut by the budget (issue 36.1)."""
    at = corpus_page(cp_budget=256)
    ws = Workspace(None, samples())  # type: ignore[arg-type]
    want = ws.answer(OPENING.question, OPENING.evidence, config=CONFIG, k=5, budget=256)  # type: ignore[arg-type]
    lim = want.limits
    assert lim.k == 5 and lim.taken < 5 and lim.next_cost is not None
    cut = [m.value for m in at.markdown if m.value.startswith("✂ ")]
    assert cut == [
        f"✂ The **256-token budget** stopped the ranking after {lim.taken} hits, before k = 5: "
        f"{lim.left:,} tokens were left and the next hit's context needed {lim.next_cost:,}."
    ]
    [evidence] = table(at, "cut by")
    assert set(evidence["cut by"]) == {"token budget"}
    assert all(e.cut_by == "budget" for e in want.evidence)


def test_a_hit_opens_its_document_on_the_main_page_at_the_hit() -> None:
    at = corpus_page()
    want = corpus_answer()
    other = next(h for h in want.hits if h.doc != want.hits[0].doc)
    at.button(key=f"cp_open_{other.rank}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["source"] == other.doc
    assert at.session_state["chunk"] == other.index
    assert at.selectbox(key="source").value == other.doc  # the main page is drawn
    question = at.text_input(key=query_keys(other.doc)[0])
    assert question.value == OPENING.question
    assert at.selectbox(key="splitter").value == CONFIG.chunking.splitter


def test_a_hit_opened_on_the_main_page_says_it_ranks_one_document_and_what_the_corpus_said() -> (
    None
):
    """At k = 5 within 256 tokens the corpus misses the evidence; opened at a hit, the main page
    ranks one document and says so, with the hit's corpus rank and the corpus's verdict — never
    a silent "Complete" (issue 36.4)."""
    at = corpus_page(cp_budget=256)
    ws = Workspace(None, samples())  # type: ignore[arg-type]
    want = ws.answer(OPENING.question, OPENING.evidence, config=CONFIG, k=5, budget=256)  # type: ignore[arg-type]
    assert want.verdict is not None and not want.complete
    hit = next(h for h in want.hits if h.doc == "refund-policy.md")
    at.button(key=f"cp_open_{hit.rank}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["source"] == hit.doc
    [note] = [i.value for i in at.info if i.value.startswith("**Scope: one document.**")]
    assert f"all {len(want.ranking):,} chunks of {len(want.documents)} documents" in note
    assert f"where this hit was **#{hit.rank}**" in note
    sentence = want.verdict.sentence()
    assert f"Over the corpus: *{sentence[:1].upper() + sentence[1:]}*" in note
    # the one document holds the evidence within 256 tokens: the page says the corpus did not
    local = [e.value for e in (*at.success, *at.error) if e.value.startswith(("Complete", "Inc"))]
    assert local == ["Complete: every evidence phrase is inside the retrieved text"]
    assert note.endswith("within this one document the evidence is in the context; over the "
                         "corpus it was not.")  # fmt: skip


def test_uploads_join_and_bad_or_duplicate_files_are_listed(tmp_path: Path) -> None:
    at = corpus_page(cp_samples=["refund-policy.md"])
    uploader = at.get("file_uploader")[0]
    files = [
        ("notes.md", b"# Notes\n\nThe warranty lasts two years from delivery.\n", "text/markdown"),
        ("empty.md", b"", "text/markdown"),
        ("copy.md", (SAMPLES / "refund-policy.md").read_bytes(), "text/markdown"),
    ]
    uploader.set_value(files).run()  # type: ignore[attr-defined]
    assert not at.exception, [e.value for e in at.exception]
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["refund-policy.md", "notes.md"]
    listed = " ".join(m.value for m in at.markdown)
    assert "empty.md: the file is empty" in listed
    assert "copy.md: a duplicate of refund-policy.md" in listed
    at.multiselect(key="cp_uploaded").unselect("notes.md").run()  # out of the corpus again
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["refund-policy.md"]


def test_a_folder_loads_and_its_unreadable_files_are_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))  # what --docs allows
    shutil.copy(SAMPLES / "writing-guide.md", tmp_path / "guide.md")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    at = corpus_page(cp_samples=[], cp_folder=str(tmp_path))
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["guide.md"]
    assert "broken.pdf" in " ".join(m.value for m in at.markdown)
    shutil.copy(SAMPLES / "refund-policy.md", tmp_path / "policy.md")  # the folder changes
    at.run()
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["guide.md", "policy.md"]


def test_a_served_folders_files_are_looked_at_once_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run over a folder already read looks at its files once (a site's 10,000 files take
    about 0.6 s a look), and still sees a file that changed."""
    import explorer.workspace as workspace

    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    shutil.copy(SAMPLES / "writing-guide.md", tmp_path / "guide.md")
    at = corpus_page(cp_samples=[], cp_folder=str(tmp_path))
    looks: list[Path] = []
    real = workspace.folder_key

    def counted(path: Path, *, recursive: bool) -> tuple[str, bool, str]:
        looks.append(path)
        return real(path, recursive=recursive)

    monkeypatch.setattr(workspace, "folder_key", counted)
    at.run()
    assert not at.exception and len(looks) == 1, looks
    shutil.copy(SAMPLES / "refund-policy.md", tmp_path / "policy.md")
    at.run()
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["guide.md", "policy.md"]


def test_a_cancelled_folder_read_waits_until_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    (tmp_path / "guide.md").write_text("# A guide of its own\n\nNothing like the samples.\n")
    at = corpus_page(  # the Cancel button's click; the samples chosen beside the served folder
        cp_folder_cancelled="x",
        cp_folder=str(tmp_path),
        cp_samples=[p.name for p in sample_paths()],
    )
    [held] = [i.value for i in at.info if i.value.startswith("Cancelled: Reading the folder")]
    assert held.endswith("The corpus is shown without it.")
    [overview] = table(at, "flagged")
    assert "guide.md" not in list(overview["document"])  # the samples alone
    at.run()  # another run: still held, nothing read
    assert any(i.value.startswith("Cancelled: Reading the folder") for i in at.info)
    at.button(key="cp_folder_again").click().run()
    assert not at.exception, [e.value for e in at.exception]
    [overview] = table(at, "flagged")
    assert "guide.md" in list(overview["document"])
    assert not any(i.value.startswith("Cancelled: Reading the folder") for i in at.info)


@pytest.mark.parametrize("folder", ["/etc", "../..", "sample_docs/../.."])
def test_a_folder_outside_the_allowed_ones_is_refused_unread(
    folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))  # the box is shown: one is named
    at = corpus_page(cp_samples=[], cp_folder=folder)
    errors = [e.value for e in at.error]
    assert any("is not a folder this app may read" in e and "--docs" in e for e in errors), errors
    assert not any(d.value.shape[0] for d in at.dataframe if "flagged" in d.value.columns)


def test_no_document_says_what_to_do() -> None:
    at = corpus_page(cp_samples=[])
    assert any("Choose documents" in i.value for i in at.info)


def test_the_retrieval_map_of_a_query_set_tints_the_page() -> None:
    names = [
        "refund-policy.md",
        "github-terms-of-service.md",
        "curl-vulnerability-disclosure-policy.md",
    ]
    at = corpus_page(cp_samples=[], cp_eval_docs=names)
    at.selectbox(key="cp_set").set_value("boundary-questions.json").run()
    queries = [
        q for q in load_queries(REPO / "queries" / "boundary-questions.json") if q.doc in names
    ]
    run = at.button(key="cp_map_run")
    assert run.label == f"Run {len(queries)} questions"
    run.click().run()
    assert not at.exception, [e.value for e in at.exception]
    ws = Workspace(None, documents={n: load_path(EVAL_DOCS / n) for n in names})
    report = evaluate(queries, ws, CONFIG, ks=(5,), budgets=(), scope="corpus")
    reach = retrieval_map(report, ws)
    [rows] = table(at, "stretches")
    assert list(rows["document"]) == names
    assert list(rows["never reached"]) == [f"{reach[n].never_fraction:.0%}" for n in names]
    page = next(h.value for h in at.html if 'class="ce-doc' in h.value)
    first = reach[names[0]]
    assert first.never, "some of the refund policy is never reached"
    assert page.count('title="no question&#x27;s context reaches this text"') + page.count(
        'title="no question\'s context reaches this text"'
    ) >= len(first.never)


@pytest.mark.parametrize(
    ("argv", "folder"),
    [(["--docs", "/data/docs"], "/data/docs"), (["--docs=/x"], "/x"), (["--other"], "")],
)
def test_the_folder_given_on_the_command_line(argv: list[str], folder: str) -> None:
    assert docs_from_argv(argv) == folder


def test_while_the_model_cannot_embed_the_bm25_answer_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    model = tmp_path / "not-a-model"  # a folder the app may read, holding no model
    model.mkdir()
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["retriever"] = "bm25"
    at.session_state["model"] = str(model)
    at.run()
    # a served folder opens alone and unasked: the samples and lesson 1's question, as chosen
    at.session_state["cp_samples"] = [p.name for p in sample_paths()]
    at.session_state["cp_question"] = OPENING_VIEW.question
    at.session_state["cp_evidence"] = OPENING_VIEW.evidence
    at.switch_page(PAGE).run()
    at.selectbox(key="retriever").set_value("hybrid").run()  # the sidebar's, on every page
    assert not at.exception, [e.value for e in at.exception]
    [message] = [e.value for e in at.error if not e.value.startswith("Incomplete")]
    assert "cannot load embedding model" in message and "not-a-model" in message
    assert "bm25 works without it (its answer is shown above)" in message
    want = corpus_answer(CONFIG.replace(model=str(model)))
    [early] = [t for t in table(at, "document") if list(t.columns) == ["rank", "document", "chunk"]]
    assert list(early["chunk"]) == [h.index for h in want.hits]
    assert list(early["document"]) == [h.doc for h in want.hits]


def test_a_served_site_past_the_bound_is_not_looked_over_again_on_each_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site larger than what the app's workspace keeps: a new session's run (a visitor
    opening the page) chunks nothing again and asks no diagnosis — the corpus is held whole and
    its overview's rows are made once — and still shows every page, problems first."""
    from explorer import workspace
    from explorer.chunking import splitters

    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    for n in range(12):
        table_part = "| a | b |\n|---|---|\n| 1 | 2 |\n" if n == 7 else ""
        (tmp_path / f"page-{n:02d}.md").write_text(
            f"# Page {n}\n\nIts own text, {n}.\n\n{table_part}"
        )
    shared = workspace.shared_workspace()._shared
    kept = shared.keep
    shared.bound(2)  # 2 documents' work: 8 chunkings, fewer than the site's 12
    try:
        first = corpus_page(cp_folder=str(tmp_path))
        [before] = table(first, "flagged")
        made: list[str] = []
        asked: list[str] = []
        real_split, real_diagnosis = splitters.split, workspace.Workspace.diagnosis
        monkeypatch.setattr(
            "explorer.workspace.split",
            lambda d, s, **kw: made.append(d.name) or real_split(d, s, **kw),
        )
        monkeypatch.setattr(
            workspace.Workspace,
            "diagnosis",
            lambda self, d, *a, **kw: (
                asked.append(getattr(d, "name", d)) or real_diagnosis(self, d, *a, **kw)
            ),
        )
        again = corpus_page(cp_folder=str(tmp_path))  # another session
        again.run()  # and another run of it
        site = {f"page-{n:02d}.md" for n in range(12)}  # (the Explore page's lesson apart)
        assert not site & set(made) and not site & set(asked)
        [after] = table(again, "flagged")
        assert len(after) == 12 and list(after["document"]) == list(before["document"])
    finally:
        shared.bound(max(kept, shared.keep))
