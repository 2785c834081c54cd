"""What-if edits: split, merge or drop chunks by hand, and see what it does to the answers.

An :class:`Edit` is one move on a chunking:

``split`` at ``OFFSET``
    the chunk that holds the offset inside it becomes ``[start, OFFSET)`` and ``[OFFSET, end)``
    (each trimmed of surrounding white space, as every splitter's chunks are);
``merge`` ``INDEX``
    chunk ``INDEX`` and the next become one chunk over the union of their spans (their shared
    overlap is held once; the white space between them is taken in);
``drop`` ``INDEX``
    the chunk stays in the chunking, flagged ``dropped`` (the page draws it struck through), but
    is left out of the index: it is never retrieved.

:func:`apply_edits` applies edits in order; each one's index refers to the chunking as it stands
before it (dropped chunks count). The chunking is always recomputed from the splitter's chunks
plus the edits, so undoing the last edit (:func:`undo`) restores it exactly.

What holds after any edits: ``doc.text[c.start:c.end] == c.text`` for every chunk; starts and
ends strictly increase; every non-white-space character that a chunk held is still held, and
only the overlaps the splitter declared are held twice; ``index`` counts from 0; ``size``,
``overlap``, the heading path and the pages are those of the new span. A chunk an edit makes
over the size limit is flagged ``oversize`` (and :func:`explorer.chunking.diagnostics.diagnose`
finds one over the model's window) — an edit is never refused for size.

Ids: a chunk's id stays :func:`~explorer.chunking.records.chunk_id` of its text and heading
path under the splitter's own settings key. So a chunk no edit touched keeps the id it has
without edits (an export of the edited chunking diffs cleanly against the plain one) and a chunk
an edit changed gets a new id, because its text is new; such a chunk is also flagged ``edited``.
The edits are part of the *chunking's* key (:func:`chunking_key`), which is what caches of
retrievers and answers are keyed by.

Edit files are JSON lists such as ``[{"merge": 3}, {"split": 1250}, {"drop": 7}]``
(:func:`load_edits`); links carry them compactly as ``m3.s1250.d7`` (:func:`encode_edits`).

A link is opened on whatever file of that name is at hand, so it carries more
(:class:`LinkEdits`): the version of the document the edits were made on
(:attr:`Document.version`) and, with each edit, an anchor: ``~`` and 8 hex digits of the SHA-256
of the text the edit touches in the chunking as it stood before the edit — the chunk a split cuts
(then ``-`` and the split's offset inside that chunk), the text from the first chunk's start to
the second's end for a merge, the chunk a drop drops: ``s1250~4f1a09c2-312.m3~77b2e0aa``.
:func:`reapply` reads such a link against the document shown:

* on the version the edits were made on, they apply as written;
* on another version, an edit applies only where its text still stands: it is moved to the chunk
  (or the pair of chunks) whose text has its anchor — the one nearest where it was, when the same
  text stands twice — a split at the same place inside that chunk; an edit whose text is gone is
  left out, and the reason is kept;
* a link without a version or without anchors (made before links recorded them) is "version
  unknown": a split applies only where the text itself ends a sentence, a paragraph or a block
  inside the chunk holding it (:func:`split_points`: the places the app offers); a merge or a
  drop, which names chunks and carries no text, applies by its index.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from explorer.chunking import sentences
from explorer.chunking.measures import Units
from explorer.chunking.records import Chunk, ChunkSettings, chunk_ids
from explorer.chunking.splitters import _atomic_spans, _inside
from explorer.documents.load import trim_span
from explorer.documents.model import Document
from explorer.errors import EditError, JSONTextError
from explorer.jsontext import loads_bounded

EditKind = Literal["split", "merge", "drop"]
KINDS: tuple[EditKind, ...] = ("split", "merge", "drop")
_LETTER = {"split": "s", "merge": "m", "drop": "d"}
_KIND_OF = {v: k for k, v in _LETTER.items()}
MAX_EDITS = 1000
"""More edits than this in one file or link are refused (a chunking is not edited by hand that
much; it keeps a hostile link cheap)."""
DERIVED_FLAGS = ("oversize", "table_split", "code_split", "edited")
"""Flags recomputed for a chunk an edit changed."""


@dataclass(frozen=True, slots=True)
class Edit:
    """One move: ``split`` at a document offset, ``merge`` a chunk with the next, ``drop`` one."""

    kind: EditKind
    at: int
    """The offset in ``doc.text`` (split) or the chunk's index (merge, drop)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise EditError(f"unknown edit {self.kind!r}; an edit is split, merge or drop")
        if isinstance(self.at, bool) or not isinstance(self.at, int) or self.at < 0:
            what = "an offset" if self.kind == "split" else "a chunk index"
            raise EditError(f"{self.kind} takes {what}, a whole number 0 or more; got {self.at!r}")

    def to_json(self) -> dict[str, int]:
        return {self.kind: self.at}

    @classmethod
    def from_json(cls, item: object) -> Edit:
        """``{"split": 1250}``, ``{"merge": 3}`` or ``{"drop": 7}``."""
        if not isinstance(item, dict) or len(item) != 1:
            raise EditError(
                f'an edit is an object with one key, such as {{"merge": 3}}; got {_short(item)}'
            )
        ((kind, at),) = item.items()
        if kind not in KINDS:
            raise EditError(f"unknown edit {kind!r}; an edit is split, merge or drop")
        return cls(cast(EditKind, kind), at)

    def describe(self) -> str:
        """``"split at 1250"``, ``"merge chunk 3 with the next"``, ``"drop chunk 7"``."""
        if self.kind == "split":
            return f"split at {self.at}"
        if self.kind == "merge":
            return f"merge chunk {self.at} with the next"
        return f"drop chunk {self.at}"


Edits = tuple[Edit, ...]


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if _jsonable(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


# --------------------------------------------------------------------------- reading and writing


def parse_edits(data: object) -> Edits:
    """Edits from their JSON form: a list of ``{"split": OFFSET}``, ``{"merge": INDEX}``,
    ``{"drop": INDEX}`` (EditError names the first bad item)."""
    if not isinstance(data, list):
        kind = {dict: "an object", str: "a string", int: "a number", float: "a number"}.get(
            type(data), "null" if data is None else type(data).__name__
        )
        raise EditError(
            f'edits are a JSON list such as [{{"merge": 3}}, {{"split": 1250}}]; got {kind}'
        )
    if len(data) > MAX_EDITS:
        raise EditError(f"{len(data)} edits; at most {MAX_EDITS} are taken")
    out = []
    for n, item in enumerate(data):
        try:
            out.append(Edit.from_json(item))
        except EditError as exc:
            raise EditError(f"edit {n + 1}: {exc}") from None
    return tuple(out)


def load_edits(path: str | Path) -> Edits:
    """The edits in the JSON file at ``path``: a list (see :func:`parse_edits`)."""
    data = load_edit_file(path)
    if isinstance(data, dict):
        raise EditError(
            f"the edit file {path} gives edits by document; here one document is edited, so "
            'give a list such as [{"merge": 3}]'
        )
    return data


def edits_for(path: str | Path, names: Sequence[str]) -> dict[str, Edits]:
    """The edits in the file at ``path`` by document name: an object ``{"doc.md": [...]}``, or
    a list when ``names`` is one document (the one it edits)."""
    data = load_edit_file(path)
    if isinstance(data, dict):
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise EditError(
                f"the edit file {path} edits {unknown[0]!r}, which is not among the documents "
                f"({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})"
            )
        return data
    if len(names) != 1:
        raise EditError(
            f"the edit file {path} is a list, but {len(names)} documents are searched; give "
            'the edits by document, such as {"refund-policy.md": [{"merge": 3}]}'
        )
    return {names[0]: data}


def load_edit_file(path: str | Path) -> Edits | dict[str, Edits]:
    """The JSON file at ``path``: a list of edits, or an object of such lists by document."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise EditError(f"cannot read the edit file {p}: {exc.strerror or exc}") from None
    try:
        data = loads_bounded(raw.decode("utf-8-sig"), what=f"the edit file {p}")
    except UnicodeDecodeError:
        raise EditError(f"the edit file {p} is not UTF-8 text") from None
    except JSONTextError as exc:
        raise EditError(f"the edit file {p} is {exc.problem}") from None
    if isinstance(data, dict) and data and set(data) <= set(KINDS):
        one = json.dumps(data)
        raise EditError(f"the edit file {p} holds one edit; write a list of edits, [{one}]")
    try:
        if isinstance(data, dict):
            out = {}
            for name, items in data.items():
                try:
                    out[name] = parse_edits(items)
                except EditError as exc:
                    raise EditError(f"{name!r}: {exc}") from None
            return out
        return parse_edits(data)
    except EditError as exc:
        raise EditError(f"the edit file {p}: {exc}") from None


def edits_json(edits: Sequence[Edit]) -> list[dict[str, int]]:
    return [e.to_json() for e in edits]


def encode_edits(edits: Sequence[Edit]) -> str:
    """The compact form links use: ``m3.s1250.d7`` (``""`` for none)."""
    return ".".join(f"{_LETTER[e.kind]}{e.at}" for e in edits)


_ENCODED = re.compile(r"([smd])(\d{1,12})(?:~([0-9a-f]{8})(?:-(\d{1,12}))?)?")


def decode_edits(text: str) -> Edits:
    """Edits from :func:`encode_edits`'s form (or a link's, its anchors set aside: see
    :func:`decode_link`); anything else is an EditError."""
    return decode_link(text).edits


def decode_link(text: str, *, version: str = "") -> LinkEdits:
    """A link's edits with their anchors (:func:`encode_link`; an edit written without one has
    ``None``), made on ``version`` (``""``: the link does not say); anything else is an
    EditError."""
    if not text:
        return LinkEdits((), (), version)
    parts = text.split(".")
    if len(parts) > MAX_EDITS:
        raise EditError(f"{len(parts)} edits; at most {MAX_EDITS} are taken")
    edits: list[Edit] = []
    anchors: list[Anchor | None] = []
    for part in parts:
        m = _ENCODED.fullmatch(part)
        if m is None or (m.group(4) is not None and m.group(1) != "s"):
            raise EditError(
                f"cannot read the edit {part[:20]!r}; edits are written like m3.s1250.d7 "
                "(merge 3, split at 1250, drop 7)"
            )
        edits.append(Edit(cast(EditKind, _KIND_OF[m.group(1)]), int(m.group(2))))
        anchors.append(Anchor(m.group(3), int(m.group(4) or 0)) if m.group(3) else None)
    return LinkEdits(tuple(edits), tuple(anchors), version)


@dataclass(frozen=True, slots=True)
class Anchor:
    """What an edit touched, so another version can tell where its text still stands: the first
    8 hex digits of the SHA-256 of that text, and for a split its offset inside the chunk."""

    digest: str
    inside: int = 0


@dataclass(frozen=True)
class LinkEdits:
    """Edits as a link carries them: each with its :class:`Anchor` (``None`` when the link has
    none), and the version of the document they were made on (``""`` when it does not say)."""

    edits: Edits
    anchors: tuple[Anchor | None, ...]
    version: str = ""

    def __post_init__(self) -> None:
        if len(self.anchors) != len(self.edits):
            raise ValueError("one anchor (or None) per edit")


def encode_link(edits: Sequence[Edit], anchors: Sequence[Anchor | None]) -> str:
    """The link form: :func:`encode_edits`'s, each edit with its anchor (``s1250~4f1a09c2-312``)."""
    out = []
    for e, a in zip(edits, anchors, strict=True):
        tail = "" if a is None else f"~{a.digest}" + (f"-{a.inside}" if e.kind == "split" else "")
        out.append(f"{_LETTER[e.kind]}{e.at}{tail}")
    return ".".join(out)


def chunking_key(settings: ChunkSettings, edits: Sequence[Edit]) -> str:
    """The settings' key, plus the edits when there are any (for caches of chunkings and
    retrievers: an edited chunking is another chunking)."""
    key = settings.key()
    return key + (f"|edits={encode_edits(edits)}" if edits else "")


def describe(label: str, edits: Sequence[Edit]) -> str:
    """``"CONFIG + 2 edits"`` (``label`` alone without edits)."""
    if not edits:
        return label
    return f"{label} + {len(edits)} edit{'s' if len(edits) != 1 else ''}"


def undo(edits: Sequence[Edit]) -> Edits:
    """The edits without the last one (none left: none)."""
    return tuple(edits[:-1])


# --------------------------------------------------------------------------- applying


@dataclass
class _Span:
    start: int
    end: int
    dropped: bool
    changed: bool
    chunk: Chunk | None
    """The splitter's chunk, while no edit has changed the span."""


def split_target(text: str, chunks: Sequence[Chunk], offset: int) -> int | None:
    """The index of the chunk a split at ``offset`` cuts (``None`` when none can be): the one
    holding it strictly inside, outside any overlap with a neighbour, with text that is not
    white space on both sides, neither of which (trimmed) falls inside a neighbour."""
    return _split_index(text, [(c.start, c.end) for c in chunks], offset)


def _split_index(text: str, spans: Sequence[tuple[int, int]], offset: int) -> int | None:
    i = bisect.bisect_right([s for s, _ in spans], offset) - 1
    if i < 0 or not spans[i][0] < offset < spans[i][1]:
        return None
    a, b = _halves(text, spans[i], offset)
    if a[0] >= a[1] or b[0] >= b[1]:
        return None
    if i > 0 and a[1] <= spans[i - 1][1]:
        return None
    if i + 1 < len(spans) and b[0] >= spans[i + 1][0]:
        return None
    return i


def _halves(
    text: str, span: tuple[int, int], offset: int
) -> tuple[tuple[int, int], tuple[int, int]]:
    return trim_span(text, span[0], offset), trim_span(text, offset, span[1])


def apply_edits(
    doc: Document,
    chunks: Sequence[Chunk],
    edits: Sequence[Edit],
    settings: ChunkSettings,
    *,
    units: Units | None = None,
) -> list[Chunk]:
    """``chunks`` (the splitter's, for ``doc`` under ``settings``) after ``edits``, in order
    (see the module). ``units`` measures ``doc.text`` in ``settings``' unit (made when left
    out). An edit that cannot apply raises EditError naming it."""
    spans = _spans(chunks)
    for n, edit in enumerate(edits):
        _step(doc.text, spans, edit, n)
    return _chunks(doc, spans, settings, units)


def _spans(chunks: Sequence[Chunk]) -> list[_Span]:
    return [_Span(c.start, c.end, "dropped" in c.flags, False, c) for c in chunks]


def _step(text: str, spans: list[_Span], edit: Edit, n: int) -> None:
    """Apply ``edit``, the ``n``-th (from 0), to ``spans`` in place; EditError names it when it
    cannot apply."""
    where = f"edit {n + 1} ({edit.describe()})"
    last = len(spans) - 1
    if edit.kind == "split":
        if edit.at > len(text):
            raise EditError(
                f"{where}: the document has {len(text):,} characters; a split offset is "
                f"from 1 to {max(len(text) - 1, 0):,}"
            )
        i = _split_index(text, [(sp.start, sp.end) for sp in spans], edit.at)
        if i is None:
            raise EditError(
                f"{where}: no chunk holds offset {edit.at} inside it outside an overlap; "
                "split inside a chunk, not at its edge, between chunks, in shared text or "
                "next to white space only"
            )
        a, b = _halves(text, (spans[i].start, spans[i].end), edit.at)
        dropped = spans[i].dropped
        spans[i : i + 1] = [
            _Span(a[0], a[1], dropped, True, None),
            _Span(b[0], b[1], dropped, True, None),
        ]
        return
    if edit.at > last:
        raise EditError(
            f"{where}: there is no chunk {edit.at}; the chunking has {len(spans)} chunks "
            f"(0 to {last})"
        )
    if edit.kind == "merge":
        if edit.at == last:
            raise EditError(
                f"{where}: chunk {edit.at} is the last chunk; there is none after it to merge with"
            )
        first, second = spans[edit.at], spans[edit.at + 1]
        spans[edit.at : edit.at + 2] = [
            _Span(
                first.start,
                max(first.end, second.end),
                first.dropped and second.dropped,
                True,
                None,
            )
        ]
    else:
        if spans[edit.at].dropped:
            raise EditError(f"{where}: chunk {edit.at} is dropped already")
        spans[edit.at].dropped = True


def _chunks(
    doc: Document, spans: Sequence[_Span], settings: ChunkSettings, units: Units | None
) -> list[Chunk]:
    if units is None:
        units = settings.measure.units(doc.text)
    ids = chunk_ids(doc, [(s.start, s.end) for s in spans], settings.key())
    atomic = _atomic_spans(doc.blocks)
    atomic_kind = {(b.start, b.end): b.kind for b in doc.blocks if b.kind in ("table", "code")}
    out: list[Chunk] = []
    prev_end = 0
    for i, sp in enumerate(spans):
        s, e = sp.start, sp.end
        if sp.chunk is not None and not sp.changed:
            base = sp.chunk
            flags = set(base.flags) - {"dropped"}
            size = base.size
        else:
            base = None
            size = units.size(s, e)
            flags = {"edited"}
            if size > settings.size:
                flags.add("oversize")
            for x in (s, e):
                j = _inside(atomic, x)
                if j is not None:
                    flags.add("table_split" if atomic_kind[atomic[j]] == "table" else "code_split")
        if sp.dropped:
            flags.add("dropped")
        overlap = units.size(s, min(prev_end, e)) if i and s < prev_end else 0
        if base is not None:
            page_start, page_end, heading_path = base.page_start, base.page_end, base.heading_path
        else:
            page_start, page_end = doc.page_span(s, e)
            heading_path = doc.heading_path_at(s)
        out.append(
            Chunk(
                id=ids[i],
                index=i,
                start=s,
                end=e,
                text=doc.text[s:e],
                size=size,
                overlap=overlap,
                heading_path=heading_path,
                page_start=page_start,
                page_end=page_end,
                flags=tuple(sorted(flags)),
            )
        )
        prev_end = e
    return out


def retrievable(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks an index holds: all but the dropped ones."""
    return [c for c in chunks if "dropped" not in c.flags]


# --------------------------------------------------------------------------- the app's helpers


def split_points(doc: Document, chunks: Sequence[Chunk], index: int) -> list[int]:
    """Where chunk ``index`` can be split: each end of a sentence, of a block (a heading, a list
    item, a table row's table) and of a paragraph inside it — outside any overlap with its
    neighbours — as document offsets, in order. A line break inside a hard-wrapped paragraph is
    not one (it ends no sentence)."""
    return _points(doc, [(c.start, c.end) for c in chunks], index)


def _points(doc: Document, spans: Sequence[tuple[int, int]], index: int) -> list[int]:
    start, end = spans[index]
    text = doc.text[start:end]
    found = {start + e for _s, e in sentences.sentence_spans(text)}
    found |= {trim_span(doc.text, start, b.end)[1] for b in doc.blocks if start < b.end < end}
    for m in re.finditer(r"\n[^\S\n]*\n", text):  # a blank line: a paragraph ends before it
        found.add(start + trim_span(text, 0, m.start())[1])
    return sorted(p for p in found if _split_index(doc.text, spans, p) == index)


def snap(doc: Document, chunks: Sequence[Chunk], index: int, position: int) -> int | None:
    """The split point of chunk ``index`` nearest ``position`` (a sentence, block or paragraph
    end; see :func:`split_points`), or ``None`` when the chunk has none."""
    points = split_points(doc, chunks, index)
    if not points:
        return None
    return min(points, key=lambda p: (abs(p - position), p))


# --------------------------------------------------------------------------- links across versions


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _touched(text: str, spans: Sequence[_Span], kind: EditKind, i: int) -> str:
    """The text an edit of ``kind`` on span ``i`` touches (a merge: through the next span)."""
    if kind == "merge":
        return text[spans[i].start : max(spans[i].end, spans[i + 1].end)]
    return text[spans[i].start : spans[i].end]


def anchor_edits(
    doc: Document, chunks: Sequence[Chunk], edits: Sequence[Edit]
) -> tuple[Anchor, ...]:
    """Each edit's :class:`Anchor` over ``chunks`` (the splitter's) as the edits before it left
    them; EditError when an edit cannot apply (as :func:`apply_edits`)."""
    text = doc.text
    spans = _spans(chunks)
    out = []
    for n, edit in enumerate(edits):
        if edit.kind == "split":
            i = _split_index(text, [(sp.start, sp.end) for sp in spans], edit.at)
            anchor = None if i is None else Anchor(_digest(_touched(text, spans, "split", i)),
                                                   edit.at - spans[i].start)  # fmt: skip
        else:
            fits = edit.at + (edit.kind == "merge") < len(spans)
            anchor = Anchor(_digest(_touched(text, spans, edit.kind, edit.at))) if fits else None
        _step(text, spans, edit, n)  # raises for an edit that cannot apply
        assert anchor is not None
        out.append(anchor)
    return tuple(out)


VersionMatch = Literal["same", "other", "unknown"]


@dataclass(frozen=True)
class Reapplied:
    """A link's edits read against the document shown (:func:`reapply`): the edits that apply,
    where they apply in it; each edit left out with the reason; how many applied elsewhere than
    the link wrote them; and whether the document is the version the link names."""

    edits: Edits
    left_out: tuple[tuple[Edit, str], ...]
    moved: int
    version: VersionMatch


def reapply(doc: Document, chunks: Sequence[Chunk], link: LinkEdits) -> Reapplied:
    """``link``'s edits as they apply to ``doc`` chunked into ``chunks`` (the splitter's): as
    written on the version they were made on; elsewhere only where their text still stands, or
    for a link without anchors where the text allows (see the module). Never raises for an
    edit: one that cannot apply is left out with the reason. The texts' digests are made once
    and kept up to date as edits apply, so a long link costs about one pass over the text."""
    if link.version and link.version == doc.version:
        return Reapplied(link.edits, (), 0, "same")
    text = doc.text
    spans = _spans(chunks)
    digests = _Digests(text, spans)
    kept: list[Edit] = []
    left: list[tuple[Edit, str]] = []
    moved = 0
    for n, (edit, anchor) in enumerate(zip(link.edits, link.anchors, strict=True)):
        placed, i, why = _place(doc, spans, digests, edit, anchor)
        if placed is not None:
            try:
                _step(text, spans, placed, n)
            except EditError as exc:
                placed, why = None, str(exc).split(": ", 1)[-1]
        if placed is None:
            left.append((edit, why))
            continue
        kept.append(placed)
        moved += placed != edit
        digests.update(i, {"split": 1, "merge": -1, "drop": 0}[placed.kind])
    return Reapplied(tuple(kept), tuple(left), moved, "other" if link.version else "unknown")


class _Digests:
    """The digest of every span's text (what a split or a drop touches) and of every pair of
    neighbours' (what a merge touches), kept in step with the spans as edits change them."""

    def __init__(self, text: str, spans: list[_Span]) -> None:
        self.text, self.spans = text, spans
        self.single = [self.of("split", i) for i in range(len(spans))]
        self.pair = [self.of("merge", i) for i in range(len(spans) - 1)]

    def of(self, kind: EditKind, i: int) -> str:
        return _digest(_touched(self.text, self.spans, kind, i))

    def update(self, i: int, delta: int) -> None:
        """Span ``i`` was split in two (``delta`` 1), merged with the next (-1) or dropped (0)."""
        if not delta:
            return
        n = len(self.spans)
        hi_new, hi_old = i + 1 + max(delta, 0), i + 1 + max(-delta, 0)
        self.single[i:hi_old] = [self.of("split", j) for j in range(i, hi_new)]
        lo = max(i - 1, 0)
        self.pair[lo : min(hi_old, n - delta - 1)] = [
            self.of("merge", j) for j in range(lo, min(hi_new, n - 1))
        ]

    def places(self, kind: EditKind, digest: str) -> list[int]:
        """Where a ``kind`` edit's text has ``digest``: span indices (list searches run in C)."""
        found = self.pair if kind == "merge" else self.single
        out: list[int] = []
        i = -1
        while True:
            try:
                i = found.index(digest, i + 1)
            except ValueError:
                return out
            out.append(i)


def _place(
    doc: Document, spans: Sequence[_Span], digests: _Digests, edit: Edit, anchor: Anchor | None
) -> tuple[Edit | None, int, str]:
    """Where ``edit`` applies in ``spans``: the edit there and the span it touches, or
    ``None`` and why not."""
    text = doc.text
    if anchor is None:  # version unknown: a split only where the text itself ends something
        if edit.kind != "split":
            return edit, edit.at, ""
        bounds = [(sp.start, sp.end) for sp in spans]
        i = _split_index(text, bounds, edit.at)
        if i is None or edit.at not in _points(doc, bounds, i):
            return (
                None,
                -1,
                "it falls inside a sentence here, not at the end of one, a paragraph or a block",
            )
        return edit, i, ""
    places = digests.places(edit.kind, anchor.digest)
    if not places:
        what = {"split": "the chunk it cut", "merge": "the two chunks it joined",
                "drop": "the chunk it dropped"}[edit.kind]  # fmt: skip
        return None, -1, f"{what} is not in this version"
    if edit.kind == "split":
        i = min(places, key=lambda j: (abs(spans[j].start + anchor.inside - edit.at), j))
        at = spans[i].start + anchor.inside
        if _split_index(text, [(sp.start, sp.end) for sp in spans], at) != i:
            return None, -1, "its place is shared with a neighbouring chunk in this version"
        return Edit("split", at), i, ""
    i = min(places, key=lambda j: (abs(j - edit.at), j))
    if edit.kind == "drop" and spans[i].dropped:
        return None, -1, f"chunk {i} is dropped already"
    return Edit(edit.kind, i), i, ""
