"""The command line over a documentation site with folders (issue 37): every command that takes a
documents folder reads it as the app reads the site it serves — every file below it, each named
by its path in it, the same refusals listed with why — and matches a query set's ``doc`` names by
path, else by a unique file name, leaving the rest out with why. BM25 unless a test says so."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from explorer.cli import main
from explorer.documents.folder import load_folder, site_names
from explorer.workspace import Workspace

BM25 = ("--retriever", "bm25")

PAGES = {
    "a/intro.md": "# Alpha\n\nThe alpha widget ships with a seven day trial for every new team.\n",
    "b/intro.md": "# Beta\n\nThe beta gadget needs a licence key from the admin console.\n",
    "guide/deep/unique.md": "# Backups\n\nBackups run every night and are kept for thirty days.\n",
    "index.md": "# Home\n\nWelcome to the site: widgets, gadgets and backups.\n",
}
QUESTIONS = [
    {"id": "alpha", "doc": "a/intro.md", "query": "How long is the alpha trial?",
     "evidence": ["seven day trial"]},
    {"id": "beta", "doc": "b/intro.md", "query": "What does the beta gadget need?",
     "evidence": ["licence key from the admin console"]},
    {"id": "backups", "doc": "unique.md", "query": "How long are backups kept?",
     "evidence": ["kept for thirty days"]},
    {"id": "which", "doc": "intro.md", "query": "Which intro?", "evidence": ["intro"]},
    {"id": "away", "doc": "escape.md", "query": "Secret?", "evidence": ["secret"]},
]  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site with two same-named pages in two folders, a unique page two folders down, a page
    at the top, and a link that leaves the site."""
    root = tmp_path / "site"
    for name, text in PAGES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (tmp_path / "secret.md").write_text("# Secret\n\nThe secret is out.\n")
    (root / "escape.md").symlink_to(tmp_path / "secret.md")
    return root


def questions(tmp_path: Path, items: list[dict[str, Any]] = QUESTIONS) -> str:
    path = tmp_path / "set.json"
    path.write_text(json.dumps(items))
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def left_out_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("left out:")]


def check_left_out(got: list[dict[str, Any]], err: str) -> None:
    """``intro.md`` alone is ambiguous (two files have that name); ``escape.md`` was refused."""
    by_doc = {u["doc"]: u for u in got}
    assert set(by_doc) == {"intro.md", "escape.md"}, got
    assert by_doc["intro.md"]["reason"].startswith("ambiguous: 2 files named intro.md")
    assert "a/intro.md, b/intro.md" in by_doc["intro.md"]["reason"]
    assert "links that leave the folder are not followed" in by_doc["escape.md"]["reason"]
    lines = left_out_lines(err)
    assert len(lines) == 2, err
    assert lines[0].startswith("left out: intro.md (1 question): ambiguous"), lines


@pytest.mark.parametrize("scope", ["corpus", "document"])
def test_eval_reads_the_site_below_its_folder_and_matches_names_by_path_or_file(
    site: Path, tmp_path: Path, scope: str
) -> None:
    code, out, err = run(
        "eval", "--queries", questions(tmp_path), "--docs", str(site), "--scope", scope,
        "--k", "1", "--json", *BM25,
    )  # fmt: skip
    assert code == 0, err
    got = json.loads(out)
    asked = {q["id"]: q["doc"] for q in got["per_query"]}
    assert asked == {"alpha": "a/intro.md", "beta": "b/intro.md", "backups": "guide/deep/unique.md"}
    assert all(q["covered_at_k"]["1"] for q in got["per_query"]), got["per_query"]
    check_left_out(got["left_out"], err)
    if scope == "corpus":  # every page of the site, each by its path; the link listed with why
        assert got["documents"] == ["a/intro.md", "b/intro.md", "guide/deep/unique.md", "index.md"]
        assert [s["reason"] for s in got["skipped"]] == [
            "escape.md: a link to a file outside the folder; links that leave the folder are "
            "not followed"
        ]
        assert "skipped: escape.md: a link to a file outside the folder" in err
        hits = {q["id"]: q["at_k"]["1"]["hits"][0]["doc"] for q in got["per_query"]}
        assert hits == asked  # the right one of the two intro.md pages answers each
    else:
        assert got["documents"] == ["a/intro.md", "b/intro.md", "guide/deep/unique.md"]


def test_ab_in_corpus_scope_runs_over_a_site_with_folders(site: Path, tmp_path: Path) -> None:
    code, out, err = run(
        "ab", "--queries", questions(tmp_path), "--docs", str(site), "--scope", "corpus",
        "--a", "retriever=bm25", "--b", "retriever=bm25,splitter=fixed,unit=chars,size=40,"
        "overlap=0", "--k", "1,3", "--json",
    )  # fmt: skip
    assert code == 0, err
    got = json.loads(out)
    assert got["scope"] == "corpus" and got["documents"] == 4 and got["questions"] == 3
    assert got["scored"] == 3
    check_left_out(got["left_out"], err)
    code, text, _ = run(
        "ab", "--queries", questions(tmp_path), "--docs", str(site), "--scope", "corpus",
        "--a", "retriever=bm25", "--b", "retriever=bm25,size=64",
    )  # fmt: skip
    assert code == 0 and text.startswith("scope: corpus (4 documents, every question searches all)")


def test_sweep_over_a_site_in_corpus_scope(site: Path, tmp_path: Path) -> None:
    code, out, err = run(
        "sweep", "--queries", questions(tmp_path), "--docs", str(site), "--scope", "corpus",
        "--sizes", "32,64", "--json", *BM25,
    )  # fmt: skip
    assert code == 0, err
    assert len(json.loads(out)["grid"]) == 2
    assert len(left_out_lines(err)) == 2


def test_a_set_naming_only_an_ambiguous_file_name_stops_with_one_line(
    site: Path, tmp_path: Path
) -> None:
    only = questions(tmp_path, [q for q in QUESTIONS if q["doc"] == "intro.md"])
    for command in ("eval", "ab"):
        extra = ("--scope", "corpus") if command == "ab" else BM25
        code, out, err = run(command, "--queries", only, "--docs", str(site), *extra)
        assert code == 2 and not out, err
        lines = [line for line in err.splitlines() if not line.startswith("skipped:")]
        assert len(lines) == 1, err
        assert lines[0].startswith("error: no question can run: intro.md (1 question): ambiguous")
        assert "name it by its path in the corpus" in lines[0]


def test_a_name_that_climbs_out_of_the_site_is_still_refused(site: Path, tmp_path: Path) -> None:
    out_of = questions(tmp_path, [{**QUESTIONS[0], "doc": "../secret.md"}, *QUESTIONS[1:3]])
    code, _, err = run("eval", "--queries", out_of, "--docs", str(site), "--scope", "corpus")
    assert code == 2 and "is outside the documents folder" in err
    assert err.count("\n") == 1, err


def test_query_over_a_site_names_its_pages_by_path(site: Path) -> None:
    code, out, err = run(
        "query", "--docs", str(site), "What does the beta gadget need?", "--evidence",
        "licence key", "--k", "1", *BM25,
    )  # fmt: skip
    assert code == 0, err
    got = json.loads(out)
    assert [d["name"] for d in got["documents"]] == [
        "a/intro.md", "b/intro.md", "guide/deep/unique.md", "index.md"
    ]  # fmt: skip
    assert got["hits"][0]["doc"] == "b/intro.md"
    assert [(e["doc"], e["covered"]) for e in got["evidence"]] == [("b/intro.md", True)]
    assert "skipped: escape.md: a link to a file outside the folder" in err


def test_index_fills_the_lasting_index_for_every_page_and_eval_then_embeds_nothing(
    site: Path, tmp_path: Path
) -> None:
    """With the bundled model: ``index`` embeds every page of the site, the two intro.md pages
    apart (the lasting index is keyed by what is embedded, never by a file name), and ``eval
    --scope corpus`` over the same site then embeds nothing and finds each question's own page
    first, the right one of the two intro.md."""
    cache, queries = str(tmp_path / "cache"), questions(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "explorer", *args, "--cache-dir", cache, "--json"],
            capture_output=True, text=True, timeout=600, check=False, env=env,
        )  # fmt: skip

    indexed = cli("index", str(site), "--queries", queries)
    assert indexed.returncode == 0, indexed.stderr
    got = json.loads(indexed.stdout)
    assert got["documents"] == 4 and got["skipped"] == 1
    assert got["embedded"] == got["texts"] > 0 and got["already_stored"] == 0
    warm = cli("eval", "--queries", queries, "--docs", str(site), "--scope", "corpus", "--k", "1")
    assert warm.returncode == 0, warm.stderr
    report = json.loads(warm.stdout)
    assert report["timing"]["embedded"] == 0
    assert report["documents"] == ["a/intro.md", "b/intro.md", "guide/deep/unique.md", "index.md"]
    first = {q["doc"]: q["at_k"]["1"]["hits"][0]["doc"] for q in report["per_query"]}
    assert first == {d: d for d in ("a/intro.md", "b/intro.md", "guide/deep/unique.md")}
    assert report["coverage_at_k"] == {"1": 1.0}


# --------------------------------------------------------------------------- the library below


def test_the_site_names_are_the_names_loading_it_gives(site: Path) -> None:
    names, refused = site_names(site)
    loaded = load_folder(site, recursive=True)
    assert names == loaded.names
    assert [s.reason for s in refused] == [s.reason for s in loaded.skipped]


def test_a_recursive_workspace_sees_a_page_rewritten_in_a_folder_inside(site: Path) -> None:
    """The folder's key covers the folders inside: a page rewritten there is read again."""
    ws = Workspace(site, recursive=True)
    assert "seven day" in ws.load_folder(site, recursive=True).document("a/intro.md").text
    (site / "a" / "intro.md").write_text("# Alpha\n\nNow a fourteen day trial, much longer.\n")
    assert "fourteen" in ws.load_folder(site, recursive=True).document("a/intro.md").text


def test_a_page_loaded_by_its_path_is_named_by_it(site: Path) -> None:
    ws = Workspace(site)
    assert ws.document("b/intro.md").name == "b/intro.md"


def test_a_folder_inside_that_cannot_be_listed_is_skipped_with_why(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the whole site refused: the folder is listed with why, the other pages load (the
    permission error stood in for, since root lists every folder whatever its mode)."""
    real = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path) == site / "b":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    loaded = load_folder(site, recursive=True)
    assert loaded.names == ("a/intro.md", "guide/deep/unique.md", "index.md")
    reasons = [s.reason for s in loaded.skipped]
    assert "b/: the folder cannot be read (Permission denied); its files are not read" in reasons
    names, refused = site_names(site)
    assert names == loaded.names and len(refused) == len(loaded.skipped)
