"""Markdown as a reader sees it: what markdown-it renders, each piece of visible text aligned
with the source offset it came from.

:class:`MarkdownWalker` walks the tokens and tells a :class:`Sink` every stretch of visible text
(with the ``doc.text`` offset of each character, or -1) and where each element opens and
closes. The app's renderer is one sink (HTML, tinted by chunk); :func:`rendered_text` is
another: the page's text as one string with the source offset of every character, so that a
phrase copied from the rendered page — inline code without its backticks, emphasis without its
markers, a link's text without its URL, entities decoded — is found in the source and covers the
markup between its words.
"""

from __future__ import annotations

import bisect
import copy
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from explorer.documents.load import MAX_NESTING, line_starts
from explorer.documents.model import Document
from explorer.documents.site_markdown import (
    CONTAINER_CLOSE,
    CONTAINER_OPEN,
    anchor_length,
    container_label,
    enable_containers,
    front_matter_end,
    front_matter_lines,
)


class Sink(Protocol):
    """What a :class:`MarkdownWalker` tells: text, and elements opening and closing.

    Elements: ``front_matter`` (its lines: ``meta_line``, each with its ``meta_key``),
    ``admonition`` (a ``:::`` container) and its ``admonition_title``, ``code_block``,
    ``html_block``, ``hr``, ``h1`` … ``h6``, :data:`BLOCKS`, ``br``, ``html_inline``, ``link``,
    ``image``, ``code_inline`` and :data:`INLINE`; ``tok`` is markdown-it's token where it has
    one (a link's ``href``, a cell's alignment, an ordered list's start), a
    :class:`~explorer.documents.site_markdown.MetaLine` for a ``meta_line`` and a
    :class:`~explorer.documents.site_markdown.Label` for an admonition and its title."""

    def text(self, text: str, offsets: list[int]) -> None: ...

    def open(self, element: str, tok: Any) -> None: ...

    def close(self, element: str) -> None: ...


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


BLOCKS = (
    "paragraph",
    "blockquote",
    "bullet_list",
    "ordered_list",
    "list_item",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
)
"""The container elements a sink is told of by markdown-it's names (``paragraph_open`` …)."""
INLINE = ("em", "strong", "s")
"""The inline elements around visible text (``s``: strikethrough)."""


class MarkdownWalker:
    """Walks markdown-it tokens, telling ``sink`` what a reader sees: each stretch of visible
    text with the source offset of every character, and where each element opens and closes.

    All searching happens in the normalised text (``\\n`` line ends); offsets are mapped back to
    ``doc.text`` when a stretch of text is given to the sink.
    """

    def __init__(self, text: str, sink: Sink, *, front_matter: bool = True) -> None:
        self.norm, self.n2o = _normalize(text)
        self.sink = sink
        self.too_deep = False  # markdown-it gave up on a block nested too deep
        self.starts = [0] + [m.end() for m in re.finditer("\n", self.norm)]
        # front matter, detected as the loader does, is shown as its lines (the fences are not)
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
        self.sink.text(text, offs)

    def open(self, element: str, tok: Any = None) -> None:
        self.sink.open(element, tok)

    def close(self, element: str) -> None:
        self.sink.close(element)

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
    def walk(self) -> None:
        """Tell the sink the whole document (``too_deep`` says when it could not)."""
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING + 2})
        md.enable("table").enable("strikethrough")
        md.disable("text_join")  # keep escapes and entities as their own tokens, with markup
        md.validateLink = lambda url: True  # type: ignore[method-assign]  # the sink decides
        enable_containers(md)
        self.md = md
        if self.body_line:
            self.front_matter()
        base = self.body_line
        tokens = md.parse(self.norm[self.line(base) :])
        if any(tok.level >= MAX_NESTING for tok in tokens):  # deeper ones may be lost
            self.too_deep = True
            return
        cur = 0
        heading = False
        for tok in tokens:
            t = tok.type
            m = tok.map
            span = (m[0] + base, m[1] + base) if m is not None else None
            if t == "inline":
                if span is None:
                    self.emit(tok.content, None)
                    continue
                children: Sequence[Any] = tok.children or []
                if heading:  # a trailing {#custom-id} names the anchor; it is not shown
                    children = _drop_tail(children, anchor_length(tok.content.rstrip()))
                cur = max(cur, self.line(span[0]))
                cur = self.inline(children, cur, self.line(span[1]))
            elif t == CONTAINER_OPEN:
                label = container_label(tok.info)
                self.open("admonition", label)
                if span is not None:
                    self.container_title(tok, label, span[0])
            elif t == CONTAINER_CLOSE:
                self.close("admonition")
            elif t in ("fence", "code_block", "html_block"):
                block = "html_block" if t == "html_block" else "code_block"
                self.open(block, tok)
                first = -1 if span is None else span[0] + (1 if t == "fence" else 0)
                self.code_lines(tok.content, first)
                self.close(block)
                if span is not None:
                    cur = max(cur, self.line(span[1]))
            elif t == "hr":
                self.open("hr")
                self.close("hr")
            elif t in ("heading_open", "heading_close"):
                level = tok.tag[1:] if re.fullmatch(r"h[1-6]", tok.tag) else "6"
                heading = t == "heading_open"
                (self.open if heading else self.close)(f"h{level}")
            elif t.endswith("_open") and t[:-5] in BLOCKS:
                if not tok.hidden:
                    self.open(t[:-5], tok)
            elif t.endswith("_close") and t[:-6] in BLOCKS:
                if not tok.hidden:
                    self.close(t[:-6])
            elif tok.content:  # an unknown block token: show its text
                self.emit(tok.content, None)

    def front_matter(self) -> None:
        """The front matter's lines, each with its key (the ``---`` fences are not shown); past
        :data:`META_LINES` lines, its text as one run (metadata that long is data, not a
        page's metadata, and a line at a time would cost more than the rest of the page)."""
        norm = self.norm
        self.open("front_matter")
        end = self.line(self.body_line)
        if norm.count("\n", 0, end) > META_LINES:
            first = norm.find("\n") + 1
            last = norm.rfind("\n", first, end - 1) + 1
            self.open("meta_line", None)
            self.emit_at(norm[first:last].rstrip("\n"), first)
            self.close("meta_line")
            self.close("front_matter")
            return
        for ln in front_matter_lines(norm):
            self.open("meta_line", ln)
            if ln.key_end > ln.start:
                self.open("meta_key")
                self.emit_at(norm[ln.start : ln.key_end], ln.start)
                self.close("meta_key")
            self.emit_at(norm[ln.key_end : ln.end], ln.key_end)
            self.close("meta_line")
        self.close("front_matter")

    def container_title(self, tok: Any, label: Any, line: int) -> None:
        """A container's title as its opening line writes it (inline Markdown read), or its kind
        where it has none; the colons and attributes are not shown."""
        norm = self.norm
        a, b = self.line(line), self.line(line + 1)
        p = norm.find(tok.markup, a, b) if tok.markup else -1
        if p < 0:
            return
        info = p + len(tok.markup)
        self.open("admonition_title", label)
        if label.title_end > label.title_start:
            start, end = info + label.title_start, info + label.title_end
            parsed = self.md.parseInline(norm[start:end])
            self.inline(parsed[0].children or [] if parsed else [], start, end)
        elif label.kind:
            self.emit_at(label.kind, info + label.kind_start)
        self.close("admonition_title")

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
                    # an escape points at what it escapes; a lone backslash at itself
                    at = p + 1 if tok.info == "escape" and tok.content != tok.markup else p
                    self.emit(tok.content, [at] * len(tok.content))
                    cur = p + len(tok.markup)
            elif t == "softbreak":
                p = norm.find("\n", cur, limit)
                self.emit("\n", None if p < 0 else [p])
                cur = cur if p < 0 else p + 1
            elif t == "hardbreak":
                self.open("br")
                self.close("br")
                p = norm.find("\n", cur, limit)
                self.emit("\n", None if p < 0 else [p])
                cur = cur if p < 0 else p + 1
            elif t == "code_inline":
                cur = self.code_span(tok.content, tok.markup, cur, limit)
            elif t == "html_inline":
                self.open("html_inline", tok)
                cur = self.text(tok.content, cur, limit)
                self.close("html_inline")
            elif t == "link_open":
                auto = tok.markup == "autolink"
                if norm.startswith("<" if auto else "[", cur):
                    cur += 1
                self.open("link", tok)
            elif t == "link_close":
                cur = self.skip_link_tail(cur, limit, auto=tok.markup == "autolink")
                self.close("link")
            elif t == "image":  # never loaded: its alt text is shown instead
                p = norm.find("![", cur, limit)
                if p >= 0:
                    cur = p + 2
                self.open("image", tok)
                cur = self.inline(tok.children or [], cur, limit)
                self.close("image")
                cur = self.skip_link_tail(cur, limit, auto=False)
            elif t.endswith(("_open", "_close")) and t.rsplit("_", 1)[0] in INLINE:
                name = t.rsplit("_", 1)[0]
                if t.endswith("_open"):
                    self.open(name, tok)
                else:
                    self.close(name)
                if tok.markup and norm.startswith(tok.markup, cur):
                    cur += len(tok.markup)
            elif tok.content:
                cur = self.text(tok.content, cur, limit)
        return cur

    def code_span(self, content: str, ticks: str, cur: int, limit: int) -> int:
        norm = self.norm
        p = norm.find(ticks, cur, limit) if ticks else -1
        if p < 0:
            self.open("code_inline")
            cur = self.text(content, cur, limit)
            self.close("code_inline")
            return cur
        q = p + len(ticks)
        r = q
        while True:  # the closing run: exactly as many backticks
            r = norm.find(ticks, r, limit)
            if r < 0 or (norm[r - 1] != "`" and not norm.startswith("`", r + len(ticks))):
                break
            while r < limit and norm[r] == "`":
                r += 1
        self.open("code_inline")
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
        self.close("code_inline")
        return cur

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


META_LINES = 1000
"""Front matter longer than this many lines is drawn as one run of text."""


def _drop_tail(children: Sequence[Any], n: int) -> Sequence[Any]:
    """Inline ``children`` without their last ``n`` characters of plain text."""
    out = list(children)
    while n > 0 and out and out[-1].type == "text":
        last = out.pop()
        if len(last.content) > n:
            kept = copy.copy(last)
            kept.content = last.content[: len(last.content) - n].rstrip()
            out.append(kept)
            break
        n -= len(last.content)
    return out


# --------------------------------------------------------------------------- the rendered text

BREAKS = frozenset(
    {"front_matter", "meta_line", "admonition", "admonition_title", "code_block", "html_block",
     "hr", "br", "paragraph", "list_item", "blockquote", "tr", "table",
     *(f"h{n}" for n in range(1, 7))}
)  # fmt: skip
"""Elements a reader sees on a line of their own: a line break follows each."""


@dataclass(frozen=True)
class Rendered:
    """The text a reader sees on the rendered page, and for each of its characters the
    ``doc.text`` offset it came from (a line break or cell separator the page adds takes the
    offset of the text before it)."""

    text: str
    origin: array[int]

    @cached_property
    def spaced(self) -> str:
        """The text with every run of white space one space (as a page reads)."""
        return " ".join(self.text.split())

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The ``doc.text`` span of the rendered ``[start, end)``: from its first character's
        source to just after its last's (the markup between them included)."""
        return self.origin[start], self.origin[end - 1] + 1


class _TextSink:
    """Collects the rendered text: cells joined by `` | ``, a line break after each block."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.origin = array("q")
        self.last = 0

    def text(self, text: str, offsets: list[int]) -> None:
        for o in offsets:
            if o >= 0:
                self.last = o
            self.origin.append(o if o >= 0 else self.last)
        self.parts.append(text)

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.origin.extend([self.last] * len(text))

    def open(self, element: str, tok: Any) -> None:
        if element in ("th", "td") and self.parts and not self.parts[-1].endswith("\n"):
            self.add(" | ")

    def close(self, element: str) -> None:
        if element in BREAKS:
            self.add("\n")


def rendered_text(doc: Document) -> Rendered | None:
    """What a reader sees of a Markdown document, with every character's source offset
    (``None`` for other kinds, whose text is what the page shows, and for Markdown nested too
    deep to render, which the page shows as its source)."""
    if doc.kind != "markdown":
        return None
    sink = _TextSink()
    walker = MarkdownWalker(doc.text, sink)
    walker.walk()
    if walker.too_deep:
        return None
    return Rendered("".join(sink.parts), sink.origin)
