"""The query panel as plain functions: the evidence boxes, the hit and evidence rows, where the
ranking was cut, and what the LLM would receive."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from explorer.answer import Answer, CorpusAnswer
from explorer.chunking.records import Chunk
from explorer.retrieval.evidence import Evidence, ordinal
from explorer.retrieval.scoring import Hit
from ui.chunk_view import pages_label


def evidence_phrases(text: str) -> list[str]:
    """One phrase per non-blank line, stripped, each once, in order."""
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))


def n_of(n: int, noun: str) -> str:
    """``"1 hit"``, ``"3 hits"``, ``"1,200 chunks"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def signed_points(value: float, *, digits: int = 0) -> str:
    """A difference in percentage points, signed: ``"+1 point"``, ``"-3 points"``,
    ``"+0.5 points"``."""
    shown = f"{value:+.{digits}f}"
    return f"{shown} point" if shown.lstrip("+-") == "1" else f"{shown} points"


def first_words(text: str, n: int = 12) -> str:
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def hit_rows(
    hits: Sequence[Hit], chunks: Sequence[Chunk], *, count: Callable[[str], int]
) -> list[dict[str, Any]]:
    """Table rows for the retrieved hits: rank, chunk, score, the part of it carried from the
    previous chunk (only when some hit has one), size in tokens, pages, start."""
    with_carry = any(h.carried for h in hits)
    return [
        {
            "rank": h.rank,
            "chunk": h.index,
            "score": h.score,
            **({"carried": h.carried} if with_carry else {}),
            "tokens": count(chunks[h.index].text),
            "pages": pages_label(chunks[h.index]),
            "first words": first_words(chunks[h.index].text),
        }
        for h in hits
    ]


def evidence_rows(results: Sequence[Evidence]) -> list[dict[str, str]]:
    """One row per phrase, in words: found in the document, inside the retrieved context, the
    chunk(s) holding it whole, the best rank among them, what cut it, and whether boundaries cut
    every occurrence."""
    rows = []
    for r in results:
        if not r.found:
            rows.append(
                {
                    "phrase": r.phrase,
                    "found": "not found",
                    "retrieved": "—",
                    "in chunk": "—",
                    "its rank": "—",
                    "cut by": "—",
                    "cut by a boundary": "—",
                    "matched": "—",
                }
            )
            continue
        n = len(r.spans)
        rows.append(
            {
                "phrase": r.phrase,
                "found": "yes" if n == 1 else f"yes, {n} times",
                "retrieved": "yes" if r.covered else "no",
                "in chunk": ", ".join(map(str, r.chunk_indices)) or "none: cut",
                "its rank": ordinal(r.best_rank) if r.best_rank else "—",
                "cut by": CUT_WORDS.get(r.cut_by or "", "—"),
                "cut by a boundary": "yes" if r.cut_by_boundary else "no",
                "matched": MATCH_WORDS.get(r.match or "", "—"),
            }
        )
    return rows


MATCH_WORDS = {
    "exact": "as written",
    "rendered": "as the page shows it (markup in the source)",
    "loose": "loosely (case, spacing, quotes or dashes differ)",
}
"""How a phrase was found, in the evidence table."""


CUT_WORDS = {
    "k": "top k",
    "budget": "token budget",
    "both": "both k and the budget",
    "not retrieved": "not retrieved",
}
"""What keeps a phrase out of the context (the limit whose lifting alone would bring it in), in
the evidence table."""


def cut_note(answer: Answer | CorpusAnswer) -> str | None:
    """Where the ranking was cut and by what (Markdown), or ``None`` when every chunk is a hit:
    the budget when it ran out before the top k (saying so), else k (with the budget's room)."""
    lim = answer.limits
    if lim is None or lim.taken >= len(answer.ranking):
        return None
    taken = n_of(lim.taken, "hit")
    if lim.budget is not None and (lim.k is None or lim.taken < lim.k):
        before = f", before k = {lim.k}" if lim.k is not None else ""
        why = f"the **{lim.budget:,}-token budget** stopped the ranking after {taken}{before}"
        if lim.left is not None and lim.next_cost is not None:
            why += (
                f": {lim.left:,} tokens were left and the next hit's context needed "
                f"{lim.next_cost:,}"
            )
        return why[:1].upper() + why[1:] + "."
    room = (
        f" (the {lim.budget:,}-token budget had {lim.left:,} tokens left)"
        if lim.budget is not None and lim.left is not None
        else ""
    )
    return f"**k = {lim.k}** stopped the ranking after {taken}{room}."


def candidate_rows(
    answer: Answer, chunks: Sequence[Chunk], *, count: Callable[[str], int], n: int = 3
) -> list[dict[str, Any]]:
    """The ``n`` chunks ranked just below the cut, and which missing phrase each holds."""
    taken = len(answer.hits)
    missing = {i: r.phrase for r in answer.evidence if not r.covered for i in r.chunk_indices}
    rows = []
    for h in answer.ranking[taken : taken + n]:
        c = chunks[h.index]
        rows.append(
            {
                "rank": h.rank,
                "chunk": h.index,
                "score": h.score,
                "tokens": count(c.text),
                "holds missing evidence": missing.get(h.index, ""),
                "first words": first_words(c.text),
            }
        )
    return rows


def context_note(answer: Answer, *, length: int) -> str:
    """``"An LLM would receive 312 tokens (cl100k) in 2 pieces: …"`` (Markdown); ``length`` is
    the document text's."""
    config, hits = answer.config, answer.hits
    if answer.budget is not None and not hits:
        return (
            f"Nothing fits the {answer.budget:,}-token budget: the best hit's context alone "
            "costs more. Raise the budget or make the chunks smaller."
        )
    headers = len(answer.headers)
    widened = (
        "each widened to its section"
        if config.section
        else f"each widened by ±{config.neighbours} chunk{'s' if config.neighbours != 1 else ''}"
        if config.neighbours
        else "as retrieved"
    )
    n, k = len(answer.context), len(hits)
    note = (
        f"An LLM would receive **{answer.tokens:,} tokens** (cl100k) in {n} "
        f"piece{'s' if n != 1 else ''}: the top {k} hit{'s' if k != 1 else ''}, {widened}"
    )
    if headers:
        note += f", with the header rows of {headers} table{'s' if headers != 1 else ''}"
    if answer.budget is not None:
        budget = f"the {answer.budget:,}-token budget"
        fitted = answer.k is None or len(hits) < min(answer.k, len(answer.ranking))
        if answer.widened and answer.context == ((0, length),):
            note += f", then widened to the whole document, within {budget}"
        elif answer.widened:
            note += f", then widened to fill {budget}"
        elif config.fill:
            note += f"; nothing more fits {budget}"
        elif fitted:
            note += f": all that fit {budget}"
        else:
            note += f", within {budget}"
    return note + "."


def match_notes(results: Sequence[Evidence]) -> list[str]:
    """A sentence for each phrase found only as the page shows it, or only loosely."""
    out = []
    for r in results:
        if r.match == "rendered":
            out.append(
                f"{r.phrase!r} was found as the page shows it; the source has markup between its "
                "words (code, emphasis or a link), and its span covers it."
            )
        elif r.match == "loose":
            out.append(
                f"{r.phrase!r} matched loosely: its case, spacing, quotes, dashes or table "
                "separators differ from the document's."
            )
    return out
