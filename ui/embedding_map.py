"""The map of the embedding space on the main page: every chunk a point on the first two
principal axes of the chunk vectors (:mod:`explorer.retrieval.embedding_map`), coloured by
section, the question's point, a line to each of its hits; hover shows the chunk, a click selects
it in the page's view (``state.chunk``, as the chunk table does).

The vectors are the workspace's. The map is drawn only when asked for (a toggle) and only once
the vectors are ready: when the question's answer has embedded them already nothing waits; else
an *Embed now* button starts the embedding under a progress bar with Cancel
(:func:`ui.widgets.cancellable`), as the answer's own embedding does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from explorer.chunking.edits import Edit, encode_edits
from explorer.chunking.records import Chunk
from explorer.config import Config, dense_config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.retrieval.embedding_map import EmbeddingMap
from explorer.workspace import Workspace
from ui import widgets
from ui.safe import md_text, plain_markdown, plot_text

KEY = "embedding_map"
"""The plotly chart's key starts so: its selection event is ``state[chart_key(selected)]``."""


def chart_key(selected: int | None) -> str:
    """The chart's key while chunk ``selected`` is the page's selection: a selection made
    elsewhere (the picker, the table) draws a fresh chart, so the map's own last pick does not
    stay selected (dimming every other point) beside the ring of the new one."""
    return f"{KEY}:{selected}"


TOGGLE = "show_map"
QUESTION_COLOUR = "#d62728"
HIT_COLOUR = "#222222"
SELECTED_COLOUR = "#ff7f0e"
LINE_COLOUR = "rgba(214, 39, 40, 0.55)"
SECTION_COLOURS: tuple[str, ...] = (
    "#1f77b4",  # blue
    "#2ca02c",  # green
    "#9467bd",  # purple
    "#8c564b",  # brown
    "#e377c2",  # pink
    "#17becf",  # cyan
    "#bcbd22",  # olive
    "#7f7f7f",  # grey
    "#f3c300",  # yellow
    "#0b3d91",  # navy
    "#66c2a5",  # sea green
    "#882d17",  # rust
    "#a1caf1",  # light blue
    "#604e97",  # violet
    "#c2b280",  # sand
    "#2b3d26",  # dark olive
)
"""The sections' colours, told apart at a glance (none near the question's red, the selected
ring's orange or the hits' black); past 16 sections the marker's shape changes too."""
SECTION_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "pentagon", "hexagon")


def section_marker(n: int) -> tuple[str, str]:
    """The colour and shape of the ``n``-th section (from 0): no two sections share both."""
    colours = len(SECTION_COLOURS)
    return SECTION_COLOURS[n % colours], SECTION_SYMBOLS[(n // colours) % len(SECTION_SYMBOLS)]


def picked_chunk(event: Mapping[str, Any] | None) -> int | None:
    """The chunk a plotly selection event (``state[KEY]``) picked: the first selected point
    that carries a chunk index (the question's point and the lines carry none)."""
    if not event:
        return None
    selection = event.get("selection") or {}
    for point in selection.get("points") or ():
        data = point.get("customdata")
        if isinstance(data, list | tuple):
            data = data[0] if data else None
        if isinstance(data, int | float) and not isinstance(data, bool):
            return int(data)
    return None


def figure(made: EmbeddingMap, *, selected: int | None = None) -> Any:
    """The map as a plotly figure: a trace of points per section, the hits ringed and
    numbered, lines from the question to them, the question's star, the selected chunk ringed
    in orange. Every text from the document is escaped (:func:`ui.safe.plot_text`)."""
    import plotly.graph_objects as go

    rank = {h.index: h for h in made.hits}
    traces: list[Any] = []
    for n, section in enumerate(made.sections):
        colour, symbol = section_marker(n)
        pts = [p for p in made.points if p.section == section]
        hover = []
        for p in pts:
            head = f"<b>chunk {p.index}</b>"
            if p.index in rank:
                head += f" · hit #{rank[p.index].rank} (score {rank[p.index].score:.3f})"
            if p.similarity is not None:
                head += f" · cosine with the question {p.similarity:.3f}"
            path = plot_text(
                " > ".join(plain_markdown(h) for h in p.heading_path) or plain_markdown(section),
                lines=2,
            )
            hover.append(f"{head}<br><i>{path}</i><br>{plot_text(p.preview)}")
        traces.append(
            go.Scatter(
                x=[p.x for p in pts],
                y=[p.y for p in pts],
                mode="markers",
                name=plot_text(plain_markdown(section) or section, width=40, lines=1),
                marker={
                    "size": 10,
                    "opacity": 0.85,
                    "color": colour,
                    "symbol": symbol,
                    "line": {"width": 0.5, "color": "white"},
                },
                customdata=[p.index for p in pts],
                hovertext=hover,
                hoverinfo="text",
            )
        )
    at = {p.index: p for p in made.points}
    if made.question_xy is not None:
        qx, qy = made.question_xy
        if made.hits:
            xs: list[float | None] = []
            ys: list[float | None] = []
            for h in made.hits:
                xs += [qx, at[h.index].x, None]
                ys += [qy, at[h.index].y, None]
            traces.append(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    name="to its hits",
                    hoverinfo="skip",
                    line={"color": LINE_COLOUR, "width": 1.5, "dash": "dot"},
                )
            )
            traces.append(
                go.Scatter(
                    x=[at[h.index].x for h in made.hits],
                    y=[at[h.index].y for h in made.hits],
                    mode="markers+text",
                    name="hits",
                    text=[f"#{h.rank}" for h in made.hits],
                    textposition="top center",
                    marker={
                        "size": 17,
                        "symbol": "circle-open",
                        "color": HIT_COLOUR,
                        "line": {"width": 2},
                    },
                    hoverinfo="skip",
                )
            )
        traces.append(
            go.Scatter(
                x=[qx],
                y=[qy],
                mode="markers",
                name="question",
                marker={
                    "size": 18,
                    "symbol": "star",
                    "color": QUESTION_COLOUR,
                    "line": {"width": 1, "color": "white"},
                },
                hovertext=[f"<b>question</b><br>{plot_text(made.question or '')}"],
                hoverinfo="text",
            )
        )
    if selected is not None and selected in at:
        p = at[selected]
        traces.append(
            go.Scatter(
                x=[p.x],
                y=[p.y],
                mode="markers",
                name=f"chunk {selected} (selected)",
                marker={
                    "size": 24,
                    "symbol": "circle-open",
                    "color": SELECTED_COLOUR,
                    "line": {"width": 3},
                },
                hoverinfo="skip",
            )
        )
    e1, e2 = made.explained
    return go.Figure(
        data=traces,
        layout={
            "height": 520,
            "margin": {"l": 50, "r": 20, "t": 30, "b": 45},
            "xaxis": {"title": {"text": f"axis 1 ({e1:.0%} of the variance)"}, "zeroline": False},
            "yaxis": {"title": {"text": f"axis 2 ({e2:.0%} of the variance)"}, "zeroline": False},
            "legend": {"itemsizing": "constant"},
            "clickmode": "event+select",
            "dragmode": "pan",
        },
    )


def _made(
    ws: Workspace,
    doc: Document,
    config: Config,
    question: str,
    *,
    k: int | None,
    budget: int | None,
    edits: Sequence[Edit],
) -> EmbeddingMap | None:
    """The map, once its vectors are ready (kept in the session for the same request)."""
    state = st.session_state
    request = (doc.key, config, question, k, budget, encode_edits(edits))
    kept = state.get("map_made")
    if kept is not None and kept[0] == request:
        made: EmbeddingMap = kept[1]
        return made
    mapped = dense_config(config)
    pending = ws.pending([doc], mapped, question=question or None)
    if not pending.ready:
        held = repr((doc.key, mapped.index_key(), question))
        if state.get("map_embed") != held:
            note, button = st.columns([4, 1], vertical_alignment="center")
            what = f"{pending.texts:,} {pending.what}" if pending.texts else "the question"
            note.info(md_text(f"The map needs {what} embedded with {mapped.model} first."))
            button.button(
                "Embed now",
                key="map_embed_now",
                icon=":material/play_arrow:",
                on_click=lambda: state.update(map_embed=held),
                help="Embed them now (with a progress bar and Cancel).",
            )
            return None
        done = widgets.cancellable(
            f"Embedding for the map with {mapped.model}",
            lambda progress: ws.chunk_vectors(doc, config, edits=edits, progress=progress),
            key="map_embedding",
            request=held,
            meanwhile="The map waits.",
            again="Embed now",
        )
        if done is None:
            return None
    made = ws.embedding_map(doc, question or None, config=config, k=k, budget=budget, edits=edits)
    state.map_made = (request, made)
    return made


def draw(
    ws: Workspace,
    doc: Document,
    config: Config,
    question: str,
    *,
    chunks: Sequence[Chunk],
    k: int | None,
    budget: int | None,
    edits: Sequence[Edit] = (),
    select: Callable[[int, int | None], None],
) -> None:
    """The toggle, and under it the map and its note (see the module docstring); ``select``
    takes a picked chunk's index and page, as the chunk table's selection does."""
    state = st.session_state
    st.toggle(
        "Map of the embedding space",
        key=TOGGLE,
        help="Every chunk as a point (its vector on the two main axes of all chunk vectors), "
        "the question and lines to its hits. Click a point to select its chunk.",
    )
    if not state.get(TOGGLE) or not chunks:
        return
    try:
        made = _made(ws, doc, config, question, k=k, budget=budget, edits=edits)
    except ExplorerError as exc:
        widgets.message("error", f"The map cannot be drawn: {exc}")
        return
    if made is None:
        return

    selected = state.get("chunk")
    key = chart_key(selected)

    def on_select() -> None:
        picked = picked_chunk(state.get(key))
        if picked is not None and 0 <= picked < len(chunks):
            select(picked, chunks[picked].page_start)

    with st.container(key="map_panel"):
        st.plotly_chart(
            figure(made, selected=selected),
            key=key,
            on_select=on_select,
            selection_mode="points",
            config={"scrollZoom": True, "displaylogo": False},
        )
        e1, e2 = made.explained
        kind = (
            "each point is the mean of its passages' vectors, while a hit's score is its best "
            "passage's"
            if made.vectors == "passages"
            else "each point is its chunk's own vector"
        )
        st.caption(
            f"{len(made.points):,} chunks, {made.model}; {kind}. The two axes keep {e1:.0%} and "
            f"{e2:.0%} of the variance: nearness on the map is a hint, the cosine in each "
            "point's hover is the measure. Click a point to select its chunk."
        )
