"""What the Corpus page shows, as plain data: the documents' overview, the hits grouped by
document, the evidence by document, the retrieval map's tints, and the state that opens a
document at a hit on the main page. No Streamlit here, so every piece is tested directly."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from explorer.answer import Answer, CorpusAnswer
from explorer.chunking.diagnostics import Diagnosis
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.corpus import CorpusHit
from explorer.documents.model import Document
from explorer.evaluation.reach import DocumentReach
from explorer.retrieval.evidence import Evidence, ordinal
from ui import answers, render
from ui.answers import CUT_WORDS
from ui.safe import md_text
from ui.view_state import View

NEVER_COLOR = "#9aa5b1"
"""Text no question of the set reaches (grey: nothing there for the set's questions)."""
ALWAYS_COLOR = "#e15759"
"""Chunks retrieved for many questions they do not answer (red: they crowd others out)."""


ORDERS = ("problems first", "name", "most chunks", "largest")
"""How the overview's rows can be sorted; the first is the default."""
PAGE_ROWS = 50
"""Rows of the overview on one page."""


def overview_rows(
    docs: Mapping[str, Document],
    chunks: Mapping[str, Sequence[Chunk]],
    diagnoses: Mapping[str, Diagnosis],
    reach: Mapping[str, DocumentReach] | None = None,
) -> list[dict[str, Any]]:
    """One row per document: its name, kind, characters, pages (a PDF's; ``"—"`` for text,
    which has none), chunks, flagged chunks and chunks holding table rows without their header;
    with the retrieval map of a query set (``reach``), the share of its text no question
    reaches (``"—"`` for a document no question of the set asked about)."""
    rows = []
    for name, doc in docs.items():
        diagnosis = diagnoses[name]
        rows.append(
            {
                "document": name,
                "kind": doc.kind,
                "characters": len(doc.text),
                "pages": str(len(doc.pages)) if doc.pages else "—",
                "chunks": len(chunks[name]),
                "flagged": len(diagnosis.flagged()),
                "cut tables": sum("table_header" in codes for codes in diagnosis.issues),
            }
        )
    return with_reach(rows, reach)


def with_reach(
    rows: Sequence[Mapping[str, Any]], reach: Mapping[str, DocumentReach] | None
) -> list[dict[str, Any]]:
    """``rows`` with the share of each document no question of the set reaches, when there is
    a retrieval map (``reach``: new rows); without one, the same rows."""
    if reach is None:
        return list(rows)  # type: ignore[arg-type]  # the same dicts, never changed
    out = []
    for row in rows:
        got = reach.get(str(row["document"]))
        never = f"{got.never_fraction:.0%}" if got is not None else "—"
        out.append({**row, "never reached": never, "_never": got.never_fraction if got else 0.0})
    return out


def figures_key(docs: Mapping[str, Document], config: Config) -> str:
    """What a corpus's overview rows are made of: its names and contents, the chunking and
    what the diagnosis counts (the heading prefix, what is embedded)."""
    embeds = "none" if config.retriever == "bm25" else config.dense
    made = hashlib.sha256(f"{config.chunking.key()}|{config.heading_prefix}|{embeds}".encode())
    for name, doc in docs.items():
        made.update(f"\0{name}\0{doc.key}".encode("utf-8", "surrogateescape"))
    return made.hexdigest()


V = TypeVar("V")


class Made(Mapping[str, V]):
    """``make(name)`` for each of ``names``, made only when asked for (the overview's rows are
    kept for every session: a run that finds them made asks none)."""

    def __init__(self, names: Iterable[str], make: Callable[[str], V]) -> None:
        self._names, self._make = dict.fromkeys(names), make

    def __getitem__(self, name: str) -> V:
        if name not in self._names:
            raise KeyError(name)
        return self._make(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def problems(row: Mapping[str, Any]) -> tuple[float, int, int]:
    """How bad a row is, worst highest: the share of its text never reached, its flagged
    chunks, its cut tables."""
    return (float(row.get("_never", 0.0)), int(row["flagged"]), int(row["cut tables"]))


def sorted_rows(rows: Sequence[Mapping[str, Any]], order: str) -> list[Mapping[str, Any]]:
    """``rows`` in ``order`` (one of :data:`ORDERS`); ties by name."""
    by_name = sorted(rows, key=lambda r: str(r["document"]).casefold())
    if order == "problems first":
        return sorted(by_name, key=problems, reverse=True)
    if order == "most chunks":
        return sorted(by_name, key=lambda r: int(r["chunks"]), reverse=True)
    if order == "largest":
        return sorted(by_name, key=lambda r: int(r["characters"]), reverse=True)
    return by_name


def matching(rows: Sequence[Mapping[str, Any]], find: str) -> list[Mapping[str, Any]]:
    """The rows whose document name holds every word of ``find`` (case apart)."""
    words = find.casefold().split()
    return [r for r in rows if all(w in str(r["document"]).casefold() for w in words)]


def pages_of(count: int, per_page: int = PAGE_ROWS) -> int:
    return max((count + per_page - 1) // per_page, 1)


def page_of(
    rows: Sequence[Mapping[str, Any]], page: int, per_page: int = PAGE_ROWS
) -> list[Mapping[str, Any]]:
    """The rows of ``page`` (from 1; past the last, the last)."""
    page = min(max(page, 1), pages_of(len(rows), per_page))
    return list(rows[(page - 1) * per_page : page * per_page])


@dataclass(frozen=True)
class DocumentHits:
    """The hits of one document, best first, and what the evidence found there."""

    doc: str
    hits: tuple[CorpusHit, ...]
    evidence: tuple[Evidence, ...]
    tokens: int
    """cl100k tokens of the context that lies in this document."""

    @property
    def best(self) -> int:
        return self.hits[0].rank if self.hits else 0


def group_hits(answer: CorpusAnswer) -> list[DocumentHits]:
    """The answer's hits grouped by document, documents by their best hit; a document the
    evidence counts in without a hit comes last."""
    order = list(dict.fromkeys(h.doc for h in answer.hits))
    order += [e.doc for e in answer.evidence if e.doc is not None and e.doc not in order]
    out = []
    for name in dict.fromkeys(order):
        part = answer.answers.get(name)
        out.append(
            DocumentHits(
                doc=name,
                hits=tuple(h for h in answer.hits if h.doc == name),
                evidence=tuple(e for e in answer.evidence if e.doc == name),
                tokens=part.tokens if part is not None else 0,
            )
        )
    return out


def hit_rows(group: DocumentHits, chunks: Sequence[Chunk], *, count: Any) -> list[dict[str, Any]]:
    """Table rows for one document's hits (corpus ranks), as the Explore page's hit rows."""
    return answers.hit_rows([h.hit for h in group.hits], chunks, count=count)


def evidence_rows(answer: CorpusAnswer) -> list[dict[str, str]]:
    """One row per evidence phrase: the document and chunk it sits in, its rank, retrieved."""
    rows = []
    for e in answer.evidence:
        rows.append(
            {
                "phrase": e.phrase,
                "document": e.doc or "not found",
                "in chunk": ", ".join(map(str, e.chunk_indices))
                or ("none: cut" if e.found else "—"),
                "its rank": ordinal(e.best_rank) if e.best_rank else "—",
                "retrieved": ("yes" if e.covered else "no") if e.found else "—",
                "cut by": CUT_WORDS.get(e.cut_by or "", "—"),
            }
        )
    return rows


def open_at_hit(
    answer: CorpusAnswer,
    hit: CorpusHit,
    chunks: Sequence[Chunk],
    *,
    config: Config,
    k: int,
    budget: int | None,
    evidence: str,
    uploaded: bool = False,
) -> View:
    """The Explore page's view of ``hit``'s document at the hit: the same configuration (so the
    chunk numbers agree), the question, its evidence, the chunk selected and, for a PDF, its
    page. The Explore page then answers from that one document."""
    chunk = chunks[hit.index]
    return View(
        source=hit.doc,
        config=config,
        question=answer.question,
        evidence=evidence,
        k=k,
        budget=budget,
        chunk=hit.index,
        page=chunk.page_start or 1,
        uploaded=uploaded,
    )


@dataclass(frozen=True)
class CorpusOrigin:
    """What the Corpus page said of a hit opened on the Explore page, which ranks one document:
    kept so that the opened view says its scope changed and what the corpus said."""

    doc: str
    question: str
    rank: int
    """The hit's rank over the corpus."""
    chunks: int
    """Chunks the corpus ranked."""
    documents: int
    verdict: str | None
    """The corpus's verdict, as a sentence (``None``: no evidence)."""
    complete: bool

    def note(self, local: Answer | None, *, chunks: int) -> str:
        """Markdown: this view ranks one document (``chunks`` of them), the corpus ranked
        every document's; the hit's corpus rank, the corpus verdict, and where they differ."""
        out = (
            f"**Scope: one document.** This page ranks the {chunks:,} chunks of "
            f"{md_text(self.doc)} alone; the Corpus page ranked all {self.chunks:,} chunks of "
            f"{self.documents} documents, where this hit was **#{self.rank}**."
        )
        if self.verdict is not None:
            sentence = self.verdict[:1].upper() + self.verdict[1:]
            out += f" Over the corpus: *{md_text(sentence)}*"
            if local is not None and local.complete and not self.complete:
                out += (
                    " — within this one document the evidence is in the context; over the "
                    "corpus it was not."
                )
        return out


def corpus_origin(answer: CorpusAnswer, hit: CorpusHit) -> CorpusOrigin:
    """What the corpus said of ``hit`` (for :meth:`CorpusOrigin.note`)."""
    verdict = answer.verdict
    return CorpusOrigin(
        doc=hit.doc,
        question=answer.question,
        rank=hit.rank,
        chunks=len(answer.ranking),
        documents=len(answer.documents),
        verdict=None if verdict is None else verdict.sentence(),
        complete=answer.complete,
    )


def reach_highlights(reach: DocumentReach, chunks: Sequence[Chunk]) -> list[render.Highlight]:
    """The retrieval map on the page: never-reached text tinted grey, the always-retrieved
    chunks tinted red with their count of unrelated questions as the badge."""
    out = [
        render.Highlight(
            s,
            e,
            n,
            NEVER_COLOR,
            label="never",
            title="no question's context reaches this text",
        )
        for n, (s, e) in enumerate(reach.never)
    ]
    for c in reach.always:
        if c.start < c.end:
            out.append(
                render.Highlight(
                    c.start,
                    c.end,
                    c.index,
                    ALWAYS_COLOR,
                    label=f"×{c.unrelated}",
                    title=f"chunk {c.index}: a hit of {c.questions} questions, {c.unrelated} of "
                    "them unrelated to it",
                )
            )
    return out


def reach_rows(reach: Mapping[str, DocumentReach]) -> list[dict[str, Any]]:
    """One row per document of the map: questions, never reached, always retrieved."""
    return [
        {
            "document": name,
            "questions": r.questions,
            "never reached": f"{r.never_fraction:.0%}",
            "stretches": len(r.never),
            "always retrieved": len(r.always),
        }
        for name, r in reach.items()
    ]
