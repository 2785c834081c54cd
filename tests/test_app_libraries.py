"""Another library's splitter in the app: picked from the splitter list, audited up top, placed
on the page like ours, reproducible from a snippet, and asked questions through the same path."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.chunking.adapters import AdapterSettings, split_library
from explorer.documents.load import load_path
from tests.conftest import CORPUS, REPO, SAMPLES

APP = str(REPO / "app.py")


def open_with(**state: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_langchain_splitter_is_audited_and_drawn_like_ours() -> None:
    at = open_with(splitter="langchain-recursive", unit="tokens", size=128, overlap=32)
    want = split_library(
        load_path(SAMPLES / "refund-policy.md"),
        AdapterSettings("langchain-recursive", unit="tokens", size=128, overlap=32),
    )
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Chunks"]) == len(want.chunks)
    assert metrics["Offsets wrong"] == f"{want.audit.offset_wrong:,}"
    assert metrics["Not found"] == f"{want.audit.not_found:,}"
    snippet = next(c.value for c in at.code if "RecursiveCharacterTextSplitter" in c.value)
    assert "chunk_overlap=32" in snippet or "32" in snippet
    # the question is answered on its chunks, through the same answer path
    assert any(e.value.startswith(("Incomplete", "Complete")) for e in [*at.error, *at.success])
    at.radio(key="view").set_value("Chunks").run()
    html = next(h.value for h in at.html if 'class="ce-doc' in h.value)
    assert html.count('class="ce-badge') == len(want.chunks)  # every chunk on the page


def test_a_library_splitter_on_a_pdf_shows_its_audit_flags_in_the_filter() -> None:
    pdf = CORPUS / "federal-register-2020-17221-faa-737max-nprm.pdf"
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    at.run()
    at.file_uploader(key="upload").set_value((pdf.name, pdf.read_bytes(), "application/pdf")).run()
    for key, value in {"splitter": "langchain-recursive", "unit": "tokens", "size": 256,
                       "overlap": 32, "only_flagged": True, "view": "Chunks"}.items():  # fmt: skip
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Offsets wrong"].replace(",", "")) > 0  # LangChain's start_index
    assert len(at.get("image")) == 1  # the PDF page, drawn with the library's chunks
