"""Render: show where every chunk falls, on the document as a reader sees it.

A :class:`Highlight` is one span ``[start, end)`` of ``doc.text`` to tint. Three renderers turn a
document plus highlights into something a person can look at:

* :func:`render_markdown` renders Markdown the way GitHub shows it (headings, lists, tables, code)
  and tints the *visible* text of every span. It walks markdown-it's tokens itself and aligns
  every piece of visible text with the source offset it came from, so a chunk that ends
  mid-sentence ends mid-sentence on screen. ``raw=True`` shows the Markdown source instead.
* :func:`render_text` shows plain text (or a PDF's extracted text) with the same tints.
* :func:`render_pdf_page` draws translucent rectangles over the real PDF page and returns a PNG.

In the HTML, every tinted ``<span>`` carries the class ``ce-chunk-<index>`` of each highlight that
covers it; where two or more highlights overlap the span also has ``ce-overlap`` and diagonal
stripes of their colours. A badge (``<span class="ce-badge">``) with the highlight's label sits
just before its first visible character. Document content is never trusted: all text is
escaped, raw HTML is shown as text, images are not loaded and links keep only safe URLs.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.documents.load import MAX_NESTING, front_matter_end, line_starts
from explorer.documents.model import Document, Layout, Rect
from explorer.errors import DocumentError

if TYPE_CHECKING:
    from explorer.chunking.splitters import Chunk

PALETTE: tuple[str, ...] = (
    "#4e79a7",  # blue
    "#f28e2b",  # orange
    "#e15759",  # red
    "#76b7b2",  # teal
    "#59a14f",  # green
    "#edc948",  # yellow
    "#b07aa1",  # purple
    "#ff9da7",  # pink
    "#9c755f",  # brown
    "#17becf",  # cyan
)
"""Tableau 10 with its grey swapped for cyan (grey barely shows as a tint)."""

TINT_ALPHA = 0.35
"""Opacity of one highlight's tint in HTML; overlaps use stripes at ``OVERLAP_ALPHA``."""
OVERLAP_ALPHA = 0.55
PDF_FILL_OPACITY = 0.35

_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


@dataclass(frozen=True)
class Highlight:
    """One span of ``doc.text`` to tint: offsets ``[start, end)``, half-open.

    ``index`` is the chunk number; ``label`` is the badge text (``str(index)`` when ``None``,
    e.g. ``"#2"`` for a query's second hit); ``selected`` highlights are outlined. ``title`` is
    the tooltip when the span is not a chunk (``"chunk 3"`` or ``"#2 (chunk 3)"`` when ``None``).
    """

    start: int
    end: int
    index: int
    color: str
    label: str | None = None
    selected: bool = False
    title: str | None = None
    underline: bool = False
    """Draw a thick underline in ``color`` instead of a tint, and no badge: marks a phrase (an
    evidence occurrence, say) on top of the chunk tints without hiding them."""

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"highlight span [{self.start}, {self.end}) is empty or negative")
        if not _COLOR.fullmatch(self.color):
            raise ValueError(f"highlight colour must look like '#4e79a7', got {self.color!r}")

    @property
    def badge(self) -> str:
        """The text shown in the badge."""
        return str(self.index) if self.label is None else self.label


def palette(n: int) -> list[str]:
    """``n`` colours from a 10-colour qualitative palette, cycling; neighbours always differ."""
    return [PALETTE[i % len(PALETTE)] for i in range(max(n, 0))]


HEAT: tuple[str, ...] = (
    "#ffffcc",
    "#ffeda0",
    "#fed976",
    "#feb24c",
    "#fd8d3c",
    "#fc4e2a",
    "#e31a1c",
    "#b10026",
)
"""A sequential scale, low to high (ColorBrewer YlOrRd, 8 classes): the heat view's colours."""


def heat_color(x: float) -> str:
    """The colour at ``x`` (0 low, 1 high; clamped) on :data:`HEAT`, interpolated in RGB."""
    x = 0.0 if x != x else min(1.0, max(0.0, float(x)))  # NaN counts as low
    pos = x * (len(HEAT) - 1)
    i = min(int(pos), len(HEAT) - 2)
    t = pos - i
    lo, hi = _rgb(HEAT[i]), _rgb(HEAT[i + 1])
    r, g, b = (round(a + (b - a) * t) for a, b in zip(lo, hi, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def chunk_highlights(chunks: Iterable[Chunk], *, selected: int | None = None) -> list[Highlight]:
    """One highlight per chunk, coloured by chunk index (so a chunk keeps its colour)."""
    return [
        Highlight(
            c.start,
            c.end,
            c.index,
            PALETTE[c.index % len(PALETTE)],
            selected=c.index == selected,
        )
        for c in chunks
    ]


@dataclass(frozen=True)
class Marker:
    """A thin vertical mark drawn just before the character at ``offset`` of ``doc.text``.

    Used to show where chunks start (for two configurations at once, say). ``label`` is a short
    text drawn with the bar (``""`` for none); ``title`` is its tooltip.
    """

    offset: int
    color: str
    label: str = ""
    title: str = ""

    def __post_init__(self) -> None:
        if self.offset < 0:
            raise ValueError(f"marker offset must be 0 or more, got {self.offset}")
        if not _COLOR.fullmatch(self.color):
            raise ValueError(f"marker colour must look like '#4e79a7', got {self.color!r}")


# --------------------------------------------------------------------------- colours


def _rgb(color: str) -> tuple[int, int, int]:
    h = color[1:]
    if len(h) == 3:
        h = "".join(ch * 2 for ch in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _rgba(color: str, alpha: float) -> str:
    r, g, b = _rgb(color)
    return f"rgba({r},{g},{b},{alpha:g})"


def _ink_on(color: str) -> str:
    """Black or white text, whichever reads better on ``color``."""
    r, g, b = _rgb(color)
    return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def _darker(color: str, factor: float = 0.6) -> tuple[float, float, float]:
    """``color`` darkened, as 0-1 RGB (for PyMuPDF)."""
    r, g, b = _rgb(color)
    return r / 255 * factor, g / 255 * factor, b / 255 * factor


def _darker_css(color: str) -> str:
    r, g, b = (round(c * 255) for c in _darker(color))
    return f"#{r:02x}{g:02x}{b:02x}"


# --------------------------------------------------------------------------- escaping & URLs

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_URL_JUNK = re.compile(r"[\x00-\x20\x7f-\x9f]")
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


_NEWLINE = re.compile(r"\r\n?|\n")


def _esc(text: str) -> str:
    """Escape text for an HTML text node; control characters become U+FFFD.

    Line breaks are written as ``&#10;`` so the fragment is a single line: even if it ends up
    inside a Markdown renderer (``st.markdown(..., unsafe_allow_html=True)``), no blank line can
    end the HTML block and let document text be read as Markdown (an image, say).
    """
    return _NEWLINE.sub("&#10;", html.escape(_CONTROL.sub("\ufffd", text), quote=False))


def _attr(text: str) -> str:
    return html.escape(_CONTROL.sub("\ufffd", text), quote=True)


def safe_href(url: str | None) -> str | None:
    """``url`` if it is safe to link to (http, https, mailto, relative, anchor), else ``None``.

    White space and control characters are removed before the scheme is checked, since browsers
    ignore them (``" java\\tscript:"`` is ``javascript:``).
    """
    if url is None:
        return None
    cleaned = _URL_JUNK.sub("", url)
    m = _SCHEME.match(cleaned.lower())
    if m is None:
        # no scheme before the first "/", "?" or "#": a relative URL or an anchor, unless a
        # colon shows up before those (a scheme with odd characters): refuse that
        head = re.split(r"[/?#]", cleaned, maxsplit=1)[0]
        return None if ":" in head else cleaned
    return cleaned if m.group(1) in SAFE_SCHEMES else None


# --------------------------------------------------------------------------- output pieces


@dataclass(frozen=True, slots=True)
class _Run:
    """Visible text and, for each character, the ``doc.text`` offset it came from (or -1)."""

    text: str
    offsets: Sequence[int]
    pre: bool = False
    """Shown preformatted: line breaks in it are real line breaks."""


_Part = str | _Run  # a str is trusted markup that this module wrote


def _paint(
    parts: Sequence[_Part], highlights: Sequence[Highlight], markers: Sequence[Marker] = ()
) -> str:
    """Join markup and text, wrapping text in tinted spans and inserting badges and markers."""
    hs = list(highlights)
    if not hs and not markers:
        return "".join(p if isinstance(p, str) else _esc(p.text) for p in parts)

    # badges: at the first visible character at or after each highlight's start
    mapped: list[tuple[int, int]] = []  # (offset, position in the visible text)
    g = 0
    for p in parts:
        if isinstance(p, _Run):
            mapped.extend((o, g + i) for i, o in enumerate(p.offsets) if o >= 0)
            g += len(p.text)
    mapped.sort()
    keys = [o for o, _ in mapped]
    badges: dict[int, list[Highlight | Marker]] = {}
    for m in sorted(markers, key=lambda m: m.offset):  # a marker goes before a badge
        i = bisect.bisect_left(keys, m.offset)
        badges.setdefault(mapped[i][1] if i < len(mapped) else g, []).append(m)
    for h in hs:
        if h.underline:
            continue
        i = bisect.bisect_left(keys, h.start)
        badges.setdefault(mapped[i][1] if i < len(mapped) else g, []).append(h)

    # segments of offset space with a constant set of covering highlights
    bounds = sorted({h.start for h in hs} | {h.end for h in hs})
    starting: dict[int, list[int]] = {}
    ending: dict[int, list[int]] = {}
    for k, h in enumerate(hs):
        starting.setdefault(h.start, []).append(k)
        ending.setdefault(h.end, []).append(k)
    active: list[tuple[int, ...]] = []
    current: dict[int, None] = {}
    for b in bounds:
        for k in ending.get(b, ()):
            current.pop(k, None)
        for k in starting.get(b, ()):
            current[k] = None
        active.append(tuple(sorted(current)))
    opening: dict[tuple[tuple[int, ...], bool], str] = {}

    def segment(o: int) -> int:
        if o < 0:
            return -1
        j = bisect.bisect_right(bounds, o) - 1
        return j if j >= 0 and active[j] else -1

    out: list[str] = []
    g = 0
    for p in parts:
        if isinstance(p, str):
            out.append(p)
            continue
        text, offs = p.text, p.offsets
        n = len(text)
        i = 0
        while i < n:
            for item in badges.pop(g + i, ()):
                out.append(_badge_html(item) if isinstance(item, Highlight) else _marker_html(item))
            seg = segment(offs[i])
            j = i + 1
            while j < n and (g + j) not in badges and segment(offs[j]) == seg:
                j += 1
            if seg < 0:
                out.append(_esc(text[i:j]))
            else:
                key = active[seg]
                # in preformatted text line breaks get their own span without an outline: an
                # outlined blank line would show as a stray bar
                for sub in _LINE_BREAK.split(text[i:j]) if p.pre else [text[i:j]]:
                    if sub:
                        outline = not ("\n" in sub and sub.isspace())
                        tag = opening.get((key, outline))
                        if tag is None:
                            covering = [hs[k] for k in key]
                            tag = opening[key, outline] = _span_open(covering, outline=outline)
                        out.append(f"{tag}{_esc(sub)}</span>")
            i = j
        g += n
    for rest in badges.values():  # highlights past the last visible character
        out.extend(_badge_html(x) if isinstance(x, Highlight) else _marker_html(x) for x in rest)
    return "".join(out)


_LINE_BREAK = re.compile(r"([^\S\n]*\n\s*)")


def _span_open(covering: Sequence[Highlight], *, outline: bool = True) -> str:
    tints = [h for h in covering if not h.underline]
    lines = [h for h in covering if h.underline]
    classes = [*(["ce-hl"] if tints else []), *(f"ce-chunk-{h.index}" for h in tints)]
    styles = []
    if len(tints) == 1:
        styles.append(f"background-color:{_rgba(tints[0].color, TINT_ALPHA)}")
    elif tints:
        classes.append("ce-overlap")
        stops = []
        for k, h in enumerate(tints):
            c = _rgba(h.color, OVERLAP_ALPHA)
            stops.append(f"{c} {k * 5}px {(k + 1) * 5}px")
        styles.append(
            f"background-color:{_rgba(tints[0].color, TINT_ALPHA)};"
            f"background-image:repeating-linear-gradient(135deg,{','.join(stops)})"
        )
    chosen = [h for h in tints if h.selected]
    if chosen:
        classes.append("ce-selected")
        if outline:
            styles.append(f"outline:2px solid {_darker_css(chosen[0].color)}")
    if lines:
        classes.append("ce-underline")
        styles.append(
            f"text-decoration-line:underline;text-decoration-color:{lines[0].color};"
            "text-decoration-thickness:3px;text-underline-offset:3px"
        )
    style = ";".join(styles)
    title = " + ".join(_title(h) for h in covering)
    return f'<span class="{" ".join(classes)}" style="{style}" title="{_attr(title)}">'


def _title(h: Highlight) -> str:
    if h.title is not None:
        return h.title
    return f"chunk {h.index}" if h.label is None else f"{h.label} (chunk {h.index})"


def _badge_html(h: Highlight) -> str:
    cls = "ce-badge ce-selected" if h.selected else "ce-badge"
    return (
        f'<span class="{cls}" data-index="{h.index}" '
        f'style="background-color:{h.color};color:{_ink_on(h.color)}" '
        f'title="{_attr(_title(h))}">{_esc(h.badge)}</span>'
    )


def _marker_html(m: Marker) -> str:
    title = f' title="{_attr(m.title)}"' if m.title else ""
    label = (
        f'<span class="ce-mark-label" style="color:{m.color}">{_esc(m.label)}</span>'
        if m.label
        else ""
    )
    return f'<span class="ce-mark" style="border-left-color:{m.color}"{title}>{label}</span>'


def marker_legend(entries: Sequence[tuple[Marker, str]]) -> str:
    """A one-line legend: each marker as drawn in the document, then its (escaped) meaning."""
    items = "".join(
        f'<span class="ce-legend-item">{_marker_html(m)}{_esc(text)}</span>' for m, text in entries
    )
    return _fragment(f'<div class="ce-legend">{items}</div>', "ce-legend-doc")


# --------------------------------------------------------------------------- styles

_MONO = 'ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace'
CSS = f"""
.ce-doc{{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,
sans-serif;font-size:16px;line-height:1.6;color:#1f2328;background:#fff;padding:.5em 1em;
overflow-wrap:break-word;text-align:left}}
.ce-doc *{{box-sizing:border-box}}
.ce-doc h1,.ce-doc h2,.ce-doc h3,.ce-doc h4,.ce-doc h5,.ce-doc h6{{margin:1.5em 0 .75em;
font-weight:600;line-height:1.25;color:#1f2328}}
.ce-doc h1{{font-size:2em;padding-bottom:.3em;border-bottom:1px solid #d1d9e0}}
.ce-doc h2{{font-size:1.5em;padding-bottom:.3em;border-bottom:1px solid #d1d9e0}}
.ce-doc h3{{font-size:1.25em}}.ce-doc h4{{font-size:1em}}.ce-doc h5{{font-size:.875em}}
.ce-doc h6{{font-size:.85em;color:#59636e}}
.ce-doc>style+*{{margin-top:0}}
.ce-doc p,.ce-doc blockquote,.ce-doc ul,.ce-doc ol,.ce-doc table,.ce-doc pre{{margin:0 0 1em}}
.ce-doc ul,.ce-doc ol{{padding-left:2em}}
.ce-doc ul ul,.ce-doc ul ol,.ce-doc ol ol,.ce-doc ol ul{{margin:0}}
.ce-doc li+li{{margin-top:.25em}}
.ce-doc li>p{{margin:.5em 0}}
.ce-doc blockquote{{margin-left:0;padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}}
.ce-doc code,.ce-doc pre,.ce-doc .ce-html{{font-family:{_MONO};font-size:85%}}
.ce-doc code{{padding:.2em .4em;background:rgba(129,139,152,.15);border-radius:6px}}
.ce-doc pre{{padding:1em;background:#f6f8fa;border-radius:6px;line-height:1.45;
white-space:pre-wrap;overflow-wrap:anywhere}}
.ce-doc pre code{{padding:0;background:transparent;font-size:100%;border-radius:0}}
.ce-doc pre.ce-html{{background:#fff8e6;color:#59636e}}
.ce-doc .ce-html{{color:#59636e}}
.ce-doc .ce-image{{color:#59636e;font-style:italic}}
.ce-doc .ce-note{{color:#59636e;font-style:italic;white-space:normal}}
.ce-doc table{{display:block;width:max-content;max-width:100%;overflow:auto;
border-collapse:collapse;border-spacing:0}}
.ce-doc th,.ce-doc td{{padding:6px 13px;border:1px solid #d1d9e0}}
.ce-doc th{{font-weight:600;background:#f6f8fa}}
.ce-doc tbody tr:nth-child(2n){{background:#f6f8fa}}
.ce-doc .ce-left{{text-align:left}}.ce-doc .ce-center{{text-align:center}}
.ce-doc .ce-right{{text-align:right}}
.ce-doc hr{{height:.25em;padding:0;margin:1.5em 0;background:#d1d9e0;border:0}}
.ce-doc a{{color:#0969da;text-decoration:underline;text-underline-offset:.2rem}}
.ce-doc a:not([href]){{color:inherit;text-decoration:underline dotted #d1242f}}
.ce-doc del{{color:#59636e}}
.ce-doc .ce-hl{{border-radius:2px;-webkit-box-decoration-break:clone;box-decoration-break:clone}}
.ce-doc .ce-badge{{display:inline-block;font:600 11px/1.35 -apple-system,"Segoe UI",Helvetica,
Arial,sans-serif;font-style:normal;padding:0 .45em;margin:0 2px 0 1px;border-radius:999px;
vertical-align:.45em;user-select:none;-webkit-user-select:none;white-space:nowrap}}
.ce-doc .ce-badge.ce-selected{{box-shadow:0 0 0 2px #1f2328}}
.ce-doc .ce-hl.ce-selected{{outline-offset:0}}
.ce-doc .ce-mark{{display:inline-block;position:relative;width:0;height:1.3em;
margin:0 1px 0 2px;vertical-align:-.3em;border-left:3px solid;user-select:none;
-webkit-user-select:none}}
.ce-doc .ce-mark-label{{position:absolute;left:-1px;top:-.95em;font:700 10px/1 -apple-system,
"Segoe UI",Helvetica,Arial,sans-serif;font-style:normal;white-space:nowrap}}
.ce-doc.ce-legend-doc{{padding:.9em 1em .2em}}
.ce-doc .ce-legend-item{{display:inline-block;margin-right:1.5em;font-size:14px}}
.ce-doc .ce-legend-item .ce-mark{{margin-right:.5em}}
.ce-doc.ce-plain{{font-family:{_MONO};font-size:14px;line-height:1.6;white-space:pre-wrap;
overflow-wrap:anywhere;tab-size:4}}
"""


_CSS_LINE = CSS.replace("\n", "")


def _fragment(body: str, kind: str) -> str:
    """The wrapper with its style block inside it (sanitisers such as DOMPurify drop a leading
    ``<style>`` that the browser would hoist into ``<head>``), all on one line."""
    return f'<div class="ce-doc {kind}"><style>{_CSS_LINE}</style>{body}</div>'


# --------------------------------------------------------------------------- long documents

WINDOW_CHARS = 120_000
"""The most source text drawn as HTML at once. Rendering is linear but not cheap (about 0.2 s
and 250 KB of HTML per 100,000 characters of Markdown, more with many highlights), and a browser
slows down on tens of megabytes of spans: a longer document is drawn a window at a time."""


@dataclass(frozen=True)
class Window:
    """The stretch ``[start, end)`` of a document's ``total`` characters that is drawn."""

    start: int
    end: int
    total: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end <= self.total:
            raise ValueError(f"window [{self.start}, {self.end}) outside [0, {self.total})")

    @property
    def whole(self) -> bool:
        return self.start == 0 and self.end == self.total


def window(text: str, around: int | None = None, *, size: int = WINDOW_CHARS) -> Window:
    """The part of ``text`` to draw: all of it when it has at most ``size`` characters, else about
    ``size`` characters with offset ``around`` (the document's start when ``None``) in the first
    third. Both ends move back to a blank line, or failing that a line start, within the last
    quarter of the window, so Markdown blocks are rarely cut (a block that is cut is drawn from
    where the window starts)."""
    if size < 1:
        raise ValueError(f"window size must be at least 1, got {size}")
    n = len(text)
    if n <= size:
        return Window(0, n, n)
    at = 0 if around is None else min(max(int(around), 0), n)
    start = max(0, min(at - size // 3, n - size))
    end = min(n, start + size)
    if start > 0:
        start = _cut(text, start, max(0, start - size // 4))
    if end < n:
        end = _cut(text, end, start + size - size // 4)
    return Window(start, max(end, start), n)


def _cut(text: str, pos: int, floor: int) -> int:
    """A place at or before ``pos`` (not before ``floor``) just after a blank line, else just
    after a line break, else ``pos`` itself."""
    for sep in ("\n\n", "\n"):
        p = text.rfind(sep, floor, pos)
        if p >= 0:
            return p + len(sep)
    return pos


def _in_window(
    w: Window, highlights: Sequence[Highlight], markers: Sequence[Marker]
) -> tuple[list[Highlight], list[Marker]]:
    """Highlights clipped to ``w`` and markers inside it, shifted to the window's offsets."""
    from dataclasses import replace

    hs = [
        replace(h, start=max(h.start, w.start) - w.start, end=min(h.end, w.end) - w.start)
        for h in highlights
        if h.end > w.start and h.start < w.end
    ]
    ms = [replace(m, offset=m.offset - w.start) for m in markers if w.start <= m.offset < w.end]
    return hs, ms


# --------------------------------------------------------------------------- plain text


def _plain(doc: Document, highlights: Sequence[Highlight], markers: Sequence[Marker] = ()) -> str:
    return _fragment(
        _paint([_Run(doc.text, range(len(doc.text)), pre=True)], highlights, markers), "ce-plain"
    )


def render_text(
    doc: Document,
    highlights: Sequence[Highlight],
    *,
    markers: Sequence[Marker] = (),
    window: Window | None = None,
) -> str:
    """Plain text (or a PDF's extracted text) in a wrapping monospace block, tinted.

    Offsets map one to one: the tinted text of a highlight is exactly ``doc.text[start:end]``.
    Each of ``markers`` is drawn just before the character at its offset. With ``window`` only
    ``doc.text[window.start:window.end]`` is drawn (see :func:`window`).
    """
    if window is not None and not window.whole:
        hs, ms = _in_window(window, highlights, markers)
        part = doc.text[window.start : window.end]
        return _fragment(_paint([_Run(part, range(len(part)), pre=True)], hs, ms), "ce-plain")
    return _plain(doc, highlights, markers)


# --------------------------------------------------------------------------- markdown


# Blocks nested deeper than MAX_NESTING (the loader's limit: a list level counts two) are beyond
# markdown-it's recursion guard, which silently drops what is inside them; such a document is
# shown as its source instead, with a note, so no text goes missing.


def render_markdown(
    doc: Document,
    highlights: Sequence[Highlight],
    *,
    raw: bool = False,
    markers: Sequence[Marker] = (),
    window: Window | None = None,
) -> str:
    """Markdown rendered as a reader sees it, the visible text of each highlight tinted.

    With ``raw=True`` the Markdown source is shown instead (escaped, white space kept).
    Returns one self-contained HTML fragment: a ``<style>`` block scoped to ``.ce-doc`` and a
    ``<div class="ce-doc">``. Each of ``markers`` is drawn just before the first visible
    character at or after its offset. Raw HTML in the document is never interpreted: it is
    shown as text, in a grey monospace face (``class="ce-html"``).

    With ``window`` only ``doc.text[window.start:window.end]`` is rendered (see :func:`window`);
    a block cut by the window's start is read from there (a code fence opened before the window
    shows as text, say).
    """
    if raw:
        return render_text(doc, highlights, markers=markers, window=window)
    text, hs, ms = doc.text, list(highlights), list(markers)
    if window is not None and not window.whole:
        text = doc.text[window.start : window.end]
        hs, ms = _in_window(window, highlights, markers)
    renderer = _MarkdownRenderer(text, front_matter=window is None or window.start == 0)
    parts = renderer.render()
    if renderer.too_deep:
        note = (
            f'<p class="ce-note">This Markdown nests blocks more than {MAX_NESTING} levels deep, '
            "beyond what the renderer follows: it is shown as its source.</p>"
        )
        body = _paint(
            ["<pre><code>", _Run(text, range(len(text)), pre=True), "</code></pre>"], hs, ms
        )
        return _fragment(note + body, "ce-md")
    return _fragment(_paint(parts, hs, ms), "ce-md")


def _normalize(text: str) -> tuple[str, Sequence[int]]:
    """markdown-it's input normalisation (line ends to ``\\n``, NUL to U+FFFD) with an offset map.

    Returns the normalised text and, for each of its characters, the offset in ``text``.
    """
    text = text.replace("\x00", "\ufffd")
    if "\r" not in text:
        return text, range(len(text))
    out: list[str] = []
    n2o: list[int] = []
    pos = 0
    for m in re.finditer(r"\r\n?", text):
        out.append(text[pos : m.start()])
        n2o.extend(range(pos, m.start()))
        out.append("\n")
        n2o.append(m.start())
        pos = m.end()
    out.append(text[pos:])
    n2o.extend(range(pos, len(text)))
    return "".join(out), n2o


_BLOCK_TAGS = {
    "paragraph": "p",
    "blockquote": "blockquote",
    "bullet_list": "ul",
    "ordered_list": "ol",
    "list_item": "li",
    "table": "table",
    "thead": "thead",
    "tbody": "tbody",
    "tr": "tr",
    "th": "th",
    "td": "td",
}
_INLINE_TAGS = {"em": "em", "strong": "strong", "s": "del"}
_ALIGN = re.compile(r"text-align:(left|center|right)")


class _MarkdownRenderer:
    """Walks markdown-it tokens, writing HTML and aligning visible text with source offsets.

    All searching happens in the normalised text (``\\n`` line ends); offsets are mapped back to
    ``doc.text`` when a run of text is emitted.
    """

    def __init__(self, text: str, *, front_matter: bool = True) -> None:
        self.norm, self.n2o = _normalize(text)
        self.too_deep = False  # markdown-it gave up on a block nested too deep
        self.starts = [0] + [m.end() for m in re.finditer("\n", self.norm)]
        self.parts: list[_Part] = []
        self._text: list[str] = []
        self._offsets: list[int] = []
        self.pre = False  # inside a code block: line breaks are shown
        # front matter, detected as the loader does, is shown as a code block
        fm_end = front_matter_end(text) if front_matter else 0
        self.body_line = bisect.bisect_left(line_starts(text), fm_end) if fm_end else 0

    # ---- helpers
    def line(self, k: int) -> int:
        """Offset (in the normalised text) where line ``k`` starts."""
        return self.starts[k] if k < len(self.starts) else len(self.norm)

    def emit(self, text: str, offsets: Sequence[int] | None) -> None:
        if not text:
            return
        if offsets is None:
            offs: list[int] = [-1] * len(text)
        else:
            n2o = self.n2o
            offs = [n2o[o] if o >= 0 else -1 for o in offsets]
        self._text.append(text)  # one run per stretch of text between two tags
        self._offsets.extend(offs)

    def markup(self, html: str) -> None:
        """Append trusted markup (written here, never taken from the document)."""
        self.flush()
        self.parts.append(html)

    def flush(self) -> None:
        if self._text:
            self.parts.append(_Run("".join(self._text), self._offsets, pre=self.pre))
            self._text, self._offsets = [], []

    def emit_at(self, text: str, p: int) -> None:
        self.emit(text, range(p, p + len(text)))

    def align(self, content: str, cur: int, limit: int) -> tuple[Sequence[int] | None, int]:
        """Where ``content`` sits in the source at or after ``cur``; ``(None, cur)`` if unknown.

        First an exact search; failing that, from each of the next few places where the first
        character occurs, every further character is looked for within a few characters of the
        previous one (this skips the backslash of ``\\|`` in a table cell).
        """
        norm = self.norm
        p = norm.find(content, cur, limit)
        if p >= 0:
            return range(p, p + len(content)), p + len(content)
        if not content:
            return None, cur
        anchor = cur
        for _ in range(8):
            anchor = norm.find(content[0], anchor, limit)
            if anchor < 0:
                break
            offs = [anchor]
            for ch in content[1:]:
                r = norm.find(ch, offs[-1] + 1, min(limit, offs[-1] + 4))
                if r < 0:
                    break
                offs.append(r)
            if len(offs) == len(content):
                return offs, offs[-1] + 1
            anchor += 1
        return None, cur

    def text(self, content: str, cur: int, limit: int) -> int:
        offs, cur = self.align(content, cur, limit)
        self.emit(content, offs)
        return cur

    # ---- blocks
    def render(self) -> list[_Part]:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING + 2})
        md.enable("table").enable("strikethrough")
        md.disable("text_join")  # keep escapes and entities as their own tokens, with markup
        md.validateLink = lambda url: True  # type: ignore[method-assign]  # safe_href decides
        if self.body_line:
            self.markup('<pre class="ce-frontmatter"><code>')
            self.pre = True
            self.emit_at(self.norm[: self.line(self.body_line)], 0)
            self.flush()
            self.pre = False
            self.markup("</code></pre>")
        base = self.body_line
        tokens = md.parse(self.norm[self.line(base) :])
        if any(tok.level >= MAX_NESTING for tok in tokens):  # deeper ones may be lost
            self.too_deep = True
            return []
        cur = 0
        for tok in tokens:
            t = tok.type
            m = tok.map
            span = (m[0] + base, m[1] + base) if m is not None else None
            if t == "inline":
                if span is None:
                    self.emit(tok.content, None)
                    continue
                cur = max(cur, self.line(span[0]))
                cur = self.inline(tok.children or [], cur, self.line(span[1]))
            elif t in ("fence", "code_block", "html_block"):
                cls = ' class="ce-html"' if t == "html_block" else ""
                self.markup(f"<pre{cls}><code>")
                first = -1 if span is None else span[0] + (1 if t == "fence" else 0)
                self.pre = True
                self.code_lines(tok.content, first)
                self.flush()
                self.pre = False
                self.markup("</code></pre>")
                if span is not None:
                    cur = max(cur, self.line(span[1]))
            elif t == "hr":
                self.markup("<hr>")
            elif t == "heading_open":
                level = tok.tag[1:] if re.fullmatch(r"h[1-6]", tok.tag) else "6"
                self.markup(f"<h{level}>")
            elif t == "heading_close":
                level = tok.tag[1:] if re.fullmatch(r"h[1-6]", tok.tag) else "6"
                self.markup(f"</h{level}>")
            elif t.endswith("_open") and t[:-5] in _BLOCK_TAGS:
                if not tok.hidden:
                    self.markup(self.open_tag(tok, _BLOCK_TAGS[t[:-5]]))
            elif t.endswith("_close") and t[:-6] in _BLOCK_TAGS:
                if not tok.hidden:
                    self.markup(f"</{_BLOCK_TAGS[t[:-6]]}>")
            elif tok.content:  # an unknown block token: show its text
                self.emit(tok.content, None)
        self.flush()
        return self.parts

    @staticmethod
    def open_tag(tok: Any, tag: str) -> str:
        if tag == "ol":
            start = tok.attrGet("start")
            if start is not None and str(start).isdigit() and int(start) != 1:
                return f'<ol start="{int(start)}">'
        if tag in ("th", "td"):
            m = _ALIGN.fullmatch(str(tok.attrGet("style") or ""))
            if m:
                return f'<{tag} class="ce-{m.group(1)}">'
        return f"<{tag}>"

    def code_lines(self, content: str, first: int) -> None:
        """Code (or raw HTML) shown verbatim; content line ``i`` comes from source line
        ``first + i``, minus any indentation or container prefix markdown-it removed."""
        norm = self.norm
        for i, ln in enumerate(content.splitlines(keepends=True)):
            body = ln.rstrip("\n")
            if first < 0:
                self.emit(ln, None)
                continue
            a, b = self.line(first + i), self.line(first + i + 1)
            end = b - 1 if b > a and norm[b - 1] == "\n" else b
            src = norm[a:end]
            if src.endswith(body):
                self.emit_at(body, end - len(body))
            else:
                stripped = body.lstrip()
                q = src.find(stripped) if stripped else -1
                if q >= 0:
                    self.emit(body[: len(body) - len(stripped)], None)
                    self.emit_at(stripped, a + q)
                else:
                    self.emit(body, None)
            if ln.endswith("\n"):
                self.emit("\n", [end] if end < len(norm) and norm[end] == "\n" else None)

    # ---- inline
    def inline(self, children: Sequence[Any], cur: int, limit: int) -> int:
        norm = self.norm
        for tok in children:
            t = tok.type
            if t == "text":
                cur = self.text(tok.content, cur, limit)
            elif t == "text_special":  # a backslash escape or an entity
                p = norm.find(tok.markup, cur, limit) if tok.markup else -1
                if p < 0:
                    self.emit(tok.content, None)
                else:
                    at = p + 1 if tok.info == "escape" else p
                    self.emit(tok.content, [at] * len(tok.content))
                    cur = p + len(tok.markup)
            elif t == "softbreak":
                p = norm.find("\n", cur, limit)
                self.emit("\n", None if p < 0 else [p])
                cur = cur if p < 0 else p + 1
            elif t == "hardbreak":
                self.markup("<br>")
                p = norm.find("\n", cur, limit)
                self.emit("\n", None if p < 0 else [p])
                cur = cur if p < 0 else p + 1
            elif t == "code_inline":
                cur = self.code_span(tok.content, tok.markup, cur, limit)
            elif t == "html_inline":
                self.markup('<span class="ce-html">')
                cur = self.text(tok.content, cur, limit)
                self.markup("</span>")
            elif t == "link_open":
                auto = tok.markup == "autolink"
                if norm.startswith("<" if auto else "[", cur):
                    cur += 1
                self.markup(self.link_tag(tok))
            elif t == "link_close":
                cur = self.skip_link_tail(cur, limit, auto=tok.markup == "autolink")
                self.markup("</a>")
            elif t == "image":  # never loaded: its alt text is shown instead
                p = norm.find("![", cur, limit)
                if p >= 0:
                    cur = p + 2
                self.markup('<span class="ce-image" title="image not loaded">')
                self.emit("[image: ", None)
                cur = self.inline(tok.children or [], cur, limit)
                self.emit("]", None)
                self.markup("</span>")
                cur = self.skip_link_tail(cur, limit, auto=False)
            elif t.endswith(("_open", "_close")) and t.rsplit("_", 1)[0] in _INLINE_TAGS:
                tag = _INLINE_TAGS[t.rsplit("_", 1)[0]]
                self.markup(f"<{tag}>" if t.endswith("_open") else f"</{tag}>")
                if tok.markup and norm.startswith(tok.markup, cur):
                    cur += len(tok.markup)
            elif tok.content:
                cur = self.text(tok.content, cur, limit)
        return cur

    def code_span(self, content: str, ticks: str, cur: int, limit: int) -> int:
        norm = self.norm
        p = norm.find(ticks, cur, limit) if ticks else -1
        if p < 0:
            self.markup("<code>")
            cur = self.text(content, cur, limit)
            self.markup("</code>")
            return cur
        q = p + len(ticks)
        r = q
        while True:  # the closing run: exactly as many backticks
            r = norm.find(ticks, r, limit)
            if r < 0 or (norm[r - 1] != "`" and not norm.startswith("`", r + len(ticks))):
                break
            while r < limit and norm[r] == "`":
                r += 1
        self.markup("<code>")
        if r < 0:
            cur = self.text(content, q, limit)
        else:
            inner = norm[q:r].replace("\n", " ")
            if inner == content:
                self.emit_at(content, q)
            elif inner[1:-1] == content:
                self.emit_at(content, q + 1)
            else:
                self.text(content, q, r)
            cur = r + len(ticks)
        self.markup("</code>")
        return cur

    @staticmethod
    def link_tag(tok: Any) -> str:
        href = safe_href(tok.attrGet("href"))
        if href is None:
            return '<a title="link removed: unsafe URL">'  # keep the text, lose the link
        title = tok.attrGet("title")
        t = f' title="{_attr(str(title))}"' if title else ""
        return f'<a href="{_attr(href)}"{t} rel="nofollow noopener noreferrer" target="_blank">'

    def skip_link_tail(self, cur: int, limit: int, *, auto: bool) -> int:
        """Move past what follows a link's text: ``](dest "title")``, ``][ref]``, ``]`` or ``>``."""
        norm = self.norm
        if auto:
            p = norm.find(">", cur, limit)
            return p + 1 if p >= 0 else cur
        p = norm.find("]", cur, limit)
        if p < 0:
            return cur
        q = p + 1
        if norm.startswith("(", q):
            from markdown_it.helpers import parseLinkDestination, parseLinkTitle

            pos = self.skip_space(q + 1, limit)
            if pos < limit and norm[pos] != ")":
                dest = parseLinkDestination(norm, pos, limit)
                if dest.ok:
                    pos = self.skip_space(dest.pos, limit)
                title = parseLinkTitle(norm, pos, limit)
                if title.ok:
                    pos = self.skip_space(title.pos, limit)
            return pos + 1 if norm.startswith(")", pos) else q
        if norm.startswith("[", q):
            r = norm.find("]", q + 1, limit)
            return r + 1 if r >= 0 else q
        return q

    def skip_space(self, pos: int, limit: int) -> int:
        while pos < limit and self.norm[pos] in " \t\n":
            pos += 1
        return pos


# --------------------------------------------------------------------------- PDF


def _fitz() -> Any:
    """PyMuPDF, imported on first use (it ships partial annotations only: treat as untyped)."""
    import pymupdf

    return pymupdf


def _open_pdf(pdf_bytes: bytes) -> Any:
    """The PDF opened as the reader opens it, every failure one DocumentError."""
    from explorer.documents.pdf import open_pdf

    return open_pdf(pdf_bytes, name="this PDF")


def pdf_page_count(pdf_bytes: bytes) -> int:
    """Number of pages of a PDF."""
    with _open_pdf(pdf_bytes) as pdf:
        return int(pdf.page_count)


def render_pdf_page(
    pdf_bytes: bytes,
    page_number: int,
    doc: Document,
    highlights: Sequence[Highlight],
    *,
    zoom: float = 1.5,
    markers: Sequence[Marker] = (),
) -> bytes:
    """A PNG of page ``page_number`` (1-based) with each highlight's lines tinted.

    Every highlight covers its lines (``doc.layout.rects``) with a translucent rectangle, so
    overlaps come out darker; selected highlights are also outlined; a badge with the label sits
    at each highlight's first rectangle. Each of ``markers`` is a vertical bar (with its label
    above) just left of the first glyph at or after its offset. ``zoom`` 1 is 72 dpi.
    """
    pymupdf = _fitz()
    if not zoom > 0:
        raise ValueError(f"zoom must be above 0, got {zoom!r}")
    with _open_pdf(pdf_bytes) as pdf:
        if not 1 <= page_number <= pdf.page_count:
            raise DocumentError(
                f"page {page_number} does not exist; this PDF has {pdf.page_count} page(s)"
            )
        page = pdf[page_number - 1]
        if doc.layout is not None and highlights:
            _draw_highlights(page, page_number, doc.layout, highlights)
        if doc.layout is not None and markers:
            _draw_markers(page, page_number, doc.layout, markers)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return bytes(pix.tobytes("png"))


def _draw_highlights(
    page: Any, page_number: int, layout: Layout, highlights: Sequence[Highlight]
) -> None:
    """Tint, outline and badge ``highlights`` on ``page`` (in layout coordinates: display
    orientation, origin top left; the derotation matrix maps them onto rotated pages)."""
    pymupdf = _fitz()
    derotate = page.derotation_matrix
    gstate = f"fitzca99{round(PDF_FILL_OPACITY * 100):02d}"  # PyMuPDF's name for our opacity
    pdf = page.parent
    multiply = _graphics_state(pdf, page.xref, gstate) is None
    shape = page.new_shape()
    line_starts_ = [line.start for line in layout.lines]
    badges: dict[int, list[Highlight]] = {}  # line index -> highlights starting on that line
    outlines: list[tuple[Highlight, list[Any]]] = []
    underlines: list[tuple[Highlight, list[Rect]]] = []
    for h in highlights:
        rects = layout.rects(h.start, h.end)
        if h.underline:
            underlines.append((h, [r for r in rects if r.page == page_number]))
            continue
        here = [
            pymupdf.Rect(r.x0, r.y0, r.x1, r.y1) * derotate for r in rects if r.page == page_number
        ]
        if not here:
            continue
        # one path per highlight: its own line boxes touching each other never darken
        for r in here:
            shape.draw_rect(r)
        rgb = tuple(c / 255 for c in _rgb(h.color))
        shape.finish(color=None, fill=rgb, fill_opacity=PDF_FILL_OPACITY, width=0)
        if h.selected:
            outlines.append((h, here))
        if rects[0].page == page_number:
            # the line holding the first glyph (the first rect's line, found by its offset)
            first_glyph = next(
                (i for i in range(h.start, h.end) if layout.x0[i] == layout.x0[i]), h.start
            )
            k = max(bisect.bisect_right(line_starts_, first_glyph) - 1, 0)
            badges.setdefault(k, []).append(h)
    for h, here in outlines:
        for r in here:
            shape.draw_rect(r)
        shape.finish(color=_darker(h.color), fill=None, width=1.2)
    for h, line_rects in underlines:  # a line under each line box, in layout coordinates
        for r in line_rects:
            shape.draw_line(
                pymupdf.Point(r.x0, r.y1 + 0.6) * derotate,
                pymupdf.Point(r.x1, r.y1 + 0.6) * derotate,
            )
        if line_rects:
            shape.finish(color=tuple(c / 255 for c in _rgb(h.color)), fill=None, width=1.6)
    for k, on_line in badges.items():
        line = layout.lines[k]
        whole = layout.rects(line.start, line.end)
        if not whole:
            continue
        _draw_badges(shape, page, on_line, whole[0])
    shape.commit(overlay=True)
    found = _graphics_state(pdf, page.xref, gstate) if multiply else None
    if found is not None:  # tint like a highlighter: the text below stays dark
        pdf.xref_set_key(found[0], found[1] + "BM", "/Multiply")


MARKER_SEARCH = 200
"""How far past a marker's offset to look for a glyph (text the loader inserted has none)."""


def _draw_markers(page: Any, page_number: int, layout: Layout, markers: Sequence[Marker]) -> None:
    """A bar just left of the first glyph at or after each marker's offset, label above it."""
    pymupdf = _fitz()
    derotate = page.derotation_matrix
    shape = page.new_shape()
    n = len(layout.x0)
    drawn = 0
    for m in markers:
        i, limit = m.offset, min(n, m.offset + MARKER_SEARCH)
        while i < limit and layout.x0[i] != layout.x0[i]:  # nan: no glyph
            i += 1
        rects = layout.rects(i, i + 1) if i < limit else []
        if not rects or rects[0].page != page_number:
            continue
        r = rects[0]
        x = r.x0 - 0.9
        rgb = tuple(c / 255 for c in _rgb(m.color))
        shape.draw_line(
            pymupdf.Point(x, r.y0 - 0.5) * derotate, pymupdf.Point(x, r.y1 + 0.5) * derotate
        )
        shape.finish(color=rgb, width=2.0)
        if m.label:
            size = max(5.0, min(7.0, (r.y1 - r.y0) * 0.6))
            shape.insert_text(
                pymupdf.Point(x - 0.8, r.y0 - 0.6) * derotate,
                m.label,
                fontname="helv",
                fontsize=size,
                color=rgb,
                rotate=page.rotation,
            )
        drawn += 1
    if drawn:
        shape.commit(overlay=True)


def _graphics_state(pdf: Any, xref: int, name: str) -> tuple[int, str] | None:
    """Where the page's graphics state ``name`` lives: ``(xref, key path prefix)``, or None.

    PyMuPDF's ``xref_set_key`` cannot follow indirect references, so each step is resolved.
    """
    prefix = ""
    for key in ("Resources", "ExtGState", name):
        kind, value = pdf.xref_get_key(xref, prefix + key)
        if kind == "xref":
            xref, prefix = int(value.split()[0]), ""
        elif kind == "dict":
            prefix += key + "/"
        else:
            return None
    return xref, prefix


def _draw_badges(shape: Any, page: Any, on_line: Sequence[Highlight], line: Rect) -> None:
    """Badges for the highlights starting on one line, side by side in the margin to its left
    (over the line's start when there is no margin; above it for vertical text)."""
    pymupdf = _fitz()
    vertical = line.y1 - line.y0 > 3 * (line.x1 - line.x0)
    thickness = (line.x1 - line.x0) if vertical else (line.y1 - line.y0)
    size = max(5.0, min(7.0, thickness * 0.6))
    height = size * 1.3
    widths = [
        pymupdf.get_text_length(h.badge, fontname="helv", fontsize=size) + size * 0.8
        for h in on_line
    ]
    gap = 1.0
    total = sum(widths) + gap * len(widths)
    if vertical:
        x = (line.x0 + line.x1 - total) / 2
        top = line.y0 - height - 1 if line.y0 - height - 1 >= 1 else line.y0
    else:
        x = line.x0 - total if line.x0 - total >= 1 else line.x0
        top = line.y0 + (line.y1 - line.y0 - height) / 2
    for h, width in zip(on_line, widths, strict=True):
        box = pymupdf.Rect(x, top, x + width, top + height)
        rgb = tuple(c / 255 for c in _rgb(h.color))
        shape.draw_rect(box * page.derotation_matrix, radius=0.3)
        shape.finish(color=(0, 0, 0) if h.selected else None, fill=rgb, width=0.8)
        ink = (1, 1, 1) if _ink_on(h.color) == "#fff" else (0.07, 0.07, 0.07)
        shape.insert_text(
            pymupdf.Point(x + size * 0.4, top + height - size * 0.38) * page.derotation_matrix,
            h.badge,
            fontname="helv",
            fontsize=size,
            color=ink,
            rotate=page.rotation,
        )
        x += width + gap
