"""The budget's account (issue 39): what each hit costs of the context, the running total, and
what the budget or k left out and why — the same figures in the library, ``explorer query``'s
``budget_use`` field and the Explore page's table."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from explorer.budget import budget_use
from explorer.cli import main
from explorer.config import Config
from explorer.workspace import Workspace
from tests.conftest import SAMPLES
from tests.test_app import open_app

GUIDE = SAMPLES / "writing-guide.md"
QUESTION = "How do I configure the settings?"
BM25 = Config().replace(retriever="bm25")


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace()


def account(ws: Workspace, config: Config, **how: int | None):  # type: ignore[no-untyped-def]
    doc = ws.load_path(GUIDE)
    answer = ws.ask(doc, QUESTION, config=config, **how)  # type: ignore[arg-type]
    return answer, budget_use(ws.corpus(config, [doc]), answer)


def test_each_hit_costs_what_it_adds_and_the_costs_sum_to_the_context(ws: Workspace) -> None:
    answer, use = account(ws, BM25.replace(fill=False), k=8, budget=512)
    assert [x.rank for x in use.taken] == [h.rank for h in answer.hits]
    assert [x.index for x in use.taken] == [h.index for h in answer.hits]
    assert sum(x.cost for x in use.taken) == use.hits_tokens == answer.tokens == use.tokens
    assert [x.used for x in use.taken] == [
        sum(x.cost for x in use.taken[: i + 1]) for i in range(len(use.taken))
    ]
    lim = answer.limits
    assert lim is not None and lim.next_cost is not None and lim.left is not None
    first = use.left_out[0]  # the hit that stopped the ranking, as the answer's limits say
    assert first.why == "budget" and first.rank == len(answer.hits) + 1
    assert first.cost == lim.next_cost and first.used == 512 - lim.left
    assert first.used + first.cost > 512
    assert use.left == 512 - answer.tokens and use.filled == 0


def test_a_hit_that_would_fit_after_the_stop_says_the_ranking_stopped(ws: Workspace) -> None:
    _, use = account(ws, BM25, k=8, budget=200)
    assert not use.taken  # the best hit alone passes 200 tokens
    whys = [(x.why, x.cost) for x in use.left_out]
    assert whys[0][0] == "budget" and whys[0][1] > 200
    assert any(why == "stopped" and cost <= 200 for why, cost in whys[1:]), whys


def test_fill_is_counted_apart_from_the_hits(ws: Workspace) -> None:
    answer, use = account(ws, BM25, k=8, budget=512)
    assert answer.widened and use.tokens == answer.tokens
    assert use.filled == answer.tokens - use.hits_tokens > 0
    assert use.left == 512 - answer.tokens


def test_shared_text_costs_once_and_k_says_it_cut(ws: Workspace) -> None:
    answer, use = account(ws, BM25.replace(neighbours=1, fill=False), k=4, budget=None)
    assert sum(x.cost for x in use.taken) == answer.tokens
    widened_alone = [
        ws.corpus(answer.config, [ws.load_path(GUIDE)]).cost_in(
            "writing-guide.md",
            ws.corpus(answer.config, [ws.load_path(GUIDE)]).pieces_in("writing-guide.md", [h]),
        )
        for h in answer.hits
    ]
    assert all(x.cost <= alone for x, alone in zip(use.taken, widened_alone, strict=True))
    assert sum(x.cost for x in use.taken) < sum(widened_alone)  # neighbours shared, counted once
    assert use.left_out and all(x.why == "k" for x in use.left_out)


def run_query(*args: str) -> dict:  # type: ignore[type-arg]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["query", *args, "--retriever", "bm25"]) == 0
    return json.loads(out.getvalue())


def test_query_json_has_the_budget_use_field() -> None:
    got = run_query(str(GUIDE), QUESTION, "--k", "8", "--budget", "512")
    assert got["budget"] == 512  # the budget itself stays where it was
    budget = got["budget_use"]
    assert budget["budget"] == 512 and budget["tokens"] == got["tokens"]
    taken = [x for x in budget["lines"] if x["taken"]]
    assert [x["rank"] for x in taken] == [h["rank"] for h in got["hits"]]
    assert [x["chunk"] for x in taken] == [h["index"] for h in got["hits"]]
    left = [x for x in budget["lines"] if not x["taken"]]
    assert left[0]["left_out"] == "budget" and left[0]["cost"] == got["next_cost"]
    assert budget["hits_tokens"] == 512 - got["budget_left"]
    assert "doc" not in taken[0]  # one document: no names


def test_query_json_over_several_documents_names_each_hits_document() -> None:
    got = run_query(
        "--docs", str(GUIDE), str(SAMPLES / "refund-policy.md"), QUESTION, "--budget", "1024"
    )
    assert got["budget"] == 1024
    budget = got["budget_use"]
    taken = [x for x in budget["lines"] if x["taken"]]
    assert [(x["doc"], x["chunk"]) for x in taken] == [(h["doc"], h["index"]) for h in got["hits"]]
    assert budget["tokens"] == got["tokens"] and budget["hits_tokens"] <= 1024


def test_the_explore_page_shows_each_hits_cost_and_what_the_budget_left_out() -> None:
    at = open_app(retriever="bm25", k=10, budget=256)
    assert not at.exception, [e.value for e in at.exception]
    assert any(e.label == "Budget: what each hit costs" for e in at.expander)
    tables = [d.value for d in at.dataframe if "adds" in d.value.columns]
    assert len(tables) == 1
    rows = tables[0].to_dict("records")
    taken = [r for r in rows if r["why"] == "taken"]
    hits = next(d.value for d in at.dataframe if "first words" in d.value.columns)
    assert [r["rank"] for r in taken] == list(hits["rank"])
    assert [r["used"] for r in taken] == [
        sum(r["adds"] for r in taken[: i + 1]) for i in range(len(taken))
    ]
    used = taken[-1]["used"]
    assert used <= 256
    stop = rows[len(taken)]  # the first chunk left out passes the budget
    assert stop["why"] == "over budget" and stop["used"] == used + stop["adds"] > 256
    said = [m.value for m in at.markdown if m.value.startswith(f"- **#{stop['rank']}**")]
    assert said == [
        f"- **#{stop['rank']}** (chunk {stop['chunk']}) left out: its {stop['adds']} tokens "
        f"would pass the 256 budget at {used} used."
    ]
    summary = [m.value for m in at.markdown if "-token budget** go to" in m.value]
    assert summary and summary[0].startswith(f"**{used} of the 256-token budget** go to the ")
    assert "(this document)" in summary[0]


def test_the_apps_json_carries_the_same_account_as_the_table() -> None:
    at = open_app(retriever="bm25", k=10, budget=256)
    table = next(d.value for d in at.dataframe if "adds" in d.value.columns).to_dict("records")
    shown = [json.loads(j.value) for j in at.json]
    answer = next(s for s in shown if isinstance(s, dict) and "budget_use" in s)
    assert answer["budget"] == 256
    budget = answer["budget_use"]
    assert budget["budget"] == 256
    lines = budget["lines"]
    assert [(x["rank"], x["chunk"], x["cost"]) for x in lines] == [
        (r["rank"], r["chunk"], r["adds"]) for r in table
    ]
