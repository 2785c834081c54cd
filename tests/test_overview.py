"""The Corpus page's overview at the scale of a documentation site (issue 37.3), through AppTest:
a page of rows at a time, found by name, the problems first (text never reached, flagged
chunks, cut tables), Markdown rows without "pages: None", "chunks" drawn once between the
legend and the axis, and long names readable on the axis and whole in the hover."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from streamlit.testing.v1 import AppTest

from explorer.chunking.diagnostics import Diagnosis
from explorer.config import Config
from explorer.documents.model import Document
from explorer.evaluation.reach import DocumentReach
from explorer.workspace import Workspace
from ui import corpus_view

N = 130
CONFIG = Config(retriever="bm25").replace(size=48)
LONG = "docs/reference/configuration/rules/declaration-block-no-redundant-longhand-properties.md"


def name_of(i: int) -> str:
    return LONG if i == 77 else f"site/page-{i:03d}.md"


@lru_cache(maxsize=1)
def site() -> tuple[dict[str, Document], dict[str, Any], dict[str, Diagnosis]]:
    """``N`` Markdown pages, their chunks, and diagnoses whose flags are known: page i has
    ``i % 5`` flagged chunks, ``i % 3`` of them tables cut from their header (when it has that
    many chunks)."""
    ws = Workspace(None, {})
    docs, chunks, diagnoses = {}, {}, {}
    for i in range(N):
        text = f"# Page {i}\n\n" + "".join(
            f"Paragraph {p} of page {i} says what rule {p} checks and why it matters.\n\n"
            for p in range(3 + i % 4)
        )
        name = name_of(i)
        doc = ws.load(text.encode(), name=name)
        docs[name] = doc
        chunks[name] = ws.chunks(doc, CONFIG)
        n = len(chunks[name])
        flagged = min(i % 5, n)
        cut = min(i % 3, flagged)
        issues = [
            ("table_header",) if j < cut else ("mid_sentence",) if j < flagged else ()
            for j in range(n)
        ]
        diagnoses[name] = Diagnosis(tuple(issues), tuple(10 for _ in range(n)))
    return docs, chunks, diagnoses


def never_reached() -> dict[str, DocumentReach]:
    """A retrieval map where page 12 is never reached and page 40 half of it."""
    docs, _, _ = site()
    out = {}
    for name, doc in docs.items():
        n = len(doc.text)
        never: tuple[tuple[int, int], ...] = ()
        if name == name_of(12):
            never = ((0, n),)
        elif name == name_of(40):
            never = ((0, n // 2),)
        out[name] = DocumentReach(name, n, 3, never, ())
    return out


def _script(with_reach: bool) -> None:
    from tests.test_overview import never_reached, site
    from ui.corpus import overview

    docs, chunks, diagnoses = site()
    overview.draw(docs, chunks, diagnoses, never_reached() if with_reach else None)


def page(with_reach: bool = False) -> AppTest:
    at = AppTest.from_function(_script, args=(with_reach,), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rows(at: AppTest) -> Any:
    [table] = [d.value for d in at.dataframe]
    return table


def columns(at: AppTest) -> dict[str, Any]:
    """The overview table's column settings, by column (what the browser's grid is told)."""
    [table] = at.dataframe
    config: dict[str, Any] = json.loads(table.proto.columns)
    return config


def expected_order(reach: dict[str, DocumentReach] | None = None) -> list[str]:
    """Problems first, recomputed from the inputs: never-reached share, flagged, cut tables."""
    _, _, diagnoses = site()

    def badness(name: str) -> tuple[float, int, int]:
        d = diagnoses[name]
        flagged = sum(1 for codes in d.issues if codes)
        cut = sum(1 for codes in d.issues if "table_header" in codes)
        never = reach[name].never_fraction if reach else 0.0
        return (-never, -flagged, -cut)

    return sorted(sorted(diagnoses, key=str.casefold), key=badness)


def test_a_page_of_rows_at_a_time_problems_first_with_the_corpus_figures() -> None:
    at = page()
    table = rows(at)
    assert len(table) == corpus_view.PAGE_ROWS
    assert list(table["document"]) == expected_order()[: corpus_view.PAGE_ROWS]
    flagged = list(table["flagged"])
    assert flagged == sorted(flagged, reverse=True) and flagged[0] > flagged[-1]  # worst first
    metrics = {m.label: m.value for m in at.metric}
    _, chunks, _ = site()
    assert metrics["Documents"] == f"{N:,}"
    assert metrics["Chunks"] == f"{sum(len(c) for c in chunks.values()):,}"
    assert metrics["Cut tables"] == f"{sum(min(i % 3, i % 5) for i in range(N)):,}"
    assert "**The whole corpus**" in [c.value for c in at.caption]
    assert f"Documents 1–50 of {N} documents, problems first" in " ".join(
        c.value for c in at.caption
    )
    at.number_input(key="cp_ov_page").set_value(3).run()
    assert list(rows(at)["document"]) == expected_order()[100:]
    assert not at.get("plotly_chart")  # the bars are the table's: no chart library to load


def test_never_reached_text_comes_first_once_a_query_set_is_run() -> None:
    reach = never_reached()
    at = page(with_reach=True)
    table = rows(at)
    assert list(table["document"])[:2] == [name_of(12), name_of(40)]
    assert list(table["never reached"])[:2] == ["100%", "50%"]
    assert list(table["document"]) == expected_order(reach)[: corpus_view.PAGE_ROWS]


def test_search_finds_by_name_and_goes_back_to_the_first_page() -> None:
    at = page()
    at.number_input(key="cp_ov_page").set_value(2).run()
    at.text_input(key="cp_ov_find").set_value("page-01").run()
    assert not at.exception
    assert sorted(rows(at)["document"]) == [f"site/page-{i:03d}.md" for i in range(10, 20)]
    assert at.number_input(key="cp_ov_page").value == 1
    at.text_input(key="cp_ov_find").set_value("no such page").run()
    assert not at.dataframe and "No document whose name holds" in at.caption[-1].value
    at.text_input(key="cp_ov_find").set_value("").run()
    at.selectbox(key="cp_ov_order").set_value("name").run()
    assert list(rows(at)["document"])[:2] == [LONG, name_of(0)]


def test_markdown_rows_say_no_pages_none_and_chunks_is_drawn_once() -> None:
    at = page()
    table = rows(at)
    assert set(table["pages"]) == {"—"}
    assert "None" not in table.to_string()
    bars = columns(at)
    most = max(table["chunks"])
    for name, color in (("chunks", "blue"), ("flagged", "red")):  # one scale: bars compare
        progress = bars[name]["type_config"]
        assert bars[name]["label"] == name and progress["type"] == "progress"
        assert (progress["min_value"], progress["max_value"], progress["color"]) == (0, most, color)
    assert not at.get("plotly_chart")


def test_long_names_are_whole_in_the_table() -> None:
    at = page()
    at.selectbox(key="cp_ov_order").set_value("name").run()
    assert columns(at)["document"]["width"] == "large"
    assert rows(at)["document"].iloc[0] == LONG  # the table keeps it whole
