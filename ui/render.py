"""Render: show where every chunk falls, on the document as a reader sees it.

A :class:`Highlight` is one span ``[start, end)`` of ``doc.text`` to tint. Three renderers turn a
document plus highlights into something a person can look at:

* :func:`render_markdown` renders Markdown the way GitHub shows it (headings, lists, tables, code)
  and tints the *visible* text of every span. It walks markdown-it's tokens itself and aligns
  every piece of visible text with the source offset it came from, so a chunk that ends
  mid-sentence ends mid-sentence on screen. ``raw=True`` shows the Markdown source instead.
* :func:`render_text` shows plain text (or a PDF's extracted text) with the same tints.
* :func:`render_pdf_page` draws translucent rectangles over the real PDF page: a PNG and the zoom
  it was drawn at (a large page smaller, within a pixel budget).

In the HTML, every tinted ``<span>`` carries the class ``ce-chunk-<index>`` of each highlight that
covers it; where two or more highlights overlap the span also has ``ce-overlap`` and diagonal
stripes of their colours. A badge (``<span class="ce-badge">``) with the highlight's label sits
just before its first visible character. Document content is never trusted: all text is
escaped, raw HTML is shown as text, images are not loaded and links keep only safe URLs.
"""

from __future__ import annotations

import bisect
import html
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.documents.model import Document

if TYPE_CHECKING:
    from explorer.chunking.records import Chunk

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
    struck: bool = False
    """Draw the text struck through and greyed: a chunk a what-if edit dropped from the index."""
    badged: bool = True
    """Draw its badge (a chunk drawn in several pieces has one, on its first)."""

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
    lo, hi = rgb(HEAT[i]), rgb(HEAT[i + 1])
    r, g, b = (round(a + (b - a) * t) for a, b in zip(lo, hi, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


DROPPED_COLOR = "#8c959f"
"""The grey of a chunk dropped from the index (drawn struck through)."""


def chunk_highlights(
    chunks: Iterable[Chunk],
    *,
    selected: int | None = None,
    held: Sequence[tuple[int, int]] | None = None,
) -> list[Highlight]:
    """One highlight per chunk, coloured by chunk index (so a chunk keeps its colour); a chunk
    dropped from the index by a what-if edit is grey, and struck through where no retrievable
    chunk holds its text (``held``: the spans of the retrievable chunks, by default those of
    ``chunks``; see :func:`dropped_highlights`)."""
    chunks = list(chunks)
    if held is None:
        held = retrievable_spans(chunks)
    out: list[Highlight] = []
    for c in chunks:
        if "dropped" in c.flags:
            out += dropped_highlights(c, held, selected=selected)
        else:
            out.append(
                Highlight(
                    c.start,
                    c.end,
                    c.index,
                    PALETTE[c.index % len(PALETTE)],
                    selected=c.index == selected,
                )
            )
    return out


def retrievable_spans(chunks: Iterable[Chunk]) -> list[tuple[int, int]]:
    """The text the chunks not dropped from the index hold, as sorted disjoint spans."""
    spans = sorted((c.start, c.end) for c in chunks if "dropped" not in c.flags)
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def dropped_highlights(
    c: Chunk, held: Sequence[tuple[int, int]], *, selected: int | None = None
) -> list[Highlight]:
    """Chunk ``c``, dropped from the index: grey, in pieces — struck through where no
    retrievable chunk holds its text (``held``: sorted disjoint spans), not struck where one
    does (that text is still found); its badge on the first piece."""
    cuts = [c.start]
    for a, b in held:
        if b <= c.start or a >= c.end:
            continue
        cuts += [max(a, c.start), min(b, c.end)]
    cuts.append(c.end)
    bounds = sorted(set(cuts))
    out: list[Highlight] = []
    for a, b in itertools.pairwise(bounds):
        kept = any(x <= a and b <= y for x, y in held)
        out.append(
            Highlight(
                a,
                b,
                c.index,
                DROPPED_COLOR,
                label=f"✕{c.index}",
                selected=c.index == selected,
                title=f"chunk {c.index}, dropped from the index"
                + ("; this text is also in a retrievable chunk" if kept else ""),
                struck=not kept,
                badged=not out,
            )
        )
    return out


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


def rgb(color: str) -> tuple[int, int, int]:
    h = color[1:]
    if len(h) == 3:
        h = "".join(ch * 2 for ch in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _rgba(color: str, alpha: float) -> str:
    r, g, b = rgb(color)
    return f"rgba({r},{g},{b},{alpha:g})"


def ink_on(color: str) -> str:
    """Black or white text, whichever reads better on ``color``."""
    r, g, b = rgb(color)
    return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def darker(color: str, factor: float = 0.6) -> tuple[float, float, float]:
    """``color`` darkened, as 0-1 RGB (for PyMuPDF)."""
    r, g, b = rgb(color)
    return r / 255 * factor, g / 255 * factor, b / 255 * factor


def _darker_css(color: str) -> str:
    r, g, b = (round(c * 255) for c in darker(color))
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


def attr(text: str) -> str:
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
class Run:
    """Visible text and, for each character, the ``doc.text`` offset it came from (or -1)."""

    text: str
    offsets: Sequence[int]
    pre: bool = False
    """Shown preformatted: line breaks in it are real line breaks."""


Part = str | Run  # a str is trusted markup that this module wrote


def paint(
    parts: Sequence[Part], highlights: Sequence[Highlight], markers: Sequence[Marker] = ()
) -> str:
    """Join markup and text, wrapping text in tinted spans and inserting badges and markers."""
    hs = list(highlights)
    if not hs and not markers:
        return "".join(p if isinstance(p, str) else _esc(p.text) for p in parts)

    # badges: at the first visible character at or after each highlight's start
    mapped: list[tuple[int, int]] = []  # (offset, position in the visible text)
    g = 0
    for p in parts:
        if isinstance(p, Run):
            mapped.extend((o, g + i) for i, o in enumerate(p.offsets) if o >= 0)
            g += len(p.text)
    mapped.sort()
    keys = [o for o, _ in mapped]
    badges: dict[int, list[Highlight | Marker]] = {}
    for m in sorted(markers, key=lambda m: m.offset):  # a marker goes before a badge
        i = bisect.bisect_left(keys, m.offset)
        badges.setdefault(mapped[i][1] if i < len(mapped) else g, []).append(m)
    for h in hs:
        if h.underline or not h.badged:
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
    struck = any(h.struck for h in tints)
    if lines:
        classes.append("ce-underline")
        styles.append(
            "text-decoration-line:underline"
            + (" line-through" if struck else "")
            + f";text-decoration-color:{lines[0].color};"
            "text-decoration-thickness:3px;text-underline-offset:3px"
        )
    elif struck:
        styles.append("text-decoration-line:line-through;text-decoration-thickness:2px")
    if struck:
        classes.append("ce-dropped")
        styles.append("color:#6e7781")
    style = ";".join(styles)
    title = " + ".join(_title(h) for h in covering)
    return f'<span class="{" ".join(classes)}" style="{style}" title="{attr(title)}">'


def _title(h: Highlight) -> str:
    if h.title is not None:
        return h.title
    return f"chunk {h.index}" if h.label is None else f"{h.label} (chunk {h.index})"


def _badge_html(h: Highlight) -> str:
    cls = "ce-badge ce-selected" if h.selected else "ce-badge"
    return (
        f'<span class="{cls}" data-index="{h.index}" '
        f'style="background-color:{h.color};color:{ink_on(h.color)}" '
        f'title="{attr(_title(h))}">{_esc(h.badge)}</span>'
    )


def _marker_html(m: Marker) -> str:
    title = f' title="{attr(m.title)}"' if m.title else ""
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
    return fragment_html(f'<div class="ce-legend">{items}</div>', "ce-legend-doc")


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
.ce-doc .ce-frontmatter{{margin:0 0 1em;padding:.35em .8em .45em;border:1px solid #d1d9e0;
border-radius:6px;background:#f6f8fa;font-family:{_MONO};font-size:12.5px;line-height:1.5;
color:#59636e}}
.ce-doc .ce-fm-head{{font:600 10.5px/1.7 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;
text-transform:uppercase;letter-spacing:.05em;color:#8c959f;user-select:none;
-webkit-user-select:none}}
.ce-doc .ce-fm-line{{white-space:pre-wrap;overflow-wrap:anywhere}}
.ce-doc .ce-fm-key{{color:#1f2328;font-weight:600}}
.ce-doc .ce-admonition{{margin:0 0 1em;padding:.55em 1em .05em;border:1px solid #d1d9e0;
border-left:.3em solid #8c959f;border-radius:6px}}
.ce-doc .ce-adm-title{{margin:0 0 .35em;font-weight:600;color:#59636e}}
.ce-doc .ce-adm-kind{{font-variant-caps:all-small-caps;letter-spacing:.04em}}
.ce-doc .ce-adm-info{{border-left-color:#0969da}}.ce-doc .ce-adm-info>.ce-adm-title{{color:#0969da}}
.ce-doc .ce-adm-tip{{border-left-color:#1a7f37}}.ce-doc .ce-adm-tip>.ce-adm-title{{color:#1a7f37}}
.ce-doc .ce-adm-warning{{border-left-color:#9a6700}}
.ce-doc .ce-adm-warning>.ce-adm-title{{color:#9a6700}}
.ce-doc .ce-adm-danger{{border-left-color:#cf222e}}
.ce-doc .ce-adm-danger>.ce-adm-title{{color:#cf222e}}

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


def fragment_html(body: str, kind: str) -> str:
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


def in_window(
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
    return fragment_html(
        paint([Run(doc.text, range(len(doc.text)), pre=True)], highlights, markers), "ce-plain"
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
        hs, ms = in_window(window, highlights, markers)
        part = doc.text[window.start : window.end]
        return fragment_html(paint([Run(part, range(len(part)), pre=True)], hs, ms), "ce-plain")
    return _plain(doc, highlights, markers)


# --------------------------------------------------------------------------- markdown
