"""The Evaluate page's Sweep tab: one configuration over every size × overlap pair (overlap
below size): coverage, chunks and index size charted, a table with each cell against the best,
and "load this configuration" into the Explore page."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import streamlit as st

from explorer.config import Config
from explorer.errors import ExplorerError
from explorer.evaluation import compare, coverage
from explorer.evaluation.coverage import EvalReport, sweep_cells
from ui import evaluate_view, widgets
from ui.answers import n_of
from ui.evaluate.handover import explorer_range, fits_explorer, open_in_explorer
from ui.evaluate.questions import Questions, scope_words
from ui.evaluate.runs import pct, run_button, run_failed
from ui.safe import md_text
from ui.settings import config_of

SWEEP_GRIDS = {
    "chars": ("400, 800, 1600", "0, 200"),
    "words": ("75, 150, 300", "0, 30"),
    "tokens": ("128, 256, 512", "0, 64"),
    "model-tokens": ("64, 128, 256", "0, 32"),
}
"""A 3 × 2 grid of sizes and overlaps per unit (the sweep's starting grid)."""


def on_sweep_table(cells: list[int]) -> None:
    state = st.session_state
    rows = state.sw_table.selection.rows
    if rows and 0 <= rows[0] < len(cells):
        state.sw_cell = cells[rows[0]]


def draw(questions: Questions) -> None:
    """The tab: the grid, the configuration each cell shares, the run, and what it found."""
    state = st.session_state
    st.caption(
        "One splitter over every size × overlap pair (overlap below size). Documents, chunks "
        "and embeddings are shared across cells, so cells with the same chunks cost nothing."
    )
    cols = st.columns(2)
    cols[0].text_input(
        "Chunk sizes",
        key="sw_sizes",
        help='A list such as "128, 256, 512", or start:stop:step such as "128:512:128".',
    )
    cols[1].text_input(
        "Overlaps", key="sw_overlaps", help='A list such as "0, 64", or start:stop:step.'
    )
    with st.expander("The configuration each cell shares", expanded=False):
        widgets.config_widgets("sw_", sizes=False, headers=False)
    grid_error: str | None = None
    cells: list[tuple[int, int]] = []
    base: Config | None = None
    try:
        sizes = compare.parse_int_list(state.sw_sizes, name="chunk sizes", minimum=1)
        overlaps = compare.parse_int_list(state.sw_overlaps, name="overlaps", minimum=0)
        cells = sweep_cells(sizes, overlaps)
        if not cells:
            raise ExplorerError("no cell has an overlap smaller than its size")
        base = config_of({**state, "sw_size": max(sizes), "sw_overlap": 0}, prefix="sw_")
    except ExplorerError as exc:
        grid_error = str(exc)
    queries, ws = questions.queries, questions.ws
    cols = st.columns(4, vertical_alignment="bottom")
    with cols[3]:
        clicked = run_button(
            f"Run {n_of(len(cells), 'cell')} × {n_of(len(queries), 'question')}",
            "sw_run",
            ready=questions.ready and not grid_error,
        )
    if grid_error:
        st.error(md_text(grid_error))
    widgets.cancelled_note("sweep_cancelled")
    if clicked and base is not None:
        assert ws is not None
        progress, bar = widgets.progress_bar("Running the sweep", cancel="sweep_cancelled")
        t0 = time.monotonic()
        try:
            reports = coverage.sweep(  # looked up as it runs (a test replaces it)
                queries, ws, base, sizes=sizes, overlaps=overlaps, progress=progress,
                scope=questions.scope,
            )  # fmt: skip
        except Exception as exc:  # a typed error, or a bug: one message, no traceback
            st.error(md_text(run_failed(exc)))
        else:
            state.sweep_result = {"reports": reports, "seconds": time.monotonic() - t0}
            state.sw_picked_for = None  # the best cell is picked below
        bar.empty()
    swept = state.get("sweep_result")
    if swept is None:
        st.caption("Run the sweep to chart coverage, chunk count and index size.")
        return
    results(swept, questions)


def results(swept: dict[str, Any], questions: Questions) -> None:
    """A sweep's reports: the measure that picks the best cell, the charts, the table of cells
    against the best, and the cell to load into the Explore page."""
    state = st.session_state
    reports: list[EvalReport] = swept["reports"]
    first = reports[0]
    st.caption(
        f"{first.config.chunking.splitter}, {first.config.retriever}: "
        f"{n_of(len(reports), 'cell')} × {n_of(len(first.results), 'question')} in "
        f"{scope_words(first.scope)} ({n_of(len(first.documents), 'document')} searched) in "
        f"{swept['seconds']:.1f} s"
    )
    left, mid, right, _ = st.columns([1, 1, 1, 1])
    left.segmented_control("k", list(first.ks), key="sw_k", required=True)
    mid.segmented_control("Token budget", list(first.budgets), key="sw_budget", required=True)
    right.segmented_control(
        "Best cell by", ["budget", "k"], key="sw_best", required=True,
        format_func={"budget": "the token budget", "k": "k"}.get,
        help="Which coverage picks the best cell and the 'vs best' column: the context "
        "an LLM gets within the budget, or the top k hits.",
    )  # fmt: skip
    k = state.sw_k if state.sw_k in first.ks else first.ks[-1]
    budget = state.sw_budget if state.sw_budget in first.budgets else first.budgets[0]
    by_budget = state.get("sw_best", "budget") == "budget" and bool(first.budgets)
    measure = {"budget": budget} if by_budget else {"k": k}
    picked_for = (id(swept), tuple(measure.items()))
    if state.get("sw_picked_for") != picked_for or state.get("sw_cell") not in range(len(reports)):
        state.sw_cell = compare.best_cell(reports, **measure)
        state.sw_picked_for = picked_for
    charts(reports, k, budget, state.sw_cell)
    rows = evaluate_view.sweep_rows(reports, workspace=questions.ws, **measure)
    at = f"{budget} tokens" if by_budget else str(k)
    st.caption(
        f"*vs best@{at}*: **tied** cells show no detectable difference from the best one "
        "on these questions (exact paired tests, Holm-corrected); only **worse** ones "
        "are distinguishably worse."
    )
    st.dataframe(
        [{c: v * 100 if c.startswith("coverage@") else v for c, v in r.items()} for r in rows],
        hide_index=True,
        key="sw_table",
        on_select=lambda: on_sweep_table([r["cell"] for r in rows]),
        selection_mode="single-row",
        column_config={
            "cell": st.column_config.NumberColumn(width="small"),
            **{
                c: st.column_config.ProgressColumn(
                    c, min_value=0, max_value=100, format="%.0f%%", width=110
                )
                for c in rows[0]
                if c.startswith("coverage@")
            },
        },
    )

    def cell_label(n: int) -> str:
        s = reports[n].config.chunking
        return (
            f"cell {n}: size {s.size}, overlap {s.overlap} — coverage@{k} "
            f"{pct(reports[n].coverage_at_k[k])}, @{budget} tokens "
            f"{pct(reports[n].coverage_at_budget.get(budget, 0.0))}, "
            f"{reports[n].chunks:,} chunks"
        )

    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.selectbox(
        "Cell (or pick a row in the table)",
        list(range(len(reports))),
        key="sw_cell",
        format_func=cell_label,
    )
    picked = reports[state.sw_cell].config
    fits = fits_explorer(picked)
    right.button(
        "Load this configuration into the explorer",
        key="sw_load",
        type="primary",
        disabled=not fits,
        on_click=open_in_explorer,
        args=(picked,),
        help=(
            "Shows this cell's configuration on the Explore page." if fits
            else explorer_range(picked)
        ),
    )  # fmt: skip


def charts(reports: Sequence[EvalReport], k: int, budget: int, picked: int) -> None:
    """Coverage at k and at the budget, chunks and index size, over the cells."""
    rows = evaluate_view.sweep_rows(reports)
    unit = reports[0].config.chunking.unit
    where = scope_words(reports[0].scope)
    specs = [
        (
            f"coverage@{k}",
            f"Coverage@{k} ({where}): questions with all evidence in the top {k}",
            True,
        ),
        (
            f"coverage@{budget} tokens",
            f"Coverage@{budget} tokens ({where}): all evidence within a {budget}-token budget",
            True,
        ),
        ("chunks", "Chunks over all documents searched", False),
        ("index tokens", "Index size (cl100k tokens over all chunks searched)", False),
    ]
    for n in range(0, len(specs), 2):
        cols = st.columns(2)
        for col, (column, title, percent) in zip(cols, specs[n : n + 2], strict=True):
            fig = evaluate_view.sweep_figure(
                rows, column, title=title, unit=unit, percent=percent, picked=picked
            )
            col.plotly_chart(fig, key=f"sw_chart_{column}")
