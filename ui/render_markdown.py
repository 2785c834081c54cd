"""Markdown rendered as a reader sees it (headings, lists, tables, code), the *visible* text of
every highlight tinted: markdown-it's tokens are walked here and every piece of visible text is
aligned with the source offset it came from, so a chunk that ends mid-sentence ends mid-sentence
on screen. Raw HTML is shown as text, images are not loaded and links keep only safe URLs."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Any

from explorer.documents.load import MAX_NESTING, front_matter_end, line_starts
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
    renderer = _MarkdownRenderer(text, front_matter=window is None or window.start == 0)
    parts = renderer.render()
    if renderer.too_deep:
        note = (
            f'<p class="ce-note">This Markdown nests blocks more than {MAX_NESTING} levels deep, '
            "beyond what the renderer follows: it is shown as its source.</p>"
        )
        body = paint(
            ["<pre><code>", Run(text, range(len(text)), pre=True), "</code></pre>"], hs, ms
        )
        return fragment_html(note + body, "ce-md")
    return fragment_html(paint(parts, hs, ms), "ce-md")


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
        self.parts: list[Part] = []
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
            self.parts.append(Run("".join(self._text), self._offsets, pre=self.pre))
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
    def render(self) -> list[Part]:
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
        t = f' title="{attr(str(title))}"' if title else ""
        return f'<a href="{attr(href)}"{t} rel="nofollow noopener noreferrer" target="_blank">'

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
