"""Many files, or a folder, uploaded to the Corpus page: limits, each unusable file listed with
its reason while the rest load, and the server-path folder box only where it is allowed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.test_corpus_page import corpus_page, table
from ui.corpus_uploads import folder_names, take, upload_name

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
    # named by their paths inside the folder uploaded, as a query set about the site names them
    assert sorted(overview["document"]) == ["api/intro.md", "guide/intro.md"]


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


def test_a_folder_s_files_are_named_inside_it_and_loose_files_keep_their_names() -> None:
    assert folder_names(["site/a.md", "site/g/b.md"]) == ["a.md", "g/b.md"]
    assert folder_names(["a/x.md", "b/x.md"]) == ["a/x.md", "b/x.md"]  # two folders: kept
    assert folder_names(["site/a.md", "top.md"]) == ["site/a.md", "top.md"]
    files = [File("x.md", b"1")]
    fresh, _ = take(files, {}, limit_mb=5, folder_files=[File("site/g/x.md", b"2")])
    assert list(fresh) == ["x.md", "g/x.md"]


@pytest.mark.parametrize(
    "name", ["/", "..", "../..", "", "a\x00b.md", "evil\x00/../x.md", "tab\there.md", "./"]
)
def test_a_crafted_upload_name_is_refused_in_one_line_and_the_rest_is_kept(name: str) -> None:
    files = [File(name, GOOD), File("good.md", GOOD)]
    fresh, refused = take(files, {}, limit_mb=5, folder_files=[File(name, GOOD)])
    assert list(fresh) == ["good.md"]
    assert len(refused) == 2, refused
    for line in refused:
        assert "\n" not in line and "\x00" not in line and "Traceback" not in line
        assert "rename the file" in line


def test_crafted_names_sent_to_the_page_list_one_line_each_and_no_traceback() -> None:
    at = corpus_page(cp_samples=[])
    files = [
        ("/", GOOD, "text/markdown"),
        ("..", GOOD, "text/markdown"),
        ("a\x00.md", GOOD, "text/markdown"),
        ("ok.md", GOOD, "text/markdown"),
    ]
    at.file_uploader(key="cp_upload").set_value(files).run()  # type: ignore[attr-defined]
    assert not at.exception, [e.value for e in at.exception]
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == ["ok.md"]
    listed = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert len(listed) == 3 and all("rename the file" in line for line in listed), listed
    assert any("a\\\\x00.md" in line or "a\\x00.md" in line for line in listed), listed
