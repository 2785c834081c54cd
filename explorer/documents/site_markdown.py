"""Markdown as documentation sites write it (VitePress, Docusaurus, VuePress, Pandoc): YAML
front matter, ``:::`` containers and ``{#id}`` heading anchors.

What the document's text (the one text every offset refers to) holds for them:

* **Front matter stays in the text as written.** ``doc.text`` is the file's source, so a chunk
  holds the front matter as any splitter run over the file would, and every offset is a source
  position. It is one ``code`` block (never cut inside). The page draws it as a small metadata box
  of its lines (``title: Versioning``), without its ``---`` fences, not as a code sample of the
  page. Its ``title:`` is the document's metadata title; when the body has no level-1 heading it
  is also the page's top heading (Docusaurus draws it as the page's H1), spanning the ``title:``
  line, so the heading paths of the sections below start with it.
* **A container stays in the text with its marker lines.** ``::: tip``, ``:::note Title``,
  ``:::note[Title]``, ``::: details Click me {open}`` and containers nested inside longer markers
  (``::::``) are read as markdown-it-container reads them (VitePress's own parser): content up to
  a closing line of at least as many colons, or to the end of the enclosing block when there is
  none. A container is a ``blockquote`` block (an aside, as GitHub's alerts are block quotes) from
  its opening line through its closing line, so a chunk that ends after the closing marker ends
  cleanly; its content is Markdown, parsed, chunked and highlighted like any block. The page draws
  it as an admonition box headed by its title, or by its kind where it has none (``tip``), from
  their source characters; the colons, the ``{...}`` attributes and the closing line are not
  drawn.
* **A heading's trailing ``{#custom-id}``** is not part of its title or heading path, and is not
  drawn, as both sites read it.

A page without any of them parses and renders exactly as it did before this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

CONTAINER = "admonition"
"""The container's name in markdown-it's token types."""
CONTAINER_OPEN = f"container_{CONTAINER}_open"
CONTAINER_CLOSE = f"container_{CONTAINER}_close"

_FRONT_MATTER = re.compile(r"---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_FM_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")
_FM_KEY = re.compile(r"[ \t]*(?:-[ \t]+)?[^\s:#'\"-][^:\r\n]*?:(?=[ \t]|$)")
_FM_TITLE = re.compile(r"^title:[ \t]*(\S[^\r\n]*?)[ \t]*\r?$", re.M)
_KIND = re.compile(r"[ \t]*([A-Za-z][\w-]*)")
_ATTRS = re.compile(r"[ \t]*\{[^{}]*\}[ \t]*$")
_ANCHOR = re.compile(r"[ \t]+\{#[^\s{}]*\}[ \t]*$")


# --------------------------------------------------------------------------- front matter


def front_matter_end(text: str) -> int:
    """Length of a leading YAML front-matter block (``---`` ... ``---``), or 0."""
    m = _FRONT_MATTER.match(text)
    return m.end() if m else 0


@dataclass(frozen=True, slots=True)
class MetaLine:
    """One line of the front matter between its fences: ``[start, end)`` without the line
    break, its indentation ``indent`` (characters) and ``key_end``, the end of its ``key:`` (the
    line's start when it has no key: a list item or a continued value)."""

    start: int
    end: int
    indent: int
    key_end: int


def front_matter_lines(text: str) -> list[MetaLine]:
    """The non-blank lines of ``text``'s front matter (none without front matter); offsets into
    ``text``."""
    end = front_matter_end(text)
    out: list[MetaLine] = []
    if not end:
        return out
    lines = [m for m in _FM_LINE.finditer(text, 0, end) if m.group()]
    for m in lines[1:-1]:  # the fences are not metadata
        a = m.start()
        e = a + len(m.group().rstrip("\r\n"))
        body = text[a:e]
        if not body.strip():
            continue
        indent = len(body) - len(body.lstrip(" \t"))
        key = _FM_KEY.match(body)
        out.append(MetaLine(a + indent, e, indent, a + key.end() if key else a + indent))
    return out


def front_matter_title(text: str) -> tuple[str, int, int] | None:
    """The front matter's top-level ``title:`` (quotes removed) and the span of its line, or
    ``None``. One search in C over the front matter, however long it is."""
    end = front_matter_end(text)
    for m in _FM_TITLE.finditer(text, 0, end):
        title = m.group(1)
        if len(title) >= 2 and title[0] == title[-1] and title[0] in "'\"":
            title = title[1:-1]
        title = " ".join(title.split())
        if title:
            return title, m.start(), m.end(1)
    return None


# --------------------------------------------------------------------------- containers


def enable_containers(md: MarkdownIt) -> MarkdownIt:
    """``md`` reading ``:::`` containers (any kind, one token type: :data:`CONTAINER_OPEN`)."""
    from mdit_py_plugins.container import container_plugin

    container_plugin(md, CONTAINER, validate=_opens)
    return md


def _opens(params: str, *_markup: str) -> bool:
    """A container opens with a kind after its colons (``:::`` alone closes one)."""
    return _KIND.match(params) is not None


@dataclass(frozen=True, slots=True)
class Label:
    """What heads a container: its ``kind`` (``tip``) and the span of its title in the text after
    the colons (``title_end == title_start`` when it has none; the kind is shown then, from
    ``kind_start``)."""

    kind: str
    kind_start: int
    title_start: int
    title_end: int


def container_label(info: str) -> Label:
    """The kind and title of a container from the text after its colons: ``" tip Title"``,
    ``"note[Title]{.cls}"``, ``" details Click me {open}"``."""
    m = _KIND.match(info)
    if m is None:
        return Label("", 0, 0, 0)
    rest = m.end()
    if info.startswith("[", rest):  # Docusaurus's label: the first balanced [...]
        depth = 0
        for i in range(rest, len(info)):
            depth += {"[": 1, "]": -1}.get(info[i], 0)
            if depth == 0:
                return _label(m, info, rest + 1, i)
        return _label(m, info, rest + 1, len(info))
    attrs = _ATTRS.search(info, rest)
    return _label(m, info, rest, attrs.start() if attrs else len(info))


def _label(m: re.Match[str], info: str, start: int, end: int) -> Label:
    while start < end and info[start].isspace():
        start += 1
    while end > start and info[end - 1].isspace():
        end -= 1
    return Label(m.group(1), m.start(1), start, end)


def closes(line: str, markup: str) -> bool:
    """Whether ``line`` closes a container opened with ``markup`` (at least as many colons,
    nothing but white space after them)."""
    body = line.strip()
    return len(body) >= len(markup) and body == ":" * len(body)


# --------------------------------------------------------------------------- headings


def anchor_length(title: str) -> int:
    """The length of a heading's trailing ``{#custom-id}`` (with the space before it), or 0."""
    m = _ANCHOR.search(title)
    return len(title) - m.start() if m and m.start() > 0 else 0
