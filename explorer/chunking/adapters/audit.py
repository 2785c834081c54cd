"""The integrity audit of a chunking: what a splitter got wrong, per chunk and summed.

:func:`audit` counts, per chunk and in all: offsets the library got wrong (and by how much),
chunks not found, non-white-space text in no chunk, text repeated beyond the requested overlap,
chunks over the size limit by the library's own length function, and the overlap realised
against the one requested. Our own splitters go through the same audit
(:func:`~explorer.chunking.adapters.split.audit_ours`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from explorer.chunking.adapters.placement import Placed, shared_size
from explorer.chunking.measures import DEFAULT_ENCODING, Units, get_measure
from explorer.documents.model import Document

SUMMARY_KEYS = (
    "library",
    "version",
    "chunks",
    "offset_wrong",
    "not_found",
    "dropped_chars",
    "duplicated_chars",
    "over_limit",
    "overlap_requested",
    "overlap_realised",
    "snippet",
)


@dataclass(frozen=True)
class ChunkAudit:
    """What the audit found for one library chunk."""

    index: int
    flags: tuple[str, ...]
    """Any of ``offset_wrong``, ``not_found``, ``normalised``, ``out_of_order``, ``over_limit``,
    ``duplicated``."""
    offset_error: int | None
    """``library_start - start`` when the library's offset is wrong, else None."""
    duplicated_chars: int
    """Non-white-space characters this chunk repeats from the chunks before it, beyond the
    requested overlap."""
    overlap: int | None
    """Units shared with the previous found chunk (None for the first found or a missing one)."""
    size: int
    limit: int


@dataclass(frozen=True)
class Audit:
    """The integrity audit of one chunking, summed; ``per_chunk`` has the details."""

    library: str
    version: str
    chunks: int
    offset_wrong: int
    not_found: int
    dropped_chars: int
    duplicated_chars: int
    over_limit: int
    overlap_requested: int
    overlap_realised: float
    snippet: str
    per_chunk: tuple[ChunkAudit, ...] = ()
    recovered: Mapping[str, int] = field(default_factory=dict)
    """How many spans were established each way (see :data:`How`)."""

    def summary(self) -> dict[str, Any]:
        """The JSON-able summary, with exactly the keys of :data:`SUMMARY_KEYS`."""
        return {k: getattr(self, k) for k in SUMMARY_KEYS}

    @property
    def clean(self) -> bool:
        """No wrong offset, nothing missing, dropped, repeated beyond overlap or over the limit."""
        return not (
            self.offset_wrong
            or self.not_found
            or self.dropped_chars
            or self.duplicated_chars
            or self.over_limit
        )


# --------------------------------------------------------------------------- the audit


def _nonspace(text: str, a: int, b: int) -> int:
    piece = text[a:b]
    return len(piece) - sum(map(str.isspace, piece))


def _beyond_overlap(size: Callable[[int, int], int], s: int, top: int, overlap: int) -> int:
    """The earliest ``q`` in ``[s, top]`` with ``size(q, top) <= overlap`` (binary search)."""
    lo, hi = s, top  # size(hi, top) == 0 <= overlap
    while lo < hi:
        mid = (lo + hi) // 2
        if size(mid, top) <= overlap:
            hi = mid
        else:
            lo = mid + 1
    return lo


def audit(
    doc: Document,
    placed: Sequence[Placed],
    *,
    unit: str,
    limit: int,
    overlap: int,
    library: str,
    version: str,
    snippet: str,
    encoding: str = DEFAULT_ENCODING,
    units: Units | None = None,
    length: Callable[[str], int] | None = None,
) -> Audit:
    """Audit placed chunks against the document, per chunk and summed.

    * ``offset_wrong``: the library reported a start other than where the chunk lies (by
      ``offset_error``; LangChain's ``-1`` counts);
    * ``not_found``: the chunk's text is not in the document, even with flexible white space;
    * ``dropped_chars``: non-white-space characters of the document in no found chunk;
    * ``duplicated_chars``: non-white-space characters a chunk repeats from the chunks before it
      beyond the last ``overlap`` units of what it shares with them;
    * ``over_limit``: ``size`` (the library's own length of the chunk) above ``limit``;
    * ``overlap_realised``: the mean number of units consecutive found chunks share, against
      ``overlap_requested``.

    Shared text is measured with :func:`shared_size`: the smaller of its count in ``unit`` in the
    document's own tokenisation and ``length`` (the library's length function; default: the
    measure's count) of the shared text on its own; for a chunk the library re-spaced
    (``normalised``), with its white space collapsed.
    """
    text = doc.text
    measure = get_measure(unit, encoding)
    if units is None:
        units = measure.units(text)
    count = length or measure.count
    size = shared_size(text, units, count)

    def collapsed(a: int, b: int) -> int:
        # a chunk the library re-spaced shares what it shares in its own spacing, which is
        # unknown; with white space collapsed it is no larger
        return min(size(a, b), count(" ".join(text[a:b].split())))

    per: list[ChunkAudit] = []
    shares: list[int] = []
    spans: list[tuple[int, int]] = []
    reach = 0
    prev_end: int | None = None
    recovered = dict.fromkeys(("library", "located", "normalised", "out_of_order", "not_found"), 0)
    for p in placed:
        recovered[p.how] += 1
        flags: list[str] = []
        offset_error: int | None = None
        dup = 0
        share: int | None = None
        if p.start is None or p.end is None:
            flags.append("not_found")
        else:
            s, e = p.start, p.end
            if p.how in ("normalised", "out_of_order"):
                flags.append(p.how)
            if p.library_start is not None and p.library_start != s:
                offset_error = p.library_start - s
                flags.append("offset_wrong")
            shared = collapsed if p.how == "normalised" else size
            if prev_end is not None:
                share = shared(s, min(prev_end, e))
                shares.append(share)
            if s < reach:
                top = min(e, reach)
                if shared(s, top) > overlap:
                    dup = _nonspace(text, s, _beyond_overlap(shared, s, top, overlap))
                if dup:
                    flags.append("duplicated")
            reach = max(reach, e)
            prev_end = e
            spans.append((s, e))
        if p.size > limit:
            flags.append("over_limit")
        per.append(ChunkAudit(p.index, tuple(flags), offset_error, dup, share, p.size, limit))
    dropped = 0
    covered_to = 0
    for s, e in sorted(spans):
        if s > covered_to:
            dropped += _nonspace(text, covered_to, s)
        covered_to = max(covered_to, e)
    dropped += _nonspace(text, covered_to, len(text))
    return Audit(
        library=library,
        version=version,
        chunks=len(placed),
        offset_wrong=sum("offset_wrong" in a.flags for a in per),
        not_found=sum("not_found" in a.flags for a in per),
        dropped_chars=dropped,
        duplicated_chars=sum(a.duplicated_chars for a in per),
        over_limit=sum("over_limit" in a.flags for a in per),
        overlap_requested=overlap,
        overlap_realised=round(fmean(shares), 3) if shares else 0.0,
        snippet=snippet,
        per_chunk=tuple(per),
        recovered=recovered,
    )
