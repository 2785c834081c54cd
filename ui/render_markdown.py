"""Markdown rendered as a reader sees it (headings, lists, tables, code), the *visible* text of
every highlight tinted: markdown-it's tokens are walked here and every piece of visible text is
aligned with the source offset it came from, so a chunk that ends mid-sentence ends mid-sentence
on screen. Raw HTML is shown as text, images are not loaded and links keep only safe URLs.
Documentation sites' front matter is a small metadata box of its lines and a ``:::`` container an
admonition box under its title (:mod:`explorer.documents.site_markdown`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from explorer.documents.captions import is_caption
from explorer.documents.load import MAX_NESTING
from explorer.documents.markdown_view import MarkdownWalker
from explorer.documents.model import Document
from ui.render import (
    Highlight,
    Marker,
    Part,
    Run,
    Window,
    attr,
    fragment_html,
    in_window,
    paint,
    render_text,
    safe_href,
)

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
        hs, ms = in_window(window, highlights, markers)
    html = HtmlSink(text)
    walker = MarkdownWalker(text, html, front_matter=window is None or window.start == 0)
    walker.walk()
    parts = html.finish()
    if walker.too_deep:
        note = (
            f'<p class="ce-note">This Markdown nests blocks more than {MAX_NESTING} levels deep, '
            "beyond what the renderer follows: it is shown as its source.</p>"
        )
        body = paint(
            ["<pre><code>", Run(text, range(len(text)), pre=True), "</code></pre>"], hs, ms
        )
        return fragment_html(note + body, "ce-md")
    return fragment_html(paint(parts, hs, ms), "ce-md")


_TAGS = {
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
    "em": "em",
    "strong": "strong",
    "s": "del",
    "code_inline": "code",
    **{f"h{n}": f"h{n}" for n in range(1, 7)},
}
_ALIGN = re.compile(r"text-align:(left|center|right)")
ADMONITION_STYLES = {
    "note": "info", "info": "info", "tip": "tip", "success": "tip", "important": "warning",
    "warning": "warning", "caution": "warning", "danger": "danger", "error": "danger",
    "details": "details",
}  # fmt: skip
"""The box style of each container kind VitePress and Docusaurus name; any other kind is drawn
plain (``ce-adm-other``): a class name never comes from the document."""


class HtmlSink:
    """The walker's text and elements as HTML parts: trusted markup written here, and runs of
    the document's text (escaped and tinted by :func:`paint`)."""

    def __init__(self, source: str = "") -> None:
        self.source = source  # the Markdown walked: a paragraph's lines tell a caption
        self._line_starts: list[int] | None = None
        self.parts: list[Part] = []
        self._text: list[str] = []
        self._offsets: list[int] = []
        self.pre = False  # inside a code block: line breaks are shown

    def text(self, text: str, offsets: list[int]) -> None:
        self._text.append(text)  # one run per stretch of text between two tags
        self._offsets.extend(offsets)

    def markup(self, html: str) -> None:
        """Append trusted markup (written here, never taken from the document)."""
        self.flush()
        self.parts.append(html)

    def flush(self) -> None:
        if self._text:
            self.parts.append(Run("".join(self._text), self._offsets, pre=self.pre))
            self._text, self._offsets = [], []

    def finish(self) -> list[Part]:
        self.flush()
        return self.parts

    def open(self, element: str, tok: Any) -> None:
        if element in ("code_block", "html_block"):
            cls = ' class="ce-html"' if element == "html_block" else ""
            self.markup(f"<pre{cls}><code>")
            self.pre = True
        elif element == "front_matter":
            self.markup(
                '<div class="ce-frontmatter" title="The page\'s front matter: its metadata, '
                'kept in the text">'
                '<div class="ce-fm-head">Front matter</div>'
            )
        elif element == "meta_line":
            indent = min(int(getattr(tok, "indent", 0)), 40)
            pad = f' style="padding-left:{0.5 * indent:g}em"' if indent else ""
            self.markup(f'<div class="ce-fm-line"{pad}>')
        elif element == "meta_key":
            self.markup('<span class="ce-fm-key">')
        elif element == "admonition":
            style = ADMONITION_STYLES.get(str(getattr(tok, "kind", "")).lower(), "other")
            self.markup(f'<div class="ce-admonition ce-adm-{style}">')
        elif element == "admonition_title":
            titled = getattr(tok, "title_end", 0) > getattr(tok, "title_start", 0)
            self.markup(
                '<p class="ce-adm-title">' if titled else '<p class="ce-adm-title ce-adm-kind">'
            )
        elif element == "hr":
            self.markup("<hr>")
        elif element == "br":
            self.markup("<br>")
        elif element == "html_inline":
            self.markup('<span class="ce-html">')
        elif element == "link":
            self.markup(self.link_tag(tok))
        elif element == "image":  # never loaded: its alt text is shown instead
            self.markup('<span class="ce-image" title="image not loaded">')
            self.text("[image: ", [-1] * 8)
        elif element == "paragraph" and self.is_caption(tok):
            self.markup('<p class="ce-caption">')
        else:
            self.markup(self.open_tag(tok, _TAGS[element]))

    def is_caption(self, tok: Any) -> bool:
        """Whether the paragraph ``tok`` opens reads as a caption (its source lines)."""
        lines = getattr(tok, "map", None)
        if not self.source or not lines:
            return False
        if self._line_starts is None:
            self._line_starts = [0, *(m.end() for m in re.finditer("\n", self.source))]
        starts = self._line_starts
        first, last = lines
        if first >= len(starts):
            return False
        end = starts[last] if last < len(starts) else len(self.source)
        return is_caption(self.source[starts[first] : end])

    def close(self, element: str) -> None:
        if element in ("code_block", "html_block"):
            self.flush()
            self.pre = False
            self.markup("</code></pre>")
        elif element in ("front_matter", "meta_line", "admonition"):
            self.markup("</div>")
        elif element == "meta_key":
            self.markup("</span>")
        elif element == "admonition_title":
            self.markup("</p>")
        elif element in ("hr", "br"):
            return
        elif element == "html_inline":
            self.markup("</span>")
        elif element == "link":
            self.markup("</a>")
        elif element == "image":
            self.text("]", [-1])
            self.markup("</span>")
        else:
            self.markup(f"</{_TAGS[element]}>")

    @staticmethod
    def open_tag(tok: Any, tag: str) -> str:
        if tok is None:
            return f"<{tag}>"
        if tag == "ol":
            start = tok.attrGet("start")
            if start is not None and str(start).isdigit() and int(start) != 1:
                return f'<ol start="{int(start)}">'
        if tag in ("th", "td"):
            m = _ALIGN.fullmatch(str(tok.attrGet("style") or ""))
            if m:
                return f'<{tag} class="ce-{m.group(1)}">'
        return f"<{tag}>"

    @staticmethod
    def link_tag(tok: Any) -> str:
        href = safe_href(tok.attrGet("href"))
        if href is None:
            return '<a title="link removed: unsafe URL">'  # keep the text, lose the link
        title = tok.attrGet("title")
        t = f' title="{attr(str(title))}"' if title else ""
        return f'<a href="{attr(href)}"{t} rel="nofollow noopener noreferrer" target="_blank">'
