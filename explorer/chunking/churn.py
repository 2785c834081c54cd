"""Churn: how much of a new version an index has to embed again, splitter by splitter.

An index keyed by content (a vector per embedded text, as the lasting embedding index keeps
them) re-embeds a new version's chunk exactly when the text it embeds for that chunk
(:func:`~explorer.chunking.records.embedded_text`) is not among the texts it embedded for the
old version. That share of the new version's chunks is the *churn* of an edit.

Fixed windows cut at offsets counted from the start, so one paragraph inserted near the top
shifts every later window and nearly every chunk is new (the "avalanche"); a splitter that cuts at
the document's structure re-cuts only the section that changed.
:meth:`explorer.workspace.Workspace.churn` measures that for several splitters at one
configuration's size, unit and overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.chunking.records import Chunk, embedded_text
from explorer.errors import SettingsError

if TYPE_CHECKING:
    from explorer.documents.model import Document


@dataclass(frozen=True, slots=True)
class Churn:
    """One splitter's churn: ``reembedded`` of the ``new_chunks`` embed a text the old version's
    ``old_chunks`` did not; the other ``unchanged`` ones hit the content-addressed cache."""

    splitter: str
    old_chunks: int
    new_chunks: int
    reembedded: int

    def __post_init__(self) -> None:
        if min(self.old_chunks, self.new_chunks, self.reembedded) < 0:
            raise SettingsError("chunk counts are 0 or more")
        if self.reembedded > self.new_chunks:
            raise SettingsError(
                f"{self.reembedded} re-embedded chunks of only {self.new_chunks} new ones"
            )

    @property
    def unchanged(self) -> int:
        """New chunks whose embedded text the old version had already embedded."""
        return self.new_chunks - self.reembedded

    @property
    def share(self) -> float:
        """The share of the new version's chunks that must be embedded again (0 to 1)."""
        return self.reembedded / self.new_chunks if self.new_chunks else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "old_chunks": self.old_chunks,
            "new_chunks": self.new_chunks,
            "unchanged": self.unchanged,
            "reembedded": self.reembedded,
            "share": round(self.share, 4),
        }


def churn(
    old_chunks: Sequence[Chunk],
    new_chunks: Sequence[Chunk],
    *,
    splitter: str,
    heading_prefix: bool = False,
) -> Churn:
    """The churn from ``old_chunks`` to ``new_chunks`` (one splitter's chunks of two versions),
    comparing what is embedded for each (``heading_prefix`` as the configuration says)."""
    old = {embedded_text(c, heading_prefix=heading_prefix) for c in old_chunks}
    new = [embedded_text(c, heading_prefix=heading_prefix) for c in new_chunks]
    return Churn(
        splitter=splitter,
        old_chunks=len(old_chunks),
        new_chunks=len(new_chunks),
        reembedded=sum(t not in old for t in new),
    )


def parse_splitters(value: str) -> tuple[str, ...]:
    """A comma-separated list of splitter names, each once, in the order given."""
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    if not names:
        raise SettingsError('give the splitters as a comma-separated list, e.g. "fixed,structure"')
    return names


def insert_near_top(doc: Document, paragraph: str) -> str:
    """``doc``'s text with ``paragraph`` inserted as a paragraph of its own after its first
    paragraph of prose (at the start when it has none): the edit that shows the avalanche."""
    first = next((b for b in doc.blocks if b.kind == "paragraph"), None)
    at = first.end if first is not None else 0
    piece = paragraph.strip()
    if first is None:
        return piece + "\n\n" + doc.text
    return doc.text[:at] + "\n\n" + piece + doc.text[at:]
