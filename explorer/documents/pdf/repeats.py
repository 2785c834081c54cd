"""Running headers and footers, bare page numbers, repeated margin notes and watermarks.

:func:`_remove_repeats` drops lines in the top, bottom or side margins (and rotated lines
anywhere) that repeat, digits aside, on at least half of the pages and on three at least, and
bare page numbers in the top and bottom margins, unless that would remove every line of the
document. Each removed line is recorded in :class:`_Stats` for the normalisation notes.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence

from explorer.documents.pdf.records import _Frag, _Stats

_MARGIN = 0.08  # running headers/footers live in the top/bottom 8% of the page
_REPEAT_SHARE = 0.5  # ... and repeat on at least half of the pages
_REPEAT_MIN_PAGES = 3
_PAGE_NUMBER = re.compile(
    r"(?:page\s*)?(?:#+|[ivxlcdm]+)(?:\s*(?:of|/)\s*#+)?|[-–—]\s*#+\s*[-–—]", re.IGNORECASE
)


def _repeat_key(text: str) -> str:
    return re.sub(r"\d", "#", " ".join(text.split()))


def _remove_repeats(
    pages: list[list[_Frag]], sizes: Sequence[tuple[float, float]], stats: _Stats
) -> None:
    """Drop running headers/footers, page numbers, margin notes and watermarks."""
    n_pages = len(pages)
    threshold = max(_REPEAT_MIN_PAGES, math.ceil(_REPEAT_SHARE * n_pages))

    def zone(f: _Frag, width: float, height: float) -> str | None:
        if not f.horizontal:
            return "watermark"
        cy = (f.top + f.bottom) / 2
        if cy <= _MARGIN * height or cy >= (1 - _MARGIN) * height:
            return "header"
        if f.right <= _MARGIN * width or f.left >= (1 - _MARGIN) * width:
            return "margin"
        return None

    seen: dict[tuple[str, str], set[int]] = defaultdict(set)
    zones: list[list[str | None]] = []
    for number, (frags, (width, height)) in enumerate(zip(pages, sizes, strict=True)):
        page_zones = [zone(f, width, height) for f in frags]
        zones.append(page_zones)
        for f, z in zip(frags, page_zones, strict=True):
            if z is not None:
                seen[(z, _repeat_key(f.text))].add(number)
    repeated = {key for key, on in seen.items() if len(on) >= threshold}
    if n_pages < _REPEAT_MIN_PAGES:
        repeated = set()

    total_before = sum(len(f.chars) for frags in pages for f in frags)
    removed_chars = 0
    plan: list[list[bool]] = []
    for frags, page_zones in zip(pages, zones, strict=True):
        drop = []
        for f, z in zip(frags, page_zones, strict=True):
            key = _repeat_key(f.text)
            gone = z is not None and (z, key) in repeated
            if not gone and z == "header" and _PAGE_NUMBER.fullmatch(key):
                gone, z = True, "page number"
            drop.append(gone)
            if gone:
                removed_chars += len(f.chars)
        plan.append(drop)
    if removed_chars >= total_before:  # never remove every line of a document
        return
    for i, (frags, drop, page_zones) in enumerate(zip(pages, plan, zones, strict=True)):
        kept = []
        for f, gone, z in zip(frags, drop, page_zones, strict=True):
            if not gone:
                kept.append(f)
                continue
            kind = "page number" if _PAGE_NUMBER.fullmatch(_repeat_key(f.text)) else str(z)
            stats.removed[kind].append((i, f.text))
            stats.removed_lines.append((i, kind, f.text, f.left, f.top, f.right, f.bottom))
        pages[i] = kept
