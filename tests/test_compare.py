"""explorer.compare: boundary sets, evidence ranks, progress-reporting runs, sweep grids and
query-set editing, plus the boundary markers it draws through explorer.render."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
import pytest

from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.config import FLAT_KEYS, Config
from explorer.documents.load import load_document
from explorer.errors import QuerySetError, SettingsError
from explorer.evaluation import compare, queries
from explorer.evaluation.coverage import (
    QueryResult,
    evaluate,
    summary_row,
    sweep,
    sweep_cells,
)
from explorer.evaluation.queries import load_queries, parse_queries
from explorer.preparing import MODEL_NOTE
from explorer.workspace import Workspace
from tests.conftest import REPO, make_chunks, make_doc
from ui import evaluate_view, render, render_markdown, render_pdf
from ui.settings import config_of
from ui.view_state import View

QUERIES = REPO / "queries" / "boundary-questions.json"
DOCS = REPO / "queries" / "docs"
REFUND = {
    "id": "refund",
    "doc": "refund-policy.md",
    "query": "How long do I have to ask for a refund?",
    "evidence": [
        "Refunds are available within seven days.",
        "This does not apply to downloaded materials.",
    ],
}
PLAIN = Config(
    retriever="bm25", heading_prefix=True, merge=False, table_headers=False, carry=0.0, fill=False
)
"""A plain pipeline: BM25, hits as they are (no merge, headers, carry or fill)."""
FIXED_40 = PLAIN.replace(splitter="fixed", unit="chars", size=40, overlap=0)
STRUCTURE_256 = PLAIN.replace(splitter="structure", unit="tokens", size=256, overlap=0)


def chunks_at(text: str, cuts: Sequence[int]) -> list[Chunk]:
    """Chunks of ``text`` starting at ``cuts`` (each running to the next cut)."""
    return make_chunks(text, zip(cuts, [*cuts[1:], len(text)], strict=True))


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace(DOCS)


@pytest.fixture(scope="module")
def bundled() -> list[Any]:
    return load_queries(QUERIES)


# --------------------------------------------------------------------------- boundaries

TEXT = "aaaa bbbb cccc dddd"


def test_boundary_sets_only_a_only_b_both() -> None:
    a = chunks_at(TEXT, [0, 5, 10, 15])
    b = chunks_at(TEXT, [0, 10, 12])
    sets = compare.compare_boundaries(a, b)
    assert sets == compare.Boundaries(only_a=(5, 15), only_b=(12,), both=(0, 10))
    assert compare.compare_boundaries(a, a) == compare.Boundaries((), (), (0, 5, 10, 15))
    swapped = compare.compare_boundaries(b, a)
    assert (swapped.only_a, swapped.only_b, swapped.both) == (sets.only_b, sets.only_a, sets.both)


def test_boundary_sets_of_overlapping_chunks_use_starts() -> None:
    doc = make_doc("one two three four five six seven eight nine ten " * 4)
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="words", size=6, overlap=2))
    assert chunks[1].start < chunks[0].end  # they overlap
    assert compare.chunk_starts(chunks) == tuple(c.start for c in chunks)


def test_markers_are_coloured_and_labelled_by_set() -> None:
    a = chunks_at(TEXT, [0, 5, 10, 15])
    b = chunks_at(TEXT, [0, 10, 12])
    markers = evaluate_view.boundary_markers(a, b)
    assert [m.offset for m in markers] == [0, 5, 10, 12, 15]
    kinds = {m.offset: (m.color, m.label) for m in markers}
    assert kinds[5] == kinds[15] == (evaluate_view.A_COLOR, "A")
    assert kinds[12] == (evaluate_view.B_COLOR, "B")
    assert kinds[0] == kinds[10] == (evaluate_view.BOTH_COLOR, "")
    by_offset = {m.offset: m.title for m in markers}
    assert by_offset[15] == "A: chunk 3 starts here (not a boundary in B)"
    assert by_offset[12] == "B: chunk 2 starts here (not a boundary in A)"
    assert by_offset[10] == "A: chunk 2 and B: chunk 1 start here"
    assert len({evaluate_view.A_COLOR, evaluate_view.B_COLOR, evaluate_view.BOTH_COLOR}) == 3


# --------------------------------------------------------------------------- rendering


def strip_tags(html: str) -> str:
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    html = re.sub(r'<span class="ce-mark-label"[^>]*>.*?</span>', "", html)
    html = re.sub(r'<span class="ce-badge[^>]*>.*?</span>', "", html)
    return re.sub(r"<[^>]+>", "", html).replace("&#10;", "\n")


MARK = re.compile(
    r'<span class="ce-mark"[^>]*>(?:<span class="ce-mark-label"[^>]*>[^<]*</span>)?</span>'
)


def marks(html: str) -> list[str]:
    """The first visible characters after each marker, in document order."""
    pieces = MARK.split(re.sub(r"<style>.*?</style>", "", html, flags=re.S))
    return [strip_tags(p).lstrip()[:4] for p in pieces[1:]]


def test_markers_in_plain_text_sit_before_their_character() -> None:
    doc = make_doc(TEXT)
    markers = evaluate_view.boundary_markers(
        chunks_at(TEXT, [0, 5, 10, 15]), chunks_at(TEXT, [0, 12])
    )
    html = render.render_text(doc, [], markers=markers)
    assert strip_tags(html) == TEXT  # markers add no text
    assert strip_tags(MARK.sub("|", html)) == "|aaaa |bbbb |cc|cc |dddd"


def test_markers_inside_a_tint_keep_the_tint_exact() -> None:
    doc = make_doc(TEXT)
    hl = render.Highlight(3, 12, 0, "#edc948", label="E1", title="evidence E1: x")
    markers = [
        render.Marker(5, evaluate_view.A_COLOR, "A", "a"),
        render.Marker(10, evaluate_view.B_COLOR),
    ]
    html = render.render_text(doc, [hl], markers=markers)
    tinted = "".join(re.findall(r'<span class="ce-hl[^"]*"[^>]*>(.*?)</span>', html))
    assert tinted == TEXT[3:12]
    assert 'title="evidence E1: x"' in html and "(chunk 0)" not in html
    assert html.count('class="ce-mark"') == 2


def test_markers_in_markdown_skip_markup_and_escape_titles() -> None:
    text = "# Title\n\nFirst para.\n\n- item one\n- item two\n"
    doc = make_doc(text, kind="markdown", name="t.md")
    hostile = '"><script>alert(1)</script>'
    markers = [
        render.Marker(0, evaluate_view.A_COLOR, "A", hostile),  # on "# ": drawn before "Title"
        render.Marker(text.index("First"), evaluate_view.B_COLOR, "B<i>"),
        render.Marker(text.index("- item two"), evaluate_view.BOTH_COLOR),
    ]
    html = render_markdown.render_markdown(doc, [], markers=markers)
    assert "<script>" not in html and "B&lt;i&gt;" in html
    assert marks(html) == ["Titl", "Firs", "item"]
    assert strip_tags(render_markdown.render_markdown(doc, [])) == strip_tags(html)


def test_legend_shows_each_marker() -> None:
    html = render.marker_legend(evaluate_view.LEGEND)
    assert html.count('class="ce-mark"') == 3
    assert "only in B" in html and "in both" in html
    with pytest.raises(ValueError):
        render.Marker(-1, "#000000")
    with pytest.raises(ValueError):
        render.Marker(0, "red")


def test_pdf_page_draws_marker_bars() -> None:
    pdf = pymupdf.open()
    page = pdf.new_page(width=300, height=200)
    page.insert_text((40, 60), "Refunds are available within seven days.", fontsize=11)
    page.insert_text((40, 90), "This does not apply to downloaded materials.", fontsize=11)
    data = pdf.tobytes()
    doc = load_document(data, name="t.pdf")
    start = doc.text.index("This")
    plain = render_pdf.render_pdf_page(data, 1, doc, [], zoom=2.0).png
    marked = render_pdf.render_pdf_page(
        data, 1, doc, [], zoom=2.0, markers=[render.Marker(start, "#1d4ed8", "A")]
    ).png
    assert plain != marked
    pix = pymupdf.Pixmap(marked)
    blue = [
        (x, y)
        for y in range(0, pix.height, 1)
        for x in range(0, 120)
        if (lambda p: p[2] > 150 and p[0] < 90)(pix.pixel(x, y))
    ]
    assert blue, "no blue bar drawn"
    assert all(60 <= x <= 90 for x, _ in blue)  # just left of the line's first glyph (x=40pt)
    assert 140 <= min(y for _, y in blue) <= 190  # by the second line (y≈90pt), not the first


# --------------------------------------------------------------------------- ranks


def result_with(
    located: Sequence[Sequence[tuple[int, int]]], spans: Sequence[tuple[int, int]]
) -> Any:
    q = parse_queries([{"id": "q", "doc": "d", "query": "?", "evidence": ["x"] * len(located)}])[0]
    return QueryResult(
        query=q,
        located=tuple(tuple(o) for o in located),
        at_k={},
        at_budget={},
        chunk_spans=tuple(spans),
        recall_at_k={},
        precision_at_k={},
        iou_at_k={},
    )


def test_phrase_ranks_golden() -> None:
    ranked = [(5, 10), (20, 30), (0, 5)]
    r = result_with([[(3, 8)], [(21, 25)], [(8, 22)], [], [(40, 45), (6, 9)]], ranked)
    assert compare.phrase_ranks(r) == (3, 2, None, None, 1)
    assert compare.needed_rank(r) is None  # (8, 22) spans a gap no chunk fills
    r = result_with([[(3, 8)], [(21, 25)], []], ranked)
    assert compare.needed_rank(r) == 3
    assert compare.needed_rank(result_with([[]], ranked)) is None


def test_cut_phrases_and_format() -> None:
    chunks = chunks_at(TEXT, [0, 5, 10, 15])
    cut = compare.cut_phrases([[(0, 4)], [(3, 7)], [], [(3, 7), (10, 14)]], chunks)
    assert cut == (False, True, False, False)
    assert evaluate_view.format_ranks(
        [1, 4, None, None], [False, True, False, True], [True, True, False, True]
    ) == ("1 · 4 ✂ · not found · never ✂")


@pytest.mark.parametrize(
    "config",
    [
        FIXED_40,
        STRUCTURE_256,
        PLAIN.replace(splitter="recursive", unit="tokens", size=64, overlap=16, neighbours=1),
    ],
    ids=["fixed40", "structure256", "recursive64-neighbours"],
)
def test_needed_rank_agrees_with_coverage(
    ws: Workspace, bundled: list[Any], config: Config
) -> None:
    report = evaluate(bundled, ws, config, ks=(1, 2, 3, 5, 10))
    for r in report.results:
        n = compare.needed_rank(r)
        for k, covered in r.covered_at_k.items():
            assert covered == (n is not None and n <= k), (r.query.id, k, n)


def test_refund_question_flips_between_fixed_40_and_structure_256(ws: Workspace) -> None:
    queries = parse_queries([REFUND])
    a = evaluate(queries, ws, FIXED_40)
    b = evaluate(queries, ws, STRUCTURE_256)
    rows = evaluate_view.ab_rows(a, b, ws, k=5)
    assert len(rows) == 1
    row = rows[0]
    assert (row["flip"], row["A"], row["B"]) == (evaluate_view.FLIP_B, False, True)
    assert row["B ranks"] == "1 · 1"
    assert "✂" in row["A ranks"]  # 40 characters cut both sentences
    details = evaluate_view.phrase_details(
        a.results[0],
        b.results[0],
        ws.chunks("refund-policy.md", FIXED_40),
        ws.chunks("refund-policy.md", STRUCTURE_256),
    )
    assert [d.cut_a for d in details] == [True, True]
    assert [d.cut_b for d in details] == [False, False]
    summary = {r["measure"]: r for r in evaluate_view.summary_rows(a, b)}
    assert summary["coverage@5"]["A"] == "0%" and summary["coverage@5"]["B"] == "100%"
    assert summary["coverage@5"]["B - A"] == "+100 points"
    assert summary["chunks"]["A"] == str(a.chunks)


def test_ab_rows_put_flips_first(ws: Workspace, bundled: list[Any]) -> None:
    a = evaluate(bundled, ws, STRUCTURE_256.replace(size=64, overlap=0))
    b = evaluate(bundled, ws, STRUCTURE_256)
    rows = evaluate_view.ab_rows(a, b, ws, k=3)
    flips = [r["flip"] for r in rows]
    assert any(flips) and flips == sorted(flips, key=lambda f: f == "")
    assert {r["id"] for r in rows} == {q.id for q in bundled}


# --------------------------------------------------------------------------- running


class FakeModel:
    max_seq_length = 256

    def get_embedding_dimension(self) -> int:
        return 8


class FakeEmbedder:
    """Deterministic vectors from a hash, with the real embedder's cache and progress API."""

    loaded = False

    def __init__(self) -> None:
        self.model = FakeModel()
        self._cache: dict[str, Any] = {}
        self.calls: list[tuple[int, int]] = []
        self.encoded = 0  # texts sent to the "model", as the real embedder counts them

    def cached(self, text: str) -> bool:
        return text in self._cache

    def prefetch(self, texts: Sequence[str]) -> int:
        return 0  # no lasting index

    def embed(self, texts: Sequence[str], *, progress: Any = None) -> Any:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if progress is not None:
            progress(0.0, f"0 of {len(missing)}")
        self.encoded += len(missing)
        for i, t in enumerate(missing, 1):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "big")
            v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
            self._cache[t] = v / np.linalg.norm(v)
            if progress is not None:
                progress(i / len(missing), f"{i} of {len(missing)}")
                self.calls.append((i, len(missing)))
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 8))

    def embed_query(self, query: str) -> Any:
        return self.embed([query])[0]


class FakeWorkspace(Workspace):
    fake: FakeEmbedder

    def embedder(self, model: str) -> Any:
        return self.fake


def test_evaluate_reports_progress_and_embeds_once(bundled: list[Any]) -> None:
    seen: list[tuple[float, str]] = []
    fw = FakeWorkspace(DOCS)
    fw.fake = FakeEmbedder()
    config = STRUCTURE_256.replace(retriever="hybrid")
    subset = [q for q in bundled if q.doc in ("refund-policy.md", "writing-guide.md")]
    report = evaluate(subset, fw, config, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and fractions[0] >= 0.0
    messages = [m for _, m in seen]
    # the two documents' texts are embedded in one run (one estimate), counted as passages
    assert any(m.startswith("embedding ") and "passages" in m for m in messages), messages
    assert MODEL_NOTE in messages
    assert fw.fake.calls, "the chunks were embedded with progress"
    direct = evaluate(subset, fw, config)  # everything cached now: the same scores
    assert summary_row(direct) == summary_row(report)
    before = len(fw.fake.calls)
    evaluate(subset, fw, config)  # a second run embeds nothing new
    assert len(fw.fake.calls) == before


def test_sweep_runs_each_cell_with_progress(ws: Workspace, bundled: list[Any]) -> None:
    subset = [q for q in bundled if q.doc == "refund-policy.md"]
    base = PLAIN.replace(splitter="recursive", unit="tokens", overlap=0)
    seen: list[float] = []
    mine = sweep(
        subset,
        ws,
        base,
        sizes=(32, 64, 128),
        overlaps=(0, 48),
        progress=lambda f, m: seen.append(f),
    )
    for r in mine:  # each cell is the evaluation of its own configuration
        alone = evaluate(subset, ws, r.config)
        assert summary_row(alone) == summary_row(r)
    assert [(r.config.chunking.size, r.config.chunking.overlap) for r in mine] == [
        (32, 0),
        (64, 0),
        (64, 48),
        (128, 0),
        (128, 48),
    ]
    assert seen == sorted(seen) and seen[-1] == 1.0
    with pytest.raises(SettingsError):
        sweep(subset, ws, base, sizes=(8,), overlaps=(8, 16))


# --------------------------------------------------------------------------- sweep results


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("128, 256, 512", (128, 256, 512)),
        ("512,128;256, 256", (128, 256, 512)),
        ("128:512:128", (128, 256, 384, 512)),
        ("0, 32:64:32", (0, 32, 64)),
        (" 7 ", (7,)),
    ],
)
def test_parse_int_list(text: str, values: tuple[int, ...]) -> None:
    assert compare.parse_int_list(text, name="sizes") == values


@pytest.mark.parametrize("text", ["", "abc", "1.5", "10:5:1", "1:5:0", "1:5", "-4", "1:100:1"])
def test_parse_int_list_errors_say_what_to_type(text: str) -> None:
    with pytest.raises(SettingsError, match="sizes"):
        compare.parse_int_list(text, name="sizes", minimum=0)


def test_sweep_cells_rows_best_and_figures(ws: Workspace, bundled: list[Any]) -> None:
    assert sweep_cells([64, 128, 64], [0, 64, 100]) == [
        (64, 0),
        (128, 0),
        (128, 64),
        (128, 100),
    ]
    subset = [q for q in bundled if q.doc == "refund-policy.md"]
    base = PLAIN.replace(splitter="structure", unit="tokens", overlap=0)
    reports = sweep(subset, ws, base, sizes=(32, 256), overlaps=(0, 16))
    rows = evaluate_view.sweep_rows(reports)
    assert [r["cell"] for r in rows] == [0, 1, 2, 3]
    assert {
        "size",
        "overlap",
        "coverage@5",
        "coverage@512 tokens",
        "chunks",
        "index tokens",
    } <= set(rows[0])
    best = compare.best_cell(reports, k=5)
    assert reports[best].coverage_at_k[5] == max(r.coverage_at_k[5] for r in reports)
    fig = evaluate_view.sweep_figure(
        rows, "coverage@5", title="t", unit="tokens", percent=True, picked=best
    )
    names = [t.name for t in fig.data]
    assert names == ["overlap 0", "overlap 16", "picked cell"]
    assert list(fig.data[0].x) == [32, 256]
    assert fig.data[-1].y[0] == rows[best]["coverage@5"] * 100
    fig = evaluate_view.sweep_figure(rows, "chunks", title="t", unit="tokens")
    assert len(fig.data) == 2


def test_a_view_shows_the_configuration_on_the_explore_page_without_loss() -> None:
    cfg = Config().replace(
        splitter="recursive",
        unit="words",
        size=150,
        overlap=30,
        retriever="dense",
        dense="chunks",
        neighbours=1,
        carry=0.2,
        separators=("paragraph", "sentence"),
    )
    keys = View("refund-policy.md", config=cfg).state()
    assert keys["chunk"] is None and keys["page"] == 1
    assert (keys["size_exact"], keys["overlap_exact"]) == (150, 30)
    assert keys["carry"] == 0.2  # a number, not on/off: 0.2 stays 0.2
    assert keys["separators"] == ["paragraph", "sentence"]
    assert set(FLAT_KEYS) <= set(keys)
    assert config_of(keys) == cfg
    # neighbours beyond the main page's slider are shown at its end
    assert View("x.md", config=cfg.replace(neighbours=9)).state()["neighbours"] == 5


# --------------------------------------------------------------------------- query sets


def test_read_query_set_keeps_extra_fields_and_order() -> None:
    items = queries.read_query_set(QUERIES.read_bytes(), name="q.json")
    assert len(items) == 75 and list(items[0])[:4] == ["id", "doc", "query", "evidence"]
    assert items[0]["kind"]
    assert parse_queries(json.loads(queries.dumps(items))) == load_queries(QUERIES)
    # a byte-order mark is fine
    assert queries.read_query_set(b"\xef\xbb\xbf" + json.dumps([REFUND]).encode(), name="x") == [
        REFUND
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'[{"id": "a",', "not valid JSON (line 1"),
        (b"\xff\xfe[]", "not UTF-8"),
        (b'{"id": "a"}', "expected a JSON list"),
        (b'[{"id": "a", "doc": "d.md", "query": "q"}]', "'evidence' must be a list"),
        (json.dumps([REFUND, REFUND]).encode(), "duplicate id 'refund'"),
        (b'[{"id": "", "doc": "d", "query": "q", "evidence": []}]', "'id' must be a non-empty"),
        (b"[" * 100_000, "nested too deeply"),
    ],
)
def test_read_query_set_errors_name_the_problem(data: bytes, message: str) -> None:
    with pytest.raises(QuerySetError, match=re.escape(message)):
        queries.read_query_set(data, name="mine.json")


def test_editor_round_trip_is_identity() -> None:
    items = queries.read_query_set(QUERIES.read_bytes(), name="q.json")
    assert evaluate_view.from_editor(evaluate_view.editor_rows(items), items) == items


def test_from_editor_drops_blank_rows_and_reads_what_the_editor_returns() -> None:
    previous = [{**REFUND, "kind": "rule+exception", "spans": [[0, 5], [6, 9]], "note": "x"}]
    rows = evaluate_view.editor_rows(previous)
    rows.append({"id": None, "doc": float("nan"), "query": "", "evidence": None, "kind": None})
    rows.append(
        {
            "id": "new",
            "doc": "writing-guide.md",
            "query": "Q?",
            "evidence": np.array(["p", " "]),
            "kind": float("nan"),
        }
    )
    out = evaluate_view.from_editor(rows, previous)
    assert [i["id"] for i in out] == ["refund", "new"]
    assert out[0]["spans"] == [[0, 5], [6, 9]] and out[0]["note"] == "x"
    assert out[1] == {"id": "new", "doc": "writing-guide.md", "query": "Q?", "evidence": ["p"]}
    # evidence edited: the known spans no longer apply, other fields stay
    rows[0]["evidence"] = ["Refunds are available within seven days."]
    out = evaluate_view.from_editor(rows, previous)
    assert "spans" not in out[0] and out[0]["note"] == "x" and out[0]["kind"] == "rule+exception"
    # kind cleared in the editor: gone
    rows[0]["kind"] = ""
    assert "kind" not in evaluate_view.from_editor(rows, previous)[0]


def test_merge_skips_ids_already_there() -> None:
    other = {**REFUND, "id": "other"}
    merged, skipped = queries.merge([REFUND], [{**REFUND, "query": "changed"}, other])
    assert [i["id"] for i in merged] == ["refund", "other"]
    assert merged[0]["query"] == REFUND["query"] and skipped == ["refund"]
    assert queries.documents_named([REFUND, other, {"id": "x"}]) == ["refund-policy.md"]


def test_check_query_set_validates(tmp_path: Path) -> None:
    assert [q.id for q in parse_queries([REFUND])] == ["refund"]
    with pytest.raises(QuerySetError, match="entry 2"):
        parse_queries([REFUND, {"id": "x", "doc": "d"}])


def test_bundled_query_set_is_empty_when_missing_or_broken(tmp_path: Path) -> None:
    assert len(evaluate_view.bundled_query_set(QUERIES)) == 75
    assert evaluate_view.bundled_query_set(tmp_path / "absent.json") == []
    (tmp_path / "broken.json").write_text('[{"id": 1')
    assert evaluate_view.bundled_query_set(tmp_path / "broken.json") == []


def test_sweep_rows_mark_cells_tied_with_the_best(ws: Workspace, bundled: list[Any]) -> None:
    subset = [q for q in bundled if q.doc in ("refund-policy.md", "writing-guide.md")]
    base = PLAIN.replace(splitter="fixed", unit="chars", overlap=0)
    reports = sweep(subset, ws, base, sizes=(30, 400, 410), overlaps=(0,), ks=(5,))
    rows = evaluate_view.sweep_rows(reports, k=5)
    marks = [r["vs best@5"] for r in rows]
    assert marks.count("best") == 1
    best = marks.index("best")
    assert reports[best].coverage_at_k[5] == max(r.coverage_at_k[5] for r in reports)
    # 400 and 410 characters cut nearly the same: never distinguishable from each other
    assert "worse" not in (marks[1], marks[2])
    assert marks[0] == "worse"  # 30-character windows cover far fewer questions
    assert "vs best@5" not in evaluate_view.sweep_rows(reports)[0]
