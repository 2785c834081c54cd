"""Glyphs to text lines: a page's per-character extraction as cleaned fragments.

:func:`_page_frags` turns PyMuPDF's ``rawdict`` into :class:`_Frag` records in rendered
coordinates: invisible text is dropped (unless it is all the page has: an OCR layer), white space
is made plain and control characters dropped (:func:`_clean`), spacing accents drawn over a letter
are composed with it (:func:`_compose_accents`), pieces of one visual line are joined
(:func:`_join_pieces`) and runs of spaces squeezed (:func:`_squeeze_spaces`), each change counted
in :class:`_Stats`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

import pymupdf as _pymupdf

from explorer.documents.pdf.records import NAN, _Frag, _Stats

pymupdf: Any = _pymupdf  # PyMuPDF ships partial annotations only; treat it as untyped

#: rawdict flags: keep white space as given (we normalise it ourselves and count what we drop),
#: clip to the media box, no images (they cost time and carry no text), ligatures expanded.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_SPAN_BOLD = 16  # span["flags"] bit
_SPAN_MONO = 8  # span["flags"] bit: a monospaced font
_MONO_FONT = re.compile(r"courier|mono|consol|typewriter|code|^cmtt|^sftt|^lmtt|^txtt", re.I)
_CHAR_PAINTED = 16 | 32  # span["char_flags"]: filled | stroked; neither means invisible text


def _page_frags(raw: dict[str, Any], matrix: Any, stats: _Stats) -> list[_Frag]:
    """Text lines of a page as fragments in rendered coordinates, cleaned of junk characters.

    ``matrix`` is the page's rotation matrix (``None`` for unrotated pages): PyMuPDF reports
    glyphs in unrotated page space, while the rendered image is rotated.
    """
    lines: list[tuple[dict[str, Any], list[tuple[dict[str, Any], bool]]]] = []
    any_visible = False
    for block in raw["blocks"]:
        for line in block.get("lines", ()):
            spans = []
            for span in line["spans"]:
                visible = span.get("alpha", 255) != 0 and (
                    "char_flags" not in span or bool(span["char_flags"] & _CHAR_PAINTED)
                )
                spans.append((span, visible))
                any_visible = any_visible or (visible and bool(span["chars"]))
            lines.append((line, spans))
    keep_invisible = not any_visible  # an OCR text layer under a scanned image: keep it
    if keep_invisible and any(s["chars"] for _line, spans in lines for s, _v in spans):
        stats.ocr_pages += 1

    frags: list[_Frag] = []
    for line, spans in lines:
        dx, dy = line["dir"]
        if matrix is not None:
            dx, dy = dx * matrix.a + dy * matrix.c, dx * matrix.b + dy * matrix.d
        chars: list[str] = []
        x0s: list[float] = []
        x1s: list[float] = []
        top, bottom = math.inf, -math.inf
        styles: list[tuple[float, bool, int]] = []
        mono = 0
        for span, visible in spans:
            raw_chars = span["chars"]
            if not raw_chars:
                continue
            cs = [c["c"] for c in raw_chars]
            text = "".join(cs)
            if not visible and not keep_invisible:
                stats.invisible += len(text) - sum(1 for c in text if c.isspace())
                continue
            if matrix is None:
                boxes = [c["bbox"] for c in raw_chars]
                sx0 = [b[0] for b in boxes]
                sx1 = [b[2] for b in boxes]
                top, bottom = min(top, span["bbox"][1]), max(bottom, span["bbox"][3])
            else:
                rects = [pymupdf.Rect(c["bbox"]) * matrix for c in raw_chars]
                sx0 = [r.x0 for r in rects]
                sx1 = [r.x1 for r in rects]
                top = min(top, min(r.y0 for r in rects))
                bottom = max(bottom, max(r.y1 for r in rects))
            if text.isprintable():  # the common case: nothing to clean
                glyphs = len(text) - text.count(" ")
                stats.replacement += text.count("\ufffd")
            else:
                cs, sx0, sx1, glyphs = _clean(cs, sx0, sx1, stats)
            chars += cs
            x0s += sx0
            x1s += sx1
            if glyphs:
                size = round(span["size"] * 2) / 2
                bold = bool(span["flags"] & _SPAN_BOLD) or "bold" in span["font"].lower()
                styles.append((size, bold, glyphs))
                if span["flags"] & _SPAN_MONO or _MONO_FONT.search(span["font"]):
                    mono += glyphs
        if not styles:  # white space only (or nothing): count what we drop
            stats.space_dropped += len(chars)
            continue
        _compose_accents(chars, x0s, x1s, stats)
        horizontal = abs(dy) < 0.05 and dx > 0
        frag = _Frag(chars, x0s, x1s, min(x0s), top, max(x1s), bottom, horizontal, styles)
        frag.mono = mono
        frags.append(frag)
    return _join_pieces(frags, stats)


#: Spacing accents and the combining marks they stand for when drawn over a letter.
_ACCENTS = {
    "\u02c6": "\u0302", "^": "\u0302", "\u00a8": "\u0308", "\u00b4": "\u0301",
    "\u02ca": "\u0301", "`": "\u0300", "\u02cb": "\u0300", "\u00b8": "\u0327",
    "\u02dc": "\u0303", "~": "\u0303", "\u02c7": "\u030c", "\u02d8": "\u0306",
    "\u02d9": "\u0307", "\u02da": "\u030a", "\u02dd": "\u030b", "\u00af": "\u0304",
    "\u02c9": "\u0304", "\u02db": "\u0328",
}  # fmt: skip


def _compose_accents(chars: list[str], x0: list[float], x1: list[float], stats: _Stats) -> None:
    """Merge a spacing accent drawn over the letter beside it into one accented letter.

    Some fonts and typesetters draw ``ê`` as ``e`` plus a separate ``ˆ`` on top of it; the text
    then reads ``Ageˆncia``. An accent whose glyph lies over the letter before (or after) it,
    where the two compose to one character, becomes that character, with the letter's extent.
    """
    i = 0
    while i < len(chars):
        mark = _ACCENTS.get(chars[i])
        if mark is None:
            i += 1
            continue
        middle = (x0[i] + x1[i]) / 2
        for j in (i - 1, i + 1):
            if not 0 <= j < len(chars) or not chars[j].isalpha() or x0[j] != x0[j]:
                continue
            if not x0[j] - 0.5 <= middle <= x1[j] + 0.5:
                continue
            composed = unicodedata.normalize("NFC", chars[j] + mark)
            if len(composed) != 1:
                continue
            chars[j] = composed
            del chars[i], x0[i], x1[i]
            stats.accents += 1
            # a space MuPDF put after the accent, inside the letter's box, is not a gap
            letter = j if j < i else j - 1
            after = letter + 1
            if after < len(chars) and chars[after] == " " and x0[after] < x1[letter] - 0.1:
                del chars[after], x0[after], x1[after]
                stats.space_dropped += 1
            break
        else:
            i += 1


def _clean(
    chars: list[str], x0: list[float], x1: list[float], stats: _Stats
) -> tuple[list[str], list[float], list[float], int]:
    """Make white space plain spaces and drop control/format characters (counting both)."""
    out_c: list[str] = []
    out_0: list[float] = []
    out_1: list[float] = []
    glyphs = 0
    for c, a, b in zip(chars, x0, x1, strict=True):
        if c.isspace():
            if c != " ":
                stats.space_replaced += 1
                c = " "
        elif c == "\u00ad":
            pass  # soft hyphen: kept for now, it decides how lines join
        elif unicodedata.category(c) in ("Cc", "Cf", "Cs", "Cn"):
            stats.controls += 1
            continue
        else:
            glyphs += 1
            if c == "\ufffd":
                stats.replacement += 1
        out_c.append(c)
        out_0.append(a)
        out_1.append(b)
    return out_c, out_0, out_1, glyphs


def _join_pieces(frags: list[_Frag], stats: _Stats) -> list[_Frag]:
    """Merge fragments MuPDF split off one visual line (touching, same baseline)."""
    frags.sort(key=lambda f: (round((f.top + f.bottom) / 2), f.left))
    out: list[_Frag] = []
    for f in frags:
        target = None
        if f.horizontal:
            for g in reversed(out[-6:]):
                if not g.horizontal:
                    continue
                overlap = min(g.bottom, f.bottom) - max(g.top, f.top)
                size = min(g.size, f.size)
                gap = f.left - g.right
                if overlap >= 0.7 * min(g.height, f.height) and -0.5 * size <= gap <= 0.3 * size:
                    target = g
                    break
        if target is None:
            out.append(f)
            continue
        gap = f.left - target.right
        if gap > 0.15 * min(target.size, f.size) and target.chars[-1] != " " and f.chars[0] != " ":
            target.chars.append(" ")
            target.x0.append(NAN)
            target.x1.append(NAN)
        target.chars += f.chars
        target.x0 += f.x0
        target.x1 += f.x1
        target.styles += f.styles
        target.mono += f.mono
        target.left, target.right = min(target.left, f.left), max(target.right, f.right)
        target.top, target.bottom = min(target.top, f.top), max(target.bottom, f.bottom)
        target.restyle()
    for f in out:
        _squeeze_spaces(f, stats)
    return out


def _squeeze_spaces(f: _Frag, stats: _Stats) -> None:
    """Collapse runs of spaces to one and trim both ends, counting every dropped character."""
    chars, x0s, x1s = f.chars, f.x0, f.x1
    if "  " not in "".join(chars) and chars[0] != " " and chars[-1] != " ":
        return
    keep = [
        i
        for i, c in enumerate(chars)
        if c != " " or (i > 0 and chars[i - 1] != " " and i < len(chars) - 1)
    ]
    # a space kept above may still end the line when only spaces follow it
    while keep and chars[keep[-1]] == " ":
        keep.pop()
    stats.space_dropped += sum(1 for i in set(range(len(chars))) - set(keep) if x0s[i] == x0s[i])
    f.chars = [chars[i] for i in keep]
    f.x0 = [x0s[i] for i in keep]
    f.x1 = [x1s[i] for i in keep]
