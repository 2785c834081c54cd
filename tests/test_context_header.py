"""Contextual headers without an LLM (``context_header``): the document's title and heading path
go before what is embedded (``embed``) and before what BM25 indexes (``embed+bm25``); what is
displayed, the offsets and the chunks never change."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from explorer.chunking.records import context_header, embedded_text
from explorer.cli import main
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.export import manifest, records
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import ScoringInputs
from explorer.workspace import Workspace
from tests.conftest import REPO, make_doc

GUIDE = (
    "# Widget Guide\n\n"
    "Widgets are small.\n\n"
    "## Installing\n\n"
    "Run the installer twice. Then restart the machine.\n\n"
    "### On Linux\n\n"
    "Use the package manager instead.\n"
)


class Recorder:
    """Records every text it is asked to embed; deterministic vectors."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str], *, progress: Any = None) -> Any:
        self.seen.extend(texts)
        rng = np.random.default_rng(len(self.seen))
        v = rng.standard_normal((len(texts), 4)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embed_query(self, query: str) -> Any:
        return self.embed([query])[0]


SMALL = Config().replace(retriever="bm25", size=12, overlap=0)
"""Small chunks, so the last section is a chunk of its own."""


def guide() -> Document:
    return make_doc(GUIDE, kind="markdown", name="widgets.md")


def test_the_title_is_the_first_h1_else_the_metadata_title_else_the_file_stem() -> None:
    assert guide().title == "Widget Guide"
    plain = make_doc("No headings here.\n", name="notes/release-notes.txt")
    assert plain.title == "release-notes"
    import dataclasses

    assert dataclasses.replace(plain, meta_title="  Release\nNotes 2.0 ").title == (
        "Release Notes 2.0"
    )
    sub = make_doc("## Only a level two\n\nText.\n", kind="markdown", name="x.md")
    assert sub.title == "x"  # no H1: the name, not a section heading


def test_the_header_does_not_repeat_a_title_the_heading_path_starts_with() -> None:
    assert context_header("Widget Guide", ("Widget Guide", "Installing")) == (
        "Widget Guide > Installing"
    )
    assert context_header("release-notes", ()) == "release-notes"
    assert context_header("T", ("Intro", "Sub")) == "T > Intro > Sub"


@pytest.mark.parametrize("dense", ["passages", "chunks"])
def test_embedded_and_bm25_texts_carry_the_header_and_the_chunks_do_not(dense: str) -> None:
    doc = guide()
    config = SMALL.replace(dense=dense)
    ws = Workspace()
    chunks = ws.chunks(doc, config)
    plain = ws.retriever(doc, config)
    embed = ws.retriever(doc, config.replace(context_header="embed"))
    both = ws.retriever(doc, config.replace(context_header="embed+bm25"))
    # the chunks (displayed text, offsets, ids) are the same objects' values under every setting
    for r in (plain, embed, both):
        assert [(c.start, c.end, c.text, c.id) for c in r.chunks] == [
            (c.start, c.end, c.text, c.id) for c in chunks
        ]
        assert all(doc.text[c.start : c.end] == c.text for c in r.chunks)
    linux = next(i for i, c in enumerate(chunks) if "package manager" in c.text)
    linux_text = "### On Linux\n\nUse the package manager instead."
    assert chunks[linux].text == linux_text
    assert "Widget Guide > Installing > On Linux\n\n" + linux_text in (embed.embedded_for(linux))
    assert not any(t.startswith("Widget Guide") for t in plain.embedded_for(linux))
    # every embedded text starts with the title; the displayed text never does
    assert all(t.startswith("Widget Guide") for t in embed.dense_texts)
    assert not any(c.text.startswith("Widget Guide >") for c in embed.chunks)
    # BM25 indexes the header only with embed+bm25
    assert embed.bm25_texts == plain.bm25_texts
    assert both.bm25_texts[linux] == "Widget Guide > Installing > On Linux\n\n" + (
        chunks[linux].text
    )
    assert both.dense_texts == embed.dense_texts


def test_contextual_bm25_finds_a_chunk_by_its_parent_section_title_alone() -> None:
    doc = guide()
    base = SMALL.replace(carry=0.0)
    ws = Workspace()
    linux = next(i for i, c in enumerate(ws.chunks(doc, base)) if "package manager" in c.text)
    scores = {
        h: ws.retriever(doc, base.replace(context_header=h)).bm25().scores("installing")
        for h in ("off", "embed", "embed+bm25")
    }
    # the chunk under "Installing" does not say it: only its contextual header does
    assert scores["off"][linux] == 0.0 and scores["embed"][linux] == 0.0
    assert scores["embed+bm25"][linux] > 0.0


def test_the_passages_sent_to_the_model_carry_the_title_and_heading_path() -> None:
    doc = guide()
    rec = Recorder()
    chunks = Workspace().chunks(doc, Config())
    config = Config().replace(context_header="embed")
    index = Retriever(doc, config, chunks=chunks, embedder=rec)  # type: ignore[arg-type]
    index.vectors()
    assert rec.seen and all(t.startswith("Widget Guide") for t in rec.seen)
    assert any(
        t.startswith("Widget Guide > Installing\n\n## Installing\n\nRun the installer")
        for t in rec.seen
    )
    assert [p.text for p in index.passages] == [doc.text[p.start : p.end] for p in index.passages]
    assert not any(p.text.startswith("Widget Guide >") for p in index.passages)


def test_a_header_replaces_the_heading_prefix_and_needs_the_document() -> None:
    c = make_doc(GUIDE, kind="markdown", name="w.md")
    chunk = Workspace().chunks(c, SMALL)[-1]
    assert embedded_text(chunk, heading_prefix=True, title="Widget Guide").startswith(
        "Widget Guide > Installing > On Linux\n\n"
    )
    with pytest.raises(SettingsError, match="needs the document"):
        ScoringInputs([chunk], context_header="embed")
    with pytest.raises(SettingsError, match="unknown context_header 'bm25'"):
        ScoringInputs([chunk], doc=c, context_header="bm25")


def test_config_round_trips_and_every_value_has_its_own_cache_key() -> None:
    values = ("off", "embed", "embed+bm25")
    configs = [Config().replace(context_header=v) for v in values]
    assert Config().context_header == "off"
    for c in configs:
        assert Config.from_json(c.to_json()) == c
        assert Config.from_spec(c.to_spec()) == c
    assert configs[2].to_spec() == "context_header=embed+bm25"
    assert len({c.index_key() for c in configs}) == 3
    assert Config.from_spec("retriever=bm25,context_header=embed+bm25").retriever == "bm25"
    with pytest.raises(SettingsError, match="unknown context_header 'yes'"):
        Config().replace(context_header="yes")
    with pytest.raises(SettingsError, match="context_header must be text"):
        Config().replace(context_header=True)


def test_the_workspace_keeps_one_retriever_per_header_setting() -> None:
    doc = guide()
    ws = Workspace()
    a = ws.retriever(doc, Config().replace(retriever="bm25"))
    b = ws.retriever(doc, Config().replace(retriever="bm25", context_header="embed+bm25"))
    assert a is not b and a.bm25_texts != b.bm25_texts
    assert ws.retriever(doc, Config().replace(retriever="bm25")) is a


def test_the_export_and_its_manifest_record_the_header() -> None:
    doc = guide()
    config = SMALL.replace(context_header="embed+bm25")
    chunks = Workspace().chunks(doc, config)
    rows = records(doc, config, chunks)
    last = rows[-1]
    assert last["text"] == doc.text[last["start"] : last["end"]]
    assert last["embedded_text"] == "Widget Guide > Installing > On Linux\n\n" + last["text"]
    assert last["metadata"]["embedded_text"] == last["embedded_text"]
    m = manifest(doc, config, chunks)
    assert m["embedding"]["context_header"] == "embed+bm25"
    assert m["embedding"]["title"] == "Widget Guide"
    assert m["retrieval"]["bm25_context_header"] is True
    assert m["config"]["context_header"] == "embed+bm25"
    off = manifest(doc, SMALL, chunks)
    assert off["embedding"]["title"] is None and not off["retrieval"]["bm25_context_header"]
    assert records(doc, SMALL, chunks)[-1]["embedded_text"] == last["text"]


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_ab_at_k_20_takes_the_header_through_the_spec() -> None:
    queries, docs = REPO / "queries" / "boundary-questions.json", REPO / "queries" / "docs"
    code, out, _ = run("ab", "--queries", str(queries), "--docs", str(docs),
                       "--a", "retriever=bm25", "--b", "retriever=bm25,context_header=embed+bm25",
                       "--k", "5,20", "--budget", "512", "--json")  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert result["a"]["context_header"] == "off"
    assert result["b"]["context_header"] == "embed+bm25"
    assert {"k=5", "k=20"} <= set(result["comparisons"])
    at20 = result["comparisons"]["k=20"]
    assert at20["questions"] == result["scored"] > 0
    assert at20["coverage_a"] >= result["comparisons"]["k=5"]["coverage_a"]


def test_a_bad_header_value_on_the_command_line_is_one_error_line() -> None:
    code, _, err = run("ab", "--queries", "q.json", "--docs", ".", "--b", "context_header=yes")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "context_header" in lines[0]


def test_a_pdf_keeps_its_metadata_title() -> None:
    from explorer.documents.load import load_path
    from tests.conftest import SAMPLES

    doc = load_path(SAMPLES / "field-manual.pdf")
    assert doc.meta_title == "WQ-4 Field Water Testing Kit: Field Manual"
    assert doc.title  # its first level-1 heading, else that metadata title
