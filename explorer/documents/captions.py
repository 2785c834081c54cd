"""Captions: the paragraphs that label a figure or a table ("Figure 3: …", "Table 2. …").

Neither loader marks captions (a PDF has no such tag, and Markdown has none), so they are
recognised by their text: a paragraph that opens with a label word (Figure, Fig., Table, Exhibit,
Chart, Listing, Diagram), optionally inside emphasis, then a number (``3``, ``A.2``, ``4-1``,
``IV``), then a separator (``.``, ``:``, a dash) or nothing else at all. A sentence of prose that
begins "Table 2 shows …" has no separator after its number and is not a caption; a table of
contents' line ("Fig. 1. Architecture ........ 4") ends in a dot leader and is not one either.
"""

from __future__ import annotations

import re

from explorer.documents.model import Block, Document

_LABEL = r"(?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE|Exhibit|EXHIBIT|Chart|Listing|Diagram)"
_NUMBER = r"(?:(?:[A-Z][.\-]?)?\d+(?:[.\-–]\d+)*|[IVXLC]+)"
_CAPTION = re.compile(rf"[*_]{{0,2}}{_LABEL}\s+{_NUMBER}(?:\s*[.:—–|-]|[*_]{{0,2}}\s*$)")
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}\s*\d*\s*$")
MAX_CAPTION = 400
"""Characters: a longer paragraph is prose that happens to open with a label."""


def is_caption(text: str) -> bool:
    """Whether ``text`` (one paragraph) reads as a figure's or a table's caption."""
    t = " ".join(text.split())
    if not t or len(t) > MAX_CAPTION or _DOT_LEADER.search(t):
        return False
    return _CAPTION.match(t) is not None


def caption_blocks(doc: Document) -> list[Block]:
    """The paragraphs of ``doc`` that are captions, in document order."""
    return [
        b for b in doc.blocks if b.kind == "paragraph" and is_caption(doc.text[b.start : b.end])
    ]
