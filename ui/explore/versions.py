"""What changed since another version of the Explore page's document: the chunk counts (the
diff is the workspace's), the index records an update deletes, the churn under a set of
splitters, the removed chunks, and the questions whose verdict changes (the library's
:func:`explorer.evaluation.versions.version_verdicts`, as ``explorer diff --queries``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from explorer.chunking.diff import ChunkDiff
from explorer.chunking.edits import Edit
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.evaluation.queries import Query
from explorer.evaluation.versions import version_verdicts
from explorer.workspace import Workspace
from ui import churn_view, widgets
from ui.highlights import change_legend_html
from ui.safe import md_escape, md_text

COUNTS = (
    ("Unchanged", "unchanged", "Chunks with the same id: their index records stay."),
    ("Changed", "changed", "New chunks over text that changed: they replace old ones."),
    ("New", "added", "New chunks over new text."),
    ("Removed", "removed", "Old chunks whose text is gone."),
    ("To embed", "reembed", "Distinct new texts an index must embed."),
)
"""The diff's figures: label, count and what each means."""


@dataclass(frozen=True)
class Compared:
    """The version compared with (``label``: as the page names it) and what changed since."""

    label: str
    old: Document
    changes: ChunkDiff


def compare(
    ws: Workspace,
    version: tuple[str, str, str, bytes],
    doc: Document,
    config: Config,
    *,
    edits: Sequence[Edit],
) -> Compared | None:
    """The ``version`` picked (its label, file name, sha256 and bytes) against ``doc`` (after
    ``edits``), both under ``config``; None, with the message shown, when it cannot be read."""
    label, old_name, _old_sha, old_data = version
    try:
        old = ws.load(old_data, name=old_name)
        with st.spinner("Comparing the versions…"):
            changes = ws.version_diff(old, doc, config, edits=edits)
    except ExplorerError as exc:
        widgets.message("error", str(exc))
        return None
    return Compared(label, old, changes)


def asked(
    doc: Document,
    question: str,
    phrases: Sequence[str],
    query_set: Iterable[Mapping[str, Any]],
) -> list[Query]:
    """The questions to answer on both versions: the one on the screen (with its evidence),
    then those of the query set about ``doc`` that have evidence."""
    out = (
        [Query("(this question)", doc.name, question, tuple(phrases))]
        if question and phrases
        else []
    )
    for item in query_set:
        needs = item.get("evidence")
        if item.get("doc") == doc.name and isinstance(needs, list) and needs:
            out.append(
                Query(str(item["id"]), doc.name, str(item["query"]), tuple(str(e) for e in needs))
            )
    return out


def draw(
    ws: Workspace,
    compared: Compared,
    *,
    doc: Document,
    config: Config,
    questions: Sequence[Query],
    k: int,
    budget: int | None,
) -> None:
    """What changed since ``compared``'s version, and each of ``questions`` answered on both
    (under ``config``, ``k`` and ``budget``)."""
    label, old, changes = compared.label, compared.old, compared.changes
    st.subheader(f"What changed since {md_text(label)}", anchor=False)
    counts = changes.counts()
    for col, (name, key, tip) in zip(st.columns(5), COUNTS, strict=True):
        col.metric(name, f"{counts[key]:,}", help=tip)
    st.caption(
        md_text(
            f"An index updated from {label} deletes {counts['stale']:,} stale records (the "
            "removed chunks and those the changed ones replace), so old text does not stay "
            "searchable."
        )
    )
    st.html(change_legend_html())
    churn_view.draw(ws, old, doc, config, label=label)
    if changes.removed:
        with st.expander(f"The {len(changes.removed):,} removed chunks (from {md_text(label)})"):
            for ref in changes.removed:
                st.markdown(f"**Chunk {ref.index} of {md_escape(label)}**")
                st.code(old.text[ref.start : ref.end], language=None, wrap_lines=True)
    if not questions:
        return
    verdicts = version_verdicts(ws, old, doc, questions, config=config, k=k, budget=budget)
    rows = [
        {
            "question": v.query.id,
            "text": v.query.query,
            "before": v.before.kind if v.before else "",
            "now": v.after.kind if v.after else "",
            "verdict changed": v.changed,
        }
        for v in verdicts
    ]
    flips = [r for r in rows if r["verdict changed"]]
    st.markdown(
        f"**{len(flips)} of {len(rows)} questions change verdict** from {md_escape(label)} to "
        "this version."
    )
    st.dataframe(rows, hide_index=True, key="version_verdicts")
