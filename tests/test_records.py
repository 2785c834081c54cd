"""The chunking records: the splitter names, the registry of other splitters, where records are
imported from."""

from __future__ import annotations

import re
from typing import get_args

import numpy as np
import pytest

import explorer.chunking.splitters as engine
from explorer.chunking import records
from explorer.chunking.adapters import LIBRARY_SPLITTERS
from explorer.chunking.records import (
    REGISTERED,
    SPLITTER_VERSIONS,
    SPLITTERS,
    Chunk,
    ChunkSettings,
    SplitterName,
    register,
    splitter_names,
    takes_overlap,
)
from explorer.documents.model import Document
from explorer.errors import SettingsError
from tests.conftest import make_doc
from ui.settings import APP_SPLITTERS

TEXT = "First paragraph here.\n\nSecond paragraph, a little longer than the first."


def test_splitter_name_is_every_built_in_splitter_and_only_those() -> None:
    assert get_args(SplitterName) == SPLITTERS
    assert SPLITTERS == ("fixed", "sentence", "recursive", "structure", "semantic", "page")
    assert tuple(SPLITTER_VERSIONS) == SPLITTERS
    assert tuple(APP_SPLITTERS) == SPLITTERS  # the app offers each, in the same order
    names = splitter_names()
    built_in = [*SPLITTERS, *LIBRARY_SPLITTERS]
    assert names[: len(built_in)] == built_in
    # after them only what a caller registered (a benchmark imported by another test registers two)
    assert names[len(built_in) :] == [n for n in REGISTERED if n not in LIBRARY_SPLITTERS]
    assert not set(SPLITTERS) & set(REGISTERED)


@pytest.mark.parametrize("name", SPLITTERS)
def test_each_built_in_name_is_split_by_the_engine(name: str) -> None:
    doc = make_doc(TEXT)
    settings = ChunkSettings(splitter=name, unit="chars", size=30)
    chunks = engine.split(doc, settings, embed=lambda texts: np.eye(len(texts), 4, dtype="f4"))
    assert chunks and all(doc.text[c.start : c.end] == c.text for c in chunks)
    assert ChunkSettings(splitter=name).key().startswith(f"{name}@{SPLITTER_VERSIONS[name]}|")


def test_a_registered_splitter_is_one_record_that_settings_and_the_engine_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(records, "REGISTERED", dict(REGISTERED))
    monkeypatch.setattr(engine, "REGISTERED", records.REGISTERED)
    checked: list[ChunkSettings] = []

    def whole(doc: Document, settings: ChunkSettings) -> list[Chunk]:
        return records.chunks_from_texts(doc, [doc.text], key=settings.key())

    def check(settings: ChunkSettings) -> None:
        checked.append(settings)
        if settings.size > 1000:
            raise SettingsError("whole takes sizes up to 1000")

    register("whole", whole, version=lambda: "7", check=check, overlap=False)
    settings = ChunkSettings(splitter="whole", size=100)
    assert checked == [settings]
    assert settings.overlap == 0 and not takes_overlap("whole")  # no overlap: 0, not a share
    assert settings.key().startswith("whole@7|")
    assert "whole" in splitter_names()
    doc = make_doc(TEXT)
    (chunk,) = engine.split(doc, settings)
    assert chunk.text == TEXT
    with pytest.raises(SettingsError, match="up to 1000"):
        ChunkSettings(splitter="whole", size=2000)
    with pytest.raises(SettingsError, match="built-in"):
        register("fixed", whole)


def test_a_left_out_overlap_is_a_share_of_the_size_except_for_pages() -> None:
    assert takes_overlap("structure") and not takes_overlap("page")
    assert ChunkSettings(splitter="structure", size=256).overlap == 64
    assert ChunkSettings(splitter="page", size=256).overlap == 0


def test_records_are_imported_from_records_not_through_the_engine() -> None:
    """The engine holds no records: every import of a record names explorer.chunking.records."""
    from pathlib import Path

    record_names = {"Chunk", "ChunkSettings", "SPLITTERS", "chunk_ids", "embedded_text", "register"}
    for name in record_names:
        assert not hasattr(engine, name) or getattr(engine, name) is getattr(records, name)
    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r"from explorer\.chunking\.splitters import \(?([^)\n]*(?:\n[^)]*)?)\)?")
    for path in [*root.glob("explorer/**/*.py"), *root.glob("ui/**/*.py"), root / "app.py"]:
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            imported = {
                n.strip().split(" as ")[0] for n in match.group(1).replace("\n", ",").split(",")
            }
            assert not imported & record_names, (path, imported & record_names)
