"""Pages of every size: a PDF of a few hundred bytes can hold a page 14,400 pt a side (the PDF
limit), or far more through a MediaBox or ``UserUnit``. Each is read, and drawn within
:data:`ui.render_pdf.PIXEL_BUDGET` with a note that says it was drawn smaller; the tints still
land on their words; a page with no area is one sentence. The app shows them without an
exception, on the main page and on the Evaluate page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf as _pymupdf
import pytest
from streamlit.testing.v1 import AppTest

from explorer.documents.load import load_document
from explorer.documents.model import Document
from explorer.errors import DocumentError
from tests.conftest import REPO
from tests.test_app import CHUNK_VIEW, open_app, upload
from ui.render import Highlight
from ui.render_pdf import MAX_SIDE, PIXEL_BUDGET, PageImage, page_zoom, render_pdf_page
from ui.safe import md_escape

pymupdf: Any = _pymupdf
WORD = "Middle"


def big_page_pdf(width: float, height: float, *, user_unit: float | None = None) -> bytes:
    """One page of ``width`` × ``height`` pt (times ``user_unit``), a line at the top and a large
    known word at the left edge halfway down (so its badge sits inside its own line box)."""
    pdf = pymupdf.open()
    page = pdf.new_page(width=width, height=height)
    size = max(12.0, min(width, height) / 20)
    page.insert_text((36, 48), "A page far larger than paper.", fontsize=12)
    page.insert_text((0.5, height / 2), f"{WORD} of the page.", fontsize=size)
    if user_unit is not None:
        pdf.xref_set_key(page.xref, "UserUnit", str(user_unit))
    data: bytes = pdf.tobytes()
    return data


def with_media_box(data: bytes, box: str) -> bytes:
    pdf = pymupdf.open(stream=data)
    pdf.xref_set_key(pdf[0].xref, "MediaBox", box)
    out: bytes = pdf.tobytes()
    return out


def word_tint(data: bytes, doc: Document) -> tuple[PageImage, tuple[int, int, int, int], Any]:
    """The page drawn with the word tinted, the box of the pixels the tint changed, and the
    word's rectangle from the document's layout."""
    start = doc.text.index(WORD)
    tint = Highlight(start, start + len(WORD), 0, "#4e79a7")
    plain = pymupdf.Pixmap(render_pdf_page(data, 1, doc, [], zoom=2.0).png)
    image = render_pdf_page(data, 1, doc, [tint], zoom=2.0)
    lit = pymupdf.Pixmap(image.png)
    assert (lit.width, lit.height) == (plain.width, plain.height)
    ys, xs = np.nonzero((pixels(lit) != pixels(plain)).any(axis=2))
    assert len(xs), "the tint changed no pixel"
    assert doc.layout is not None
    (rect,) = doc.layout.rects(start, start + len(WORD))
    return image, (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1), rect


def pixels(pix: Any) -> Any:
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)


SIDES = [6_000, 8_000, 10_000, 14_400, 50_000]


@pytest.mark.parametrize("side", SIDES)
def test_a_large_page_is_drawn_within_the_budget_and_its_tint_lands_on_the_word(side: int) -> None:
    data = big_page_pdf(side, side)
    assert len(data) < 2_000  # a tiny file
    doc = load_document(data, name="big.pdf")
    assert WORD in doc.text and "larger than paper" in doc.text
    image, box, rect = word_tint(data, doc)
    pix = pymupdf.Pixmap(image.png)
    assert pix.width * pix.height <= PIXEL_BUDGET and max(pix.width, pix.height) <= MAX_SIDE
    assert image.reduced and image.zoom < 2.0 and image.asked == 2.0
    assert pix.width == pytest.approx(side * image.zoom, abs=1)
    assert "reduced resolution" in image.note() and f"{side:,} × {side:,} pt" in image.note()
    # the word as PyMuPDF finds it, the layout's rectangle and the tinted pixels agree
    [found] = pymupdf.open(stream=data)[0].search_for(WORD)
    assert (rect.x0, rect.x1) == pytest.approx((found.x0, found.x1), abs=side / 500)
    want = [rect.x0 * image.zoom, rect.y0 * image.zoom, rect.x1 * image.zoom, rect.y1 * image.zoom]
    assert list(box) == pytest.approx(want, abs=2)


def test_a_page_of_millions_of_points_through_user_unit() -> None:
    data = big_page_pdf(500, 500, user_unit=75_000)  # 37,500,000 pt a side
    doc = load_document(data, name="huge.pdf")
    assert WORD in doc.text
    start = doc.text.index(WORD)
    tint = Highlight(start, start + len(WORD), 0, "#4e79a7")
    image = render_pdf_page(data, 1, doc, [tint], zoom=2.0)
    pix = pymupdf.Pixmap(image.png)
    assert pix.width * pix.height <= PIXEL_BUDGET
    assert image.width == 37_500_000 and "37,500,000 × 37,500,000 pt" in image.note()
    # PyMuPDF would draw the tint 75,000 times too large: it is left out, and the note says so
    assert image.user_unit == 75_000 and "tints are not drawn" in image.note()
    assert image.png == render_pdf_page(data, 1, doc, [], zoom=2.0).png
    assert render_pdf_page(data, 1, doc, [], zoom=2.0).user_unit == 1  # nothing left out


def test_a_strip_of_a_page_is_held_to_the_longest_side() -> None:
    data = big_page_pdf(14_400, 60)
    doc = load_document(data, name="strip.pdf")
    image = render_pdf_page(data, 1, doc, [], zoom=2.0)
    pix = pymupdf.Pixmap(image.png)
    assert pix.width <= MAX_SIDE and pix.width * pix.height <= PIXEL_BUDGET
    assert image.reduced and pix.width == MAX_SIDE - 1  # the side that bounds it, less rounding


@pytest.mark.parametrize(
    ("name", "width", "height"),
    [("A4", 595, 842), ("US Letter", 612, 792), ("A2", 1191, 1684), ("ANSI C", 1224, 1584)],
)
def test_paper_sizes_keep_the_zoom_asked_for(name: str, width: int, height: int) -> None:
    assert page_zoom(width, height, 2.0) == 2.0, name
    assert page_zoom(height, width, 2.0) == 2.0, name  # landscape too


def test_an_ordinary_page_has_no_note() -> None:
    data = big_page_pdf(595, 842)
    image = render_pdf_page(data, 1, load_document(data, name="a4.pdf"), [], zoom=2.0)
    assert not image.reduced and image.zoom == 2.0 and image.note() == ""
    assert (pymupdf.Pixmap(image.png).width, pymupdf.Pixmap(image.png).height) == (1190, 1684)


@pytest.mark.parametrize("box", ["[0 0 0 0]", "[100 100 100 100]", "[0 0 500 0]", "[0 0 1e30 x]"])
def test_an_empty_or_broken_media_box_is_drawn_as_mupdf_reads_it(box: str) -> None:
    """MuPDF reads such a box as US Letter: the text is there and the page is drawn."""
    data = with_media_box(big_page_pdf(500, 500), box)
    doc = load_document(data, name="box.pdf")
    image = render_pdf_page(data, 1, doc, [], zoom=2.0)
    assert (image.width, image.height) == (612, 792) and not image.reduced


def test_a_negative_media_box_is_a_sentence_when_its_text_falls_outside() -> None:
    data = with_media_box(big_page_pdf(500, 500), "[0 0 -500 -500]")
    with pytest.raises(DocumentError, match="no text layer"):
        load_document(data, name="negative.pdf")
    # its page (MuPDF flips the box) is still drawn for a document read some other way
    doc = load_document(big_page_pdf(500, 500), name="t.pdf")
    assert pymupdf.Pixmap(render_pdf_page(data, 1, doc, [], zoom=2.0).png).width == 1000


def test_a_page_with_no_area_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    data = big_page_pdf(500, 500)
    doc = load_document(data, name="t.pdf")
    monkeypatch.setattr(pymupdf.Page, "rect", property(lambda self: pymupdf.Rect(0, 0, 0, 0)))
    with pytest.raises(DocumentError, match=r"^page 1 has no area \(0 × 0 pt\).*Extracted text"):
        render_pdf_page(data, 1, doc, [], zoom=2.0)


def test_a_drawing_mupdf_refuses_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    data = big_page_pdf(500, 500)
    doc = load_document(data, name="t.pdf")

    def refuse(self: Any, **kw: Any) -> Any:
        raise RuntimeError("code=5: Overly large image")

    monkeypatch.setattr(pymupdf.Page, "get_pixmap", refuse)
    with pytest.raises(DocumentError, match=r"^page 1 cannot be drawn \(code=5: Overly large"):
        render_pdf_page(data, 1, doc, [], zoom=2.0)


PEAK = """
import re
from pathlib import Path
from explorer.documents.load import load_document
from tests.test_page_size import big_page_pdf
from ui.render_pdf import render_pdf_page

def peak_mb():  # VmHWM: unlike ru_maxrss it does not carry the parent's peak across exec
    return int(re.search(r"VmHWM:\\s+(\\d+)", Path("/proc/self/status").read_text())[1]) // 1024

data = big_page_pdf({side}, {side})
before = peak_mb()
doc = load_document(data, name="big.pdf")
render_pdf_page(data, 1, doc, [], zoom=2.0)
print(peak_mb() - before)
"""


@pytest.mark.parametrize("side", [6_000, 14_400])
def test_reading_and_drawing_a_large_page_stays_small_in_memory(side: int) -> None:
    """Peak resident memory of one read and one drawing, in a fresh process."""
    run = subprocess.run(
        [sys.executable, "-c", PEAK.format(side=side)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    grew_mb = int(run.stdout.split()[-1])
    assert grew_mb < 150, f"one {side:,} pt page took {grew_mb} MB"


# --------------------------------------------------------------------------- in the app


def test_the_main_page_shows_a_large_page_with_its_note() -> None:
    at = open_app(timeout=180, **CHUNK_VIEW)
    upload(at, "big.pdf", big_page_pdf(10_000, 10_000))
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["pdf_view"] == "Page image"
    [image] = at.image
    [caption] = image.captions
    assert caption.startswith(md_escape("big.pdf") + ", page 1. Drawn at reduced resolution")
    assert "10,000 × 10,000 pt" in caption


def test_the_evaluate_page_shows_a_large_page_with_its_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    (tmp_path / "big.pdf").write_bytes(big_page_pdf(10_000, 10_000))
    question = {"id": "big", "doc": "big.pdf", "query": "What is in the middle of the page?"}
    question["evidence"] = [f"{WORD} of the page."]  # type: ignore[assignment]
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).switch_page(
        "app_pages/evaluate.py"
    )
    for key in ("ab_A_retriever", "ab_B_retriever", "sw_retriever"):
        at.session_state[key] = "bm25"
    at.session_state["query_set"] = json.loads(json.dumps([question]))
    at.session_state["eval_docs_dir"] = str(tmp_path)
    at.run()
    at.button(key="ab_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    [image] = at.image
    [caption] = image.captions
    assert caption.startswith(md_escape("big.pdf") + ", page 1. Drawn at reduced resolution")
