"""Bounded work (issue 29): limits checked before parsing, and what a settings change reuses.

Binary content is refused wherever it is in the file (a NUL byte, a 64 KiB window of control
characters or undecodable bytes), not only in the first 64 KiB; a quote nested deeper than the
parser reads keeps the markers it reads (the words all stay, a warning says so); the measures count
a long document's chunks in one batch and its word pieces in pieces, exactly as one by one and as a
whole; the workspace tokenises a document once for every size; progress follows a long load; and
the app's progress bars have a Cancel button whose click is remembered. Behaviour, not timing:
the figures are ``benchmarks/bench_large.py``'s.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer.chunking import measures
from explorer.chunking.adapters import LIBRARY_SPLITTERS
from explorer.chunking.diagnostics import diagnose
from explorer.chunking.measures import _from_spans, count_each, get_measure, model_tokenizer
from explorer.chunking.records import SPLITTERS, ChunkSettings, embedded_text
from explorer.chunking.splitters import split
from explorer.config import Config
from explorer.documents import load as documents
from explorer.documents.load import MAX_QUOTE_DEPTH, flatten_deep_quotes, load_document
from explorer.errors import DocumentError, LibraryError
from explorer.workspace import Workspace
from tests.bad_inputs import make
from tests.conftest import corpus_files, load_cached
from tests.test_app import open_app
from tests.test_splitters import PIECES, fake_embed
from ui import widgets

LINE = b"Ordinary text, line after line, as a document has it.\n"


def text_of(n_bytes: int) -> bytes:
    return (LINE * (n_bytes // len(LINE) + 1))[:n_bytes]


# --------------------------------------------------------------------------- binary anywhere


def test_a_nul_byte_at_200_kib_is_refused_with_where_it_is() -> None:
    data = text_of(200 * 1024) + b"\x00" + text_of(1000)
    with pytest.raises(DocumentError) as err:
        load_document(data, name="late.md")
    assert str(err.value) == (
        "late.md: looks binary, not a text file: it holds NUL bytes (the first at byte 204,800 "
        "of 205,801), which text never does; if part of it is text, save that part as a file of "
        "its own"
    )


def test_a_nul_after_a_utf8_byte_order_mark_is_refused_too() -> None:
    with pytest.raises(DocumentError, match="holds NUL bytes"):
        load_document(b"\xef\xbb\xbf" + text_of(70_000) + b"\x00", name="bom.txt")


def test_a_window_of_control_bytes_after_the_first_is_refused() -> None:
    controls = bytes([1, 2, 3, 4, 5, 6, 7, 8, 11, 14, 15, 27]) * 100  # no NUL
    data = text_of(3 * 65536) + controls + text_of(65536)
    with pytest.raises(DocumentError) as err:
        load_document(data, name="tail.txt")
    assert str(err.value).startswith(
        "tail.txt: looks binary, not text: 1,200 of the 65,536 characters from character "
        "196,608 on are control characters, over the 1% text ever has"
    )


def test_undecodable_bytes_in_a_late_window_are_refused() -> None:
    # mostly UTF-8 (the head holds many accented letters), then a run of damaged bytes
    head = ("Grüße aus Köln, schöne Größe. " * 8000).encode()
    with pytest.raises(DocumentError, match="are control characters or undecodable bytes"):
        load_document(head + b"\xff" * 2000 + b"\n", name="damaged.md")


def test_a_few_controls_and_damaged_bytes_late_in_a_file_still_load() -> None:
    late = "naïve café, an escape \x1b[1m and a damaged byte ".encode() + b"\xff\n"
    data = text_of(300_000) + late + text_of(1000)
    doc = load_document(data, name="ok.md")
    assert "\x1b[1m" in doc.text and "\ufffd" in doc.text
    assert doc.warnings[0].startswith("1 invalid UTF-8 byte sequence")


def test_mostly_invalid_utf8_of_1_mib_is_read_as_windows_1252_with_the_warning() -> None:
    data = make("mostly-invalid-utf8")
    doc = load_document(data, name="legacy.md")
    assert doc.text == data.decode("cp1252")
    assert doc.warnings == (
        "not valid UTF-8 (byte 0xef at offset 0); decoded as Windows-1252 (Western European) — "
        "if letters look wrong, re-save the file as UTF-8",
    )


# --------------------------------------------------------------------------- nesting


def test_a_5000_level_quote_keeps_the_levels_the_parser_reads_and_every_word() -> None:
    source = "# Quotes\n\n" + "> " * 5000 + "deep words\n\n>> shallow\n\nThe end.\n"
    doc = load_document(source.encode(), name="deep.md")
    assert doc.text == (
        "# Quotes\n\n" + "> " * MAX_QUOTE_DEPTH + "deep words\n\n>> shallow\n\nThe end.\n"
    )
    assert doc.warnings == (
        f"1 line quoted deeper than the {MAX_QUOTE_DEPTH} levels the parser reads (the "
        f"deepest: 5,000 levels, line 3) kept their first {MAX_QUOTE_DEPTH} '>' markers only; "
        "every word is kept, and offsets count characters of the shortened text (9,962 "
        "characters fewer)",
    )
    assert not any("nest deeper" in w for w in doc.warnings)  # the parser reads all that is left


def test_quotes_within_the_depth_are_not_touched() -> None:
    text = "> " * MAX_QUOTE_DEPTH + "x\n" + ">" * MAX_QUOTE_DEPTH + "y\n> > a > b > c\n"
    assert flatten_deep_quotes(text) == (text, "")


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_every_deep_line_is_cut_whatever_ends_it(end: str) -> None:
    deep = "   " + "> " * 30 + "a" + end + ">" * 40 + "b" + end + "c" + end
    flat, warning = flatten_deep_quotes(deep)
    kept = "> " * MAX_QUOTE_DEPTH
    assert flat == "   " + kept + "a" + end + ">" * MAX_QUOTE_DEPTH + "b" + end + "c" + end
    assert warning.startswith(f"2 lines quoted deeper than the {MAX_QUOTE_DEPTH} levels")
    assert "(the deepest: 40 levels, line 2)" in warning


def _every_chunking(doc_text: bytes) -> None:
    doc = load_document(doc_text, name="deep.md")
    for splitter in SPLITTERS:
        for unit in ("chars", "tokens", "model-tokens"):
            settings = ChunkSettings(splitter=splitter, unit=unit, size=24, overlap=4)
            for c in split(doc, settings, embed=fake_embed):
                assert doc.text[c.start : c.end] == c.text, (splitter, unit)
    ws = Workspace()
    for splitter in LIBRARY_SPLITTERS:
        try:
            chunks = ws.chunks(doc, ChunkSettings(splitter=splitter, size=64, overlap=0))
        except LibraryError:
            continue  # not installed here
        for c in chunks:
            assert doc.text[c.start : c.end] == c.text, splitter


def test_offsets_are_exact_in_the_shortened_text_for_every_splitter() -> None:
    quoted = "".join(
        "> " * (10 + 7 * i) + f"Sentence {i} of the quote. More words.\n" for i in range(30)
    )
    _every_chunking(("# Deep\n\n" + quoted + "\nAfter.\n").encode())


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["> " * 25, ">" * 21, " > > ", "\n", "\r\n", "\r", "- "]),
            st.sampled_from(PIECES),
            st.text(max_size=5),
        ),
        max_size=30,
    ).map("".join)
)
def test_shortened_quotes_keep_the_words_and_the_lines(text: str) -> None:
    flat, warning = flatten_deep_quotes(text)
    assert flat.replace(">", "").split() == text.replace(">", "").split()
    assert flat.count("\n") == text.count("\n") and flat.count("\r") == text.count("\r")
    assert bool(warning) == (flat != text)
    assert flatten_deep_quotes(flat) == (flat, "")


# --------------------------------------------------------------------------- measures


@pytest.mark.parametrize("path", corpus_files(".md", ".pdf"), ids=lambda p: p.name)
def test_chunks_counted_in_one_batch_count_as_one_by_one(path) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(path)
    texts = [c.text for c in split(doc, ChunkSettings(size=200, overlap=20))]
    for unit in ("model-tokens", "tokens", "words"):
        measure = get_measure(unit)
        assert count_each(measure, texts) == [measure.count(t) for t in texts], unit


def _whole(text: str) -> tuple[list[int], list[int]]:
    enc = model_tokenizer("").encode(text, add_special_tokens=False)
    units = _from_spans(enc.offsets, len(text))
    return list(units.bounds), list(units._cum)


@pytest.mark.parametrize("path", corpus_files(".md", ".pdf"), ids=lambda p: p.name)
def test_word_pieces_counted_in_pieces_are_those_of_the_whole(path) -> None:  # type: ignore[no-untyped-def]
    text = load_cached(path).text
    units = get_measure("model-tokens").units(text)
    assert (list(units.bounds), list(units._cum)) == _whole(text)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [*PIECES, " ", "\t", "\r\n", "é", "e\u0301", " \u0301", "中文", "\x00"]
            ),
            st.text(max_size=4),
        ),
        max_size=40,
    ).map("".join),
    st.integers(1, 12),
)
def test_word_pieces_of_any_text_cut_anywhere_are_those_of_the_whole(text: str, piece: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(measures, "MODEL_PIECE_CHARS", piece)  # cut at nearly every space
        units = get_measure("model-tokens").units(text)
    assert (list(units.bounds), list(units._cum)) == _whole(text)


def test_a_diagnosis_counts_the_word_pieces_it_did_one_by_one() -> None:
    doc = load_cached(corpus_files(".md")[0])
    chunks = split(doc, ChunkSettings(size=300, overlap=30))
    model = get_measure("model-tokens")
    diagnosis = diagnose(doc, chunks, heading_prefix=True, model_measure=model)
    want = tuple(model.count(embedded_text(c, heading_prefix=True)) + 2 for c in chunks)
    assert diagnosis.model_tokens == want


# --------------------------------------------------------------------------- reuse


def test_a_new_size_does_not_tokenise_the_document_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = measures.Tokens.units

    def counted(self: measures.Tokens, text: str) -> measures.Units:
        calls.append(len(text))
        return real(self, text)

    monkeypatch.setattr(measures.Tokens, "units", counted)
    ws = Workspace()
    doc = load_cached(corpus_files(".md")[0])
    for size in (128, 200, 256, 300):
        ws.chunks(doc, Config().replace(size=size, overlap=16))
    ws.passages(doc)  # what dense scores come from: the same tokens again
    ws.units(doc)  # what budgets count
    assert calls == [len(doc.text)]
    ws.chunks(doc, Config().replace(unit="chars", size=500, overlap=0))
    assert calls == [len(doc.text)]


# --------------------------------------------------------------------------- progress


def test_a_long_markdown_load_reports_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "PARSE_WINDOW_LINES", 50)
    seen: list[tuple[float, str]] = []
    text = "".join(f"Paragraph {i}.\n\n" for i in range(300))
    load_document(text.encode(), name="long.md", progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert len(seen) >= 10 and fractions == sorted(fractions) and 0 <= fractions[0] < 1
    assert seen[1][1].startswith("reading the structure: line ")


def test_a_pdf_load_reports_each_page() -> None:
    import pymupdf

    pdf = pymupdf.open()
    for n in range(4):
        pdf.new_page().insert_text((72, 72), f"Page {n + 1} text.")
    seen: list[str] = []
    load_document(pdf.tobytes(), name="p.pdf", progress=lambda f, m: seen.append(m))
    assert seen == [f"reading page {n} of 4" for n in range(1, 5)]


# --------------------------------------------------------------------------- cancel


def _bar_script() -> None:
    import streamlit as st

    from ui import widgets

    widgets.cancelled_note("job_cancelled")
    if st.button("Run", key="run"):
        progress, _bar = widgets.progress_bar("Counting [the] *words*", cancel="job_cancelled")
        progress(0.5, "half way")  # the bar stays, so the test sees it


def test_a_progress_bar_has_a_cancel_button_whose_click_is_said_once() -> None:
    at = AppTest.from_function(_bar_script, default_timeout=60).run()
    assert [b.key for b in at.button] == ["run"]
    at.button(key="run").click().run()
    assert not at.exception
    assert at.button(key="job_cancelled_button").label == "Cancel"
    at.button(key="job_cancelled_button").click().run()
    assert not at.exception
    [note] = [i.value for i in at.info]
    assert note.startswith("Cancelled: Counting \\[the\\] \\*words\\*")  # quoted, not Markdown
    at.run()
    assert not at.info  # said once


def fresh_upload(at: AppTest, question: str) -> AppTest:
    """``at`` on an uploaded document no earlier test can have embedded (its text is new), with
    the hybrid retriever and ``question``: its passages still to embed, whatever ran before."""
    text = (
        f"# Notes {uuid.uuid4().hex}\n\nRefunds are given within seven days of purchase.\n\n"
        "The refund does not apply to downloaded materials.\n"
    )
    at.file_uploader(key="upload").set_value(("fresh.md", text.encode(), "text/markdown")).run()
    assert not at.exception, [e.value for e in at.exception]
    at.session_state["retriever"] = "hybrid"
    next(t for t in at.text_input if t.label == "Question").set_value(question)
    return at


def test_a_cancelled_embedding_waits_until_asked_again() -> None:
    at = fresh_upload(open_app(timeout=120), "When are refunds given?")
    at.session_state[f"{widgets.EMBEDDING}_cancelled"] = "x"  # what the Cancel button sets
    at.run()
    [held] = [i.value for i in at.info if i.value.startswith("Cancelled: Embedding")]
    assert held.endswith(" passages with all-MiniLM-L6-v2. The BM25 answer above stands.")
    assert any(c.value.startswith("**BM25 answer**") for c in at.caption)
    assert at.button(key="embedding_again").label == "Embed now"
    at.slider(key="k").set_value(3).run()  # another run of the same request: still held
    assert any(i.value.startswith("Cancelled: Embedding") for i in at.info)
    at.button(key="embedding_again").click().run()  # asked again: it embeds and answers
    assert not at.exception, [e.value for e in at.exception]
    assert not any(i.value.startswith("Cancelled: Embedding") for i in at.info)
    assert not any(c.value.startswith("**BM25 answer**") for c in at.caption)


def test_a_cancelled_embedding_stays_held_when_another_question_is_asked() -> None:
    """Issue 37: asking a question restarted a cancelled embedding; the hold is the documents'
    and the settings', whatever the question, and nothing is put on the queue."""
    from explorer.background import shared_queue

    at = fresh_upload(open_app(timeout=120), "When are refunds given?")
    at.session_state[f"{widgets.EMBEDDING}_cancelled"] = "x"  # what the Cancel button sets
    at.run()
    runs = shared_queue().runs
    question = next(t for t in at.text_input if t.label == "Question")
    question.set_value("What does the refund not apply to?").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(i.value.startswith("Cancelled: Embedding") for i in at.info)
    assert any(c.value.startswith("**BM25 answer**") for c in at.caption)
    assert shared_queue().runs == runs


def test_a_cancelled_upload_leaves_the_document_and_says_so() -> None:
    at = open_app(reading_cancelled="Reading big.md")
    assert "Cancelled: Reading big.md. Nothing of it was kept." in [i.value for i in at.info]


def test_a_cancelled_semantic_chunking_waits_until_asked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The process's workspace may hold this semantic chunking from an earlier test (it is shared
    # by every session, as in the app): the hold is about a chunking not made yet.
    real = Workspace.cached_chunks

    def not_made(self: Workspace, doc: object, config: Config) -> object:
        return None if config.chunking.splitter == "semantic" else real(self, doc, config)  # type: ignore[arg-type]

    monkeypatch.setattr(Workspace, "cached_chunks", not_made)
    at = open_app(splitter="semantic", semantic_cancelled="x")  # held before the model loads
    [held] = [i.value for i in at.info if i.value.startswith("Cancelled: Chunking")]
    assert held.endswith("by meaning. Pick another splitter, or chunk it now.")
    assert at.button(key="semantic_again").label == "Chunk now"
    assert not at.metric  # the page stops there: no chunks yet
    at.selectbox(key="splitter").set_value("structure").run()
    assert not at.exception and at.metric


def test_an_upload_whose_reading_a_click_cut_short_is_read_on_the_next_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 29's dropped uploads: a click while a file is read ends that run where it stands;
    the file is read on the next run, not left out with the old document on screen."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    at = open_app()
    real = Workspace.load
    calls: list[str] = []

    def cut_short_once(self: Workspace, data: bytes, **kwargs: object) -> object:
        calls.append(str(kwargs["name"]))
        if len(calls) == 1:
            raise StopException()  # what Streamlit raises at the bar's step when asked to stop
        return real(self, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Workspace, "load", cut_short_once)
    text = f"# Cut short {uuid.uuid4().hex}\n\nA paragraph of the new document.\n".encode()
    at.file_uploader(key="upload").set_value(("cut.md", text, "text/markdown")).run()
    assert calls == ["cut.md"] and at.session_state["source"] != "cut.md"  # stopped mid-read
    at.run()  # the next run, as the click's rerun would be
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["source"] == "cut.md"  # read again (and then opened) this time
    assert not at.error


def test_a_cancelled_upload_is_not_read_again() -> None:
    at = open_app()
    at.session_state["reading"] = ("never.md", b"# Never\n\nNot read.\n")
    at.session_state["reading_cancelled"] = "Reading never.md"  # the Cancel button's click
    at.run()
    assert "Cancelled: Reading never.md. Nothing of it was kept." in [i.value for i in at.info]
    assert "reading" not in at.session_state and at.session_state["source"] != "never.md"
    at.run()
    assert at.session_state["source"] != "never.md"
