"""The keys of each page's widgets and their starting values, for the frame to keep while
another page is shown (:func:`ui.frame.keep`). A widget whose key is not listed here forgets its
value when the visitor leaves its page."""

from __future__ import annotations

from typing import Any

from explorer.config import Config
from explorer.evaluation.coverage import DEFAULT_BUDGETS, DEFAULT_KS
from ui.allowed import served_folder
from ui.lessons import opening_view
from ui.settings import state_of
from ui.sources import sample_paths

OPENING = opening_view()
"""What the app opens on (lesson 1): the Explore page's k and budget, the Corpus page's
question and evidence start as its."""

EXPLORE_WIDGETS: dict[str, Any] = {
    "k": OPENING.k,
    "budget": OPENING.budget,
    "view": "Query hits",
    "only_flagged": False,
    "table_filter": None,
    "layers": [],
    "raw": False,
    "pdf_view": "Page image",
    "page": 1,
    "lesson": None,
    "source": None,
    "version_pick": None,
}
"""The Explore page's widgets (the question and evidence boxes are kept by their prefix)."""


def corpus_widgets() -> dict[str, Any]:
    """The Corpus page's widgets and their starting values. Where the app serves a site
    (``--docs``, else ``CHUNK_EXPLORER_DOCS``: :func:`ui.allowed.served_folder`), a new session
    opens on that site alone, with no question (nothing embeds by itself), the samples one click
    away."""
    served = served_folder()
    return {
        "cp_samples": [] if served else [p.name for p in sample_paths()],
        "cp_eval_docs": [],
        "cp_uploaded": [],
        "cp_folder": served,
        "cp_folder_inside": True,
        "cp_question": "" if served else OPENING.question,
        "cp_evidence": "" if served else OPENING.evidence,
        "cp_k": 5,
        "cp_budget": 1024,
        "cp_set": None,
        "cp_map_doc": None,
    }


CORPUS_WIDGETS = corpus_widgets()
"""The Corpus page's widgets as the app was started (the frame asks :func:`corpus_widgets` each
run, so a folder named in the environment later counts too)."""

EVALUATE_WIDGETS: dict[str, Any] = {
    "eval_tab": "A/B",
    "eval_docs_dir": "queries/docs",
    "eval_source": None,  # set on each visit until the person chooses (ui.evaluate.questions)
    "eval_scope": None,
    "eval_source_chosen": False,
    "eval_scope_chosen": False,
    "eval_docs": [],
    "eval_kinds": [],
    "qs_merge": False,
    "ab_k": DEFAULT_KS[-1],
    "run_k": DEFAULT_KS[-1],
    "ab_query": None,
    "ab_pdf_view": "Page image",
    "ab_page": None,
    "sw_sizes": None,  # the grid of the sweep's unit, set on the first visit
    "sw_overlaps": None,
    "sw_k": DEFAULT_KS[-1],
    "sw_budget": DEFAULT_BUDGETS[0],
    "sw_cell": None,
    "sw_best": "budget",
}
EVALUATE_CONFIGS = ("ab_A_", "ab_B_", "sw_")
"""The Evaluate page's configurations: A, B and the sweep's, each keyed by its prefix."""
EVALUATE_KEYS = tuple(k for p in EVALUATE_CONFIGS for k in state_of(Config(), prefix=p))
"""Their widgets' keys (set on the first visit: A and the sweep from the main configuration)."""
EVALUATE_PREFIXES = tuple(f"{p}opt_" for p in EVALUATE_CONFIGS)
"""A library splitter's option widgets of each."""
