"""Placing a library's chunks in the document: where each chunk text lies, exactly.

Every chunk a library returns is placed in the document (:func:`locate_chunks`):

* an offset the library *computed* from its own cuts (semantic-text-splitter's ``chunk_indices``,
  semchunk's ``offsets=True``, chonkie's ``start_index``) is used once the chunk's text is found
  at it;
* otherwise (no offset, or one the library found by searching the text, as LangChain's
  ``start_index`` and LlamaIndex's ``start_char_idx`` are) the chunk is located in order, from
  the previous chunk's start on: preferably where it adds text after the chunks before it while
  sharing at most the requested overlap with them (that is how these libraries build overlap),
  else where it follows them without skipping text; a searched offset is accepted when it is
  one of these places (see :func:`_pick`). A text that occurs nowhere is searched again with its
  white space made flexible and any U+FFFD (a character cut in two by a token boundary) at its
  ends dropped.

:class:`Placed` records the outcome per chunk, the input of the audit
(:mod:`~explorer.chunking.adapters.audit`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from explorer.chunking.measures import Units

How = Literal["library", "located", "normalised", "out_of_order", "not_found"]
"""How a chunk's span was established: the library's offset verified; the exact text located in
order; located after white-space normalisation; found only before the previous chunk; not found."""

_MAX_CANDIDATES = 64


@dataclass(frozen=True)
class Placed:
    """One library chunk placed in the document (the input of
    :func:`~explorer.chunking.adapters.audit.audit`)."""

    index: int
    """Position in the library's output."""
    text: str
    """Exactly what the library returned."""
    library_start: int | None
    """The start offset the library reported, or None when it reports none."""
    start: int | None
    end: int | None
    """The span in ``doc.text`` (None when not found); ``doc.text[start:end]`` equals ``text``
    unless ``how`` is ``normalised``."""
    how: How
    size: int
    """``text`` measured with the library's own length function."""

    def __post_init__(self) -> None:
        if (self.start is None) != (self.end is None) or (self.start is None) != (
            self.how == "not_found"
        ):
            raise ValueError("a placed chunk has both ends, or neither and is not_found")
        if self.start is not None and self.end is not None and not 0 <= self.start < self.end:
            raise ValueError(f"placed span [{self.start}, {self.end}) is empty or negative")


def _exact_finder(text: str, t: str) -> Callable[[int, int | None], tuple[int, int] | None]:
    n = len(t)

    def find(pos: int, before: int | None) -> tuple[int, int] | None:
        end = len(text) if before is None else before - 1 + n
        s = text.find(t, pos, end)
        return (s, s + n) if s >= 0 else None

    return find


_SPACE_RUN = re.compile(r"\S+")


def _normalised_finder(
    text: str, t: str
) -> Callable[[int, int | None], tuple[int, int] | None] | None:
    """A finder that ignores how much white space separates the words of ``t`` and drops U+FFFD
    at its ends (half a character left by a token boundary); None if nothing is left. White
    space ``t`` starts or ends with is included where the document has it too."""
    core = t.strip("\ufffd")
    words = _SPACE_RUN.findall(core)
    if not words:
        return None
    pattern = re.compile(r"\s*".join(re.escape(w) for w in words))
    lead = core[: len(core) - len(core.lstrip())]
    trail = core[len(core.rstrip()) :]

    def find(pos: int, before: int | None) -> tuple[int, int] | None:
        m = pattern.search(text, pos)
        if m is None or (before is not None and m.start() >= before):
            return None
        a, b = m.span()
        if lead and text.endswith(lead, 0, a) and a - len(lead) >= pos:
            a -= len(lead)
        if trail and text.startswith(trail, b):
            b += len(trail)
        return a, b

    return find


_NON_SPACE = re.compile(r"\S")


def _inside_word(text: str, s: int) -> bool:
    return 0 < s < len(text) and text[s - 1].isalnum() and text[s].isalnum()


def _pick(
    find: Callable[[int, int | None], tuple[int, int] | None],
    text: str,
    lo: int,
    reach: int,
    overlap: int,
    shared: Callable[[int, int], int],
    hint: int | None,
) -> tuple[int, int] | None:
    """Where a chunk lies, given where it may: from ``lo`` (the previous chunk's start) on, with
    ``reach`` the furthest end of the chunks before it.

    In order of preference: a place sharing at most ``overlap`` with what came before that adds
    text after ``reach`` (how overlap is built: the library's ``hint`` if it is one, else the one
    sharing the most); then, of the places inside what came before sharing at most ``overlap``
    and the first place from ``reach`` on with no text skipped to get there, those not starting
    inside a word: the ``hint``, else that first place, else the one sharing the most; then
    anything found.
    """
    first = find(lo, None)
    if first is None or first[0] >= reach:
        return first
    zone = [first]
    while len(zone) < _MAX_CANDIDATES:
        nxt = find(zone[-1][0] + 1, reach)
        if nxt is None:
            break
        zone.append(nxt)
    fits = [c for c in zone if shared(c[0], reach) <= overlap]  # earliest (most shared) first
    after: list[tuple[int, int] | None] = []

    def next_after() -> tuple[int, int] | None:
        if not after:
            a = find(reach, None)
            after.append(a if a is not None and not _NON_SPACE.search(text, reach, a[0]) else None)
        return after[0]

    adding = [c for c in fits if c[1] > reach]
    if adding:
        return next((c for c in adding if c[0] == hint), adding[0])
    a = next_after()
    pool = fits + ([a] if a is not None else [])
    # a place starting inside a word ("eta" in "beta") only if no other starts between words
    good = [c for c in pool if not _inside_word(text, c[0])] or pool
    for c in good:
        if c[0] == hint:
            return c
    if a is not None and a in good:
        return a
    if good:
        return good[0]
    return find(reach, None) or zone[-1]


@dataclass(frozen=True)
class Location:
    start: int
    end: int
    how: How


def shared_size(
    text: str, units: Units | None, length: Callable[[str], int] | None
) -> Callable[[int, int], int]:
    """The size of ``text[a:b]`` as shared between two chunks: the smaller of its count in the
    document's own tokenisation and its count on its own (``length``), so neither way of
    counting makes an overlap look larger than a library could have meant."""

    def size(a: int, b: int) -> int:
        if b <= a:
            return 0
        n = units.size(a, b) if units is not None else b - a
        return min(n, length(text[a:b])) if length is not None else n

    return size


def locate_chunks(
    text: str,
    chunks: Sequence[str],
    *,
    starts: Sequence[int | None] | None = None,
    trust_starts: bool = False,
    overlap: int = 0,
    shared: Callable[[int, int], int] | None = None,
) -> list[Location | None]:
    """Where each chunk text lies in ``text``, in order (None where it is nowhere).

    ``starts`` are the offsets a library reported; with ``trust_starts`` (offsets the library
    computed from its cuts) an offset at which the chunk's text is found, at or after the
    previous chunk's start, is taken as is. Otherwise each chunk is looked for from the previous
    chunk's start on: of the places its text occurs, the one sharing the most with the chunks
    before it without exceeding ``overlap`` (measured by ``shared(a, b)``, characters by
    default). A text found nowhere is looked for again with flexible white space
    (``normalised``), then anywhere in the text (``out_of_order``).
    """
    if shared is None:
        shared = shared_size(text, None, None)

    out: list[Location | None] = []
    prev_start = -1
    reach = 0
    for i, t in enumerate(chunks):
        hint = starts[i] if starts is not None else None
        loc: Location | None = None
        if not t:
            out.append(None)
            continue
        if (
            trust_starts
            and hint is not None
            and hint >= max(prev_start, 0)
            and text.startswith(t, hint)
        ):
            loc = Location(hint, hint + len(t), "library")
        if loc is None:
            span = _pick(
                _exact_finder(text, t), text, max(prev_start, 0), reach, overlap, shared, hint
            )
            if span is not None:
                loc = Location(*span, "library" if span[0] == hint else "located")
        norm = _normalised_finder(text, t) if loc is None else None
        if loc is None and norm is not None:
            span = _pick(norm, text, max(prev_start, 0), reach, overlap, shared, hint)
            if span is not None:
                loc = Location(*span, "normalised")
        if loc is None:
            s = text.find(t)
            if s >= 0:
                loc = Location(s, s + len(t), "out_of_order")
        if loc is None and norm is not None:
            span = norm(0, None)
            if span is not None:
                loc = Location(*span, "out_of_order")
        if loc is not None:
            prev_start = loc.start
            reach = max(reach, loc.end)
        out.append(loc)
    return out


def place(
    text: str,
    chunks: Sequence[str],
    *,
    starts: Sequence[int | None] | None = None,
    trust_starts: bool = False,
    overlap: int = 0,
    shared: Callable[[int, int], int] | None = None,
    length: Callable[[str], int] = len,
) -> list[Placed]:
    """Each chunk text placed by :func:`locate_chunks`, with the start the library reported and
    its size by the library's ``length``."""
    locs = locate_chunks(
        text, chunks, starts=starts, trust_starts=trust_starts, overlap=overlap, shared=shared
    )
    hints = starts if starts is not None else [None] * len(chunks)
    return [
        Placed(
            i,
            t,
            hint,
            loc.start if loc else None,
            loc.end if loc else None,
            loc.how if loc else "not_found",
            length(t),
        )
        for i, (t, hint, loc) in enumerate(zip(chunks, hints, locs, strict=True))
    ]
