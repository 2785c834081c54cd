"""Showing text that comes from outside: a file name, document text, an evidence phrase, a link's
value. Streamlit reads the text of ``st.markdown``, ``st.error`` and their kind as Markdown, so
every such text passes through :func:`md_text` (or :func:`md_escape` for names) here, and HTML
through :func:`html.escape`; :mod:`ui.widgets` shows verdicts and messages through these."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence


def facts_html(facts: Sequence[tuple[str, str]]) -> str:
    """A small two-column table; every value is escaped (it may come from the document)."""
    rows = "".join(
        f'<tr><th style="text-align:left;padding:2px 12px 2px 0;white-space:nowrap">'
        f'{html.escape(k)}</th><td style="padding:2px 0">{html.escape(v)}</td></tr>'
        for k, v in facts
    )
    return f'<table style="border-collapse:collapse;font-size:14px">{rows}</table>'


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&@])")


def md_escape(text: str) -> str:
    """``text`` with Markdown punctuation backslash-escaped, for names shown via Markdown."""
    return _unlink(_MARKDOWN_SPECIAL.sub(r"\\\1", text))


_MARKDOWN_MARKUP = re.compile(r"([\\`*_\[\]<>!$~|#&@])")
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=\\?:/)|(?<=www)(?=\\?\.)|(?<=@)(?=[\w\\-]+\\?\.[\w\\-])")
_JOINER = "\u2060"
"""WORD JOINER: invisible, and it keeps ``http://``, ``www.`` and ``user@host.example`` from
being one run of text. Only there: an ``@`` before no dotted host (``coverage@5``) is no address
and gets none (a hidden character inside a measure's name breaks copying and searching it)."""


def _unlink(text: str) -> str:
    """``text`` with bare addresses kept from becoming links. GitHub-flavoured Markdown (as the
    app's browser side renders it) links ``scheme://…``, ``www.…`` and ``user@host`` found in
    the text *after* escapes are resolved, so a backslash does not stop it; an invisible joiner
    inside the pattern does."""
    return _AUTOLINK.sub(_JOINER, text)


def md_text(text: str) -> str:
    """A message that quotes a file name or document text, safe to show through Markdown.

    ``st.error``, ``st.info`` and friends read their text as Markdown: a file named
    ``![x](http://host/x.png).md`` would load an image from that host, ``[a](javascript:…)`` would
    be a link, ``www.host.example`` or ``http://host`` alone would become one, ``&lt;`` would show
    as ``<``. Escaping the characters that start images, links, HTML, entities, emphasis, code,
    maths and headings, and an invisible joiner inside a bare address, leave plain text that
    reads the same (unlike :func:`md_escape`, dots, colons and dashes are kept as they are, so
    messages stay searchable).
    """
    return _unlink(_MARKDOWN_MARKUP.sub(r"\\\1", text))


def plot_text(text: str, *, width: int = 64, lines: int = 4) -> str:
    """Text from a document for a plotly label, legend or hover: white space collapsed, wrapped
    at ``width`` characters to at most ``lines`` lines (``<br>`` between them, an ellipsis when
    cut), each line HTML-escaped (plotly reads tags, links and entities in its texts)."""
    import textwrap

    wrapped = textwrap.wrap(" ".join(text.split()), width) or [""]
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 1], wrapped[lines - 1] + " …"]
    return "<br>".join(html.escape(line, quote=True) for line in wrapped)


_MD_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_MD_LINE_MARK = re.compile(
    r"(?m)^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,9}[.)][ \t]+)"
)
_MD_RULE_ROW = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$")
_MD_STRONG = re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1")
_MD_EM = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_markdown(text: str) -> str:
    """Markdown source as the words a reader sees, on one line: headings' and list items'
    marks, emphasis, code ticks, links and images (their text kept), table rules and
    backslash escapes taken away, a table's cells joined by " · ", white space collapsed. For
    short labels (a picker, a legend), not for showing a document."""
    out = _MD_IMAGE_OR_LINK.sub(r"\1", text)
    out = _MD_RULE_ROW.sub("", out)
    out = _MD_LINE_MARK.sub("", out)
    out = out.replace("`", "")
    out = _MD_STRONG.sub(r"\2", out)
    out = _MD_EM.sub(r"\2", out)
    out = re.sub(r"(?m)^[ \t]*\||\|[ \t]*$", "", out)  # a table row's outer rules
    out = re.sub(r"[ \t]*\|[ \t]*", " · ", out)
    out = _MD_ESCAPE.sub(r"\1", out)
    words = " ".join(out.split())
    return words.strip(" ·")
