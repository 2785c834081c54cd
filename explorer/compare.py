"""Comparing chunking configurations: A/B boundaries and ranks, sweep grids, query-set editing.

The evaluation page (``pages/evaluate.py``) only wires these functions to widgets. Everything
here is plain Python over :mod:`explorer.evaluation` records, testable without Streamlit.

* **Boundaries.** A chunk *boundary* is the offset where a chunk starts.
  :func:`compare_boundaries` sorts the starts of two chunkings of one document into those only
  in A, only in B and in both; :func:`boundary_markers` turns them into marks to draw.
* **Ranks.** :func:`phrase_ranks` says, for each evidence phrase of a query, how many of the
  top hits it takes before the phrase lies wholly inside the retrieved text — so "covered at k"
  is exactly "every located phrase has a rank of at most k".
* **Running.** :func:`run_eval` and :func:`run_sweep` are :func:`explorer.evaluation.evaluate`
  and :func:`~explorer.evaluation.sweep` with finer progress: the documents are chunked and
  (for dense and hybrid retrieval) embedded first, batch by batch, so a progress bar moves
  while the slow part runs.
* **Query sets.** The page keeps the query set as a list of dicts in the query-set format
  (``{"id", "doc", "query", "evidence": [...]}`` plus any other fields, such as ``kind``);
  :func:`read_query_set`, :func:`editor_rows`, :func:`from_editor` and :func:`dumps` move it
  between a file, the table editor and back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from explorer.errors import SettingsError
from explorer.evaluation import (
    DEFAULT_BUDGETS,
    DEFAULT_KS,
    EvalConfig,
    EvalReport,
    Query,
    QueryResult,
    QuerySetError,
    Workspace,
    evaluate,
    parse_queries,
    sweep_cells,
)
from explorer.evidence import Span
from explorer.pipeline import NEIGHBOURS_MAX
from explorer.render import PALETTE, Marker
from explorer.splitters import RECURSIVE_LEVELS, Chunk

# --------------------------------------------------------------------------- boundaries

A_COLOR = "#1d4ed8"
"""Boundaries only in configuration A: blue."""
B_COLOR = "#c2410c"
"""Boundaries only in configuration B: burnt orange."""
BOTH_COLOR = "#9ca3af"
"""Boundaries both configurations share: light grey, so the differences stand out."""


@dataclass(frozen=True)
class Boundaries:
    """Chunk start offsets of two chunkings of one document, sorted into three sets."""

    only_a: tuple[int, ...]
    only_b: tuple[int, ...]
    both: tuple[int, ...]


def chunk_starts(chunks: Iterable[Chunk]) -> tuple[int, ...]:
    """The sorted, distinct offsets where the chunks start."""
    return tuple(sorted({c.start for c in chunks}))


def compare_boundaries(a: Iterable[Chunk], b: Iterable[Chunk]) -> Boundaries:
    """Where chunks start only under A, only under B, and under both."""
    sa, sb = set(chunk_starts(a)), set(chunk_starts(b))
    return Boundaries(
        only_a=tuple(sorted(sa - sb)),
        only_b=tuple(sorted(sb - sa)),
        both=tuple(sorted(sa & sb)),
    )


def boundary_markers(a: Sequence[Chunk], b: Sequence[Chunk]) -> list[Marker]:
    """One marker per boundary: blue "A" (only A), orange "B" (only B), grey (both)."""
    index_a = {c.start: c.index for c in a}
    index_b = {c.start: c.index for c in b}
    sets = compare_boundaries(a, b)
    out = [
        Marker(o, A_COLOR, "A", f"A: chunk {index_a[o]} starts here (not a boundary in B)")
        for o in sets.only_a
    ]
    out += [
        Marker(o, B_COLOR, "B", f"B: chunk {index_b[o]} starts here (not a boundary in A)")
        for o in sets.only_b
    ]
    out += [
        Marker(o, BOTH_COLOR, "", f"A: chunk {index_a[o]} and B: chunk {index_b[o]} start here")
        for o in sets.both
    ]
    return sorted(out, key=lambda m: m.offset)


LEGEND: tuple[tuple[Marker, str], ...] = (
    (Marker(0, A_COLOR, "A"), "a chunk starts here only in A"),
    (Marker(0, B_COLOR, "B"), "only in B"),
    (Marker(0, BOTH_COLOR), "in both"),
)
"""What :func:`explorer.render.marker_legend` shows above the document."""


# --------------------------------------------------------------------------- ranks


def _covered_from(span: Span, ranked: Sequence[Span]) -> int | None:
    """The fewest top-ranked spans whose union holds ``span`` whole (``None``: never).

    Touching spans merge, so this is the largest, over the characters of ``span``, of the best
    rank of a span holding that character.
    """
    s, e = span
    best = [0] * (e - s)  # 0: no span holds this character yet
    for rank, (cs, ce) in enumerate(ranked, 1):
        lo, hi = max(cs, s), min(ce, e)
        for p in range(lo - s, hi - s):
            if best[p] == 0:
                best[p] = rank
    if not best or 0 in best:
        return None
    return max(best)


def phrase_ranks(result: QueryResult) -> tuple[int | None, ...]:
    """For each evidence phrase: how many top hits it takes to hold it whole.

    The phrase's best occurrence counts; ``None`` when the phrase was not located (or, rarely,
    no prefix of the ranking holds it, e.g. it spans the white space between two chunks).
    With neighbours, a hit brings its neighbours too, as in the evaluation.
    """
    out: list[int | None] = []
    for occurrences in result.located:
        ranks = [r for r in (_covered_from(o, result.chunk_spans) for o in occurrences) if r]
        out.append(min(ranks) if ranks else None)
    return tuple(out)


def needed_rank(result: QueryResult) -> int | None:
    """The fewest top hits that hold every located phrase (``None``: never, or nothing located).

    ``result.covered_at_k[k]`` is ``needed_rank(result) <= k``.
    """
    ranks = [r for r, occ in zip(phrase_ranks(result), result.located, strict=True) if occ]
    if not ranks or any(r is None for r in ranks):
        return None
    return max(r for r in ranks if r is not None)


def cut_phrases(located: Sequence[Sequence[Span]], chunks: Sequence[Chunk]) -> tuple[bool, ...]:
    """For each phrase: is every occurrence crossed by a boundary (no one chunk holds it)?

    A phrase that was not located is not cut.
    """
    out = []
    for occurrences in located:
        whole = any(c.start <= s and e <= c.end for s, e in occurrences for c in chunks)
        out.append(bool(occurrences) and not whole)
    return tuple(out)


def format_ranks(
    ranks: Sequence[int | None], cut: Sequence[bool], located: Sequence[bool] | None = None
) -> str:
    """``"1 · 4 ✂"``: one entry per phrase; ✂ marks a phrase no single chunk holds.

    A phrase with no rank is "not found" when it was not located, else "never".
    """
    found = [True] * len(ranks) if located is None else located
    parts = []
    for r, c, f in zip(ranks, cut, found, strict=True):
        text = str(r) if r is not None else "never" if f else "not found"
        parts.append(f"{text} ✂" if c else text)
    return " · ".join(parts)


FLIP_A = "A only"
FLIP_B = "B only"


def ab_rows(a: EvalReport, b: EvalReport, workspace: Workspace, *, k: int) -> list[dict[str, Any]]:
    """One row per query present in both reports: coverage@k and evidence ranks under A and B.

    Flipped queries (covered under one configuration only) come first.
    """
    by_id = {r.query.id: r for r in b.results}
    rows = []
    for ra in a.results:
        rb = by_id.get(ra.query.id)
        if rb is None:
            continue
        ca, cb = bool(ra.covered_at_k.get(k)), bool(rb.covered_at_k.get(k))
        chunks_a = workspace.chunks(ra.query.doc, a.config)
        chunks_b = workspace.chunks(rb.query.doc, b.config)
        rows.append(
            {
                "flip": FLIP_A if ca and not cb else FLIP_B if cb and not ca else "",
                "id": ra.query.id,
                "document": ra.query.doc,
                "question": ra.query.query,
                "A": ca,
                "B": cb,
                "A ranks": _ranks_text(ra, chunks_a),
                "B ranks": _ranks_text(rb, chunks_b),
            }
        )
    return sorted(rows, key=lambda r: r["flip"] == "")


def _ranks_text(result: QueryResult, chunks: Sequence[Chunk]) -> str:
    located = [bool(occ) for occ in result.located]
    return format_ranks(phrase_ranks(result), cut_phrases(result.located, chunks), located)


@dataclass(frozen=True)
class PhraseDetail:
    """One evidence phrase of one query under A and B."""

    phrase: str
    located: bool
    rank_a: int | None
    rank_b: int | None
    cut_a: bool
    cut_b: bool


def phrase_details(
    ra: QueryResult, rb: QueryResult, chunks_a: Sequence[Chunk], chunks_b: Sequence[Chunk]
) -> list[PhraseDetail]:
    """Per phrase of one query: its rank and whether a boundary cuts it, under A and B."""
    return [
        PhraseDetail(phrase, bool(occ), r_a, r_b, c_a, c_b)
        for phrase, occ, r_a, r_b, c_a, c_b in zip(
            ra.query.evidence,
            ra.located,
            phrase_ranks(ra),
            phrase_ranks(rb),
            cut_phrases(ra.located, chunks_a),
            cut_phrases(rb.located, chunks_b),
            strict=True,
        )
    ]


def summary_rows(a: EvalReport, b: EvalReport) -> list[dict[str, str]]:
    """Every averaged measure of two reports side by side, with the difference B - A."""
    rows = []

    def share(name: str, va: float, vb: float, *, fine: bool = False) -> None:
        """Percentages; ``fine`` ones (precision, IoU: often a few percent) to one decimal."""
        f = ".1%" if fine else ".0%"
        diff = (vb - va) * 100
        rows.append(
            {
                "measure": name,
                "A": format(va, f),
                "B": format(vb, f),
                "B - A": f"{diff:+.1f} points" if fine else f"{diff:+.0f} points",
            }
        )

    for k in a.ks:
        share(f"coverage@{k}", a.coverage_at_k[k], b.coverage_at_k.get(k, 0.0))
    for budget in a.budgets:
        share(
            f"coverage@{budget} tokens",
            a.coverage_at_budget[budget],
            b.coverage_at_budget.get(budget, 0.0),
        )
    for metric in ("recall_at_k", "precision_at_k", "iou_at_k"):
        ma, mb = a.mean_at_k(metric), b.mean_at_k(metric)
        for k in a.ks:
            share(
                f"{metric.split('_')[0]}@{k}", ma[k], mb.get(k, 0.0), fine=metric != "recall_at_k"
            )
    for name, va, vb in (
        ("chunks", a.chunks, b.chunks),
        ("index tokens", a.index_tokens, b.index_tokens),
    ):
        rows.append({"measure": name, "A": f"{va:,}", "B": f"{vb:,}", "B - A": f"{vb - va:+,}"})
    return rows


# --------------------------------------------------------------------------- running

Report = Callable[[float, str], None]
"""Called as ``report(fraction_done, message)`` while a run goes on."""

MODEL_NOTE = "loading the embedding model (about 15 s the first time)"


def _nothing(fraction: float, message: str) -> None:
    pass


def run_eval(
    queries: Sequence[Query],
    workspace: Workspace,
    config: EvalConfig,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    progress: Report | None = None,
) -> EvalReport:
    """:func:`~explorer.evaluation.evaluate`, reporting progress through the slow steps too.

    Each document is chunked first; for dense and hybrid retrieval its passages (or chunks) are
    then embedded batch by batch (texts the embedder has seen are not embedded again); then the
    queries run.
    """
    given = progress or _nothing

    def report(fraction: float, message: str) -> None:
        given(min(max(fraction, 0.0), 1.0), message)

    names = sorted({q.doc for q in queries})
    dense = config.retriever != "bm25"
    if config.settings.splitter == "semantic":  # it embeds sentences to find its cuts
        report(0.0, MODEL_NOTE)
        workspace.embedder().model  # noqa: B018
    chunk_share = 0.1 if dense else 0.5
    embed_share = 0.75 if dense else 0.0
    for n, name in enumerate(names):
        report(chunk_share * n / max(len(names), 1), f"chunking {name}")
        workspace.chunks(name, config)
    if dense:
        indexes = [workspace.index(name, config) for name in names]
        emb = workspace.embedder()
        missing = len({t for ix in indexes for t in ix.dense_texts if not emb.cached(t)})
        report(chunk_share, MODEL_NOTE)
        emb.model  # noqa: B018 - load it now, under its own message
        done = 0
        what = "passages" if config.dense == "passages" else "chunk texts"
        for name, ix in zip(names, indexes, strict=True):
            todo = len({t for t in ix.dense_texts if not emb.cached(t)})

            def step(i: int, total: int, name: str = name, done: int = done) -> None:
                share = (done + i) / missing if missing else 1.0
                report(
                    chunk_share + embed_share * share,
                    f"embedding {name}: {done + i} of {missing} new {what}",
                )

            ix.vectors(progress=step)
            done += todo
    start = chunk_share + embed_share

    def on_query(n: int, total: int, qid: str) -> None:
        report(start + (1 - start) * n / max(total, 1), f"query {qid}" if qid else "scoring")

    result = evaluate(queries, workspace, config, ks=ks, budgets=budgets, progress=on_query)
    report(1.0, "done")
    return result


def run_sweep(
    queries: Sequence[Query],
    workspace: Workspace,
    base: EvalConfig,
    *,
    sizes: Sequence[int],
    overlaps: Sequence[int],
    ks: Sequence[int] = DEFAULT_KS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    progress: Report | None = None,
) -> list[EvalReport]:
    """:func:`~explorer.evaluation.sweep` with progress inside each cell (same cells, same
    reports); one workspace, so documents and embeddings are shared across cells."""
    report = progress or _nothing
    cells = sweep_cells(sizes, overlaps)
    if not cells:
        raise SettingsError("the sweep has no cell with overlap smaller than size")
    reports = []
    for n, (size, overlap) in enumerate(cells):
        config = replace(base, settings=replace(base.settings, size=size, overlap=overlap))

        def inner(f: float, message: str, n: int = n, size: int = size, ov: int = overlap) -> None:
            report(
                (n + f) / len(cells),
                f"cell {n + 1} of {len(cells)} (size {size}, overlap {ov}): {message}",
            )

        reports.append(run_eval(queries, workspace, config, ks=ks, budgets=budgets, progress=inner))
    return reports


# --------------------------------------------------------------------------- sweep results


def parse_int_list(text: str, *, name: str, minimum: int = 0) -> tuple[int, ...]:
    """``"64, 128, 256"`` or ``"128:512:128"`` (start:stop:step, stop included) as integers.

    Raises :class:`SettingsError` with a message that says what to type.
    """
    values: list[int] = []
    hint = f'write {name} as "128, 256, 512" or as start:stop:step, e.g. "128:512:128"'
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if ":" in part:
                bits = [int(x) for x in part.split(":")]
                if len(bits) != 3 or bits[2] <= 0 or bits[1] < bits[0]:
                    raise ValueError(part)
                values.extend(range(bits[0], bits[1] + 1, bits[2]))
            else:
                values.append(int(part))
        except ValueError:
            raise SettingsError(f"{name}: cannot read {part!r}; {hint}") from None
    if not values:
        raise SettingsError(f"{name}: no values given; {hint}")
    low = min(values)
    if low < minimum:
        raise SettingsError(f"{name}: {low} is below the smallest allowed value, {minimum}")
    if len(set(values)) > MAX_VALUES:
        raise SettingsError(f"{name}: {len(set(values))} values; use at most {MAX_VALUES}")
    return tuple(sorted(set(values)))


MAX_VALUES = 12
"""The most sizes (or overlaps) one sweep takes: the grid grows as their product."""


def sweep_rows(reports: Sequence[EvalReport]) -> list[dict[str, Any]]:
    """One flat row per cell: its settings, coverage at every k and budget, chunks, tokens."""
    rows = []
    for n, rep in enumerate(reports):
        s = rep.config.settings
        row: dict[str, Any] = {"cell": n, "size": s.size, "overlap": s.overlap}
        for k, v in rep.coverage_at_k.items():
            row[f"coverage@{k}"] = round(v, 4)
        for b, v in rep.coverage_at_budget.items():
            row[f"coverage@{b} tokens"] = round(v, 4)
        row["chunks"] = rep.chunks
        row["index tokens"] = rep.index_tokens
        rows.append(row)
    return rows


def best_cell(reports: Sequence[EvalReport], *, k: int) -> int:
    """The cell with the highest coverage@k; ties go to the smaller index (fewer tokens)."""
    if not reports:
        raise ValueError("no cells")
    return min(
        range(len(reports)),
        key=lambda n: (-reports[n].coverage_at_k.get(k, 0.0), reports[n].index_tokens, n),
    )


def sweep_figure(
    rows: Sequence[Mapping[str, Any]],
    column: str,
    *,
    title: str,
    unit: str,
    percent: bool = False,
    picked: int | None = None,
) -> Any:
    """``column`` against chunk size, one line per overlap (plotly, imported lazily).

    ``picked`` is the ``cell`` number to ring.
    """
    import plotly.graph_objects as go

    overlaps = sorted({r["overlap"] for r in rows})
    traces = []
    for n, ov in enumerate(overlaps):
        mine = sorted((r for r in rows if r["overlap"] == ov), key=lambda r: r["size"])
        ys = [r[column] * (100 if percent else 1) for r in mine]
        traces.append(
            go.Scatter(
                x=[r["size"] for r in mine],
                y=ys,
                mode="lines+markers",
                name=f"overlap {ov}",
                line={"color": PALETTE[n % len(PALETTE)], "width": 2},
                marker={"color": PALETTE[n % len(PALETTE)], "size": 8},
                hovertemplate=(
                    f"size %{{x}}, overlap {ov}<br>{column}: %{{y:{'.0f' if percent else ','}}}"
                    f"{'%' if percent else ''}<extra></extra>"
                ),
            )
        )
    shapes_x = [r["size"] for r in rows if r["cell"] == picked]
    shapes_y = [r[column] * (100 if percent else 1) for r in rows if r["cell"] == picked]
    if shapes_x:
        traces.append(
            go.Scatter(
                x=shapes_x,
                y=shapes_y,
                mode="markers",
                marker={
                    "size": 16,
                    "color": "rgba(0,0,0,0)",
                    "line": {"width": 2, "color": "#111"},
                },
                name="picked cell",
                hoverinfo="skip",
            )
        )
    yaxis: dict[str, Any] = {"title": {"text": "%" if percent else column}, "rangemode": "tozero"}
    if percent:
        yaxis["range"] = [0, 105]
    return go.Figure(
        data=traces,
        layout={
            "title": {"text": title},
            "xaxis": {
                "title": {"text": f"chunk size ({unit})"},
                "tickmode": "array",
                "tickvals": sorted({r["size"] for r in rows}),
            },
            "yaxis": yaxis,
            "height": 320,
            "margin": {"l": 55, "r": 20, "t": 50, "b": 45},
            "legend": {"orientation": "h", "y": -0.25},
        },
    )


# --------------------------------------------------------------------------- main page state


def explorer_state(config: EvalConfig) -> dict[str, Any]:
    """The main page's session-state keys that show ``config`` there (``app.py`` reads them)."""
    s = config.settings
    return {
        "splitter": s.splitter,
        "unit": s.unit,
        "size": s.size,
        "overlap": s.overlap,
        "size_exact": s.size,
        "overlap_exact": s.overlap,
        "separators": [lvl for lvl in RECURSIVE_LEVELS if lvl in s.separators],
        "prefix": config.heading_prefix,
        "retriever": config.retriever,
        "dense": config.dense,
        "neighbours": min(config.neighbours, NEIGHBOURS_MAX),
        "section": False,
        "merge": config.merges,
        "table_headers": config.table_headers,
        "carry": config.carry > 0,
        "fill": config.fill,
        "chunk": None,
        "page": 1,
    }


# --------------------------------------------------------------------------- query sets

CORE = ("id", "doc", "query", "evidence")


def normalise(item: Mapping[str, Any]) -> dict[str, Any]:
    """A query-set entry with the core fields first and extra fields (``kind``...) kept."""
    out = {key: item[key] for key in CORE if key in item}
    out.update({key: v for key, v in item.items() if key not in CORE})
    return out


def read_query_set(data: bytes, *, name: str) -> list[dict[str, Any]]:
    """Decode and check a query-set file; one :class:`QuerySetError` says what is wrong."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuerySetError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QuerySetError(
            f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
            'A query set is a JSON list of {"id", "doc", "query", "evidence": [...]} objects.'
        ) from None
    except RecursionError:
        raise QuerySetError(f"{name}: nested too deeply to be a query set") from None
    parse_queries(raw, source=name)  # raises on the first bad entry, naming it
    return [normalise(item) for item in raw]


def check_query_set(items: Sequence[Mapping[str, Any]]) -> list[Query]:
    """The queries, validated (raises :class:`QuerySetError` naming the bad entry)."""
    return parse_queries(list(items), source="query set")


def dumps(items: Sequence[Mapping[str, Any]]) -> str:
    """The query set as the JSON file format (UTF-8, one level of indentation)."""
    return json.dumps([normalise(i) for i in items], ensure_ascii=False, indent=1) + "\n"


def merge(
    current: Sequence[Mapping[str, Any]], loaded: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``current`` followed by the ``loaded`` entries whose id is new; also the skipped ids."""
    ids = {i.get("id") for i in current}
    out = [normalise(i) for i in current]
    skipped = []
    for item in loaded:
        if item.get("id") in ids:
            skipped.append(str(item.get("id")))
        else:
            out.append(normalise(item))
            ids.add(item.get("id"))
    return out, skipped


def add_query(
    items: Sequence[Mapping[str, Any]], *, doc: str, query: str, evidence: Sequence[str]
) -> tuple[list[dict[str, Any]], str | None]:
    """``items`` with a new entry for this question (the query panel's "add to the query set").

    The new id is ``added-N``, the first N not taken. Returns the items and the new id, or the
    items unchanged and ``None`` when the same document, question and evidence are already there.
    """
    query, phrases = query.strip(), [p.strip() for p in evidence if p.strip()]
    if not query:
        raise QuerySetError("type a question first")
    if not phrases:
        raise QuerySetError("give at least one evidence phrase: coverage is measured on them")
    out = [normalise(i) for i in items]
    for item in out:
        if (item.get("doc"), item.get("query"), item.get("evidence")) == (doc, query, phrases):
            return out, None
    ids = {str(i.get("id")) for i in out}
    n = 1 + sum(1 for i in ids if i.startswith("added-"))
    while f"added-{n}" in ids:
        n += 1
    new = f"added-{n}"
    out.append({"id": new, "doc": doc, "query": query, "evidence": phrases})
    parse_queries(out[-1:], source="the new question")
    return out, new


def bundled_query_set(path: Path) -> list[dict[str, Any]]:
    """The project's query set, or an empty one when the file is missing or broken."""
    try:
        return read_query_set(path.read_bytes(), name=path.name)
    except (OSError, QuerySetError):
        return []


EDITOR_COLUMNS = ("id", "doc", "query", "evidence", "kind")


def editor_rows(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows for the table editor: the editable fields, evidence as a list of phrases."""
    rows = []
    for item in items:
        evidence = item.get("evidence")
        rows.append(
            {
                "id": _text(item.get("id")),
                "doc": _text(item.get("doc")),
                "query": _text(item.get("query")),
                "evidence": [str(e) for e in evidence] if isinstance(evidence, list) else [],
                "kind": _text(item.get("kind")),
            }
        )
    return rows


def _missing(value: Any) -> bool:
    """``None`` or NaN (what a table editor gives for a cell nobody filled in)."""
    return value is None or (isinstance(value, float) and value != value)


def _text(value: Any) -> str:
    return "" if _missing(value) else str(value)


def _blank(value: Any) -> bool:
    if _missing(value):
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return all(_blank(v) for v in value)
    except TypeError:
        return False


def from_editor(
    rows: Iterable[Mapping[str, Any]], previous: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The query set from the editor's rows; wholly empty rows (a row just added) are dropped.

    Fields the editor does not show are kept from the entry with the same id; known ``spans``
    only while the evidence is unchanged (they locate those exact phrases).
    """
    before = {str(i.get("id")): i for i in previous}
    out = []
    for row in rows:
        if all(_blank(row.get(col)) for col in EDITOR_COLUMNS):
            continue
        raw_evidence = row.get("evidence")
        if _missing(raw_evidence):
            phrases: list[Any] = []
        elif isinstance(raw_evidence, str):
            phrases = [raw_evidence]
        else:
            phrases = list(cast("Iterable[Any]", raw_evidence))  # a list or a NumPy array
        evidence = [_text(e).strip() for e in phrases if _text(e).strip()]
        item: dict[str, Any] = {
            "id": _text(row.get("id")).strip(),
            "doc": _text(row.get("doc")).strip(),
            "query": _text(row.get("query")).strip(),
            "evidence": evidence,
        }
        old = before.get(item["id"], {})
        for key, value in old.items():
            if key in CORE or key == "kind":
                continue
            if key == "spans" and list(old.get("evidence") or []) != evidence:
                continue
            item[key] = value
        kind = _text(row.get("kind")).strip()
        if kind:
            item["kind"] = kind
        out.append(item)
    return out


def documents_named(items: Iterable[Mapping[str, Any]]) -> list[str]:
    """The distinct ``doc`` values, in first-seen order."""
    return list(dict.fromkeys(str(i.get("doc")) for i in items if i.get("doc")))
