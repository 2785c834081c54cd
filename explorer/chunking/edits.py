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
"""

from __future__ import annotations

import bisect
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


_ENCODED = re.compile(r"([smd])(\d{1,12})")


def decode_edits(text: str) -> Edits:
    """Edits from :func:`encode_edits`'s form; anything else is an EditError."""
    if not text:
        return ()
    parts = text.split(".")
    if len(parts) > MAX_EDITS:
        raise EditError(f"{len(parts)} edits; at most {MAX_EDITS} are taken")
    out = []
    for part in parts:
        m = _ENCODED.fullmatch(part)
        if m is None:
            raise EditError(
                f"cannot read the edit {part[:20]!r}; edits are written like m3.s1250.d7 "
                "(merge 3, split at 1250, drop 7)"
            )
        out.append(Edit(cast(EditKind, _KIND_OF[m.group(1)]), int(m.group(2))))
    return tuple(out)


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
    spans = [_Span(c.start, c.end, "dropped" in c.flags, False, c) for c in chunks]
    text = doc.text
    for n, edit in enumerate(edits):
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
            continue
        if edit.at > last:
            raise EditError(
                f"{where}: there is no chunk {edit.at}; the chunking has {len(spans)} chunks "
                f"(0 to {last})"
            )
        if edit.kind == "merge":
            if edit.at == last:
                raise EditError(
                    f"{where}: chunk {edit.at} is the last chunk; there is none after it to "
                    "merge with"
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
    return _chunks(doc, spans, settings, units)


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
    c = chunks[index]
    found = {c.start + e for _s, e in sentences.sentence_spans(c.text)}
    found |= {trim_span(doc.text, c.start, b.end)[1] for b in doc.blocks if c.start < b.end < c.end}
    for m in re.finditer(r"\n[^\S\n]*\n", c.text):  # a blank line: a paragraph ends before it
        found.add(c.start + trim_span(c.text, 0, m.start())[1])
    return sorted(p for p in found if split_target(doc.text, chunks, p) == index)


def snap(doc: Document, chunks: Sequence[Chunk], index: int, position: int) -> int | None:
    """The split point of chunk ``index`` nearest ``position`` (a sentence, block or paragraph
    end; see :func:`split_points`), or ``None`` when the chunk has none."""
    points = split_points(doc, chunks, index)
    if not points:
        return None
    return min(points, key=lambda p: (abs(p - position), p))
