"""What the document view and the map draw (issue 36.9): a dropped chunk is struck through only
where no retrievable chunk holds its text; a selected chunk that is no hit stays visible in the
Query hits view; the map's sections get colours told apart, legends without Markdown's marks,
and a fresh chart (no stale selection) when the selection comes from elsewhere."""

from __future__ import annotations

import dataclasses
import re

from explorer.config import Config
from explorer.retrieval.embedding_map import EmbeddingMap, MapPoint
from explorer.workspace import Workspace
from tests.conftest import SAMPLES, make_chunks, make_doc
from ui import embedding_map, highlights, render
from ui.chunk_view import chunk_label
from ui.safe import plain_markdown

TEXT = "Refunds within seven days. Downloads are excluded. Ask the desk. Keep the receipt."
#       0                         26                       51            65


def struck_text(html: str) -> str:
    """The text inside struck (dropped) spans of rendered HTML."""
    out = []
    for m in re.finditer(r'<span class="([^"]*)"[^>]*>([^<]*)</span>', html):
        if "ce-dropped" in m.group(1) and "line-through" in m.group(0):
            out.append(m.group(2))
    return "".join(out)


def test_a_dropped_chunk_is_struck_only_where_no_retrievable_chunk_holds_its_text() -> None:
    doc = make_doc(TEXT)
    # chunk 1 overlaps chunks 0 and 2 at its ends; dropping it leaves only its middle unheld
    chunks = make_chunks(TEXT, [(0, 35), (20, 70), (60, len(TEXT))])
    chunks[1] = dataclasses.replace(chunks[1], flags=("dropped",))
    html = render.render_text(doc, render.chunk_highlights(chunks))
    assert struck_text(html) == TEXT[35:60]
    assert "Refunds within" not in struck_text(html)  # chunk 0 still holds it
    assert html.count(">✕1<") == 1  # one badge for the chunk drawn in pieces
    # the other views draw dropped chunks over their own tints: the same pieces
    pieces = render.dropped_highlights(chunks[1], render.retrievable_spans(chunks))
    assert [(h.start, h.end, h.struck) for h in pieces] == [
        (20, 35, False),
        (35, 60, True),
        (60, 70, False),
    ]
    assert [h.badged for h in pieces] == [True, False, False]


def test_a_chunk_dropped_whole_is_struck_whole() -> None:
    doc = make_doc(TEXT)
    chunks = make_chunks(TEXT, [(0, 26), (26, 51), (51, len(TEXT))])
    chunks[1] = dataclasses.replace(chunks[1], flags=("dropped",))
    html = render.render_text(doc, render.chunk_highlights(chunks))
    assert struck_text(html).strip() == TEXT[26:51].strip()


def test_a_selected_chunk_that_is_no_hit_is_drawn_in_the_query_hits_view() -> None:
    ws = Workspace()
    doc = ws.load((SAMPLES / "refund-policy.md").read_bytes(), name="refund-policy.md")
    config = Config(retriever="bm25")
    chunks = ws.chunks(doc, config)
    answer = ws.answer(
        "How long do I have to ask for a refund?", (), config=config, names=[doc], k=2
    ).answers[doc.name]
    hit_indices = {h.index for h in answer.hits}
    chosen = next(c.index for c in chunks if c.index not in hit_indices)
    drawn = [
        *highlights.hit_highlights(answer.hits, chunks, selected=chosen),
        *highlights.selected_highlight(answer, chunks, chosen),
    ]
    html = render.render_text(doc, drawn)
    assert f'class="ce-badge ce-selected" data-index="{chosen}"' in html
    rank = next(h.rank for h in answer.ranking if h.index == chosen)
    assert f"ranked #{rank}, not retrieved" in html
    # a hit selected is outlined as the hit it is: nothing is added
    assert highlights.selected_highlight(answer, chunks, answer.hits[0].index) == []
    assert highlights.selected_highlight(answer, chunks, None) == []


def test_the_map_gives_sections_colours_told_apart_and_plain_legends() -> None:
    n = 40
    points = tuple(
        MapPoint(
            i, float(i), float(i % 7), f"`s{i}` **section**", (f"`s{i}` **section**",), None, "text"
        )
        for i in range(n)
    )
    made = EmbeddingMap(
        doc="d.md", model="m", vectors="chunks", points=points, explained=(0.5, 0.2),
        question=None, question_xy=None, hits=(),
    )  # fmt: skip
    fig = embedding_map.figure(made)
    traces = [t for t in fig.data if t.customdata is not None]
    assert len(traces) == n
    looks = [(t.marker.color, t.marker.symbol) for t in traces]
    assert len(set(looks)) == n  # no two sections drawn alike
    first = [t.marker.color for t in traces[: len(embedding_map.SECTION_COLOURS)]]
    assert len(set(first)) == len(first)

    def rgb(c: str) -> tuple[int, ...]:
        return tuple(int(c[i : i + 2], 16) for i in (1, 3, 5))

    def far(a: str, b: str) -> float:
        return float(sum((x - y) ** 2 for x, y in zip(rgb(a), rgb(b), strict=True)) ** 0.5)

    colours = [*embedding_map.SECTION_COLOURS]
    assert min(far(a, b) for i, a in enumerate(colours) for b in colours[i + 1 :]) >= 60
    for special in (embedding_map.QUESTION_COLOUR, embedding_map.SELECTED_COLOUR):
        assert min(far(special, c) for c in colours) >= 60
    assert all("`" not in t.name and "**" not in t.name for t in traces)
    assert traces[0].name == "s0 section"
    assert "`" not in " ".join(str(h) for t in traces for h in t.hovertext)


def test_the_map_is_a_fresh_chart_for_each_selection() -> None:
    assert embedding_map.chart_key(3) != embedding_map.chart_key(4)
    assert embedding_map.chart_key(None) != embedding_map.chart_key(0)


def test_the_chunk_picker_shows_plain_text() -> None:
    text = "## The `config` file\n\n**Bold** words and a [link](http://x.example) | a | b |"
    (chunk,) = make_chunks(text, [(0, len(text))])
    label = chunk_label(chunk)
    assert label.startswith("#0 · The config file Bold words and a link")
    assert not set("`*[]#|") & set(label.split(" · ", 1)[1])
    assert plain_markdown("| a | b |\n|---|---|\n| 1 | 2 |") == "a · b 1 · 2"
    assert plain_markdown("snake_case_name and 2 * 3 * 4") == "snake_case_name and 2 * 3 * 4"
