"""Many files, or a folder, uploaded to the Corpus page: limits, each unusable file listed with
its reason while the rest load, and the server-path folder box only where it is allowed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.test_corpus_page import corpus_page, table
from ui.corpus_uploads import take, upload_name

GOOD = (SAMPLES / "refund-policy.md").read_bytes()


@dataclass
class File:
    name: str
    data: bytes

    def getvalue(self) -> bytes:
        return self.data


def test_three_files_one_binary_two_load_and_the_third_is_listed_with_its_reason() -> None:
    at = corpus_page(cp_samples=[])
    files = [
        ("policy.md", GOOD, "text/markdown"),
        ("notes.txt", b"The warranty lasts two years from delivery.\n", "text/plain"),
        ("image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200), "text/markdown"),
    ]
    at.file_uploader(key="cp_upload").set_value(files).run()  # type: ignore[attr-defined]
    assert not at.exception, [e.value for e in at.exception]
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["policy.md", "notes.txt"]
    listed = " ".join(m.value for m in at.markdown)
    assert "image.md:" in listed and "NUL" in listed, listed
    assert at.multiselect(key="cp_uploaded").value == ["policy.md", "notes.txt"]


def test_a_folder_upload_keeps_each_file_s_path() -> None:
    at = corpus_page(cp_samples=[])
    files = [
        ("site/guide/intro.md", b"# Intro\n\nStart here.\n", "text/markdown"),
        ("site/api/intro.md", b"# API\n\nCall it like this.\n", "text/markdown"),
    ]
    at.file_uploader(key="cp_upload_dir").set_value(files).run()  # type: ignore[attr-defined]
    assert not at.exception, [e.value for e in at.exception]
    [overview] = table(at, "flagged")
    assert sorted(overview["document"]) == ["site/api/intro.md", "site/guide/intro.md"]


def test_the_limits_leave_files_out_one_reason_each_and_keep_the_rest() -> None:
    files = [File(f"f{i}.md", b"x" * 600_000) for i in range(5)]
    fresh, refused = take(files, {}, limit_mb=50, max_files=3, max_total_mb=50)
    assert list(fresh) == ["f0.md", "f1.md", "f2.md"]
    assert len(refused) == 2 and all("at most 3 uploaded files" in r for r in refused)
    assert refused[0].startswith("f3.md:") and refused[1].startswith("f4.md:")
    fresh, refused = take(files, {}, limit_mb=50, max_files=100, max_total_mb=1)
    assert list(fresh) == ["f0.md"] and len(refused) == 4
    assert all("would pass 1 MB in all" in r for r in refused)
    big = [File("big.pdf", b"x" * (2 * 1024 * 1024 + 1)), File("ok.md", b"ok")]
    fresh, refused = take(big, {}, limit_mb=2)
    assert list(fresh) == ["ok.md"] and "upload limit is 2 MB" in refused[0]
    kept = {"f0.md": ("f0.md", "sha", b"x" * 600_000)}  # uploaded again: not counted twice
    fresh, refused = take(files[:1], kept, limit_mb=50, max_files=1, max_total_mb=1)
    assert list(fresh) == ["f0.md"] and not refused
    twice = [File("a/x.md", b"1"), File("a/x.md", b"2")]
    fresh, refused = take(twice, {}, limit_mb=50)
    assert list(fresh) == ["a/x.md"] and "a second file of that name" in refused[0]


def test_upload_names_are_paths_inside_the_folder_and_never_climb() -> None:
    assert upload_name(File("docs/a/b.md", b"")) == "docs/a/b.md"
    assert upload_name(File("../../etc/passwd.md", b"")) == "etc/passwd.md"
    assert upload_name(File("C:\\docs\\b.md", b"")) == "C:/docs/b.md"
    assert upload_name(File("plain.md", b"")) == "plain.md"


def test_the_folder_box_is_shown_only_where_a_folder_is_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHUNK_EXPLORER_DOCS", raising=False)
    at = corpus_page(cp_samples=["refund-policy.md"], cp_folder=str(SAMPLES))
    assert not [t for t in at.text_input if t.key == "cp_folder"]
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["refund-policy.md"]  # a preset path is not read
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    at = corpus_page(cp_samples=[])
    assert [t for t in at.text_input if t.key == "cp_folder"]
