"""Structure: which written paragraphs are headings, at what level, and the block list.

A heading is a short paragraph set larger than the body text, or bold at body size
(:func:`_structure`); numbered titles such as ``2.1.3.`` take their level from their numbers,
others from the rank of their style (:func:`_levels`). Every heading records the titles of the
headings above it.
"""

from __future__ import annotations

import re
from collections import Counter

from explorer.documents.model import Block, BlockKind, Heading
from explorer.documents.pdf.records import _DOT_LEADERS, _Para

_NUMBERED_TITLE = re.compile(r"(\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)+\.?|[A-Z]\.)\s+\S")
_CAPTION = re.compile(r"(?:fig\.?|figure|table|exhibit|chart)\s*[\dA-Z]", re.IGNORECASE)


def _structure(
    paras: list[_Para], tables: list[Block], text: str
) -> tuple[tuple[Block, ...], tuple[Heading, ...]]:
    body = Counter[float]()
    for p in paras:
        for size, _bold, n in p.styles:
            body[size] += n
    body_size = body.most_common(1)[0][0] if body else 10.0

    def style(p: _Para) -> tuple[float, bool] | None:
        glyphs = sum(n for _s, _b, n in p.styles)
        if not glyphs or len(p.text) > 200 or p.rows > 4 or not re.search(r"[^\W\d_]", p.text):
            return None
        if _DOT_LEADERS.search(p.text) or _CAPTION.match(p.text):
            return None
        sizes: Counter[float] = Counter()
        for size, _bold, n in p.styles:
            sizes[size] += n
        size = sizes.most_common(1)[0][0]
        bold = sum(n for _s, b, n in p.styles if b) >= 0.9 * glyphs
        large = sum(n for s, _b, n in p.styles if s >= 1.15 * body_size) >= 0.85 * glyphs
        if large:
            return (size, bold)
        if bold and size >= body_size - 0.5 and len(p.text) <= 120:
            return (size, True)
        return None

    candidates = [(p, s) for p in paras if (s := style(p)) is not None]
    levels = _levels(candidates)
    blocks: list[Block] = list(tables)
    headings: list[Heading] = []
    stack: list[Heading] = []
    for p in paras:
        level = levels.get(id(p))
        if level is not None:
            blocks.append(Block("heading", p.start, p.end, level=level))
            title = " ".join(text[p.start : p.end].split())
            while stack and stack[-1].level >= level:
                stack.pop()
            heading = Heading(level, title, p.start, p.end, (*(h.title for h in stack), title))
            headings.append(heading)
            stack.append(heading)
            continue
        kind: BlockKind = "list_item" if p.item else "paragraph"
        blocks.append(Block(kind, p.start, p.end))
    blocks.sort(key=lambda b: b.start)
    return tuple(blocks), tuple(headings)


def _levels(candidates: list[tuple[_Para, tuple[float, bool]]]) -> dict[int, int]:
    """Heading levels: by numbering depth where titles are numbered, else by style rank."""
    styles = sorted({s for _p, s in candidates}, key=lambda s: (-s[0], not s[1]))
    rank = {s: i + 1 for i, s in enumerate(styles)}
    depth: dict[int, int] = {}
    for p, _s in candidates:
        m = _NUMBERED_TITLE.match(p.text)
        if m:
            depth[id(p)] = len(m.group(1).rstrip(".").split("."))
    numbered_styles = {s for p, s in candidates if id(p) in depth}
    # a style is "numbered" only if most of its titles carry numbers
    numbered_styles = {
        s
        for s in numbered_styles
        if sum(1 for p, t in candidates if t == s and id(p) in depth)
        >= 0.5 * sum(1 for _p, t in candidates if t == s)
    }
    out: dict[int, int] = {}
    if not numbered_styles:
        for p, s in candidates:
            out[id(p)] = min(rank[s], 6)
        return out
    top = min(rank[s] for s in numbered_styles)
    bottom = max(rank[s] for s in numbered_styles)
    deepest = max((depth.get(id(p), 1) for p, s in candidates if s in numbered_styles), default=1)
    for p, s in candidates:
        if s in numbered_styles:
            level = depth.get(id(p), 1)
        elif rank[s] < top:
            level = 1
        elif rank[s] > bottom:
            level = deepest + rank[s] - bottom
        else:
            level = rank[s] - top + 1
        out[id(p)] = max(1, min(level, 6))
    return out
