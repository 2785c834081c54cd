"""Every averaged measure of one or two evaluations, flat: for the A/B and the sweep.

* :func:`measures` — coverage at every k and budget, then recall, precision, IoU and MRR at every
  k (:mod:`explorer.evaluation.coverage` defines each), keyed ``"coverage@5"``,
  ``"coverage@512 tokens"``, ``"mrr@5"``.
* :func:`table_summary` — the table audit (:mod:`explorer.chunking.tables`) of every document an
  evaluation searched, as one: tables, tables split, rows cut, continuations without the header,
  cohesion.
* :func:`ab_measures` — A's and B's measures and the difference B − A for each, and the two
  table audits; what ``explorer ab --json`` carries under ``measures`` and ``tables``.
"""

from __future__ import annotations

from typing import Any

from explorer.evaluation.coverage import EvalReport
from explorer.workspace import Workspace

RANKED = ("recall", "precision", "iou", "mrr")
"""The measures read at every k beside coverage, by their short names."""
TABLE_COLUMNS = {"tables split": "split", "rows cut": "rows_cut", "cohesion": "cohesion"}
"""The table audit's columns in the A/B and the sweep, and the audit keys they show."""


def measures(report: EvalReport) -> dict[str, float]:
    """Coverage at every k and budget, then each of :data:`RANKED` at every k."""
    out = {f"coverage@{k}": v for k, v in report.coverage_at_k.items()}
    out |= {f"coverage@{b} tokens": v for b, v in report.coverage_at_budget.items()}
    for name in RANKED:
        out |= {f"{name}@{k}": v for k, v in report.mean_at_k(f"{name}_at_k").items()}
    return out


def table_summary(report: EvalReport, workspace: Workspace) -> dict[str, int | float]:
    """The table audit of every document ``report`` searched, as one (its chunkings, with its
    what-if edits)."""
    from explorer.chunking.tables import table_audit, table_totals

    edits = dict(report.edits)
    return table_totals(
        [
            table_audit(
                workspace.document(n),
                workspace.chunks(n, report.config, edits=edits.get(n, ())),
            )
            for n in report.documents
        ]
    )


def table_columns(report: EvalReport, workspace: Workspace) -> dict[str, int | float]:
    """:data:`TABLE_COLUMNS` of :func:`table_summary` (a sweep row's or an A/B row's columns)."""
    totals = table_summary(report, workspace)
    return {column: totals[key] for column, key in TABLE_COLUMNS.items()}


def ab_measures(a: EvalReport, b: EvalReport, workspace: Workspace) -> dict[str, Any]:
    """A's and B's :func:`measures` with B − A for each (measures both reports have), and each
    one's :func:`table_summary`."""
    ma, mb = measures(a), measures(b)
    shared = [name for name in ma if name in mb]
    return {
        "measures": {
            name: {"a": ma[name], "b": mb[name], "difference": mb[name] - ma[name]}
            for name in shared
        },
        "tables": {"a": table_summary(a, workspace), "b": table_summary(b, workspace)},
    }
