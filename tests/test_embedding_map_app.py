"""The map of the embedding space on the main page, through AppTest: off by default; on, a plotly
chart with a point per chunk, the question and lines to its hits; a bm25 configuration waits for
"Embed now"; the selection handler picks the chunk of the event Streamlit produces."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.config import Config
from explorer.retrieval.embedding_map import EmbeddingMap, MapHit, MapPoint
from explorer.workspace import Workspace
from tests.conftest import REPO, SAMPLES
from ui import embedding_map
from ui.view_state import query_keys

APP = str(REPO / "app.py")
FIRST = "refund-policy.md"


def open_app(**preset: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in preset.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def map_spec(at: AppTest) -> dict[str, Any] | None:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if any(t.get("name") == "question" for t in spec["data"]) or any(
            "customdata" in t for t in spec["data"]
        ):
            return spec
    return None


@pytest.mark.usefixtures("model_embedder")
def test_the_map_draws_a_point_per_chunk_and_lines_to_the_hits() -> None:
    at = open_app()
    assert map_spec(at) is None  # off until asked for
    at.session_state["show_map"] = True
    at.run()
    assert not at.exception
    spec = map_spec(at)
    assert spec is not None
    config = Config.from_json(
        {k: at.session_state[k] for k in ("splitter", "unit", "size")}
        | {"overlap": at.session_state["overlap"]}
    )
    ws = Workspace()
    doc = ws.load_path(SAMPLES / FIRST)
    chunks = ws.chunks(doc, config)
    points = [i for t in spec["data"] if "customdata" in t for i in t["customdata"]]
    assert sorted(points) == [c.index for c in chunks]
    by_name = {t["name"]: t for t in spec["data"]}
    question = at.session_state[query_keys(FIRST)[0]]
    asked = ws.ask(
        doc, question, config=config, k=at.session_state["k"], budget=at.session_state["budget"]
    )
    hits = by_name["hits"]
    assert hits["text"] == [f"#{h.rank}" for h in asked.hits]
    assert len(by_name["to its hits"]["x"]) == 3 * len(asked.hits)
    assert len(by_name["question"]["x"]) == 1
    # the hover names the chunk, its heading path and its cosine, escaped
    hover = " ".join(h for t in spec["data"] if "customdata" in t for h in t["hovertext"])
    assert "cosine with the question" in hover and "hit #1 (score" in hover
    assert "of the variance" in spec["layout"]["xaxis"]["title"]["text"]
    # the selected chunk is ringed
    at.session_state["chunk"] = asked.hits[-1].index
    at.run()
    names = [t["name"] for t in (map_spec(at) or {"data": []})["data"]]
    assert f"chunk {asked.hits[-1].index} (selected)" in names


@pytest.mark.usefixtures("model_embedder")
def test_a_bm25_configuration_waits_for_embed_now() -> None:
    """Nothing of an uploaded document is embedded for a bm25 answer: the map says what it
    needs and waits for the button, then draws every chunk."""
    at = open_app(retriever="bm25", show_map=True)
    unique = uuid.uuid4().hex  # text no earlier run embedded
    text = "\n\n".join(
        f"# Part {i}\n\nParagraph {i} of {unique} says that item {i} costs {i * 7} euros."
        for i in range(6)
    )
    at.file_uploader(key="upload").set_value(("prices.md", text.encode(), "text/markdown")).run()
    assert not at.exception
    assert map_spec(at) is None
    assert any("The map needs" in i.value for i in at.info)
    at.button(key="map_embed_now").click().run()
    assert not at.exception
    spec = map_spec(at)
    assert spec is not None
    ws = Workspace()
    doc = ws.load(text.encode(), name="prices.md")
    config = Config.from_json(
        {k: at.session_state[k] for k in ("splitter", "unit", "size")}
        | {"overlap": at.session_state["overlap"]}
    )
    points = [i for t in spec["data"] if "customdata" in t for i in t["customdata"]]
    assert sorted(points) == [c.index for c in ws.chunks(doc, config)]


def test_the_selection_handler_reads_streamlits_event() -> None:
    event = {
        "selection": {
            "points": [
                {
                    "curve_number": 2,
                    "point_number": 1,
                    "point_index": 1,
                    "x": 0.1,
                    "y": 0.2,
                    "customdata": 7,
                },
            ],
            "point_indices": [1],
            "box": [],
            "lasso": [],
        }
    }
    assert embedding_map.picked_chunk(event) == 7
    event["selection"]["points"][0]["customdata"] = [9]
    assert embedding_map.picked_chunk(event) == 9
    question_only = {"selection": {"points": [{"curve_number": 6, "x": 0, "y": 0}]}}
    assert embedding_map.picked_chunk(question_only) is None
    assert embedding_map.picked_chunk(None) is None
    assert embedding_map.picked_chunk({"selection": {"points": []}}) is None


def test_the_figure_escapes_document_text() -> None:
    hostile = "<img src=x onerror=alert(1)> & <b>bold</b>"
    made = EmbeddingMap(
        doc="d.md",
        model="m",
        vectors="chunks",
        points=(
            MapPoint(0, 0.0, 0.0, hostile, (hostile,), 0.5, hostile),
            MapPoint(1, 1.0, 1.0, "Two", ("Two",), 0.2, "plain"),
        ),
        explained=(0.6, 0.4),
        question=hostile,
        question_xy=(0.5, 0.5),
        hits=(MapHit(1, 0, 0.9),),
    )
    fig = embedding_map.figure(made, selected=1)
    texts = json.dumps(fig.to_plotly_json()["data"])
    assert "<img" not in texts and "&lt;img src=x onerror=alert(1)&gt;" in texts
    assert "<b>bold</b>" not in texts
    names = [t.name for t in fig.data]
    assert names[0] == "&lt;img src=x onerror=alert(1)&gt; &amp; …"  # cut to one legend line
    assert names[1] == "Two"
    assert "chunk 1 (selected)" in names
