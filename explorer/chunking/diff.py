"""What changed between two versions of a document, chunk by chunk.

Chunk ids name what a chunk is (:func:`explorer.chunking.records.chunk_id`), so a chunk whose
text and heading path survive an edit keeps its id. Comparing the ids of two versions' chunks gives:

* **unchanged** — a new chunk whose id is also an old chunk's id (same text, heading path,
  settings and occurrence);
* **changed** — a new chunk whose id is new and which overlaps an old chunk that is gone (one
  whose id is not among the new ones), positions compared through a text diff of the two
  versions (see :class:`PositionMap`); it *replaces* those old chunks;
* **added** — a new chunk whose id is new and which overlaps no old chunk that is gone (new
  text, such as an inserted section);
* **removed** — an old chunk that is gone and that no changed chunk replaces (deleted text).

An index updated from version one to version two deletes the removed chunks and the ones that
changed chunks replace (:attr:`ChunkDiff.stale`), and embeds the new texts
(:attr:`ChunkDiff.reembed`); unchanged chunks keep their records, with their new spans.

Identical chunks (same text and heading path) are told apart by their occurrence number, so an
edit to one of them renumbers the later ones: the diff is still a correct update of an index
keyed by id (an id always names the same text), but the edited copy may be listed as added and
the last copy as removed.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from explorer.errors import DiffError


@dataclass(frozen=True, slots=True)
class ChunkRef:
    """A chunk named in a diff: its id, its index and span ``[start, end)`` in its version."""

    id: str
    index: int
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise DiffError(f"chunk span [{self.start}, {self.end}) is empty or negative")
        if self.index < 0:
            raise DiffError(f"chunk index must be 0 or more, got {self.index}")

    @classmethod
    def of(cls, chunk: Chunk) -> ChunkRef:
        return cls(id=chunk.id, index=chunk.index, start=chunk.start, end=chunk.end)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "index": self.index, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A chunk in both versions: ``old`` and ``new`` have the same id, maybe other spans."""

    old: ChunkRef
    new: ChunkRef

    def __post_init__(self) -> None:
        if self.old.id != self.new.id:
            raise DiffError(f"an unchanged chunk keeps its id, got {self.old.id} → {self.new.id}")

    def to_json(self) -> dict[str, Any]:
        old = {"old_index": self.old.index, "old_start": self.old.start, "old_end": self.old.end}
        return {**self.new.to_json(), **old}


@dataclass(frozen=True, slots=True)
class Changed:
    """A new chunk (``new``) that takes the place of old chunks that are gone (``replaces``)."""

    new: ChunkRef
    replaces: tuple[ChunkRef, ...]

    def __post_init__(self) -> None:
        if not self.replaces:
            raise DiffError("a changed chunk replaces at least one old chunk; else it is added")

    def to_json(self) -> dict[str, Any]:
        return {**self.new.to_json(), "replaces": [r.to_json() for r in self.replaces]}


@dataclass(frozen=True)
class ChunkDiff:
    """Every new chunk is unchanged, changed or added; every old chunk is unchanged, replaced
    by a changed chunk, or removed. Lists are in document order (new order for new chunks)."""

    unchanged: tuple[Unchanged, ...]
    changed: tuple[Changed, ...]
    added: tuple[ChunkRef, ...]
    removed: tuple[ChunkRef, ...]
    reembed: int
    """Distinct texts of new chunks that are not the text of any old chunk: what must be
    embedded to update an index (a vector of an old text can be kept, whatever its id)."""

    def __post_init__(self) -> None:
        new_ids = [u.new.id for u in self.unchanged] + [c.new.id for c in self.changed]
        new_ids += [a.id for a in self.added]
        if len(set(new_ids)) != len(new_ids):
            raise DiffError("a new chunk is listed twice in a diff")
        old_ids = {u.old.id for u in self.unchanged}
        if any(r.id in old_ids for r in self.stale):
            raise DiffError("an old chunk is both unchanged and stale in a diff")
        if not 0 <= self.reembed <= len(self.changed) + len(self.added):
            raise DiffError(f"reembed must count new texts only, got {self.reembed}")

    @property
    def stale(self) -> tuple[ChunkRef, ...]:
        """The old chunks an index must delete: the removed ones and those changed ones
        replace, each once, in old document order."""
        seen: dict[str, ChunkRef] = {r.id: r for r in self.removed}
        for c in self.changed:
            for r in c.replaces:
                seen.setdefault(r.id, r)
        return tuple(sorted(seen.values(), key=lambda r: r.index))

    def counts(self) -> dict[str, int]:
        return {
            "unchanged": len(self.unchanged),
            "changed": len(self.changed),
            "added": len(self.added),
            "removed": len(self.removed),
            "stale": len(self.stale),
            "reembed": self.reembed,
        }

    def to_json(self) -> dict[str, Any]:
        """``unchanged``, ``changed``, ``added`` and ``removed`` lists, and their ``counts``
        (with ``stale``, the old chunks to delete, and ``reembed``, the texts to embed)."""
        return {
            "unchanged": [u.to_json() for u in self.unchanged],
            "changed": [c.to_json() for c in self.changed],
            "added": [a.to_json() for a in self.added],
            "removed": [r.to_json() for r in self.removed],
            "counts": self.counts(),
        }


# --------------------------------------------------------------------------- positions

_PIECE_END = re.compile(r"\n|[.!?]+[ \t]+")


def pieces(text: str) -> list[str]:
    """``text`` cut after every line break and after every sentence end (punctuation and the
    spaces after it); the pieces join back to ``text``."""
    out, pos = [], 0
    for m in _PIECE_END.finditer(text):
        out.append(text[pos : m.end()])
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


class PositionMap:
    """Old offsets mapped to new ones through a diff of the two texts.

    The texts are compared as sequences of lines and sentences (:func:`pieces`) with
    :class:`difflib.SequenceMatcher`, which takes well under a second on a megabyte of prose;
    pieces that occur very often (blank lines) only extend matches, they do not anchor them. An
    offset inside an unchanged stretch maps exactly; an offset inside a replaced or deleted
    stretch maps to the start (for a span's start) or the end (for a span's end) of what took its
    place, so an old span maps to the new text that now stands where it stood.
    """

    def __init__(self, old: str, new: str) -> None:
        a, b = pieces(old), pieces(new)
        a_at, b_at = _starts(a), _starts(b)
        matcher = difflib.SequenceMatcher(None, a, b)
        self._blocks: list[tuple[bool, int, int, int, int]] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if i1 < i2:  # a pure insertion holds no old offset
                self._blocks.append((tag == "equal", a_at[i1], a_at[i2], b_at[j1], b_at[j2]))
        self._lo = [blk[1] for blk in self._blocks]
        self._hi = [blk[2] for blk in self._blocks]

    def start(self, x: int) -> int:
        """Where an old span starting at ``x`` starts in the new text."""
        i = bisect.bisect_right(self._lo, x) - 1
        if i < 0:
            return 0
        equal, lo, hi, j1, j2 = self._blocks[i]
        if x >= hi:
            return j2
        return j1 + (x - lo) if equal else j1

    def end(self, x: int) -> int:
        """Where an old span ending at ``x`` (exclusive) ends in the new text."""
        i = bisect.bisect_left(self._hi, x)
        if i >= len(self._blocks):
            return self._blocks[-1][4] if self._blocks else 0
        equal, lo, _, j1, j2 = self._blocks[i]
        if x <= lo:
            return j1
        return j1 + (x - lo) if equal else j2

    def span(self, start: int, end: int) -> tuple[int, int]:
        return self.start(start), self.end(end)


def _starts(parts: Sequence[str]) -> list[int]:
    out = [0]
    for p in parts:
        out.append(out[-1] + len(p))
    return out


# --------------------------------------------------------------------------- the diff


def _check(doc: Document, chunks: Sequence[Chunk], which: str) -> None:
    for c in chunks:
        if doc.text[c.start : c.end] != c.text:
            raise DiffError(
                f"chunk {c.index} of the {which} version is not in {doc.name!r}: split the "
                "document that is being compared, not another one"
            )
    if len({c.id for c in chunks}) != len(chunks):
        raise DiffError(f"the {which} version has two chunks with one id; split it again")


def diff_chunks(
    old_doc: Document, old_chunks: Sequence[Chunk], new_doc: Document, new_chunks: Sequence[Chunk]
) -> ChunkDiff:
    """Compare the chunks of two versions of one document (see the module docstring).

    Both versions should be split with the same settings: ids include them, so under other
    settings no chunk is unchanged.
    """
    _check(old_doc, old_chunks, "old")
    _check(new_doc, new_chunks, "new")
    old_by_id = {c.id: c for c in old_chunks}
    new_ids = {c.id for c in new_chunks}
    gone = [c for c in old_chunks if c.id not in new_ids]
    positions = PositionMap(old_doc.text, new_doc.text)
    mapped = [positions.span(c.start, c.end) for c in gone]
    starts = [s for s, _ in mapped]
    ends = [e for _, e in mapped]
    # a splitter's starts and ends increase and the map never goes backwards, so the gone chunks
    # a new span overlaps are one run: those ending after its start and starting before its end
    ordered = all(a <= b for xs in (starts, ends) for a, b in itertools.pairwise(xs))

    def overlapped(c: Chunk) -> list[Chunk]:
        if ordered:
            run = range(bisect.bisect_right(ends, c.start), bisect.bisect_left(starts, c.end))
        else:
            run = range(len(gone))
        return [gone[i] for i in run if starts[i] < min(ends[i], c.end) and c.start < ends[i]]

    unchanged: list[Unchanged] = []
    changed: list[Changed] = []
    added: list[ChunkRef] = []
    replaced: set[str] = set()
    for c in new_chunks:
        old = old_by_id.get(c.id)
        if old is not None:
            unchanged.append(Unchanged(old=ChunkRef.of(old), new=ChunkRef.of(c)))
            continue
        hits = overlapped(c)
        if hits:
            changed.append(Changed(new=ChunkRef.of(c), replaces=tuple(map(ChunkRef.of, hits))))
            replaced.update(g.id for g in hits)
        else:
            added.append(ChunkRef.of(c))
    removed = tuple(ChunkRef.of(g) for g in gone if g.id not in replaced)
    old_texts = {c.text for c in old_chunks}
    reembed = len({c.text for c in new_chunks if c.text not in old_texts})
    return ChunkDiff(
        unchanged=tuple(unchanged),
        changed=tuple(changed),
        added=tuple(added),
        removed=removed,
        reembed=reembed,
    )
