"""The workspace: the one owner of documents, chunkings, retrievers and vectors.

Each document is read once per content, each chunking made once, each ranking's retriever built
once and shared by every context setting; views share all of it while keeping names apart; what
is still to embed is said before it is embedded, with one progress callback; and in the app, a
PDF read on one page is not read again on another.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer import Config, Workspace, ask
from explorer.chunking import splitters
from explorer.errors import QuerySetError, SettingsError
from tests.conftest import REPO, RULE_THEN_EXCEPTION, SAMPLES

APP = str(REPO / "app.py")
BM25 = Config().replace(retriever="bm25")
POLICY = (SAMPLES / "refund-policy.md").read_bytes()


def test_a_document_is_read_once_per_content_whatever_its_name() -> None:
    ws = Workspace()
    a = ws.load(POLICY, name="refund-policy.md")
    b = ws.load(POLICY, name="copy.md")
    assert ws.loads == 1
    assert (a.name, b.name) == ("refund-policy.md", "copy.md")
    assert a.key == b.key and a.text == b.text
    ws.load(POLICY, name="as-text.txt")  # the same bytes read as plain text: another document
    assert ws.loads == 2
    assert ws.load_path(SAMPLES / "refund-policy.md").key == a.key and ws.loads == 2


def test_chunks_and_retrievers_are_made_once_and_context_settings_share_a_retriever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws = Workspace()
    doc = ws.load(POLICY, name="refund-policy.md")
    made: list[str] = []
    real = splitters.split
    monkeypatch.setattr(
        "explorer.workspace.split", lambda d, s, **kw: made.append(s.key()) or real(d, s, **kw)
    )
    first = ws.retriever(doc, BM25)
    assert ws.retriever(doc, BM25) is first
    wider = ws.retriever(doc, BM25.replace(neighbours=2, fill=False))  # context settings only
    assert wider.bm25() is first.bm25() and wider.chunks is first.chunks  # what it scores by
    assert wider.config.neighbours == 2
    assert len(made) == 1
    ws.retriever(doc, BM25.replace(size=128))  # a new chunking: made once more
    assert len(made) == 2


def test_two_threads_asking_for_one_chunking_make_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace()
    doc = ws.load(POLICY, name="refund-policy.md")
    made: list[int] = []
    gate = threading.Event()
    real = splitters.split

    def slow(d: Any, s: Any, **kw: Any) -> Any:
        made.append(1)
        gate.wait(5)
        return real(d, s, **kw)

    monkeypatch.setattr("explorer.workspace.split", slow)
    got: list[Any] = []
    threads = [threading.Thread(target=lambda: got.append(ws.chunks(doc, BM25))) for _ in range(3)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join()
    assert len(made) == 1 and len(got) == 3 and all(g is got[0] for g in got)


def test_views_share_the_work_but_not_the_names() -> None:
    shared = Workspace()
    doc = shared.load(POLICY, name="refund-policy.md")
    mine = shared.view(documents={"mine.md": doc})
    theirs = shared.view()
    assert mine.names() == ("mine.md",) and theirs.names() == ()
    with pytest.raises(QuerySetError, match=r"'mine\.md' is not in the loaded documents"):
        theirs.document("mine.md")
    assert mine.retriever("mine.md", BM25).chunks is theirs.retriever(doc, BM25).chunks
    with pytest.raises(SettingsError, match="share the name"):
        Workspace(None, [doc, doc])


def test_a_folder_is_named_by_its_files_and_read_through_the_workspace() -> None:
    ws = Workspace(REPO / "queries" / "docs")
    assert "refund-policy.md" in ws.names()
    before = ws.loads
    assert ws.document("refund-policy.md").text == ws.load(POLICY, name="x.md").text
    assert ws.loads == before  # the folder's copy was read already: the same bytes


def test_the_shared_workspace_is_the_one_owner_of_the_embedders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One shared workspace per process: every workspace (and view) embeds through its
    embedders, and the app's frame asks it rather than making its own."""
    from explorer import workspace
    from ui import frame

    owner = workspace.shared_workspace()
    assert workspace.shared_workspace() is owner
    for ws in (Workspace(), Workspace(keep=3), Workspace().view(), owner.view()):
        assert ws.embedders is owner.embedders
        assert ws.embedder(BM25.model) is owner.embedder(BM25.model)
    bounded: list[int] = []
    monkeypatch.setattr(workspace._Shared, "bound", lambda _self, keep: bounded.append(keep))
    frame.shared_workspace.clear()
    assert frame.shared_workspace() is owner and bounded == [frame.KEEP_DOCUMENTS]
    assert workspace.shared_workspace(keep=7) is owner and bounded[-1] == 7


def test_bounding_a_workspace_keeps_that_many_documents() -> None:
    ws = Workspace()
    ws._shared.bound(2)
    for n in range(4):
        ws.load(POLICY + b"\n" * n, name=f"p{n}.md")
    assert len(ws._shared.documents) == 2 and ws.loads == 4
    ws.load(POLICY + b"\n" * 3, name="again.md")  # the most recent one is kept
    assert ws.loads == 4


def test_a_held_corpus_is_kept_whole_past_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A corpus larger than the bound, held, is chunked and diagnosed once, however many runs
    ask again (bound to 2 documents, 12 pages would be made again on each pass)."""
    ws = Workspace(keep=2)
    docs = [ws.load(POLICY + b"\n" * n, name=f"p{n}.md") for n in range(12)]
    made: list[str] = []
    real = splitters.split
    monkeypatch.setattr(
        "explorer.workspace.split", lambda d, s, **kw: made.append(d.name) or real(d, s, **kw)
    )
    ws.hold(12)
    for _ in range(3):
        diagnoses = [ws.diagnosis(d, BM25) for d in docs]
    assert sorted(made) == sorted(d.name for d in docs)  # each chunked once
    assert [ws.diagnosis(d, BM25) for d in docs] == diagnoses
    assert all(ws.diagnosis(d, BM25) is x for d, x in zip(docs, diagnoses, strict=True))
    ws.hold(3)  # a smaller corpus later never shrinks what is kept
    assert ws._shared.keep == 12


def test_a_settings_key_is_made_once_and_belongs_to_its_settings() -> None:
    settings = Config().chunking
    first = settings.key()
    assert settings.key() is first
    wider = replace(settings, size=512, overlap=128)
    assert wider.key() != first and "size=512" in wider.key()
    assert replace(wider, size=256, overlap=64).key() == first
    assert wider == replace(settings, size=512, overlap=128)  # not a field: not compared


def test_the_workspace_embeds_the_question_and_the_corpus_ranks_it() -> None:
    """The ranking is model-free: the workspace embeds the question (nothing for BM25) and the
    corpus ranks with its vector."""
    seen: list[str] = []

    class Embedder:
        def embed_query(self, question: str) -> Any:
            import numpy as np

            seen.append(question)
            return np.ones(3, dtype=np.float32) / np.sqrt(3)

    class Fake(Workspace):
        def embedder(self, model: str) -> Any:
            return Embedder()

    ws = Fake()
    assert ws.question_vector("How long?", BM25) is None and seen == []
    vector = ws.question_vector("How long?", Config())
    assert vector is not None and vector.shape == (3,) and seen == ["How long?"]
    doc = ws.load(POLICY, name="refund-policy.md")
    ranked = ws.ranking("How long?", BM25, [doc])
    assert ranked == ws.corpus(BM25, [doc]).rank("How long?", None) and seen == ["How long?"]
    assert [h.hit for h in ranked] == list(ws.ask(doc, "How long?", config=BM25, k=None).ranking)


def test_bm25_needs_nothing_embedded() -> None:
    ws = Workspace()
    doc = ws.load(POLICY, name="refund-policy.md")
    pending = ws.pending([doc], BM25, question="How long?")
    assert pending.ready and pending.texts == 0


def test_pending_then_prepare_embeds_with_one_progress_callback(model_embedder: Any) -> None:
    """With the real model: what is still to embed is counted, then embedded under one progress
    callback that names the document and counts the passages; afterwards nothing is pending."""
    ws = Workspace()
    text = RULE_THEN_EXCEPTION + "\n\n" + "A sentence not seen before, about workspace tests."
    doc = ws.load(text.encode(), name="rules.txt")
    config = Config()
    pending = ws.pending([doc], config, question="How long do refunds take?")
    assert pending.texts >= 1 and pending.what == "passages"
    seen: list[tuple[float, str]] = []
    ws.prepare([doc], config, lambda f, m: seen.append((f, m)), question="How long?")
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(m.startswith("embedding rules.txt: ") and " passages" in m for _, m in seen)
    assert ws.pending([doc], config, question="How long?").ready


def test_ask_is_the_corpus_of_one_answer() -> None:
    ws = Workspace()
    doc = ws.load(POLICY, name="refund-policy.md")
    question, evidence = "How long do I have to ask for a refund?", ["within seven days"]
    one = ws.ask(doc, question, evidence, config=BM25, k=2)
    whole = ws.answer(question, evidence, config=BM25, names=[doc], k=2)
    assert one == whole.answers["refund-policy.md"]
    assert ask(doc, question, evidence, config=BM25, k=2).hits == one.hits  # the shared one


def test_a_pdf_read_on_one_page_is_not_read_again_on_another() -> None:
    """The Explore page reads the field manual; the Corpus page and the Evaluate page, which
    use it too (the evaluation folder holds the same bytes), do not read it again."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["retriever"] = "bm25"
    at.session_state["source"] = "field-manual.pdf"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ws = at.session_state["workspace"]
    manual = ws.load((SAMPLES / "field-manual.pdf").read_bytes(), name="field-manual.pdf")
    read = ws.loads
    at.session_state["cp_samples"] = ["field-manual.pdf"]
    at.switch_page("app_pages/corpus.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert ws.loads == read
    at.session_state["query_set"] = [
        {"id": "m1", "doc": "field-manual.pdf", "query": "holding time", "evidence": ["24 hours"]}
    ]
    at.session_state["ab_A_retriever"] = at.session_state["ab_B_retriever"] = "bm25"
    at.switch_page("app_pages/evaluate.py").run()
    at.button(key="ab_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["ab_result"]["a"].results[0].located  # it answered from the manual
    assert ws.loads == read and manual.key == ws.document(manual).key


@pytest.mark.parametrize(
    "name",
    ["../refund-policy.md", "/etc/passwd", "docs/../../x.md", "..", "sub/../../../etc/hosts"],
)
def test_a_query_set_cannot_name_a_file_outside_the_documents_folder(
    tmp_path: Path, name: str
) -> None:
    """A query set is a file anyone may hand over: its document names stay inside the folder,
    whether or not the file they reach for exists."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "refund-policy.md").write_text("# Outside\n\nNot for the query set.\n")
    ws = Workspace(tmp_path / "docs")
    with pytest.raises(QuerySetError, match="is outside the documents folder"):
        ws.document(name)


def test_a_query_set_follows_links_as_loading_the_folder_does(tmp_path: Path) -> None:
    """One rule for links (explorer.documents.model.leaves_folder): one that stays inside the
    folder is followed, one that leaves it is refused, whoever made it (issue 38.6)."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "real.md").write_text("# Real\n\nInside the folder.\n")
    (docs / "inner.md").symlink_to(docs / "sub" / "real.md")
    (docs / "policy.md").symlink_to(SAMPLES / "refund-policy.md")
    ws = Workspace(docs)
    assert ws.document("inner.md").text == ws.document("sub/../inner.md").text
    assert "Inside the folder." in ws.document("inner.md").text
    with pytest.raises(QuerySetError, match="is a link that leaves the documents folder"):
        ws.document("policy.md")
    loaded = ws.load_folder(docs)
    assert "inner.md" in loaded.names and "policy.md" not in loaded.names
    assert [s.reason for s in loaded.skipped if s.path.name == "policy.md"] == [
        "policy.md: a link to a file outside the folder; links that leave the folder are not "
        "followed"
    ]
