"""The PDF loader: reading order, glyph mapping, normalisation, structure and bad input.

Real documents come from the shared corpus (see ``shared/corpus/SOURCES.md``); small and bad
PDFs are built here with PyMuPDF, so no binary file is committed.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.documents.load import load_document
from explorer.documents.model import Document
from explorer.documents.pdf import load_pdf
from explorer.errors import DocumentError

# CI clones the repository next to shared/, as this checkout is.
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
IRS = "irs-notice-1036-2011-withholding.pdf"
FAA = "federal-register-2020-17221-faa-737max-nprm.pdf"
NIST = "nist-sp-800-223-hpc-security.pdf"
CMS = "cms-1490s-medicare-patient-request.pdf"
CORPUS_PDFS = sorted(p.name for p in CORPUS.glob("*.pdf"))

_cache: dict[str, Document] = {}


def corpus_doc(name: str) -> Document:
    if name not in _cache:
        _cache[name] = load_pdf((CORPUS / name).read_bytes(), name=name)
    return _cache[name]


def flat(text: str) -> str:
    """White space collapsed to single spaces: how a reader compares sentences."""
    return " ".join(text.split())


# --------------------------------------------------------------------------- helpers


def pdf_bytes(build: Callable[[pymupdf.Document], None], **save: object) -> bytes:
    doc = pymupdf.open()
    build(doc)
    return doc.tobytes(**save)


def text_pages(*pages: list[str], fontsize: float = 11) -> bytes:
    """One page per argument; each string is one line of text, top to bottom."""

    def build(doc: pymupdf.Document) -> None:
        for lines in pages:
            page = doc.new_page()
            for i, line in enumerate(lines):
                page.insert_text((72, 100 + i * fontsize * 1.25), line, fontsize=fontsize)

    return pdf_bytes(build)


def pdf_without_pages() -> bytes:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to save one)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = b"%PDF-1.7\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n"
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return out


def check_invariants(doc: Document) -> None:
    """What every loaded PDF must satisfy, whatever its content."""
    text, layout = doc.text, doc.layout
    assert layout is not None
    n = len(text)
    assert len(layout.x0) == len(layout.x1) == n
    assert "\f" not in text
    assert text == text.strip()
    starts = [line.start for line in layout.lines]
    assert starts == sorted(starts)
    previous_end = 0
    for line in layout.lines:
        assert previous_end <= line.start < line.end <= n
        assert line.y0 <= line.y1
        assert 1 <= line.page <= len(doc.pages)
        page = doc.pages[line.page - 1]
        assert page.start <= line.start and line.end <= page.end
        previous_end = line.end
    covered = bytearray(n)
    for line in layout.lines:
        covered[line.start : line.end] = b"\x01" * (line.end - line.start)
    for i in range(n):
        mapped = not math.isnan(layout.x0[i])
        assert mapped == (not math.isnan(layout.x1[i]))
        if mapped:
            assert covered[i], f"glyph character {text[i]!r} at {i} is in no line"
            assert layout.x0[i] <= layout.x1[i] + 0.01
        elif not covered[i]:
            assert text[i] in " \n|", f"inserted character {text[i]!r} at {i}"
    assert [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
    previous_end = 0
    for page in doc.pages:
        assert previous_end <= page.start <= page.end <= n
        assert page.width > 0 and page.height > 0
        previous_end = page.end
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= n
        assert text[block.start : block.end] == text[block.start : block.end].strip()
        previous_end = block.end
    for heading in doc.headings:
        assert heading.title == flat(text[heading.start : heading.end])
        assert 1 <= heading.level <= 6


# --------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("name", CORPUS_PDFS)
def test_corpus_pdf_loads_with_consistent_layout(name: str) -> None:
    started = time.perf_counter()
    doc = load_pdf((CORPUS / name).read_bytes(), name=name)
    elapsed = time.perf_counter() - started
    print(f"{name}: {elapsed * 1000:.0f} ms, {elapsed / len(doc.pages) * 1000:.1f} ms/page")
    assert doc.kind == "pdf" and doc.name == name
    assert len(doc.pages) == pymupdf.open(CORPUS / name).page_count
    assert len(doc.text) > 1000
    assert any(note.startswith("reading order") for note in doc.normalisation)
    check_invariants(doc)


def test_corpus_has_the_four_pdfs_this_suite_names() -> None:
    assert {IRS, FAA, NIST, CMS} <= set(CORPUS_PDFS)


def test_load_document_dispatches_pdf_by_suffix() -> None:
    data = text_pages(["Hello from a PDF."])
    doc = load_document(data, name="hello.PDF")
    assert doc.kind == "pdf" and doc.text == "Hello from a PDF."


# --------------------------------------------------------------------------- reading order


def test_irs_two_columns_read_column_by_column() -> None:
    doc = corpus_doc(IRS)
    text = flat(doc.text)
    # left column: a sentence wrapped over three lines
    assert (
        "Employers should implement the 2011 withholding tables as soon as possible, "
        "but not later than January 31, 2011." in text
    )
    # right column: a sentence wrapped over three lines
    assert (
        "The wage amounts shown in the Percentage Method Tables for Income Tax Withholding "
        "are net wages after the deduction for total withholding allowances." in text
    )
    # the whole left column comes before the right one
    order = [
        "Early Release Copies of the 2011",
        "What’s New",
        "a portion of the credit throughout the year.",
        "Attached are early release copies",
        "Withholding Adjustment for Nonresident Aliens",
    ]
    positions = [text.index(phrase) for phrase in order]
    assert positions == sorted(positions)


def test_irs_withholding_table_reads_row_by_row() -> None:
    doc = corpus_doc(IRS)
    assert "Weekly | $ 71.15\nBiweekly | 142.31" in doc.text
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 2
    first = tables[0]
    assert first.rows[0].header and not any(r.header for r in first.rows[1:])
    rows = [doc.text[r.start : r.end] for r in first.rows]
    # one row per visual row group, read line by line as the eye runs across it: the header
    # cell's upper line and the indented note under the last period belong to their rows
    assert rows[:3] == [
        "One Withholding Payroll Period | Allowance",
        "Weekly | $ 71.15",
        "Biweekly | 142.31",
    ]
    assert rows[-2:] == [
        "Annually | 3,700.00",
        "Daily or Miscellaneous | 14.23 (each day of the payroll period)",
    ]
    assert len(rows) == 9


def test_faa_three_columns_keep_paragraphs_whole() -> None:
    doc = corpus_doc(FAA)
    text = flat(doc.text)
    # within the second column of page 1
    assert (
        "The FAA invites you to participate in this rulemaking by submitting written comments, "
        "data, or views about this proposal." in text
    )
    # a sentence that runs from the foot of column 2 to the top of column 3
    assert (
        "The most helpful comments reference a specific portion of the proposal, explain the "
        "reason for any recommended change, and include supporting data." in text
    )
    # the running header and printer codes are gone
    assert "Federal Register / Vol. 85, No. 152 / Thursday" not in doc.text
    assert "VerDate" not in doc.text and "jbell on" not in doc.text
    # the page-1 masthead comes before the columns, the columns in order
    positions = [
        text.index(p)
        for p in ("Proposed Rules", "DEPARTMENT OF TRANSPORTATION", "Examining the AD Docket")
    ]
    assert positions == sorted(positions)


def test_faa_footnotes_do_not_interrupt_a_sentence_across_columns() -> None:
    text = flat(corpus_doc(FAA).text)
    assert (
        "These effects include stall warning activation, airspeed disagree alert, and "
        "altitude disagree alert,5 and may affect" in text
    )
    assert "1 Preliminary KNKT.18.10.35.04 Aircraft Accident Investigation Report" in text


def test_faa_line_end_hyphens_and_dashes() -> None:
    doc = corpus_doc(FAA)
    text = flat(doc.text)
    assert "operator’s existing FAA-approved minimum equipment list" in text
    assert "Model 737–8 and 737–9 (737 MAX) airplanes" in text  # en dash at a line end
    assert "Since AD 2018–23–51 was issued" in text
    assert "https://www.regulations.gov" in text  # URL broken after '/'
    assert "non-normal" in text and "Techsupport@pilatus-aircraft.com" in text


def test_nist_running_header_stays_out_of_a_sentence_across_pages() -> None:
    doc = corpus_doc(NIST)
    text = doc.text
    first = "designed protocols, networking cards, processor nodes, and switches to"
    second = "optimize network performance."
    a = text.index(first) + len(first)
    b = text.index(second)
    assert text[a:b] == " "  # the sentence continues across the page break: one joining space
    assert doc.page_span(a - 5, a)[0] == 11 and doc.page_span(b, b + 5)[0] == 12
    assert "NIST SP 800-223" not in text[text.index("1. Introduction") :].split("References")[0]
    notes = " ".join(doc.normalisation)
    assert "removed running headers/footers" in notes and "'NIST SP 800-223'" in notes
    assert "removed page numbers" in notes


# --------------------------------------------------------------------------- glyph mapping

# (file, page, phrase): phrases that sit on one line of one page
PHRASES = [
    (IRS, 1, "Department of the Treasury"),
    (IRS, 1, "Semimonthly"),
    (IRS, 1, "mailed to certain small employers"),
    (IRS, 2, "Add Additional"),
    (FAA, 1, "Confidential Business Information (CBI)"),
    (FAA, 1, "Seal Beach, CA 90740–5600"),
    (FAA, 3, "Proposed Design Changes"),
    (NIST, 12, "2.1.2. Components of the Data Storage Zone"),
    (NIST, 12, "Parallel File System"),
    (CMS, 5, "READ BEFORE SUBMITTING A CLAIM TO MEDICARE"),
]


@pytest.mark.parametrize(("name", "page_no", "phrase"), PHRASES)
def test_rects_match_where_pymupdf_finds_the_phrase(name: str, page_no: int, phrase: str) -> None:
    doc = corpus_doc(name)
    assert doc.layout is not None
    page = doc.pages[page_no - 1]
    found = pymupdf.open(CORPUS / name)[page_no - 1].search_for(phrase)
    assert found, "PyMuPDF does not find the phrase"
    starts = [m.start() for m in re.finditer(re.escape(phrase), doc.text[page.start : page.end])]
    one_line = [
        r
        for i in starts
        if len(r := doc.layout.rects(page.start + i, page.start + i + len(phrase))) == 1
    ]
    assert one_line, "the phrase is not on one line of the page"
    for (rect,) in one_line:
        assert rect.page == page_no
        best = min(found, key=lambda r: abs(r.x0 - rect.x0) + abs(r.y0 - rect.y0))
        for ours, theirs in zip((rect.x0, rect.y0, rect.x1, rect.y1), best, strict=True):
            assert abs(ours - theirs) <= 2.0


def test_rects_span_lines_in_text_order() -> None:
    doc = corpus_doc(IRS)
    assert doc.layout is not None
    phrase = "Employers should implement the 2011 withholding tables"
    start = flat(doc.text).index(phrase)
    start = doc.text.index("Employers should implement the 2011")
    rects = doc.layout.rects(start, start + len(phrase))
    assert len(rects) == 2 and rects[0].y1 <= rects[1].y0 + 1
    assert all(r.page == 1 and r.x1 < 306 for r in rects)  # both in the left column


def test_rotated_page_rects_land_on_the_rendered_glyphs() -> None:
    def build(doc: pymupdf.Document) -> None:
        # a landscape page as scanners and word processors make them: /Rotate 90 with the
        # text drawn turned by 90 degrees, so that it reads upright on screen
        page = doc.new_page(width=400, height=600)
        page.insert_text((80, 540), "Upright landscape text", fontsize=14, rotate=90)
        page.insert_text((110, 540), "second line here", fontsize=14, rotate=90)
        page.set_rotation(90)

    data = pdf_bytes(build)
    doc = load_pdf(data, name="rotated.pdf")
    check_invariants(doc)
    assert doc.pages[0].width == 600 and doc.pages[0].height == 400
    assert doc.layout is not None
    page = pymupdf.open(stream=data)[0]
    start = doc.text.index("landscape")
    (rect,) = doc.layout.rects(start, start + len("landscape"))
    expected = page.search_for("landscape")[0] * page.rotation_matrix
    for ours, theirs in zip((rect.x0, rect.y0, rect.x1, rect.y1), expected, strict=True):
        assert abs(ours - theirs) <= 2.0
    pix = page.get_pixmap(dpi=72)  # 1 pixel = 1 point, rotated like the rect
    ink = [
        (x, y)
        for y in range(int(rect.y0), int(rect.y1) + 1)
        for x in range(int(rect.x0), int(rect.x1) + 1)
        if 0 <= x < pix.width and 0 <= y < pix.height and pix.pixel(x, y)[0] < 128
    ]
    assert len(ink) > 20  # the glyphs are inside the rectangle on the rendered image
    assert doc.text == "Upright landscape text second line here"


# --------------------------------------------------------------------------- normalisation


def test_hyphenated_word_is_joined_across_lines() -> None:
    data = text_pages(
        [
            "The operator must demonstrate full compli-",
            "ance with the approved FAA-",
            "approved manual before flight.",
        ]
    )
    doc = load_pdf(data, name="hyphen.pdf")
    check_invariants(doc)
    assert doc.text == (
        "The operator must demonstrate full compliance with the approved FAA-approved manual "
        "before flight."
    )
    notes = " ".join(doc.normalisation)
    assert "joined 1 words hyphenated at line ends" in notes
    assert "joined 1 lines ending in a hyphen or dash without a space" in notes
    assert doc.layout is not None
    i = doc.text.index("compliance")
    assert not any(math.isnan(x) for x in doc.layout.x0[i : i + len("compliance")])
    assert len(doc.layout.rects(i, i + len("compliance"))) == 2  # one word, two lines


def test_line_end_hyphen_of_a_compound_is_kept() -> None:
    """The document is its own dictionary; a few prefixes always keep their hyphen."""
    data = text_pages(
        [
            "Each site runs the checks on the tool it owns, and the gate",
            "checks run on every build. Tools are self-",
            "managed, and the tool-",
            "checks happen at the gate-",
            "checks stage, so the gate checks are compli-",
            "ant.",
        ]
    )
    doc = load_pdf(data, name="compound.pdf")
    assert doc.text.endswith(
        "Tools are self-managed, and the tool-checks happen at the gate-checks stage, "
        "so the gate checks are compliant."
    )
    nist = flat(corpus_doc(NIST).text)
    assert "self-managed" in nist and "selfmanaged" not in nist
    assert "https://www.ibm.com/products/storage-scale." in nist  # a URL broken at a hyphen


def test_a_document_that_never_breaks_words_keeps_every_line_end_hyphen() -> None:
    """Word processors do not hyphenate: where every line-end hyphen the document's words can
    judge is a compound, an unknown one (``hand-off``) keeps its hyphen too."""
    data = text_pages(
        [
            "The self-",
            "managed nodes, the non-",
            "user data, the post-",
            "execution checks and the well-",
            "known risks of cross-",
            "site access lead to the hand-",
            "off of the image at boot.",
        ]
    )
    doc = load_pdf(data, name="no-hyphenation.pdf")
    assert "hand-off" in doc.text and "handoff" not in doc.text
    assert not any("words hyphenated at line ends" in n for n in doc.normalisation)
    nist = flat(corpus_doc(NIST).text)  # the two compounds NIST breaks at line ends
    assert "performance-enhancing libraries" in nist and "point of hand-off to" in nist


def test_running_headers_footers_and_page_numbers_are_removed() -> None:
    def build(doc: pymupdf.Document) -> None:
        for n in range(1, 6):
            page = doc.new_page()
            page.insert_text((72, 40), f"ACME Quarterly Report {2020 + n}", fontsize=9)
            page.insert_text((300, page.rect.height - 25), str(n), fontsize=9)
            body = f"Body text of page {n} continues the argument."
            page.insert_text((72, 300), body, fontsize=11)

    doc = load_pdf(pdf_bytes(build), name="headers.pdf")
    check_invariants(doc)
    assert "ACME" not in doc.text
    assert doc.text.count("Body text of page") == 5
    assert not re.search(r"(?m)^\d$", doc.text)
    notes = " ".join(doc.normalisation)
    assert "removed running headers/footers: 5 lines on 5 pages ('ACME Quarterly" in notes
    assert "removed page numbers: 5 lines on 5 pages" in notes


def test_white_space_inside_lines_is_collapsed_and_counted() -> None:
    data = text_pages(["  Several    spaces\u00a0and no-break   spaces  "])
    doc = load_pdf(data, name="spaces.pdf")
    check_invariants(doc)
    assert doc.text == "Several spaces and no-break spaces"
    assert any("normalised white space" in note for note in doc.normalisation)


def test_invisible_text_is_dropped_but_an_ocr_layer_is_kept() -> None:
    def hidden(doc: pymupdf.Document) -> None:
        page = doc.new_page()
        page.insert_text((72, 72), "Visible words", fontsize=11)
        page.insert_text((72, 200), "hidden words", fontsize=11, render_mode=3)

    doc = load_pdf(pdf_bytes(hidden), name="hidden.pdf")
    assert doc.text == "Visible words"
    assert any("dropped 11 invisible characters" in n for n in doc.normalisation)

    def ocr(doc: pymupdf.Document) -> None:
        page = doc.new_page()
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
        pix.clear_with(200)
        page.insert_image(page.rect, pixmap=pix)
        page.insert_text((72, 72), "Scanned words recognised", fontsize=11, render_mode=3)

    doc = load_pdf(pdf_bytes(ocr), name="ocr.pdf")
    assert doc.text == "Scanned words recognised"
    assert any("invisible text layer (OCR)" in n for n in doc.normalisation)


# --------------------------------------------------------------------------- structure


def test_nist_numbered_headings_nest_by_their_numbers() -> None:
    doc = corpus_doc(NIST)
    by_title = {h.title: h for h in doc.headings}
    storage = by_title["2.1.2. Components of the Data Storage Zone"]
    assert storage.level == 3
    assert storage.path == (
        "2. HPC System Reference Architecture and Main Components",
        "2.1. Main Components",
        "2.1.2. Components of the Data Storage Zone",
    )
    assert by_title["3. HPC Threat Analysis"].path == ("3. HPC Threat Analysis",)
    assert by_title["A.1. Diskless Booting HPC"].path == (
        "Appendix A. HPC Architecture Variants",
        "A.1. Diskless Booting HPC",
    )
    inside = doc.text.index("Several different classes of storage systems")
    assert doc.heading_path_at(inside) == storage.path
    heading_blocks = [b for b in doc.blocks if b.kind == "heading"]
    assert len(heading_blocks) == len(doc.headings)


def test_faa_headings_bullets_and_cost_table() -> None:
    doc = corpus_doc(FAA)
    titles = [h.title for h in doc.headings]
    assert "Examining the AD Docket" in titles and "Costs of Compliance" in titles
    items = [doc.text[b.start : b.end] for b in doc.blocks if b.kind == "list_item"]
    assert any(item.startswith("• Fax: 202–493–2251.") for item in items)
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 2
    header = doc.text[tables[0].rows[0].start : tables[0].rows[0].end]
    assert header.startswith("Action | Labor cost | Parts cost")
    assert tables[0].rows[0].header


def test_cms_address_tables_keep_state_and_address_together() -> None:
    doc = corpus_doc(CMS)
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) >= 12
    rows = [doc.text[r.start : r.end] for t in tables for r in t.rows]
    assert any(re.match(r"Alabama\b.* \| .*\d{5}", row) for row in rows)
    assert "DO NOT SEND THIS PAGE WITH YOUR CLAIM" not in doc.text  # the diagonal watermark


# --------------------------------------------------------------------------- bad input


def test_bytes_that_are_not_a_pdf() -> None:
    with pytest.raises(DocumentError, match=r"notes\.pdf is not a PDF \(it does not start"):
        load_pdf(b"Just some notes, saved with the wrong suffix.", name="notes.pdf")
    with pytest.raises(DocumentError, match="not a PDF"):
        load_pdf(b"", name="empty.pdf")


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.7, 0.9, 0.98])
def test_truncated_pdf(fraction: float) -> None:
    data = (CORPUS / IRS).read_bytes()
    with pytest.raises(DocumentError, match=r"truncated|damaged") as info:
        load_pdf(data[: int(len(data) * fraction)], name="cut.pdf")
    assert str(info.value).startswith("cut.pdf ")
    assert "again" in str(info.value)


def test_truncated_generated_pdf() -> None:
    data = text_pages(["First page text."], ["Second page text."], ["Third page text."])
    for cut in range(20, len(data) - 10, max(1, len(data) // 25)):
        with pytest.raises(DocumentError, match=r"truncated|damaged"):
            load_pdf(data[:cut], name="cut.pdf")


def test_corrupt_pdf() -> None:
    junk = b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n"
    with pytest.raises(DocumentError, match=r"damaged"):
        load_pdf(junk, name="junk.pdf")


def test_encrypted_pdf_needs_a_password() -> None:
    data = text_pages(["Secret text."])
    locked = pymupdf.open(stream=data).tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner"
    )
    with pytest.raises(DocumentError, match="is encrypted; open it without a password") as info:
        load_pdf(locked, name="locked.pdf")
    assert "remove the password" in str(info.value)


def test_owner_password_only_loads() -> None:
    data = text_pages(["Readable but restricted."])
    restricted = pymupdf.open(stream=data).tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", permissions=0
    )
    assert load_pdf(restricted, name="restricted.pdf").text == "Readable but restricted."


def test_scanned_pdf_without_text_layer() -> None:
    def build(doc: pymupdf.Document) -> None:
        page = doc.new_page()
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
        pix.clear_with(128)
        page.insert_image(pymupdf.Rect(72, 72, 360, 500), pixmap=pix)

    with pytest.raises(DocumentError, match="has no text layer — it may be scanned; OCR is not"):
        load_pdf(pdf_bytes(build), name="scan.pdf")


def test_pdf_with_blank_pages_only() -> None:
    def build(doc: pymupdf.Document) -> None:
        doc.new_page()
        doc.new_page()

    with pytest.raises(DocumentError, match="no text layer"):
        load_pdf(pdf_bytes(build), name="blank.pdf")


def test_pdf_with_zero_pages() -> None:
    data = pdf_without_pages()
    assert pymupdf.open(stream=data).page_count == 0
    with pytest.raises(DocumentError, match=r"empty\.pdf has no pages"):
        load_pdf(data, name="empty.pdf")


# --------------------------------------------------------------------------- properties

WORDS = st.lists(  # words short enough that insert_textbox never has to break one
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        min_size=1,
        max_size=12,
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(left=WORDS, right=WORDS)
def test_two_text_columns_come_out_column_by_column(left: list[str], right: list[str]) -> None:
    def build(doc: pymupdf.Document) -> None:
        page = doc.new_page()
        for words, x in ((left, 72), (right, 320)):
            rest = page.insert_textbox(
                pymupdf.Rect(x, 72, x + 220, 760), " ".join(words), fontsize=10
            )
            assert rest >= 0

    doc = load_pdf(pdf_bytes(build), name="columns.pdf")
    check_invariants(doc)
    assert doc.text.split() == left + right


def test_hundred_page_pdf_loads_fast_enough_to_use() -> None:
    """A generated 120-page two-column report with running headers (prints its timing)."""
    paragraph = (
        "Chunking splits a long document into passages that a retriever can rank; the size "
        "of each passage decides what context a model sees when it answers a question. "
    )

    def build(doc: pymupdf.Document) -> None:
        for n in range(1, 121):
            page = doc.new_page()
            page.insert_text((72, 40), "Synthetic Benchmark Report", fontsize=9)
            page.insert_text((300, page.rect.height - 25), str(n), fontsize=9)
            page.insert_text((72, 80), f"Section {n}", fontsize=16)
            for x in (72, 320):
                page.insert_textbox(pymupdf.Rect(x, 100, x + 220, 740), paragraph * 9, fontsize=9)

    data = pdf_bytes(build)
    started = time.perf_counter()
    doc = load_pdf(data, name="report.pdf")
    elapsed = time.perf_counter() - started
    print(f"120-page generated PDF: {elapsed:.2f} s, {elapsed / 120 * 1000:.1f} ms/page")
    check_invariants(doc)
    assert len(doc.pages) == 120
    assert "Synthetic Benchmark Report" not in doc.text
    assert [h.title for h in doc.headings][:2] == ["Section 1", "Section 2"]
    assert elapsed < 60  # generous: a hang or quadratic blow-up, not a benchmark


def test_a_sentence_broken_by_a_page_break_stays_one_paragraph() -> None:
    import pymupdf

    from explorer.chunking.records import ChunkSettings
    from explorer.chunking.splitters import split
    from explorer.documents.load import load_document

    pdf = pymupdf.open()
    first = pdf.new_page()
    first.insert_text((72, 700), "Items marked n/a do not expire, but they")
    second = pdf.new_page()
    second.insert_text((72, 72), "should still be inspected for cracks.")
    doc = load_document(pdf.tobytes(), name="break.pdf")
    sentence = "but they should still be inspected for cracks."
    assert sentence in doc.text
    para = next(b for b in doc.blocks if b.start <= doc.text.index(sentence) < b.end)
    assert doc.text[para.start : para.end] == "Items marked n/a do not expire, " + sentence
    assert any("across a page break" in n for n in doc.normalisation)
    [chunk] = [
        c
        for c in split(doc, ChunkSettings(splitter="structure", unit="words", size=30, overlap=0))
        if sentence in c.text
    ]
    assert (chunk.page_start, chunk.page_end) == (1, 2)
    rects = doc.layout.rects(doc.text.index(sentence), doc.text.index(sentence) + len(sentence))
    assert {r.page for r in rects} == {1, 2}


def test_a_word_broken_by_a_page_break_is_joined_as_at_a_line_end() -> None:
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 700), "The airplane took off from Soekarno-")
    pdf.new_page().insert_text((72, 72), "Hatta airport and flew on to full compli-")
    pdf.new_page().insert_text((72, 72), "ance with the compliance rules.")
    doc = load_pdf(pdf.tobytes(), name="break.pdf")
    check_invariants(doc)
    assert doc.text == (
        "The airplane took off from Soekarno-Hatta airport and flew on to full compliance "
        "with the compliance rules."
    )
    assert doc.layout is not None
    i = doc.text.index("compliance")
    assert [r.page for r in doc.layout.rects(i, i + len("compliance"))] == [2, 3]
    assert [b.kind for b in doc.blocks] == ["paragraph"]


def test_an_accent_drawn_over_its_letter_is_composed() -> None:
    """Some PDFs draw ``ê`` as ``e`` with a separate ``ˆ`` on top (FAA: ``Ageˆncia``)."""

    font = pymupdf.Font("helv")  # embedded, so that the spacing accents have glyphs

    def build(doc: pymupdf.Document) -> None:
        page = doc.new_page()
        page.insert_font(fontname="F0", fontbuffer=font.buffer)
        x = 72.0
        accents = {"Age": "\u02c6", "ncia Nacional de Aviac": "\u00b8", "a": "\u02dc"}
        for piece in ("Age", "ncia Nacional de Aviac", "a", "o Civil, x~y and 2^8"):
            page.insert_text((x, 100), piece, fontname="F0", fontsize=11)
            x += font.text_length(piece, fontsize=11)
            if piece in accents:  # drawn over the piece's last letter
                width = font.text_length(piece[-1], fontsize=11)
                page.insert_text((x - width, 100), accents[piece], fontname="F0", fontsize=11)

    doc = load_pdf(pdf_bytes(build), name="accents.pdf")
    check_invariants(doc)
    assert doc.text == "Agência Nacional de Aviação Civil, x~y and 2^8"
    assert any("composed 3 accented letters" in n for n in doc.normalisation)
    faa = flat(corpus_doc(FAA).text)
    assert "Agência Nacional de Aviação Civil (ANAC) Brazil" in faa


def test_cms_overlapping_lines_read_whole() -> None:
    """On CMS page 5 two lines overlap (``physicia`` / ``shipboard service`` / ``n`` in
    ``page.get_text()``): each reads whole, and its rectangles stay on its own line."""
    doc = corpus_doc(CMS)
    assert doc.layout is not None
    for sentence in (
        "5. The physician is legally authorized to practice where he or she furnished the services",
        "For shipboard services please include a copy of the ship’s itinerary.",
    ):
        start = doc.text.index(sentence)
        assert doc.page_span(start, start + len(sentence)) == (5, 5)
        (rect,) = doc.layout.rects(start, start + len(sentence))  # one line each
        assert rect.page == 5
