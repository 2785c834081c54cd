"""The Streamlit app through ``AppTest``: every control changes what is shown; bad uploads don't
break it.

Uploads go through the real ``st.file_uploader`` widget: this Streamlit's ``AppTest`` can set a
file on it (``at.file_uploader(key="upload").set_value(...)``), and the app's ``on_change``
callback runs exactly as it does for a browser upload. What AppTest cannot do is click a row of
``st.dataframe`` (its selection callback only fires for a browser event); that path is covered by
``chunk_from_table`` here and by a click in ``tests/test_browser.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from explorer.chunking.diagnostics import ISSUES, diagnose
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.config import Config
from explorer.documents.load import load_document, load_path
from explorer.errors import DocumentError
from explorer.retrieval.scoring import passages
from explorer.workspace import Workspace
from tests.conftest import REPO, SAMPLES
from ui import charts
from ui.chunk_view import (
    PASSAGE_SEPARATOR,
    chunk_from_table,
    neighbour_overlap,
    overlap_text,
    valid_chunk,
)
from ui.safe import facts_html, md_escape, md_text
from ui.settings import APP_SPLITTERS, SIZE_RANGES, clamp_overlap, config_of
from ui.sources import remember
from ui.view_state import query_keys

APP = str(REPO / "app.py")
FIRST = "refund-policy.md"
QUESTION, EVIDENCE = query_keys(FIRST)
CHUNK_VIEW: dict[str, object] = {
    "splitter": "recursive",
    "unit": "tokens",
    "size": 128,
    "overlap": 0,
    QUESTION: "",
}
"""The chunking tests start from recursive 128-token chunks and no question (the app itself
opens on the refund demo's question and settings: see tests/test_query_panel.py)."""


# --------------------------------------------------------------------------- helpers


def open_app(*, timeout: float = 60, **preset: object) -> AppTest:
    """The app after its first run, with ``preset`` session state (widget keys) set before it."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in preset.items():
        at.session_state[key] = value
    at.run()
    assert_ok(at)
    return at


def errors(at: AppTest) -> list[str]:
    """Error messages other than an "incomplete" verdict (which is shown as an error)."""
    return [e.value for e in at.error if not e.value.startswith("Incomplete: ")]


def assert_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not errors(at), errors(at)


def chunk_table(at: AppTest):  # type: ignore[no-untyped-def]
    """The table of all chunks (the query panel has tables of its own)."""
    found = [d.value for d in at.dataframe if "heading path" in d.value.columns]
    assert len(found) == 1, "expected one chunk table"
    return found[0]


def metric(at: AppTest, label: str) -> str:
    values = [m.value for m in at.metric if m.label == label or m.label.startswith(label)]
    assert values, f"no metric {label!r}; have {[m.label for m in at.metric]}"
    return str(values[0])


def n_chunks(at: AppTest) -> int:
    return int(metric(at, "Chunks").replace(",", ""))


def doc_html(at: AppTest) -> str:
    """The rendered document without its <style> block."""
    found = [h.value for h in at.html if 'class="ce-doc' in h.value]
    assert len(found) == 1, "expected one rendered document"
    return re.sub(r"<style>.*?</style>", "", found[0], flags=re.S)


def badges(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="ce-badge[^"]*" data-index="(\d+)"', html)]


def chunk_codes(at: AppTest) -> list[str]:
    """The selected chunk's two text boxes: displayed and embedded (not the Copy link box)."""
    return [c.value for c in at.code if not c.value.startswith(("?", "http"))][:2]


def picker(at: AppTest):  # type: ignore[no-untyped-def]
    """The chunk picker (its key changes with the document and settings)."""
    return next(s for s in at.selectbox if s.label == "Selected chunk")


def expected_chunks(name: str = FIRST, **settings: object) -> list:  # type: ignore[type-arg]
    doc = load_path(SAMPLES / name)
    base: dict[str, object] = {"splitter": "recursive", "unit": "tokens", "size": 128, "overlap": 0}
    settings = ChunkSettings(**(base | settings))  # type: ignore[arg-type]
    return Workspace().chunks(doc, settings)  # the semantic splitter embeds with the bundled model


@pytest.fixture
def app() -> AppTest:
    return open_app(**CHUNK_VIEW)


# --------------------------------------------------------------------------- opening


def test_opens_on_a_sample_with_every_chunk_highlighted(app: AppTest) -> None:
    assert app.selectbox(key="source").value == FIRST
    want = expected_chunks()
    assert n_chunks(app) == len(want)
    html = doc_html(app)
    assert badges(html) == list(range(len(want)))
    assert "<h1>" in html and "ce-chunk-0" in html
    assert len(chunk_table(app)) == len(want)
    assert [b.label for b in app.download_button] == [
        "Download chunks (JSONL)",
        "Download manifest (JSON)",
    ]
    assert len(app.get("plotly_chart")) == 2


def test_the_chunk_pickers_labels_are_made_once_per_chunking(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picker's labels are made once per document and chunking, not on every run (a long
    document has tens of thousands): asking a question over the same chunks makes none, a new
    size makes its own once; the picker shows each chunk's label either way."""
    from ui import chunk_view, document_view

    made: list[int] = []
    real = chunk_view.chunk_label

    def counted(chunk: Chunk, **kw: int) -> str:
        made.append(chunk.index)
        return real(chunk, **kw)

    monkeypatch.setattr(chunk_view, "chunk_label", counted)
    document_view._labels.clear()

    def picker() -> list[str]:
        [box] = [s for s in app.selectbox if s.label == "Selected chunk"]
        return list(box.options)

    app.run()
    want = expected_chunks()
    assert sorted(made) == list(range(len(want)))
    assert picker() == [real(c) for c in want]
    made.clear()
    next(t for t in app.text_input if t.label == "Question").set_value("Can I get a refund?")
    app.run()
    assert made == [] and picker() == [real(c) for c in want]
    app.slider(key="size").set_value(96).run()
    bigger = expected_chunks(size=96)
    assert sorted(made) == list(range(len(bigger)))
    assert picker() == [real(c) for c in bigger]


def test_samples_list_has_no_sources_file(app: AppTest) -> None:
    options = app.selectbox(key="source").options
    assert "SOURCES.md" not in options
    assert {"refund-policy.md", "writing-guide.md", "field-manual.pdf"} <= set(options)


def test_issue_counts_match_the_library(app: AppTest) -> None:
    doc = load_path(SAMPLES / FIRST)
    chunks = expected_chunks()
    counts = diagnose(doc, chunks).counts()
    for issue in ISSUES:
        assert metric(app, issue.label) == str(counts[issue.code]), issue.code
    assert metric(app, "Flagged chunks") == str(sum(1 for c in diagnose(doc, chunks).issues if c))


# --------------------------------------------------------------------------- controls


def test_size_slider_rechunks_and_syncs_the_number_box(app: AppTest) -> None:
    before = n_chunks(app)
    app.slider(key="size").set_value(48).run()
    assert_ok(app)
    assert app.number_input(key="size_exact").value == 48
    assert n_chunks(app) == len(expected_chunks(size=48)) > before
    assert len(badges(doc_html(app))) == n_chunks(app)


def test_exact_size_box_moves_the_slider(app: AppTest) -> None:
    app.number_input(key="size_exact").set_value(300).run()
    assert_ok(app)
    assert app.slider(key="size").value == 300
    assert n_chunks(app) == len(expected_chunks(size=300))


def test_overlap_shows_as_overlapping_highlights(app: AppTest) -> None:
    assert "ce-overlap" not in doc_html(app)
    app.slider(key="overlap").set_value(30).run()
    assert_ok(app)
    assert app.number_input(key="overlap_exact").value == 30
    assert "ce-overlap" in doc_html(app)
    assert n_chunks(app) == len(expected_chunks(overlap=30))
    assert chunk_table(app)["overlap"].max() > 0


def test_overlap_stays_below_the_size(app: AppTest) -> None:
    app.slider(key="overlap").set_value(100).run()
    app.number_input(key="size_exact").set_value(40).run()
    assert_ok(app)
    assert app.slider(key="overlap").value == 39
    assert app.slider(key="overlap").max == 39


@pytest.mark.parametrize("splitter", list(APP_SPLITTERS))
def test_each_splitter(app: AppTest, splitter: str) -> None:
    app.selectbox(key="splitter").set_value(splitter).run()
    assert_ok(app)
    assert n_chunks(app) == len(expected_chunks(splitter=splitter))
    has_separators = any(w.key == "separators" for w in app.multiselect)
    assert has_separators == (splitter == "recursive")


def test_fixed_windows_show_mid_sentence_cuts(app: AppTest) -> None:
    assert metric(app, "Mid-sentence end") == "0"
    app.selectbox(key="splitter").set_value("fixed").run()
    assert int(metric(app, "Mid-sentence end")) > 0


@pytest.mark.parametrize(
    ("unit", "default", "low", "high"),
    [("chars", 600, 50, 4000), ("words", 100, 10, 800), ("model-tokens", 128, 16, 512)],
)
def test_unit_change_resets_the_size_range(
    app: AppTest, unit: str, default: int, low: int, high: int
) -> None:
    app.selectbox(key="unit").set_value(unit).run()
    assert_ok(app)
    slider = app.slider(key="size")
    assert (slider.value, slider.min, slider.max) == (default, low, high)
    assert any(m.label == f"Median size ({unit})" for m in app.metric)
    assert n_chunks(app) == len(expected_chunks(unit=unit, size=default))


def test_recursive_separators(app: AppTest) -> None:
    app.multiselect(key="separators").set_value(["word"]).run()
    assert_ok(app)
    assert n_chunks(app) == len(expected_chunks(separators=("word",)))
    assert int(metric(app, "Mid-sentence end")) > 0


def test_raw_source_toggle_keeps_the_highlights(app: AppTest) -> None:
    rendered = doc_html(app)
    assert "<h2>" in rendered and "## Refunds" not in rendered
    app.toggle(key="raw").set_value(True).run()
    raw = doc_html(app)
    assert "## Refunds" in raw and "<h2>" not in raw
    assert badges(raw) == badges(rendered)


def test_only_flagged_chunks(app: AppTest) -> None:
    flagged = int(metric(app, "Flagged chunks"))
    assert 0 < flagged < n_chunks(app)
    app.toggle(key="only_flagged").set_value(True).run()
    assert_ok(app)
    assert len(badges(doc_html(app))) == flagged
    assert len(chunk_table(app)) == flagged
    assert all(chunk_table(app)["issues"] != "")


def test_only_flagged_when_nothing_is_flagged(app: AppTest) -> None:
    app.selectbox(key="splitter").set_value("structure").run()
    app.number_input(key="size_exact").set_value(200).run()
    assert metric(app, "Flagged chunks") == "0"
    app.toggle(key="only_flagged").set_value(True).run()
    assert_ok(app)
    assert badges(doc_html(app)) == []
    assert any("No chunk has an issue" in i.value for i in app.info)


# --------------------------------------------------------------------------- a selected chunk


def test_selecting_a_chunk_outlines_it_and_shows_details(app: AppTest) -> None:
    assert "ce-selected" not in doc_html(app)
    picker(app).set_value(2).run()
    assert_ok(app)
    chunk = expected_chunks()[2]
    assert "ce-selected" in doc_html(app)
    assert re.search(r'class="ce-badge ce-selected" data-index="2"', doc_html(app))
    assert "Chunk #2" in [s.value for s in app.subheader]
    facts = next(h.value for h in app.html if chunk.id in h.value)
    assert f"[{chunk.start}, {chunk.end})" in facts
    assert "Refund and Returns Policy › Refunds" in facts
    # the sizes in every measure, in full (a metric would cut "1,163" to "1…")
    table = next(h.value for h in app.html if "cl100k tokens" in h.value and "<table" in h.value)
    sizes = dict(re.findall(r"<th[^>]*>([^<]+)</th><td[^>]*>([^<]+)</td>", table))
    assert sizes["characters"] == f"{len(chunk.text):,}"
    assert sizes["words"] == f"{len(chunk.text.split()):,}"
    assert {"cl100k tokens", "model tokens"} <= set(sizes)
    shown, embedded = chunk_codes(app)
    assert shown == chunk.text
    # dense scores come from the passages the chunk holds: its sentences, packed
    doc = load_path(SAMPLES / FIRST)
    held = [
        p
        for p in passages(doc)  # those with at least half their text inside the chunk
        if 2 * (min(p.end, chunk.end) - max(p.start, chunk.start)) >= p.end - p.start
    ]
    assert embedded == PASSAGE_SEPARATOR.join(p.text for p in held)
    assert len(held) >= 2
    app.radio(key="dense").set_value("chunks").run()
    assert_ok(app)
    shown, embedded = chunk_codes(app)
    assert shown == embedded == chunk.text  # each chunk embedded whole


def test_prefix_heading_path_changes_the_embedded_text(app: AppTest) -> None:
    picker(app).set_value(2).run()
    app.toggle(key="heading_prefix").set_value(True).run()
    assert_ok(app)
    shown, embedded = chunk_codes(app)
    prefix = "Refund and Returns Policy > Refunds\n\n"
    assert embedded.startswith(prefix) and embedded.count(prefix) >= 2  # on every passage
    app.radio(key="dense").set_value("chunks").run()
    shown, embedded = chunk_codes(app)
    assert embedded == prefix + shown


def test_a_contextual_header_prefixes_the_title_and_keeps_the_displayed_text(
    app: AppTest,
) -> None:
    picker(app).set_value(2).run()
    shown_before, _ = chunk_codes(app)
    radio = app.radio(key="context_header")
    assert radio.value == "off" and radio.options == ["off", "embed", "embed + BM25"]
    radio.set_value("embed+bm25").run()
    assert_ok(app)
    shown, embedded = chunk_codes(app)
    # the title (the document's H1) is not repeated before its own heading path
    header = "Refund and Returns Policy > Refunds\n\n"
    assert shown == shown_before and not shown.startswith(header)
    assert embedded.startswith(header) and embedded.count(header) >= 2  # on every passage
    assert any("title and heading path prefixed" in m.value for m in app.markdown)
    app.radio(key="dense").set_value("chunks").run()
    shown, embedded = chunk_codes(app)
    assert embedded == header + shown


def test_a_stale_chunk_label_from_the_browser_is_dropped() -> None:
    # the browser sends back the label it showed; after a document switch that label is no
    # option and the selectbox returns it as a string (seen in a real browser; AppTest cannot
    # send a stale label), so the app checks every value it reads
    assert valid_chunk("#40 · a label from another document", 45) is None
    assert valid_chunk(3, 5) == 3
    assert valid_chunk(5, 5) is None
    assert valid_chunk(True, 5) is None


def test_table_rows_map_to_chunks() -> None:
    # AppTest cannot click a dataframe row; the callback's mapping is tested here
    assert chunk_from_table([1], [3, 5, 8]) == 5
    assert chunk_from_table([], [3, 5, 8]) is None
    assert chunk_from_table([7], [3, 5, 8]) is None


# --------------------------------------------------------------------------- PDF


@pytest.fixture
def pdf_app(app: AppTest) -> AppTest:
    app.selectbox(key="source").set_value("field-manual.pdf").run()
    assert_ok(app)
    return app


def caption_chunks(at: AppTest) -> str:
    """The chunks the page turned to shows ("on this page: chunk 4" or "chunks 3–6, 9")."""
    text = next(c.value for c in at.caption if " · on this page: chunk" in c.value)
    listed = text.split(" · on this page: ")[1].split(" · ")[0]  # not the selected chunk's note
    return re.sub(r"^chunks? ", "", listed)


def test_pdf_shows_the_page_image_and_turns_pages(pdf_app: AppTest) -> None:
    at = pdf_app
    assert len(at.image) == 1
    assert at.number_input(key="page").value == 1
    first = at.image[0].value
    first_chunks = caption_chunks(at)
    at.button(key="next_page").click().run()
    assert at.number_input(key="page").value == 2
    assert at.image[0].value != first
    assert caption_chunks(at) != first_chunks
    at.button(key="prev_page").click().run()
    assert at.number_input(key="page").value == 1
    at.button(key="prev_page").click().run()  # no page 0
    assert at.number_input(key="page").value == 1


def test_a_chunk_crossing_pages_is_on_both(pdf_app: AppTest) -> None:
    at = pdf_app
    chunks = expected_chunks("field-manual.pdf")
    crossing = next(c for c in chunks if c.page_start != c.page_end)
    picker(at).set_value(crossing.index).run()
    assert_ok(at)
    assert at.number_input(key="page").value == crossing.page_start  # turned to its page
    assert str(crossing.index) in re.split(r"[,–] ?", caption_chunks(at))[-1]
    pages = f"chunk {crossing.index} is on pages {crossing.page_start}–{crossing.page_end}"
    assert any(c.value.endswith(pages) for c in at.caption)  # the picker says where it runs
    at.button(key="next_page").click().run()
    assert at.number_input(key="page").value == crossing.page_end
    assert re.split(r"[,–] ?", caption_chunks(at))[0] == str(crossing.index)
    assert any(c.value.endswith(pages) for c in at.caption)


def test_pdf_extraction_notes_are_shown(pdf_app: AppTest) -> None:
    [notes] = [e for e in pdf_app.expander if e.label == "How the text was extracted"]
    texts = [t.value for t in notes.text]
    assert any("running headers" in t for t in texts)


def test_pdf_extracted_text_view(pdf_app: AppTest) -> None:
    pdf_app.radio(key="pdf_view").set_value("Extracted text").run()
    assert_ok(pdf_app)
    assert not pdf_app.image
    assert len(badges(doc_html(pdf_app))) == n_chunks(pdf_app)


# --------------------------------------------------------------------------- uploads


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream"))
    return at.run()


def encrypted_pdf() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="owner")


def scanned_pdf() -> bytes:
    doc = pymupdf.open()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
    pix.clear_with(200)
    doc.new_page().insert_image(pymupdf.Rect(72, 72, 472, 272), pixmap=pix)
    return doc.tobytes()


def bad_uploads() -> Iterator[tuple[str, bytes]]:
    good_pdf = (SAMPLES / "field-manual.pdf").read_bytes()
    yield "empty.md", b""
    yield "truncated.pdf", good_pdf[: len(good_pdf) // 2]
    yield "not-a-pdf.pdf", b"Just some text, saved with the wrong suffix.\n"
    yield "encrypted.pdf", encrypted_pdf()
    yield "scanned.pdf", scanned_pdf()
    yield "binary.md", bytes(range(256)) * 8


@pytest.mark.parametrize(("name", "data"), list(bad_uploads()), ids=lambda v: str(v)[:20])
def test_a_bad_upload_shows_one_error_and_keeps_the_document(
    app: AppTest, name: str, data: bytes
) -> None:
    before = n_chunks(app)
    with pytest.raises(DocumentError) as expected:
        load_document(data, name=name)
    upload(app, name, data)
    assert not app.exception
    assert [e.value for e in app.error] == [md_text(str(expected.value))]
    assert app.selectbox(key="source").value == FIRST
    assert n_chunks(app) == before
    assert len(badges(doc_html(app))) == before
    # still usable: a control works, then a good upload replaces the error
    app.slider(key="size").set_value(64).run()
    assert not app.exception and n_chunks(app) != before
    upload(app, "fine.md", b"# Fine\n\nA good file. It loads.\n")
    assert_ok(app)
    assert app.selectbox(key="source").value == "fine.md"


def test_a_file_over_the_upload_limit_is_refused_with_the_limit() -> None:
    old = st_config.get_option("server.maxUploadSize")
    st_config.set_option("server.maxUploadSize", 1)
    try:
        at = open_app(**CHUNK_VIEW)
        upload(at, "huge.md", b"# Big\n\n" + b"word " * 300_000)
        assert not at.exception
        [message] = [e.value for e in at.error]
        assert "1.4 MB" in message and "limit is 1 MB" in message
        assert at.selectbox(key="source").value == FIRST
    finally:
        st_config.set_option("server.maxUploadSize", old)


def test_a_good_upload_becomes_the_document(app: AppTest) -> None:
    upload(app, "notes.txt", b"First paragraph of notes.\n\nSecond paragraph, a bit longer.\n")
    assert_ok(app)
    assert app.selectbox(key="source").value == "notes.txt"
    assert n_chunks(app) == 1
    assert "ce-plain" in doc_html(app)
    # a document of one's own opens on the recommended configuration
    assert config_of(app.session_state) == Config()
    # the samples are still there to go back to
    app.selectbox(key="source").set_value(FIRST).run()
    doc = load_path(SAMPLES / FIRST)
    assert n_chunks(app) == len(Workspace().chunks(doc, Config()))


def test_an_upload_named_like_a_sample_does_not_replace_it(app: AppTest) -> None:
    upload(app, FIRST, b"# Mine\n\nNot the sample.\n")
    assert_ok(app)
    assert app.selectbox(key="source").value == f"{FIRST} (uploaded)"
    assert "Not the sample" in doc_html(app)


HOSTILE = b"""# Hostile

<script>alert(1)</script>

<img src=x onerror=alert(1)>

<svg onload=alert(1)>

[x](javascript:alert(1)) and <a href="javascript:alert(2)">y</a>
"""


def test_html_in_markdown_is_shown_as_text(app: AppTest) -> None:
    upload(app, "hostile.md", HOSTILE)
    assert_ok(app)
    body = doc_html(app)
    assert "<script" not in body and "<img" not in body and "<svg" not in body
    assert "&lt;script&gt;" in body
    assert not re.search(r"<[a-z][^>]*\son\w+=", body, re.I)
    assert "javascript:" not in re.sub(r">[^<]*<", "><", body)  # never inside a tag


def test_a_file_name_in_an_error_is_shown_as_text_not_markdown(app: AppTest) -> None:
    name = "![x](http://203.0.113.1/x.png)<img src=x onerror=alert(1)>[a](javascript:x)_b_.md"
    upload(app, name, b"")
    [shown] = [e.value for e in app.error]
    # every character that could start an image, a link, HTML or emphasis is escaped
    # (and a bare address carries an invisible joiner, so it does not become a link)
    assert "http\u2060://" in shown
    visible = shown.replace("\u2060", "")
    assert visible.startswith(r"\!\[x\](http://203.0.113.1/x.png)\<img src=x onerror=alert(1)\>")
    assert re.search(r"(?<!\\)[\[\]<>!_]", shown) is None


def test_two_sessions_do_not_share_uploads() -> None:
    a, b = open_app(**CHUNK_VIEW), open_app(**CHUNK_VIEW)
    upload(a, "notes.md", b"# A\n\nOnly session A has ALPHA-1234 in it.\n")
    upload(b, "notes.md", b"# B\n\nOnly session B has BRAVO-5678 in it.\n")
    a.run()
    for at, mine, theirs in ((a, "ALPHA-1234", "BRAVO-5678"), (b, "BRAVO-5678", "ALPHA-1234")):
        assert_ok(at)
        assert at.selectbox(key="source").value == "notes.md"
        assert mine in doc_html(at) and theirs not in doc_html(at)
        _, _, data = at.session_state["uploads"]["notes.md"]
        assert theirs.encode() not in data
    fresh = open_app(**CHUNK_VIEW)
    assert "notes.md" not in fresh.selectbox(key="source").options
    assert not fresh.session_state["uploads"]


# --------------------------------------------------------------------------- pipeline & charts


def test_size_ranges_suit_each_unit() -> None:
    assert set(SIZE_RANGES) == {"chars", "words", "tokens", "model-tokens"}
    assert SIZE_RANGES["model-tokens"].high <= 512
    assert SIZE_RANGES["chars"].clamp(10) == 50
    assert clamp_overlap(500, 100) == 99


def test_neighbour_overlap_in_units_and_characters() -> None:
    doc = load_path(SAMPLES / FIRST)
    chunks = split(doc, ChunkSettings("fixed", "chars", 200, 50))
    near = neighbour_overlap(chunks, 1)
    assert near.previous_units == chunks[1].overlap
    assert near.previous_chars == chunks[0].end - chunks[1].start
    assert near.next_chars == chunks[1].end - chunks[2].start
    first = neighbour_overlap(chunks, 0)
    assert first.previous_units is None and first.previous_chars is None
    assert overlap_text(None, None, "chars") == "—"
    assert overlap_text(0, 0, "chars") == "none"


def test_names_and_facts_from_a_document_are_escaped() -> None:
    assert md_escape("[x](javascript:alert(1)).md") == (r"\[x\]\(javascript\:alert\(1\)\)\.md")
    html = facts_html([("heading path", "<img src=x onerror=alert(1)>")])
    assert "<img" not in html and "&lt;img" in html


def test_uploads_keep_only_the_newest() -> None:
    uploads: dict[str, object] = {}
    for i in range(7):
        remember(uploads, f"f{i}", i, keep=3)
    assert list(uploads) == ["f4", "f5", "f6"]
    remember(uploads, "f4", 44, keep=3)
    assert list(uploads) == ["f5", "f6", "f4"]


def test_a_folder_read_once_is_read_again_when_a_file_changes(tmp_path: Path) -> None:
    """The Corpus page reads a folder under a bar only when the workspace does not have it as
    it is now: a file added, removed or rewritten makes it new."""
    import os

    ws = Workspace()
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    assert ws.folder_read(tmp_path) is None
    assert ws.load_folder(tmp_path).names == ("a.md",)
    assert ws.folder_read(tmp_path) is not None
    (tmp_path / "a.md").write_text("# A, rewritten\n", encoding="utf-8")
    os.utime(tmp_path / "a.md", ns=(1, 1))
    assert ws.folder_read(tmp_path) is None
    assert "rewritten" in ws.load_folder(tmp_path).documents[0].text
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    assert ws.folder_read(tmp_path) is None
    assert ws.load_folder(tmp_path).names == ("a.md", "b.md")


def test_charts_mark_the_limit() -> None:
    hist = charts.size_histogram([10, 20, 30], limit=25, unit="tokens")
    line = hist.layout.shapes[0]
    assert (line.x0, line.x1, line.yref, line.y0, line.y1) == (25, 25, "paper", 0, 1)
    along = charts.size_along([10, 40, 30], limit=25, unit="tokens", flagged=[1])
    assert list(along.data[2].x) == [1]  # the flagged chunk in its own trace
    assert along.layout.shapes[0].y0 == 25


def test_the_same_bytes_as_markdown_and_as_text_are_two_documents(app: AppTest) -> None:
    data = b"# Title\n\nSome *emphasis* here.\n"
    upload(app, "same.md", data)
    assert_ok(app)
    assert "<h1>" in doc_html(app) and "ce-md" in doc_html(app)
    upload(app, "same.txt", data)  # same hash: the caches must not hand back the Markdown
    assert_ok(app)
    assert "ce-plain" in doc_html(app) and "<h1>" not in doc_html(app)


def test_the_main_pages_settings_survive_a_visit_to_the_evaluate_page() -> None:
    # Streamlit drops the state of widgets a run does not draw; the frame sets them again.
    # (Values preset through at.session_state are set again on every run, so widgets set them.)
    at = open_app(retriever="bm25")
    at.selectbox(key="splitter").set_value("recursive").run()
    at.slider(key="size").set_value(300).run()
    at.selectbox(key="source").set_value("writing-guide.md").run()
    at.toggle(key="only_flagged").set_value(True).run()
    at.switch_page("app_pages/evaluate.py").run()
    assert not at.exception
    at.switch_page("app_pages/explore.py").run()
    assert_ok(at)
    assert at.slider(key="size").value == 300
    assert at.selectbox(key="source").value == "writing-guide.md"
    assert at.toggle(key="only_flagged").value is True
    assert at.selectbox(key="splitter").value == "recursive"
