"""Hostile text, and the check that what the app shows of it is inert.

Everything the app shows that came from outside — a file name, an evidence phrase, a link's
question, a heading, a chunk, a query set's entries — is Markdown or HTML to Streamlit. The check
renders each shown string the way a browser would get it (Markdown with HTML allowed, as
``unsafe_allow_html`` does) and fails on anything that would load, run or link: an image or link
to the hostile host, a ``javascript:`` URL, an event-handler attribute, a script or frame, or a
bare address that GitHub-flavoured Markdown turns into a link by itself.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from markdown_it import MarkdownIt

HOST = "attacker.test"
HOSTILE = (
    f"![x](http://{HOST}/i.png) [Your session expired – sign in](http://{HOST}/login) "
    f"[run](javascript:alert(1)) <img src=x onerror=alert(1)> <script>alert(2)</script> "
    f"&lt;b&gt; &#106;avascript: www.{HOST} https://{HOST}/bare me@{HOST}"
)
"""One string with every kind of markup that loads, runs or links."""

NAME = (
    f"![x](http:⁄⁄{HOST}⁄n.png) [sign in](javascript:alert(1)) <img src=x onerror=alert(1)> "
    f"www.{HOST}"
)
"""A file name can hold all of that but a slash (``⁄`` is U+2044, which looks like one)."""

_MD = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
_MD.validateLink = lambda url: True  # markdown-it drops javascript: links; a browser may not
_BARE = re.compile(rf"(?:https?|ftp)://[^\s]*{re.escape(HOST)}|www\.{re.escape(HOST)}")
_EMAIL = re.compile(rf"\w@{re.escape(HOST)}")
"""What GitHub-flavoured Markdown links by itself, in the text once escapes are resolved."""


class _Tags(HTMLParser):
    def __init__(self, *, links_ok: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.links_ok = links_ok
        self.bad: list[str] = []
        self._script: list[str] | None = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            code = "".join(self._script)
            if "alert(" in code or HOST in code:  # the app's own scripts hold neither
                self.bad.append("<script>")
            self._script = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._script = []
        if tag in ("iframe", "object", "embed", "base", "meta", "link", "form"):
            self.bad.append(f"<{tag}>")
        named = {name: (value or "").strip().lower() for name, value in attrs}
        for name, value in named.items():
            if name.startswith("on"):
                self.bad.append(f"<{tag} {name}>")
            elif name in ("title", "alt", "aria-label", "data-phrase"):
                continue  # shown as text, never fetched
            elif value.startswith(("javascript:", "vbscript:", "data:text")) or (
                HOST in value and not (tag == "a" and name == "href" and self.links_ok)
            ):
                self.bad.append(f'<{tag} {name}="{value}">')
            elif tag == "a" and name == "href" and "noopener" not in named.get("rel", ""):
                self.bad.append(f'<a href="{value}"> without rel=noopener')


def live(markdown: str) -> list[str]:
    """What in ``markdown`` would load, run or link once shown (empty when it is inert)."""
    tags = _Tags()
    tags.feed(_MD.render(markdown))
    text = re.sub(r"\\(.)", r"\1", markdown)  # autolinks are found after escapes are resolved
    bare = [m.group(0) for m in _BARE.finditer(text)] + _EMAIL.findall(text)
    return tags.bad + [f"autolink {b}" for b in bare]


def live_html(html: str) -> list[str]:
    """What in ``html`` (shown by ``st.html``: not read as Markdown) would load or run. A drawn
    document keeps its own links (opened in a new tab, without the app as referrer)."""
    tags = _Tags(links_ok=True)
    tags.feed(html)
    return tags.bad


_TEXT = {
    "markdown",
    "caption",
    "error",
    "warning",
    "info",
    "success",
    "toast",
    "subheader",
    "header",
    "title",
    "latex",
    "exception",
}
"""Elements whose value is read as Markdown (a code block's or an input's is shown as typed)."""


def _nodes(node: Any) -> Any:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _nodes(child)


def shown(at: Any) -> list[str]:
    """Every string an AppTest run shows as Markdown: text elements and messages, and every
    element's label and help (tooltips are Markdown too), and a radio's options."""
    out: list[str] = []
    for node in _nodes(at._tree):
        kind = getattr(node, "type", "")
        if kind in _TEXT:
            out.append(str(node.value))
        for attr in ("label", "help"):
            text = getattr(node, attr, None)
            if isinstance(text, str):
                out.append(text)
        if kind == "radio":
            out += [str(o) for o in node.options]
    return out


def assert_inert(at: Any, *, shows: bool = True) -> None:
    """Nothing shown is live; with ``shows``, the hostile text is shown somewhere (so the check
    looked at it)."""
    html = [str(n.value) for n in _nodes(at._tree) if getattr(n, "type", "") == "html"]
    if shows:
        assert any(HOST in text for text in shown(at) + html), "no hostile text is shown"
    found = {text[:160]: bad for text in shown(at) if (bad := live(text))}
    found |= {h[:160]: bad for h in html if (bad := live_html(h))}
    assert not found, found


_PLOT_TAGS = re.compile(r"<br>|<extra></extra>|</?i>|<b>question</b>")
"""The markup the app's own chart texts hold (plotly reads tags and links in every text)."""


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def live_plot(figure: Any) -> list[str]:
    """The texts of a plotly figure (its JSON, as a dict) that hold markup plotly would draw —
    a link, bold, an image — beyond the app's own line breaks and italics."""
    return [s for s in _strings(figure) if "<" in _PLOT_TAGS.sub("", s)]


def plotly_figures(at: Any) -> list[Any]:
    """Every plotly chart an AppTest run shows, as its figure's JSON (a dict)."""
    import json

    return [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
