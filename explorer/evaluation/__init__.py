"""Evaluation: query sets, coverage of their evidence, and comparisons of configurations.

* :mod:`~explorer.evaluation.queries` — the query-set format: read, check, write;
* :mod:`~explorer.evaluation.coverage` — coverage@k and at token budgets, sweeps;
* :mod:`~explorer.evaluation.compare` — A/B boundaries, evidence ranks, flips.
"""

from explorer.evaluation.coverage import EvalReport, evaluate, sweep
from explorer.evaluation.queries import Query, load_queries

__all__ = ["EvalReport", "Query", "evaluate", "load_queries", "sweep"]
