"""Rendering: tints sit exactly on each chunk's visible text; hostile documents stay inert."""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

import pymupdf
import pytest

from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents.load import MAX_NESTING, load_document
from explorer.documents.model import Document, Layout, Line, Page
from explorer.errors import DocumentError
from tests.conftest import SAMPLES, corpus_files, load_cached, make_doc
from ui.render import (
    PALETTE,
    Highlight,
    chunk_highlights,
    palette,
    render_text,
    safe_href,
    window,
)
from ui.render_markdown import render_markdown
from ui.render_pdf import pdf_page_count, render_pdf_page

# --------------------------------------------------------------------------- reading the HTML

VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "source"}


@dataclass
class Text:
    text: str
    chunks: frozenset[int]
    overlap: bool
    style: str


class Parsed(HTMLParser):
    """Text pieces in order with the chunks tinting them, badges, and every element seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[Text | tuple[str, str]] = []
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self.stack: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1][0] == "style":
            self.styles.append(data)
            return
        classes: set[str] = set()
        style = ""
        for _, attrs in self.stack:
            classes |= set((attrs.get("class") or "").split())
            if "ce-hl" in (attrs.get("class") or ""):
                style = attrs.get("style") or ""
        if "ce-badge" in classes:
            self.events.append(("badge", data))
            return
        chunks = frozenset(int(c[len("ce-chunk-") :]) for c in classes if c.startswith("ce-chunk-"))
        self.events.append(Text(data, chunks, "ce-overlap" in classes, style))

    @property
    def texts(self) -> list[Text]:
        return [e for e in self.events if isinstance(e, Text)]

    def visible(self) -> str:
        return "".join(t.text for t in self.texts)

    def tinted(self, index: int) -> str:
        return "".join(t.text for t in self.texts if index in t.chunks)

    def badges(self) -> list[str]:
        return [e[1] for e in self.events if isinstance(e, tuple)]


def parse(fragment: str) -> Parsed:
    p = Parsed()
    p.feed(fragment)
    p.close()
    return p


def squash(s: str) -> str:
    return "".join(s.split())


def hl(doc: Document, start_text: str, end_text: str, index: int, **kw: object) -> Highlight:
    """A highlight from the first ``start_text`` to the end of the next ``end_text``."""
    a = doc.text.index(start_text)
    b = doc.text.index(end_text, a) + len(end_text)
    return Highlight(a, b, index, PALETTE[index % len(PALETTE)], **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- markdown

POLICY = """\
# Refund policy

Refunds are available within seven days. This does not apply to **downloaded** materials,
see `terms.md` and [the FAQ](https://example.com/faq).

- First item with some words
  - nested item here
- Second item

| Plan | Price |
|------|------:|
| Basic | $5 |
| Pro plan | $20 |

```python
def refund(days):
    return days <= 7
```

> Quoted *words* end here.
"""


POLICY_MARKUP = re.compile(
    r"(?m:^\|[-:|]+\|$)|```\w*|\]\([^)]*\)|\*\*|[`\[*|]|(?m:^[ \t]*(?:#+|[-+>])[ \t])"
)


def visible_part(start: int, end: int) -> str:
    """What a reader sees of ``POLICY[start:end]``: the source minus its Markdown markup."""
    hidden = bytearray(len(POLICY))
    for m in POLICY_MARKUP.finditer(POLICY):
        hidden[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    return "".join(ch for i, ch in enumerate(POLICY[start:end], start) if not hidden[i])


@pytest.mark.parametrize(
    "settings",
    [
        ChunkSettings(splitter="recursive", unit="chars", size=60, overlap=15),
        ChunkSettings(splitter="recursive", unit="words", size=9, overlap=0),
        ChunkSettings(splitter="structure", unit="tokens", size=30, overlap=8),
        ChunkSettings(splitter="fixed", unit="chars", size=45, overlap=10),
    ],
    ids=lambda s: s.key(),
)
def test_each_chunk_tints_exactly_its_visible_text(settings: ChunkSettings) -> None:
    doc = make_doc(POLICY, kind="markdown", name="policy.md")
    chunks = split(doc, settings)
    assert len(chunks) > 3
    page = parse(render_markdown(doc, chunk_highlights(chunks)))
    for c in chunks:
        assert squash(page.tinted(c.index)) == squash(visible_part(c.start, c.end)), c
    assert page.badges() == [str(c.index) for c in chunks]


def test_golden_boundary_mid_paragraph() -> None:
    doc = make_doc(POLICY, kind="markdown", name="policy.md")
    first = hl(doc, "# Refund", "seven days.", 0)
    second = hl(doc, "This does not apply", "materials,", 1)
    page = parse(render_markdown(doc, [first, second]))
    pieces = [(t.text, sorted(t.chunks)) for t in page.texts]
    i = pieces.index(("Refunds are available within seven days.", [0]))
    assert pieces[i - 1] == ("Refund policy", [0])  # "# " is not shown; the tint starts after it
    assert pieces[i + 1] == (" ", [])  # the space between the two chunks is in neither
    assert pieces[i + 2] == ("This does not apply to ", [1])
    assert pieces[i + 3] == ("downloaded", [1])  # inside <strong>, still tinted
    assert pieces[i + 4] == (" materials,", [1])
    assert pieces[i + 5] == ("\nsee ", [])  # the soft break after "materials," is past the end
    assert page.tinted(0) == "Refund policyRefunds are available within seven days."
    # each badge sits right before its highlight's first visible character
    events = page.events
    for label, text in [("0", "Refund policy"), ("1", "This does not apply to ")]:
        after = events[events.index(("badge", label)) + 1]
        assert isinstance(after, Text) and after.text == text


def test_renders_like_github() -> None:
    doc = make_doc(POLICY, kind="markdown", name="policy.md")
    page = parse(render_markdown(doc, []))
    tags = [t for t, _ in page.elements]
    for tag in ("h1", "p", "strong", "code", "a", "ul", "li", "table", "thead", "th", "td", "pre",
                "blockquote", "em"):  # fmt: skip
        assert tag in tags, tag
    assert tags.count("ul") == 2  # the nested list
    assert ("td", {"class": "ce-right"}) in page.elements  # column alignment as a class
    visible = page.visible()
    assert "def refund(days):\n    return days <= 7\n" in visible  # code keeps its white space
    assert "# Refund" not in visible and "**" not in visible and "](" not in visible
    link = next(a for t, a in page.elements if t == "a")
    assert link["href"] == "https://example.com/faq"
    assert link["rel"] == "nofollow noopener noreferrer" and link["target"] == "_blank"
    # all CSS is scoped under .ce-doc
    rules = re.findall(r"([^{}]+)\{", "".join(page.styles))
    assert rules and all(
        all(sel.strip().startswith(".ce-doc") for sel in r.split(",")) for r in rules
    )


def test_badge_skips_invisible_markup_and_uses_label() -> None:
    doc = make_doc("Intro.\n\n## Second heading\n\nBody text.\n", kind="markdown", name="x.md")
    start = doc.text.index("## ")
    h = Highlight(start, len(doc.text) - 1, 7, "#59a14f", label="#2", selected=True)
    html = render_markdown(doc, [h])
    page = parse(html)
    assert page.badges() == ["#2"]
    i = page.events.index(("badge", "#2"))
    nxt = page.events[i + 1]
    assert isinstance(nxt, Text) and nxt.text == "Second heading" and nxt.chunks == {7}
    assert '<h2><span class="ce-badge ce-selected"' in html  # inside the heading, not before it
    assert "outline:" in nxt.style  # selected highlights are outlined


def test_overlap_is_distinct_over_exactly_the_shared_text() -> None:
    doc = make_doc("Alpha beta gamma delta epsilon.\n", kind="markdown", name="x.md")
    a = hl(doc, "Alpha", "gamma", 0)
    b = hl(doc, "beta", "delta", 1)
    for html in (render_markdown(doc, [a, b]), render_markdown(doc, [a, b], raw=True)):
        page = parse(html)
        shared = [t for t in page.texts if t.overlap]
        assert "".join(t.text for t in shared) == "beta gamma"
        assert all(t.chunks == {0, 1} and "repeating-linear-gradient" in t.style for t in shared)
        alone = [t for t in page.texts if t.chunks and not t.overlap]
        assert [t.text for t in alone] == ["Alpha ", " delta"]
        assert all("gradient" not in t.style for t in alone)
        assert page.badges() == ["0", "1"]


def test_raw_mode_tints_the_source_exactly() -> None:
    doc = make_doc(POLICY, kind="markdown", name="policy.md")
    chunks = split(doc, ChunkSettings(splitter="recursive", unit="chars", size=70, overlap=20))
    page = parse(render_markdown(doc, chunk_highlights(chunks), raw=True))
    assert page.visible() == doc.text
    for c in chunks:
        assert page.tinted(c.index) == c.text


def test_text_mode_tints_exactly_and_keeps_crlf_and_astral_offsets() -> None:
    text = "Héllo 🙂 wörld.\r\nSecond <line> & more.\r\n"
    doc = make_doc(text)
    h = Highlight(text.index("🙂"), text.index("<line>") + 6, 0, "#e15759")
    page = parse(render_text(doc, [h]))
    assert page.tinted(0) == text[h.start : h.end].replace("\r\n", "\n")  # as browsers do
    assert page.badges() == ["0"]


def test_fragment_is_one_line() -> None:
    """No blank line can end the HTML early if an app pastes it into a Markdown renderer."""
    text = "Para one.\n\n\n    indented code\n\n![x](http://evil.example/x.png)\r\n\r\nend\n"
    doc = make_doc(text, kind="markdown", name="x.md")
    hs = [Highlight(0, len(text), 0, "#4e79a7")]
    for html in (
        render_markdown(doc, hs),
        render_markdown(doc, hs, raw=True),
        render_text(doc, hs),
    ):
        assert "\n" not in html and "\r" not in html
        assert html.startswith('<div class="ce-doc') and html.endswith("</div>")


def test_markdown_with_crlf_and_front_matter() -> None:
    text = "---\r\ntitle: x\r\n---\r\n# Head\r\n\r\nOne line\r\nnext line.\r\n"
    doc = make_doc(text, kind="markdown", name="x.md")
    h = hl(doc, "line\r\nnext", "next line.", 0)
    page = parse(render_markdown(doc, [h]))
    assert page.tinted(0) == "line\nnext line."
    assert "title: x" in page.visible()  # front matter shows as a code block


def test_escapes_entities_code_spans_and_tables_align() -> None:
    text = (
        "A \\*literal\\* star &amp; ``code ` span`` [x][ref] <http://a.b>\n\n"
        "| a | b \\| c |\n|---|---|\n| `1` | two |\n\n[ref]: https://example.com\n"
    )
    doc = make_doc(text, kind="markdown", name="x.md")
    page = parse(render_markdown(doc, [Highlight(0, len(text), 0, "#4e79a7")]))
    assert page.tinted(0) == "A *literal* star & code ` span x http://a.bab | c1two"
    untinted = [t.text for t in page.texts if not t.chunks and t.text.strip()]
    assert untinted == []


@pytest.mark.parametrize("path", corpus_files(".md"), ids=lambda p: p.name)
def test_corpus_tints_are_subsequences_of_the_chunk(path: object) -> None:
    doc = load_cached(path)  # type: ignore[arg-type]
    chunks = split(doc, ChunkSettings(splitter="recursive", size=200, overlap=30))
    page = parse(render_markdown(doc, chunk_highlights(chunks)))
    assert page.badges() == [str(c.index) for c in chunks]
    for c in chunks:
        shown = iter(squash(c.text))
        tinted = squash(page.tinted(c.index))
        assert tinted, c.index
        assert all(ch in shown for ch in tinted), c.index  # in order, nothing invented


# --------------------------------------------------------------------------- security

HOSTILE = """\
# Hi <script>alert(1)</script>

<script>alert(1)</script>

<img src=x onerror=alert(1)>

<svg onload=alert(1)><circle r=5 /></svg>

<iframe src="https://evil.example/"></iframe>

<style>body{display:none}</style>

Inline <img src=x onerror=alert(2)> and <svg/onload=alert(3)> and
<a href="https://ok.example" onclick="alert(4)">a</a>.

[x](javascript:alert(1)) [y]( JaVaScRiPt:alert(1)) [z](<java\tscript:alert(1)>)
[v](vbscript:msgbox(1)) [d](data:text/html;base64,PHNjcmlwdD4=) [ok](https://fine.example)
[rel](docs/page.md) [anchor](#top) [mail](mailto:a@b.example)
[ref link][r] ![a](http://evil/x.png) ![b][r]

[r]: javascript:alert(5)

<div style="position:fixed" onmouseover="alert(6)">div</div>
"""


def test_hostile_markdown_renders_inert() -> None:
    doc = make_doc(HOSTILE, kind="markdown", name="evil.md")
    chunks = split(doc, ChunkSettings(splitter="recursive", unit="chars", size=120, overlap=20))
    html = render_markdown(doc, chunk_highlights(chunks, selected=1))
    page = parse(html)
    tags = [t for t, _ in page.elements]
    for bad in ("script", "iframe", "svg", "img", "object", "embed", "circle", "div"):
        assert tags.count(bad) == (1 if bad == "div" else 0), bad  # the only div is ours
    assert tags.count("style") == 1 and "display:none" not in "".join(page.styles)
    for tag, attrs in page.elements:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name != "src", tag
            if name == "style":
                assert tag == "span" and "position" not in (value or ""), (tag, value)
            if name == "href":
                assert safe_href(value) == value
                assert not re.match(r"\s*(javascript|vbscript|data):", value or "", re.I)
    hrefs = [a["href"] for t, a in page.elements if t == "a" and "href" in a]
    # the <a onclick> is raw HTML, shown as text; the bad schemes keep their text, not a link
    assert hrefs == ["https://fine.example", "docs/page.md", "#top", "mailto:a@b.example"]
    visible = page.visible()
    assert "<script>alert(1)</script>" in visible  # shown as text, not run
    assert "[image: a]" in visible and "[image: b]" in visible
    assert "evil/x.png" not in html


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://a.example/x?y#z", True),
        ("HTTP://A.EXAMPLE", True),
        ("mailto:a@b.example", True),
        ("page.md", True),
        ("../up/page.md#part", True),
        ("#anchor", True),
        ("?q=1", True),
        ("/abs/path:with-colon", True),
        ("javascript:alert(1)", False),
        (" JaVaScRiPt:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("java\x00script:alert(1)", False),
        ("\x01javascript:alert(1)", False),
        ("vbscript:msgbox(1)", False),
        ("data:text/html,hi", False),
        ("data:image/png;base64,AAAA", False),
        ("file:///etc/passwd", False),
        ("weird:thing", False),
    ],
)
def test_safe_href(url: str, safe: bool) -> None:
    assert (safe_href(url) is not None) == safe


def test_highlight_validation_and_palette() -> None:
    with pytest.raises(ValueError):
        Highlight(3, 3, 0, "#4e79a7")
    with pytest.raises(ValueError):
        Highlight(0, 3, 0, "red;background:url(x)")
    assert Highlight(0, 1, 4, "#abc").badge == "4"
    colors = palette(25)
    assert len(colors) == 25 and len(set(colors[:10])) == 10
    assert all(a != b for a, b in itertools.pairwise(colors))
    doc = make_doc("One. Two. Three.")
    chunks = split(doc, ChunkSettings(splitter="sentence", unit="chars", size=5, overlap=0))
    hs = chunk_highlights(chunks, selected=1)
    assert [h.selected for h in hs] == [False, True, False]
    assert [(h.start, h.end) for h in hs] == [(c.start, c.end) for c in chunks]


# --------------------------------------------------------------------------- PDF

FONT = 11.0
LEFT = 72.0


def _baseline(k: int) -> float:
    return 100.0 + 22.0 * k


def make_pdf(pages: Sequence[Sequence[str]]) -> tuple[bytes, Document]:
    """A PDF written with PyMuPDF, and a Document whose layout is computed from the font."""
    pdf = pymupdf.open()
    text_parts: list[str] = []
    x0: list[float] = []
    x1: list[float] = []
    lines: list[Line] = []
    page_spans: list[Page] = []
    pos = 0
    for number, page_lines in enumerate(pages, start=1):
        page = pdf.new_page(width=595, height=842)
        page_start = pos
        for k, ln in enumerate(page_lines):
            page.insert_text((LEFT, _baseline(k)), ln, fontname="helv", fontsize=FONT)
            for i in range(len(ln)):
                x0.append(LEFT + pymupdf.get_text_length(ln[:i], "helv", FONT))
                x1.append(LEFT + pymupdf.get_text_length(ln[: i + 1], "helv", FONT))
            y = _baseline(k)
            lines.append(Line(number, pos, pos + len(ln), y - FONT * 0.95, y + FONT * 0.25))
            text_parts.append(ln)
            pos += len(ln)
            sep = "\n" if k + 1 < len(page_lines) else "\n\n"
            text_parts.append(sep)
            x0.extend([math.nan] * len(sep))
            x1.extend([math.nan] * len(sep))
            pos += len(sep)
        page_spans.append(Page(number, page_start, pos, 595, 842))
    data = pdf.tobytes()
    text = "".join(text_parts)
    doc = Document(
        name="t.pdf",
        kind="pdf",
        sha256=hashlib.sha256(data).hexdigest(),
        text=text,
        pages=tuple(page_spans),
        layout=Layout(tuple(lines), array("d", x0), array("d", x1)),
    )
    return data, doc


PDF_PAGES = [
    [
        "Refunds are available within seven days.",
        "This does not apply to downloaded materials.",
        "A third line that nobody highlights.",
    ],
    ["Page two starts here.", "And ends here."],
]


def _pixels(png: bytes) -> pymupdf.Pixmap:
    pix = pymupdf.Pixmap(png)
    assert pix.width > 0 and pix.n >= 3
    return pix


def _white_spots(pix: pymupdf.Pixmap, rect: pymupdf.Rect, zoom: float) -> list[tuple[int, int]]:
    r = rect * zoom
    spots = []
    for x in range(int(r.x0) + 2, int(r.x1) - 2, 3):
        for y in range(int(r.y0) + 2, int(r.y1) - 2, 3):
            if pix.pixel(x, y)[:3] == (255, 255, 255):
                spots.append((x, y))
    return spots


def test_pdf_page_tints_highlighted_lines_only() -> None:
    data, doc = make_pdf(PDF_PAGES)
    assert pdf_page_count(data) == 2
    zoom = 2.0
    first = hl(doc, "Refunds", "seven days.", 0)
    on_page_two = hl(doc, "Page two", "here.", 1)
    plain = _pixels(render_pdf_page(data, 1, doc, [], zoom=zoom).png)
    lit = _pixels(render_pdf_page(data, 1, doc, [first, on_page_two], zoom=zoom).png)
    assert (lit.width, lit.height) == (plain.width, plain.height) == (1190, 1684)

    assert doc.layout is not None
    (rect,) = doc.layout.rects(first.start, first.end)
    spots = _white_spots(plain, pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y1), zoom)
    assert len(spots) > 50
    tinted = [lit.pixel(x, y)[:3] for x, y in spots]
    assert all(p != (255, 255, 255) for p in tinted)
    red, _, blue = (sum(c) / len(tinted) for c in zip(*tinted, strict=True))
    assert blue > red  # #4e79a7 is blue

    (other,) = doc.layout.rects(doc.text.index("A third"), doc.text.index("highlights.") + 11)
    quiet = _white_spots(plain, pymupdf.Rect(other.x0, other.y0, other.x1, other.y1), zoom)
    assert quiet and all(lit.pixel(x, y)[:3] == (255, 255, 255) for x, y in quiet)
    for x, y in [(5, 5), (1100, 1600), (600, 1200), (1000, 200)]:  # far from any text
        assert lit.pixel(x, y) == plain.pixel(x, y)


def test_pdf_overlap_is_darker_and_badges_drawn() -> None:
    data, doc = make_pdf(PDF_PAGES)
    zoom = 2.0
    a = hl(doc, "Refunds", "seven days.", 0)
    b = hl(doc, "within", "downloaded", 2, selected=True)
    single_only = _pixels(render_pdf_page(data, 1, doc, [a], zoom=zoom).png)
    both = _pixels(render_pdf_page(data, 1, doc, [a, b], zoom=zoom).png)
    assert doc.layout is not None
    shared = doc.layout.rects(b.start, a.end)[0]
    alone = doc.layout.rects(a.start, b.start - 1)[0]
    plain = _pixels(render_pdf_page(data, 1, doc, [], zoom=zoom).png)
    in_shared = _white_spots(plain, pymupdf.Rect(shared.x0, shared.y0, shared.x1, shared.y1), zoom)
    in_alone = _white_spots(plain, pymupdf.Rect(alone.x0, alone.y0, alone.x1, alone.y1), zoom)

    def lum(pix: pymupdf.Pixmap, spots: list[tuple[int, int]]) -> float:
        return sum(sum(pix.pixel(x, y)[:3]) for x, y in spots) / len(spots)

    assert lum(both, in_shared) < lum(both, in_alone) - 30  # overlap darker than one tint
    assert lum(both, in_alone) == pytest.approx(lum(single_only, in_alone), abs=3)
    # a badge left of the first line (the left margin was blank before)
    badge_area = pymupdf.Rect(LEFT - 12, alone.y0, LEFT - 1, alone.y1)
    assert _white_spots(both, badge_area, zoom) != _white_spots(plain, badge_area, zoom)


def test_pdf_bad_input() -> None:
    data, doc = make_pdf(PDF_PAGES)
    with pytest.raises(DocumentError, match="has 2 page"):
        render_pdf_page(data, 3, doc, [])
    with pytest.raises(DocumentError):
        pdf_page_count(b"%PDF-1.7 truncated")
    with pytest.raises(ValueError):
        render_pdf_page(data, 1, doc, [], zoom=0)


def test_pdf_through_the_loader() -> None:
    data, _ = make_pdf(PDF_PAGES)
    doc = load_document(data, name="t.pdf")
    assert doc.layout is not None
    h = hl(doc, "This does not apply", "materials.", 1)
    (rect,) = doc.layout.rects(h.start, h.end)
    assert rect.page == 1
    zoom = 1.5
    plain = _pixels(render_pdf_page(data, 1, doc, [], zoom=zoom).png)
    lit = _pixels(render_pdf_page(data, 1, doc, [h], zoom=zoom).png)
    spots = _white_spots(plain, pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y1), zoom)
    assert spots and all(lit.pixel(x, y)[:3] != (255, 255, 255) for x, y in spots)
    # the page-two text is not drawn on page one, and page two gets its own tint
    h2 = hl(doc, "Page two", "here.", 2)
    assert _pixels(render_pdf_page(data, 1, doc, [h2], zoom=zoom).png).samples == plain.samples
    assert (
        _pixels(render_pdf_page(data, 2, doc, [h2], zoom=zoom).png).samples
        != _pixels(render_pdf_page(data, 2, doc, [], zoom=zoom).png).samples
    )


# --------------------------------------------------------------------------- one vector at a time

ALLOWED_TAGS = {
    *("div", "style", "p", "span", "a", "pre", "code", "em", "strong", "del", "br", "hr"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote"),
    *("table", "thead", "tbody", "tr", "th", "td"),
}
ALLOWED_ATTRS = {"class", "style", "title", "href", "rel", "target", "data-index", "start"}
VECTORS = {
    "script": "<script>window.__pwned=1</script>",
    "script upper case": "<SCRIPT SRC=http://203.0.113.1/x.js></SCRIPT>",
    "iframe src": '<iframe src="https://example.com/"></iframe>',
    "iframe srcdoc": '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    "img onerror": "<img src=x onerror=alert(1)>",
    "img unclosed": "<img src=x onerror=alert(1)//",
    "svg onload": "<svg onload=alert(1)><circle r=4/></svg>",
    "math": "<math><mtext><script>alert(1)</script></mtext></math>",
    "object": '<object data="http://203.0.113.1/x.swf"></object>',
    "embed": '<embed src="http://203.0.113.1/x.swf">',
    "form": '<form action="http://203.0.113.1/"><input autofocus onfocus=alert(1)></form>',
    "textarea": "<textarea><script>alert(1)</script></textarea>",
    "noscript": "<noscript><p title='</noscript><img src=x onerror=alert(1)>'></noscript>",
    "meta refresh": '<meta http-equiv="refresh" content="0;url=http://203.0.113.1/">',
    "link stylesheet": '<link rel=stylesheet href="http://203.0.113.1/x.css">',
    "base": '<base href="http://203.0.113.1/">',
    "style import": "<style>@import url(http://203.0.113.1/x.css);</style>",
    "style overlay": "<style>div{position:fixed;inset:0;z-index:9999}body{display:none}</style>",
    "inline style": '<div style="position:fixed;inset:0;z-index:9999">cover</div>',
    "inline span style": 'Text <span style="position:fixed;inset:0">cover</span> here.',
    "comment": "<!-- <script>alert(1)</script> -->",
    "cdata": "<![CDATA[<script>alert(1)</script>]]>",
    "heading html": "# Title <img src=x onerror=alert(1)>",
    "table cell html": "| a |\n|---|\n| <script>alert(1)</script> |",
    "javascript link": "[a](javascript:alert(1))",
    "spaced javascript link": "[a](<java\tscript:alert(1)>)",
    "entity javascript link": "[a](&#106;avascript:alert(1))",
    "javascript autolink": "<javascript:alert(1)>",
    "javascript reference": "[a][r]\n\n[r]: javascript:alert(1)",
    "vbscript link": "[a](vbscript:msgbox(1))",
    "data html link": "[a](data:text/html;base64,PHNjcmlwdD4=)",
    "data anchor": '<a href="data:text/html,<script>alert(1)</script>">a</a>',
    "data svg image": "![i](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "external image": "![x](http://203.0.113.1/x.png)",
    "image title breaks out": '![x](x.png "t\\" onerror=\\"alert(1)")',
    "link title breaks out": '[a](https://ok.example "t\\" onmouseover=\\"alert(1)")',
    "link url with quote": '[a](https://ok.example/"onmouseover="alert(1))',
}


@pytest.mark.parametrize("source", list(VECTORS.values()), ids=list(VECTORS))
def test_each_hostile_vector_is_inert(source: str) -> None:
    text = f"# Doc\n\nBefore the attack.\n\n{source}\n\nAfter the attack.\n"
    doc = make_doc(text, kind="markdown", name="evil.md")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=40, overlap=10))
    for raw in (False, True):
        page = parse(render_markdown(doc, chunk_highlights(chunks, selected=0), raw=raw))
        tags = [t for t, _ in page.elements]
        assert set(tags) <= ALLOWED_TAGS, set(tags) - ALLOWED_TAGS
        assert tags.count("style") == 1 and tags.count("div") == 1  # the wrapper and its CSS
        for tag, attrs in page.elements:
            assert set(attrs) <= ALLOWED_ATTRS, (tag, attrs)
            if "style" in attrs:  # only the tints the renderer writes
                assert tag == "span" and "position" not in (attrs["style"] or ""), attrs
            if "href" in attrs:
                assert tag == "a" and safe_href(attrs["href"]) == attrs["href"]
                assert (attrs["href"] or "").startswith("https://ok.example")
        visible = page.visible()
        assert "Before the attack." in visible and "After the attack." in visible
        if source.startswith("<") and not source.startswith("<javascript:"):
            assert squash(source) in squash(visible)  # raw HTML is shown as text


# --------------------------------------------------------------------------- long and deep


def test_a_short_document_is_one_whole_window() -> None:
    w = window("short text", 5)
    assert (w.start, w.end, w.total, w.whole) == (0, 10, 10, True)


def test_a_long_document_window_holds_its_focus_and_cuts_at_blank_lines() -> None:
    text = "".join(f"Paragraph {i} has a few words in it.\n\n" for i in range(5000))
    at = text.index("Paragraph 3000 ")
    w = window(text, at, size=10_000)
    assert w.start < at < w.end and not w.whole
    assert w.end - w.start <= 10_000
    assert text[w.start - 2 : w.start] == "\n\n" and text[w.end - 2 : w.end] == "\n\n"
    assert window(text, None, size=10_000).start == 0
    assert window(text, len(text), size=10_000).end == len(text)
    one_line = "x" * 50_000  # nowhere to cut: cut anywhere
    w = window(one_line, 25_000, size=1_000)
    assert w.end - w.start == 1_000 and w.start < 25_000 < w.end
    with pytest.raises(ValueError):
        window(text, 0, size=0)


@pytest.mark.parametrize("raw", [False, True])
def test_a_window_tints_exactly_its_part_of_each_chunk(raw: bool) -> None:
    text = "# Long\n\n" + "".join(f"Sentence {i} of the long document.\n\n" for i in range(3000))
    doc = make_doc(text, kind="markdown", name="long.md")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=300, overlap=40))
    picked = 200
    w = window(doc.text, chunks[picked].start, size=5_000)
    page = parse(render_markdown(doc, chunk_highlights(chunks, selected=picked), raw=raw, window=w))
    assert "Sentence 0 " not in page.visible() and "Sentence 2999 " not in page.visible()
    shown = [c for c in chunks if c.end > w.start and c.start < w.end]
    for c in shown:
        part = doc.text[max(c.start, w.start) : min(c.end, w.end)]
        if raw:
            assert page.tinted(c.index) == part
        else:
            assert squash(page.tinted(c.index)) == squash(part.replace("#", ""))
    assert sorted({int(b) for b in page.badges()}) == [
        c.index for c in shown
    ]  # a chunk begun above the window gets its badge at the window's start
    plain = parse(render_text(doc, chunk_highlights(chunks), window=w))
    assert plain.visible() == doc.text[w.start : w.end]


def test_markdown_nested_too_deep_is_shown_as_source_not_lost() -> None:
    text = "# Deep\n\n" + "".join("  " * i + f"- level {i + 1}\n" for i in range(200))
    doc = make_doc(text, kind="markdown", name="deep.md")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=500, overlap=0))
    html = render_markdown(doc, chunk_highlights(chunks))
    page = parse(html)
    assert 'class="ce-note"' in html
    assert page.visible().endswith(text)  # the note, then every character of the source
    for c in chunks:
        assert page.tinted(c.index) == c.text
    levels = MAX_NESTING // 2 - 1  # a list level counts two: the deepest that renders
    shallow = "".join("  " * i + f"- level {i + 1}\n" for i in range(levels))
    html = render_markdown(make_doc(shallow, kind="markdown", name="ok.md"), [])
    assert 'class="ce-note"' not in html and html.count("<ul>") == levels


def test_a_chunk_over_two_pages_says_where_it_goes_on_and_where_it_came_from() -> None:
    """Issue 26: the page a chunk ends on gets "continues on p. N" after its last line; the next
    page's badge says "from p. M"; the notes are drawn into the page (its text has them)."""
    from ui import render, render_pdf
    from ui.render_pdf import _draw_highlights

    path = SAMPLES / "field-manual.pdf"
    doc = load_cached(path)
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=600, overlap=0))
    crossing = next(c for c in chunks if c.page_start != c.page_end)
    assert doc.layout is not None
    tints = render.chunk_highlights(chunks, selected=crossing.index)
    with pymupdf.open(path) as pdf:
        first, second = crossing.page_start, crossing.page_end
        assert first is not None and second is not None
        _draw_highlights(pdf[first - 1], first, doc.layout, tints)
        _draw_highlights(pdf[second - 1], second, doc.layout, tints)
        on_first, on_second = pdf[first - 1].get_text(), pdf[second - 1].get_text()
    assert on_first.count("continues on p. ") == 1  # only the one chunk crosses from this page
    assert f"continues on p. {second}" in on_first
    assert f"{crossing.index} from p. {first}" in on_second
    assert "from p." not in on_first  # nothing on the first page came from an earlier one
    assert render_pdf.render_pdf_page(path.read_bytes(), second, doc, tints).png
