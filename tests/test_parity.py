"""One answer path: the app (AppTest), ``explorer query`` and ``explorer eval`` give the same hits,
the same context spans and the same verdict for the same question and configuration.

Cases: the refund demo at its failing setting and repaired by filling the budget, a question on
the PDF sample, and a question on a Markdown table. Eval answers at each k without a budget and
at each budget without a k, so the app is compared at ``k`` with no budget, and at a budget with
its largest k (more hits than any of these budgets holds).
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.cli import main
from explorer.config import Config
from tests.conftest import REPO, SAMPLES
from ui.lessons import OPENING
from ui.settings import TOP_K_MAX, state_of
from ui.view_state import query_keys

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
"""Lesson 1's failing setting (configuration, k, budget): the one the app opens on."""

APP = str(REPO / "app.py")


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    question: str
    evidence: tuple[str, ...]
    config: Config
    k: int
    budget: int | None


def _table_case() -> Case:
    text = (SAMPLES / "writing-guide.md").read_text(encoding="utf-8")
    assert "| " in text  # the sample has tables
    return Case(
        "markdown-table",
        "writing-guide.md",
        "Which strategy respects headings and keeps tables whole?",
        ("| Strategy", "Keeps tables whole"),
        Config().replace(retriever="bm25"),
        TOP_K_MAX,
        1024,
    )


CASES = [
    Case(
        "demo-failing", OPENING.doc, OPENING.question, OPENING.evidence, START.config, START.k, None
    ),
    Case(
        "demo-filled",
        OPENING.doc,
        OPENING.question,
        OPENING.evidence,
        START.config.replace(fill=True),
        TOP_K_MAX,
        512,
    ),
    Case(
        "pdf",
        "field-manual.pdf",
        "How long can I keep a water sample before testing it, and does freezing buy me more time?",
        ("Samples must be tested within 24 hours.",),
        Config(),
        3,
        None,
    ),
    _table_case(),
]


def app_answer(case: Case) -> dict[str, Any]:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["source"] = case.source
    question_key, evidence_key = query_keys(case.source)
    at.session_state[question_key] = case.question
    at.session_state[evidence_key] = "\n".join(case.evidence)
    for key, value in state_of(case.config).items():
        at.session_state[key] = value
    at.session_state["k"] = case.k
    at.session_state["budget"] = case.budget
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (shown,) = [j for j in at.json]
    out: dict[str, Any] = json.loads(shown.value)
    return out


def cli(*args: str) -> dict[str, Any]:
    """``python -m explorer ARGS`` in this process (the model loads once for every case); the
    command line's own process is tested in tests/test_cli.py."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(list(args)) == 0
    out: dict[str, Any] = json.loads(printed.getvalue())
    return out


def options(config: Config) -> list[str]:
    """Every setting of ``config`` as command-line options."""
    flat = config.to_json()
    out = []
    for key in ("splitter", "unit", "size", "overlap", "retriever", "dense", "carry", "neighbours"):
        out += [f"--{key}", str(flat[key])]
    for key in ("heading_prefix", "section", "merge", "table_headers", "fill"):
        out += [f"--{key.replace('_', '-')}", "on" if flat[key] else "off"]
    out += ["--context-header", str(flat["context_header"])]
    return out


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "hits": [(h["rank"], h["index"], h["start"], h["end"]) for h in answer["hits"]],
        "context": [
            (c["start"], c["end"]) if isinstance(c, dict) else tuple(c) for c in answer["context"]
        ],
        "verdict": answer["verdict"],
    }


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_app_query_and_eval_give_the_same_answer(case: Case, tmp_path: Path) -> None:
    app = app_answer(case)
    path = SAMPLES / case.source
    budget = [] if case.budget is None else ["--budget", str(case.budget)]
    query = cli(
        "query",
        str(path),
        case.question,
        *[x for e in case.evidence for x in ("--evidence", e)],
        "--k",
        str(case.k),
        *budget,
        *options(case.config),
    )
    assert Config.from_json(query["config"]) == case.config
    assert Config.from_json(app["config"]) == case.config
    qfile = tmp_path / "q.json"
    qfile.write_text(
        json.dumps(
            [
                {
                    "id": case.name,
                    "doc": case.source,
                    "query": case.question,
                    "evidence": list(case.evidence),
                }
            ]
        )
    )
    points = ["--k", str(case.k)] if case.budget is None else ["--budget", str(case.budget)]
    report = cli(
        "eval", "--queries", str(qfile), "--docs", str(SAMPLES), "--json", *points,
        *options(case.config),
    )  # fmt: skip
    assert Config.from_json(report["config"]) == case.config
    (per_query,) = report["per_query"]
    evaluated = (
        per_query["at_k"][str(case.k)]
        if case.budget is None
        else per_query["at_budget"][str(case.budget)]
    )
    assert comparable(app) == comparable(query) == comparable(evaluated)
    if case.budget is not None:  # the budget, not k, decided how many hits were taken
        assert len(app["hits"]) < case.k


def test_the_demo_fails_at_its_start_and_filling_repairs_it() -> None:
    """The cases above are the demo's two states, as the app opens and after one move."""
    failing, filled = CASES[0], CASES[1]
    assert failing.config == START.config and not failing.config.fill
    assert filled.config.fill and filled.budget == 512
