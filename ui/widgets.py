"""The Streamlit pieces every page shares: one set of configuration widgets (the frame's sidebar
and the Evaluate page's A and B), the one verdict component, messages that quote outside text,
progress bars, and the answer given while the model embeds (BM25 first).

Every text from outside — a verdict naming phrases, a file name, a library's message — is shown
through :func:`ui.safe.md_text` here, never as raw Markdown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NoReturn, TypeVar

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.answer import CorpusAnswer
from explorer.chunking.edits import Edit
from explorer.chunking.measures import UNITS
from explorer.chunking.records import RECURSIVE_LEVELS
from explorer.config import BUNDLED, CONTEXT_HEADERS, DENSE_SOURCES, RETRIEVERS, Config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.jsontext import loads_bounded
from explorer.preparing import Pending
from explorer.progress import Progress, timed
from explorer.retrieval.evidence import Verdict
from explorer.workspace import Workspace
from ui import allowed, embedding_progress, settings
from ui.safe import md_text

Kind = Literal["success", "error", "warning", "info"]
_SHOW: dict[str, Callable[..., Any]] = {
    "success": st.success,
    "error": st.error,
    "warning": st.warning,
    "info": st.info,
}
VERDICT_KINDS: dict[str, Kind] = {
    "complete": "success",
    "incomplete": "error",
    "unchecked": "warning",
}
RETRIEVER_LABELS = {
    "bm25": "bm25 (keywords, instant)",
    "dense": "dense (MiniLM embeddings)",
    "hybrid": "hybrid (dense + BM25)",
}


# --------------------------------------------------------------------------- messages


def message(kind: Kind, text: str, *, where: DeltaGenerator | None = None) -> None:
    """``text`` (which may quote a file name or document text) as an alert, escaped."""
    show = _SHOW[kind] if where is None else getattr(where, kind)
    show(md_text(text))


def verdict_box(verdict: Verdict | None, *, where: DeltaGenerator | None = None) -> None:
    """The verdict as one alert: green when complete, red when a phrase is missing, amber when
    one was not found; its phrases escaped. Nothing without evidence."""
    if verdict is None:
        return
    sentence = verdict.sentence()
    message(VERDICT_KINDS[verdict.kind], sentence[:1].upper() + sentence[1:], where=where)


def progress_bar(what: str, *, cancel: str | None = None) -> tuple[Progress, DeltaGenerator]:
    """A progress bar and the callback that moves it (empty the returned element when done).

    With ``cancel`` (a session-state key), a Cancel button beside it. Streamlit ends a running
    script at its next element once a widget is used, so a click stops the work at the bar's
    next step (nothing half-made is kept: the workspace stores a value only once it is made);
    the click sets ``state[cancel]`` to ``what``, for :func:`cancelled_note` to say so and for
    work that starts by itself to wait until asked again."""
    holder = st.empty()
    with holder.container():
        bar = st.progress(0.0, text=md_text(f"{what}…"))
        if cancel is not None:
            st.button(
                "Cancel",
                key=f"{cancel}_button",
                icon=":material/cancel:",
                on_click=_cancel,
                args=(cancel, what),
                help="Stop this now; nothing is kept of it.",
            )

    def progress(fraction: float, note: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=md_text(f"{what}: {note}"))

    return timed(progress), holder


def _cancel(key: str, what: str) -> None:
    st.session_state[key] = what


def cancelled_note(key: str) -> None:
    """Once, after a Cancel click: what was cancelled (see :func:`progress_bar`)."""
    what = st.session_state.pop(key, None)
    if what:
        message("info", f"Cancelled: {what}. Nothing of it was kept.")


T = TypeVar("T")


def cancellable(
    what: str,
    work: Callable[[Progress], T],
    *,
    key: str,
    request: str,
    meanwhile: str,
    again: str,
) -> T | None:
    """``work(progress)`` under a progress bar with a Cancel button, for work a page starts by
    itself on every run (embedding for an answer, the semantic splitter). Once cancelled, the
    same ``request`` is held: instead of starting again, a note says so (``meanwhile``: what the
    page shows instead) beside a button labelled ``again`` that starts it. Returns ``None`` while
    held; a run cut short by the click returns nothing at all (Streamlit ends it)."""
    state = st.session_state
    if state.pop(f"{key}_cancelled", None):
        state[f"{key}_held"] = request
    if state.get(f"{key}_held") == request:
        note, button = st.columns([4, 1], vertical_alignment="center")
        note.info(md_text(f"Cancelled: {what}. {meanwhile}"))
        button.button(
            again,
            key=f"{key}_again",
            icon=":material/play_arrow:",
            on_click=lambda: state.pop(f"{key}_held", None),
            help="Start it now.",
        )
        return None
    progress, bar = progress_bar(what, cancel=f"{key}_cancelled")
    try:
        return work(progress)
    finally:
        bar.empty()


# --------------------------------------------------------------------------- answering


def answer_bm25_first(
    ws: Workspace,
    names: Sequence[str | Document],
    config: Config,
    question: str,
    evidence: Sequence[str],
    *,
    k: int | None,
    budget: int | None,
    early: Callable[[CorpusAnswer, Pending], None],
    doc: str | None = None,
    edits: Mapping[str, Sequence[Edit]] | None = None,
) -> CorpusAnswer | None:
    """The answer under ``config``; when the model still has to load or embed, the BM25 answer
    is given to ``early`` first (to show meanwhile) and a progress bar follows the embedding on
    the process's queue, with a Cancel button (:mod:`ui.embedding_progress`): a cancelled
    embedding is not started again for the same documents and settings — whatever the question
    — until "Embed now" is clicked. A model that
    cannot be used is one error message; either way ``None`` is returned (the BM25 answer
    stands). ``edits``: what-if edits to the documents' chunkings, by name."""
    drew_early = False
    try:
        pending = ws.pending(names, config, question=question)
        if not pending.ready and config.retriever != "bm25":
            lexical = config.replace(retriever="bm25")
            early(
                ws.answer(
                    question, evidence, config=lexical, names=names, k=k, budget=budget,
                    edits=edits,
                ),
                pending,
            )  # fmt: skip
            drew_early = True
        if pending.texts or pending.load_model:
            what = f"{pending.texts:,} {pending.what}" if pending.texts else "the question"
            what = f"Embedding {what} with {config.model}"
            # the question is left out: asking another one does not undo a Cancel
            request = (
                id(ws.embedders),
                tuple(ws.document(n).key for n in names),
                config.index_key(),
                repr(sorted((n, tuple(e)) for n, e in (edits or {}).items())),
            )
            if embedding_progress.held(EMBEDDING, request):
                embedding_progress.hold_note(
                    EMBEDDING,
                    what,
                    meanwhile="The BM25 answer above stands." if drew_early else "No answer yet.",
                    again="Embed now",
                )
                return None
            done = embedding_progress.run(
                what,
                lambda progress: ws.prepare(names, config, progress, edits=edits),
                key=EMBEDDING,
                request=request,
                progress_bar=progress_bar,
            )
            if not done:  # stopped: every session that wanted it cancelled
                return None
        return ws.answer(
            question, evidence, config=config, names=names, k=k, budget=budget, doc=doc,
            edits=edits,
        )  # fmt: skip
    except ExplorerError as exc:
        shown = " (its answer is shown above)." if drew_early else "."
        st.error(
            f"{md_text(str(exc))}  \nThe {config.retriever} retriever needs the model; bm25 "
            f"works without it{shown}"
        )
        return None


EMBEDDING = "embedding"
"""The key of the embedding's :func:`cancellable` (a Cancel click sets ``embedding_cancelled``)."""


# --------------------------------------------------------------------------- configuration


def prepare_config_state(p: str = "") -> list[str]:
    """Before the widgets of the configuration under ``p`` are drawn: the size within its unit's
    range, the overlap below the size (and 0 for a splitter that takes none), the exact boxes
    equal to their sliders. Returns a sentence for every value that had to change."""
    state = st.session_state
    notes = []
    rng = settings.SIZE_RANGES[state[p + "unit"]]
    size = max(1, min(rng.high, int(state[p + "size"])))
    if size != state[p + "size"]:
        notes.append(
            f"Size {state[p + 'size']:,} is beyond the {rng.high:,} "
            f"{settings.UNIT_LABELS[state[p + 'unit']]} offered here: set to {size:,}."
        )
    overlap = settings.clamp_overlap(state[p + "overlap"], size)
    if overlap != state[p + "overlap"]:
        notes.append(
            f"Overlap {state[p + 'overlap']:,} is not below the chunk size {size:,}: set to "
            f"{overlap:,}."
        )
    if overlap and not settings.takes_overlap(state[p + "splitter"]):
        notes.append(f"{state[p + 'splitter']} takes no overlap: set to 0.")
        overlap = 0
    state[p + "size"], state[p + "overlap"] = size, overlap
    state[p + "size_exact"], state[p + "overlap_exact"] = size, overlap
    return notes


def _copy(src: str, dst: str) -> None:
    st.session_state[dst] = st.session_state[src]


def _on_unit(p: str) -> None:
    state = st.session_state
    rng = settings.SIZE_RANGES[state[p + "unit"]]
    state[p + "size"], state[p + "overlap"] = rng.default, rng.overlap


def _on_size(p: str, src: str) -> None:
    """A new size: its exact box and slider agree; an overlap no longer below it is lowered
    (and said so)."""
    state = st.session_state
    state[p + "size"] = state[p + "size_exact"] = state[src]
    if state[p + "overlap"] >= state[p + "size"]:
        state[p + "clamped"] = (
            f"Overlap {state[p + 'overlap']:,} is not below the new size {state[p + 'size']:,}: "
            f"set to {state[p + 'size'] - 1:,}."
        )
        state[p + "overlap"] = state[p + "overlap_exact"] = state[p + "size"] - 1


def _slider_and_box(
    p: str,
    name: str,
    label: str,
    low: tuple[int, int],
    high: int,
    *,
    disabled: bool = False,
    help: str | None = None,
) -> None:
    """A slider and an exact box for the setting ``name`` (their keys ``p + name`` and
    ``p + name + "_exact"``), each moving the other; ``low`` is the slider's and the box's
    lowest value. A new size also lowers an overlap no longer below it."""
    exact = f"{p}{name}_exact"
    sync: Callable[..., None] = _on_size if name == "size" else _copy
    slider_args = (p, p + name) if name == "size" else (p + name, exact)
    box_args = (p, exact) if name == "size" else (exact, p + name)
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.slider(label, low[0], high, key=p + name, on_change=sync, args=slider_args,
                disabled=disabled, help=help)  # fmt: skip
    right.number_input(f"Exact {label.split()[-1].lower()}", low[1], high, key=exact,
                       on_change=sync, args=box_args, disabled=disabled)  # fmt: skip


def chunking_widgets(p: str = "", *, sizes: bool = True) -> None:
    """Splitter, size unit, size and overlap (a slider and an exact box each, unless ``sizes``
    is off: the sweep's cells set them), the recursive splitter's separators, the semantic
    splitter's percentile and a library splitter's own options."""
    state = st.session_state
    st.selectbox(
        "Splitter",
        settings.splitter_names(),
        key=p + "splitter",
        format_func=settings.splitter_label,
        help=settings.splitter_help(),
    )
    st.selectbox(
        "Size unit",
        UNITS,
        key=p + "unit",
        format_func=settings.UNIT_LABELS.get,
        on_change=_on_unit,
        args=(p,),
    )
    if sizes:
        for note in [*prepare_config_state(p), *filter(None, [state.pop(p + "clamped", None)])]:
            st.caption(md_text(note))
        rng = settings.SIZE_RANGES[state[p + "unit"]]
        # the usual range, reaching down to a smaller size typed in the box
        _slider_and_box(p, "size", "Chunk size", (min(rng.low, state[p + "size"]), 1), rng.high)
        no_overlap = not settings.takes_overlap(state[p + "splitter"])
        _slider_and_box(
            p,
            "overlap",
            "Overlap",
            (0, 0),
            max(state[p + "size"] - 1, 1),
            disabled=no_overlap or state[p + "size"] < 2,
            help="This splitter takes no overlap." if no_overlap else None,
        )
    if state[p + "splitter"] == "recursive":
        st.multiselect(
            "Recursive separators (coarsest first)",
            RECURSIVE_LEVELS,
            key=p + "separators",
            help="Boundaries the recursive splitter may cut at; a hard cut always comes last.",
        )
    if state[p + "splitter"] == "semantic":
        low, high, _ = settings.PERCENTILE_RANGE
        st.slider("Percentile", low, high, key=p + "percentile", help=settings.PERCENTILE_HELP)
    _library_options(p, state[p + "splitter"])


def _library_options(p: str, name: str) -> None:
    """A library splitter's own options (its separators, keep_separator, …), kept in
    ``state[p + "options"]`` as the configuration's flat form has them."""
    from explorer.chunking.adapters import ADAPTERS

    state = st.session_state
    spec = ADAPTERS.get(name)
    if spec is None:
        state[p + "options"] = ""
        return
    st.caption(md_text(f"{spec.title}: {spec.note}" if spec.note else spec.title))
    given = _given_options(state.get(p + "options") or "{}")
    chosen: dict[str, object] = {}
    for opt in spec.options:
        key = f"{p}opt_{name}_{opt.name}"
        if key not in state and opt.name in given:
            state[key] = given[opt.name]
        if opt.choices:
            value = st.selectbox(opt.name, list(opt.choices), key=key, help=opt.help)
        elif isinstance(opt.default, bool):
            value = st.toggle(opt.name, value=opt.default, key=key, help=opt.help)
        elif isinstance(opt.default, int):
            value = st.number_input(opt.name, value=opt.default, step=1, key=key, help=opt.help)
        elif isinstance(opt.default, str):
            value = st.text_input(opt.name, value=opt.default, key=key, help=opt.help)
        elif opt.name in given and given[opt.name] != opt.default:
            # a list option (its separators) has no widget here: one a link or a session gave
            # is kept, and said, never dropped silently
            value = given[opt.name]
            st.caption(
                md_text(
                    f"{opt.name}: {json.dumps(value, ensure_ascii=False)[:200]} — as the link "
                    "gave it (the sidebar does not edit a list; change the link's options=)"
                )
            )
        else:
            continue  # a list option: the default
        if value != opt.default:
            chosen[opt.name] = value
    state[p + "options"] = json.dumps(chosen, sort_keys=True) if chosen else ""


def _given_options(text: str) -> dict[str, Any]:
    """The options a page's state holds (its configuration's flat form), read bounded: an
    unreadable text is one warning and the splitter's defaults, never a traceback."""
    try:
        given = loads_bounded(text, what="The splitter's options")
    except ExplorerError as exc:
        st.warning(md_text(f"{exc}; the splitter's defaults are shown."))
        return {}
    if not isinstance(given, dict):
        st.warning(
            md_text(
                "The splitter's options must be a JSON object of option names and values; "
                "the splitter's defaults are shown."
            )
        )
        return {}
    return given


def embedding_widgets(p: str = "") -> None:
    """The embedding model, where dense scores come from, the heading prefix and the
    contextual header."""
    st.text_input(
        "Embedding model",
        key=p + "model",
        help=(
            f"A sentence-transformers model folder on this machine, loaded offline. Default: the "
            f"bundled {BUNDLED}. Vectors are cached by model and exact text, so a settings change "
            "embeds only texts not seen before."
        ),
    )
    st.radio(
        "Dense scores from",
        DENSE_SOURCES,
        key=p + "dense",
        horizontal=True,
        help=settings.DENSE_HELP,
    )
    st.toggle("Prefix heading path", key=p + "heading_prefix", help=settings.PREFIX_HELP)
    st.radio(
        "Contextual header (title > headings)",
        CONTEXT_HEADERS,
        key=p + "context_header",
        horizontal=True,
        format_func=settings.CONTEXT_HEADER_LABELS.get,
        help=settings.CONTEXT_HEADER_HELP,
    )


def retrieval_widgets(p: str = "") -> None:
    """The retriever, the carry, and how the hits become context: neighbours or the section,
    merging, table headers, filling the budget."""
    state = st.session_state
    st.selectbox(
        "Retriever",
        RETRIEVERS,
        key=p + "retriever",
        format_func=RETRIEVER_LABELS.get,
        help=settings.RETRIEVER_HELP,
    )
    st.slider(
        "Carry from previous",
        min_value=settings.CARRY_RANGE[0],
        max_value=settings.CARRY_RANGE[1],
        step=settings.CARRY_RANGE[2],
        key=p + "carry",
        help=settings.CARRY_HELP,
    )
    st.slider(
        "Neighbours (± chunks)",
        0,
        settings.NEIGHBOURS_MAX,
        key=p + "neighbours",
        disabled=bool(state.get(p + "section")),
        help=settings.NEIGHBOURS_HELP,
    )
    # one a row: side by side, the sidebar's ~240 px cut them to "Wide…", "Merge…", "Fill to …"
    st.toggle("Widen to section", key=p + "section", help=settings.SECTION_HELP)
    st.toggle("Merge touching hits", key=p + "merge", help=settings.MERGE_HELP)
    st.toggle("Table headers", key=p + "table_headers", help=settings.TABLE_HEADERS_HELP)
    st.toggle("Fill to budget", key=p + "fill", help=settings.FILL_HELP)


def config_widgets(p: str = "", *, sizes: bool = True, headers: bool = True) -> None:
    """Every setting of one configuration, keyed ``p`` + its flat name: the frame's sidebar
    (``p=""``) and the Evaluate page's configurations draw the same widgets."""
    if headers:
        st.subheader("Chunking", anchor=False)
    chunking_widgets(p, sizes=sizes)
    if headers:
        st.subheader("Embedding", anchor=False)
    embedding_widgets(p)
    if headers:
        st.subheader("Retrieval", anchor=False)
    retrieval_widgets(p)


def stop() -> NoReturn:
    """End this run here (``st.stop``, typed as what it is)."""
    st.stop()
    raise AssertionError("st.stop() returned")  # pragma: no cover


def configuration(p: str = "") -> Config | None:
    """The configuration the widgets under ``p`` show (None, with the reason shown, if bad or
    if it names a model the app may not read)."""
    try:
        return allowed.check_config(settings.config_of(st.session_state, prefix=p))
    except ExplorerError as exc:
        message("error", str(exc))
        return None
