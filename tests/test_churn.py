"""Churn across versions: a paragraph inserted near the top of real documents makes fixed windows
re-embed far more than the structure splitter (the avalanche), and ``explorer diff
--splitters`` reports it per splitter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer import cli
from explorer.chunking.churn import Churn, churn, insert_near_top, parse_splitters
from explorer.chunking.records import embedded_text
from explorer.config import Config, splitter_config
from explorer.errors import SettingsError
from explorer.workspace import Workspace
from tests.conftest import CORPUS, SAMPLES, make_chunks

PARAGRAPH = (
    "Before you start, note that this document was revised: some sections were reordered and "
    "two definitions were added, so read it again even if you have read an earlier version."
)
DOCS = [
    CORPUS / "github-terms-of-service.md",
    CORPUS / "curl-vulnerability-disclosure-policy.md",
    SAMPLES / "writing-guide.md",
]
CHARS = Config().replace(unit="chars", size=1000, overlap=200)


@pytest.mark.parametrize("config", [Config(), CHARS], ids=["tokens", "chars"])
@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_an_inserted_paragraph_is_an_avalanche_for_fixed_windows(
    path: Path, config: Config
) -> None:
    ws = Workspace()
    old = ws.load_path(path)
    new = ws.load(insert_near_top(old, PARAGRAPH).encode(), name="edited.md")
    names = ["fixed", "structure", "langchain-markdown"]
    got = ws.churn(old, new, config, names)
    fixed, structure = got["fixed"], got["structure"]
    assert fixed.share > structure.share
    assert fixed.share >= 0.9  # nearly every window moved
    assert structure.share <= 0.2  # the section that changed, not the document
    assert got["langchain-markdown"].share < fixed.share
    # the counts are what a content-addressed index would find, recomputed here
    for name, c in got.items():
        settings = splitter_config(config, name)
        before = {embedded_text(x, heading_prefix=False) for x in ws.chunks(old, settings)}
        after = ws.chunks(new, settings)
        assert c.new_chunks == len(after)
        assert c.reembedded == sum(
            embedded_text(x, heading_prefix=False) not in before for x in after
        )
        assert c.unchanged + c.reembedded == c.new_chunks


def test_insert_near_top_puts_the_paragraph_after_the_first_paragraph() -> None:
    ws = Workspace()
    old = ws.load_path(DOCS[0])
    text = insert_near_top(old, PARAGRAPH)
    first = next(b for b in old.blocks if b.kind == "paragraph")
    assert text == old.text[: first.end] + "\n\n" + PARAGRAPH + old.text[first.end :]
    new = ws.load(text.encode(), name="edited.md")
    assert PARAGRAPH in [new.text[b.start : b.end] for b in new.blocks]


def test_churn_counts_texts_with_the_heading_prefix_as_embedded() -> None:
    old = make_chunks("aaa bbb ccc", [(0, 3), (4, 7), (8, 11)])
    new = make_chunks("aaa xxx ccc ddd", [(0, 3), (4, 7), (8, 11), (12, 15)])
    c = churn(old, new, splitter="fixed")
    assert (c.old_chunks, c.new_chunks, c.unchanged, c.reembedded) == (3, 4, 2, 2)
    assert c.share == 0.5
    assert c.to_json() == {
        "old_chunks": 3,
        "new_chunks": 4,
        "unchanged": 2,
        "reembedded": 2,
        "share": 0.5,
    }
    assert churn([], [], splitter="fixed").share == 0.0
    with pytest.raises(SettingsError):
        Churn(splitter="fixed", old_chunks=1, new_chunks=1, reembedded=2)


def test_splitter_config_keeps_size_unit_and_overlap() -> None:
    c = splitter_config(CHARS, "fixed").chunking
    assert (c.splitter, c.unit, c.size, c.overlap) == ("fixed", "chars", 1000, 200)
    assert splitter_config(CHARS, "page").chunking.overlap == 0  # pages take no overlap
    assert splitter_config(CHARS, "structure") is CHARS
    with pytest.raises(SettingsError, match="unknown splitter 'nope'"):
        splitter_config(CHARS, "nope")
    assert parse_splitters(" fixed, structure,fixed ") == ("fixed", "structure")
    with pytest.raises(SettingsError):
        parse_splitters(" , ")


def _versions(tmp_path: Path) -> tuple[Path, Path]:
    old = tmp_path / "old.md"
    old.write_bytes(DOCS[1].read_bytes())
    new = tmp_path / "new.md"
    doc = Workspace().load_path(old)
    new.write_text(insert_near_top(doc, PARAGRAPH), encoding="utf-8")
    return old, new


def test_cli_diff_splitters_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = _versions(tmp_path)
    args = ["diff", str(old), str(new), "--unit", "chars", "--size", "1000", "--overlap", "200"]
    splitters = "fixed,structure,semchunk"
    assert cli.main([*args, "--splitters", splitters, "--json", "--no-cache"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result["churn"]) == ["fixed", "structure", "semchunk"]
    fixed, structure = result["churn"]["fixed"], result["churn"]["structure"]
    assert fixed["share"] > structure["share"]
    assert structure["new_chunks"] == result["new"]["chunks"]  # the configuration's own splitter
    ws = Workspace()
    expected = ws.churn(ws.load_path(old), ws.load_path(new), CHARS, ["semchunk"])
    assert result["churn"]["semchunk"] == expected["semchunk"].to_json()
    # with a query set too (its questions are about another document: none is answered)
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps([{"id": "q1", "doc": "other.md", "query": "x", "evidence": []}]))
    both = [*args, "--splitters", "fixed", "--queries", str(queries), "--json", "--no-cache"]
    assert cli.main(both) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result["churn"]) == ["fixed"] and result["verdicts"] == []
    assert cli.main([*args, "--splitters", "fixed,structure", "--no-cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["fixed", f"{fixed['share']:.1%}"]


def test_cli_diff_unknown_splitter_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _versions(tmp_path)
    assert cli.main(["diff", str(old), str(new), "--splitters", "fixed,nope", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown splitter 'nope'")
