"""The Evaluate page's view-model: the colours and markers of two sets of boundaries, the A/B
table's rows (flips first, the evidence ranks under each side), the measures side by side, the
sweep chart and rows, and the query-set table editor's rows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from explorer.chunking.records import Chunk
from explorer.errors import QuerySetError
from explorer.evaluation.compare import compare_boundaries, cut_phrases, phrase_ranks
from explorer.evaluation.coverage import EvalReport, QueryResult, summary_row
from explorer.evaluation.queries import CORE, read_query_set
from explorer.evaluation.side_by_side import TABLE_COLUMNS, table_columns
from explorer.evaluation.stats import PairedComparison, compare_to_best
from explorer.workspace import Workspace
from ui.answers import signed_points
from ui.render import PALETTE, Marker

A_COLOR = "#1d4ed8"
"""Boundaries only in configuration A: blue."""


B_COLOR = "#c2410c"
"""Boundaries only in configuration B: burnt orange."""


BOTH_COLOR = "#9ca3af"
"""Boundaries both configurations share: light grey, so the differences stand out."""


def boundary_markers(a: Sequence[Chunk], b: Sequence[Chunk]) -> list[Marker]:
    """One marker per boundary: blue "A" (only A), orange "B" (only B), grey (both)."""
    index_a = {c.start: c.index for c in a}
    index_b = {c.start: c.index for c in b}
    sets = compare_boundaries(a, b)
    out = [
        Marker(o, A_COLOR, "A", f"A: chunk {index_a[o]} starts here (not a boundary in B)")
        for o in sets.only_a
    ]
    out += [
        Marker(o, B_COLOR, "B", f"B: chunk {index_b[o]} starts here (not a boundary in A)")
        for o in sets.only_b
    ]
    out += [
        Marker(o, BOTH_COLOR, "", f"A: chunk {index_a[o]} and B: chunk {index_b[o]} start here")
        for o in sets.both
    ]
    return sorted(out, key=lambda m: m.offset)


LEGEND: tuple[tuple[Marker, str], ...] = (
    (Marker(0, A_COLOR, "A"), "a chunk starts here only in A"),
    (Marker(0, B_COLOR, "B"), "only in B"),
    (Marker(0, BOTH_COLOR), "in both"),
)
"""What :func:`explorer.render.marker_legend` shows above the document."""


def sweep_figure(
    rows: Sequence[Mapping[str, Any]],
    column: str,
    *,
    title: str,
    unit: str,
    percent: bool = False,
    picked: int | None = None,
) -> Any:
    """``column`` against chunk size, one line per overlap (plotly, imported lazily).

    ``picked`` is the ``cell`` number to ring.
    """
    import plotly.graph_objects as go

    from ui.safe import plot_text

    label, title, unit = (plot_text(t, width=90, lines=2) for t in (column, title, unit))
    overlaps = sorted({r["overlap"] for r in rows})
    traces = []
    for n, ov in enumerate(overlaps):
        mine = sorted((r for r in rows if r["overlap"] == ov), key=lambda r: r["size"])
        ys = [r[column] * (100 if percent else 1) for r in mine]
        traces.append(
            go.Scatter(
                x=[r["size"] for r in mine],
                y=ys,
                mode="lines+markers",
                name=f"overlap {ov}",
                line={"color": PALETTE[n % len(PALETTE)], "width": 2},
                marker={"color": PALETTE[n % len(PALETTE)], "size": 8},
                hovertemplate=(
                    f"size %{{x}}, overlap {ov}<br>{label}: %{{y:{'.0f' if percent else ','}}}"
                    f"{'%' if percent else ''}<extra></extra>"
                ),
            )
        )
    shapes_x = [r["size"] for r in rows if r["cell"] == picked]
    shapes_y = [r[column] * (100 if percent else 1) for r in rows if r["cell"] == picked]
    if shapes_x:
        traces.append(
            go.Scatter(
                x=shapes_x,
                y=shapes_y,
                mode="markers",
                marker={
                    "size": 16,
                    "color": "rgba(0,0,0,0)",
                    "line": {"width": 2, "color": "#111"},
                },
                name="picked cell",
                hoverinfo="skip",
            )
        )
    yaxis: dict[str, Any] = {"title": {"text": "%" if percent else label}, "rangemode": "tozero"}
    if percent:
        yaxis["range"] = [0, 105]
    return go.Figure(
        data=traces,
        layout={
            "title": {"text": title},
            "xaxis": {
                "title": {"text": f"chunk size ({unit})"},
                "tickmode": "array",
                "tickvals": sorted({r["size"] for r in rows}),
            },
            "yaxis": yaxis,
            "height": 320,
            "margin": {"l": 55, "r": 20, "t": 50, "b": 45},
            "legend": {"orientation": "h", "y": -0.25},
        },
    )


def bundled_query_set(path: Path) -> list[dict[str, Any]]:
    """The project's query set, or an empty one when the file is missing or broken."""
    try:
        return read_query_set(path.read_bytes(), name=path.name)
    except (OSError, QuerySetError):
        return []


EDITOR_COLUMNS = ("id", "doc", "query", "evidence", "kind")


def editor_rows(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows for the table editor: the editable fields, evidence as a list of phrases."""
    rows = []
    for item in items:
        evidence = item.get("evidence")
        rows.append(
            {
                "id": _text(item.get("id")),
                "doc": _text(item.get("doc")),
                "query": _text(item.get("query")),
                "evidence": [str(e) for e in evidence] if isinstance(evidence, list) else [],
                "kind": _text(item.get("kind")),
            }
        )
    return rows


def _missing(value: Any) -> bool:
    """``None`` or NaN (what a table editor gives for a cell nobody filled in)."""
    return value is None or (isinstance(value, float) and value != value)


def _text(value: Any) -> str:
    return "" if _missing(value) else str(value)


def _blank(value: Any) -> bool:
    if _missing(value):
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return all(_blank(v) for v in value)
    except TypeError:
        return False


def from_editor(
    rows: Iterable[Mapping[str, Any]], previous: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The query set from the editor's rows; wholly empty rows (a row just added) are dropped.

    Fields the editor does not show are kept from the entry with the same id; known ``spans``
    only while the evidence is unchanged (they locate those exact phrases).
    """
    before = {str(i.get("id")): i for i in previous}
    out = []
    for row in rows:
        if all(_blank(row.get(col)) for col in EDITOR_COLUMNS):
            continue
        raw_evidence = row.get("evidence")
        if _missing(raw_evidence):
            phrases: list[Any] = []
        elif isinstance(raw_evidence, str):
            phrases = [raw_evidence]
        else:
            phrases = list(cast("Iterable[Any]", raw_evidence))  # a list or a NumPy array
        evidence = [_text(e).strip() for e in phrases if _text(e).strip()]
        item: dict[str, Any] = {
            "id": _text(row.get("id")).strip(),
            "doc": _text(row.get("doc")).strip(),
            "query": _text(row.get("query")).strip(),
            "evidence": evidence,
        }
        old = before.get(item["id"], {})
        for key, value in old.items():
            if key in CORE or key == "kind":
                continue
            if key == "spans" and list(old.get("evidence") or []) != evidence:
                continue
            item[key] = value
        kind = _text(row.get("kind")).strip()
        if kind:
            item["kind"] = kind
        out.append(item)
    return out


def sweep_rows(
    reports: Sequence[EvalReport],
    *,
    k: int | None = None,
    budget: int | None = None,
    workspace: Workspace | None = None,
) -> list[dict[str, Any]]:
    """One row per cell (:func:`summary_row`, with the table audit's columns when given the
    ``workspace``); with ``k`` or a ``budget``, a column right after the cell's number saying
    whether the cell is the best at it, tied with the best (no detectable difference on these
    questions, Holm-corrected), or worse."""
    rows = [
        {"cell": n, **summary_row(r), **(table_columns(r, workspace) if workspace else {})}
        for n, r in enumerate(reports)
    ]
    if (k is None and budget is None) or not reports:
        return rows
    if k is not None and any(k not in r.ks for r in reports):
        return rows
    if budget is not None and any(budget not in r.budgets for r in reports):
        return rows
    ids = [q.query.id for q in reports[0].results if q.scored]
    if not ids:
        return rows
    outcomes = {}
    for n, r in enumerate(reports):
        by_id = {q.query.id: q for q in r.results}
        outcomes[str(n)] = [
            by_id[i].covered_at_budget[budget] if budget is not None else by_id[i].covered_at_k[k]  # type: ignore[index]  # k is given when budget is not
            for i in ids
        ]
    against = compare_to_best(outcomes, ids=ids)
    column = f"vs best@{budget} tokens" if budget is not None else f"vs best@{k}"
    out = []
    for n, row in enumerate(rows):
        name = str(n)
        verdict = "best" if name == against.best else "worse" if against.worse(name) else "tied"
        out.append({"cell": row["cell"], column: verdict, **row})
    return out


def verdict_rows(comparisons: Mapping[str, PairedComparison]) -> list[dict[str, Any]]:
    """One row per k or budget: coverage under A and B, the flips, p, the interval, the verdict
    and the questions needed to tell the two apart (for 80% power)."""
    rows = []
    for name, c in comparisons.items():
        lo, hi = c.ci95
        rows.append(
            {
                "at": name,
                "A": f"{c.coverage_a:.0%}",
                "B": f"{c.coverage_b:.0%}",
                "only A": len(c.a_only),
                "only B": len(c.b_only),
                "p": f"{c.p_value:.3g}",
                "95% interval (B − A)": f"{lo * 100:+.0f} to {hi * 100:+.0f} points",
                "verdict": c.verdict,
                "questions needed": c.questions_needed,
            }
        )
    return rows


# --------------------------------------------------------------------------- the A/B table


def format_ranks(
    ranks: Sequence[int | None], cut: Sequence[bool], located: Sequence[bool] | None = None
) -> str:
    """``"1 · 4 ✂"``: one entry per phrase; ✂ marks a phrase no single chunk holds.

    A phrase with no rank is "not found" when it was not located, else "never".
    """
    found = [True] * len(ranks) if located is None else located
    parts = []
    for r, c, f in zip(ranks, cut, found, strict=True):
        text = str(r) if r is not None else "never" if f else "not found"
        parts.append(f"{text} ✂" if c else text)
    return " · ".join(parts)


FLIP_A = "A only"


FLIP_B = "B only"


def ab_rows(a: EvalReport, b: EvalReport, workspace: Workspace, *, k: int) -> list[dict[str, Any]]:
    """One row per query present in both reports: coverage@k and evidence ranks under A and B.

    Flipped queries (covered under one configuration only) come first.
    """
    by_id = {r.query.id: r for r in b.results}
    rows = []
    for ra in a.results:
        rb = by_id.get(ra.query.id)
        if rb is None:
            continue
        ca, cb = bool(ra.covered_at_k.get(k)), bool(rb.covered_at_k.get(k))
        chunks_a = workspace.chunks(ra.query.doc, a.config)
        chunks_b = workspace.chunks(rb.query.doc, b.config)
        rows.append(
            {
                "flip": FLIP_A if ca and not cb else FLIP_B if cb and not ca else "",
                "id": ra.query.id,
                "document": ra.query.doc,
                "question": ra.query.query,
                "A": ca,
                "B": cb,
                "A ranks": _ranks_text(ra, chunks_a),
                "B ranks": _ranks_text(rb, chunks_b),
            }
        )
    return sorted(rows, key=lambda r: r["flip"] == "")


def _ranks_text(result: QueryResult, chunks: Sequence[Chunk]) -> str:
    located = [bool(occ) for occ in result.located]
    return format_ranks(phrase_ranks(result), cut_phrases(result.located, chunks), located)


@dataclass(frozen=True)
class PhraseDetail:
    """One evidence phrase of one query under A and B."""

    phrase: str
    located: bool
    rank_a: int | None
    rank_b: int | None
    cut_a: bool
    cut_b: bool


def phrase_details(
    ra: QueryResult, rb: QueryResult, chunks_a: Sequence[Chunk], chunks_b: Sequence[Chunk]
) -> list[PhraseDetail]:
    """Per phrase of one query: its rank and whether a boundary cuts it, under A and B."""
    return [
        PhraseDetail(phrase, bool(occ), r_a, r_b, c_a, c_b)
        for phrase, occ, r_a, r_b, c_a, c_b in zip(
            ra.query.evidence,
            ra.located,
            phrase_ranks(ra),
            phrase_ranks(rb),
            cut_phrases(ra.located, chunks_a),
            cut_phrases(rb.located, chunks_b),
            strict=True,
        )
    ]


def summary_rows(
    a: EvalReport, b: EvalReport, workspace: Workspace | None = None
) -> list[dict[str, str]]:
    """Every averaged measure of two reports side by side, with the difference B - A; with the
    ``workspace``, the table audit's tables split, rows cut and cohesion too."""
    rows = []

    def share(name: str, va: float, vb: float, *, fine: bool = False) -> None:
        """Percentages; ``fine`` ones (precision, IoU: often a few percent) to one decimal."""
        f = ".1%" if fine else ".0%"
        diff = (vb - va) * 100
        rows.append(
            {
                "measure": name,
                "A": format(va, f),
                "B": format(vb, f),
                "B - A": signed_points(diff, digits=1 if fine else 0),
            }
        )

    for k in a.ks:
        share(f"coverage@{k}", a.coverage_at_k[k], b.coverage_at_k.get(k, 0.0))
    for budget in a.budgets:
        share(
            f"coverage@{budget} tokens",
            a.coverage_at_budget[budget],
            b.coverage_at_budget.get(budget, 0.0),
        )
    for metric in ("recall_at_k", "precision_at_k", "iou_at_k", "mrr_at_k"):
        ma, mb = a.mean_at_k(metric), b.mean_at_k(metric)
        for k in a.ks:
            share(
                f"{metric.split('_')[0]}@{k}",
                ma[k],
                mb.get(k, 0.0),
                fine=metric in ("precision_at_k", "iou_at_k"),
            )
    for name, va, vb in (
        ("chunks", a.chunks, b.chunks),
        ("index tokens", a.index_tokens, b.index_tokens),
    ):
        rows.append({"measure": name, "A": f"{va:,}", "B": f"{vb:,}", "B - A": f"{vb - va:+,}"})
    if workspace is not None:
        ta, tb = table_columns(a, workspace), table_columns(b, workspace)
        for column in TABLE_COLUMNS:
            x, y = ta[column], tb[column]
            diff = f"{y - x:+.2f}" if column == "cohesion" else f"{int(y - x):+d}"
            rows.append({"measure": column, "A": f"{x:g}", "B": f"{y:g}", "B - A": diff})
    return rows
