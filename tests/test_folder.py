"""A folder of documents with bad files among them: the good ones load, every other one is
listed with the loaders' own reason, and duplicates (by bytes or by text) name what they repeat."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from explorer.documents.folder import MAX_FILE_BYTES, Loaded, Skipped, load_folder, load_paths
from explorer.documents.load import load_document
from explorer.errors import DocumentError
from tests import bad_inputs
from tests.bad_inputs import make
from tests.conftest import REPO, SAMPLES

GUIDE = "# Guide\n\nRefunds are available within seven days of purchase.\n"
NOTES = "Shipping is free for orders over fifty euros.\n"


def message(data: bytes, name: str) -> str:
    """What the loader says about ``data`` on its own."""
    with pytest.raises(DocumentError) as err:
        load_document(data, name=name)
    return str(err.value)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    (d / "guide.md").write_text(GUIDE, encoding="utf-8")
    (d / "guide_copy.md").write_text(GUIDE, encoding="utf-8")  # the same bytes
    (d / "notes.md").write_text(NOTES, encoding="utf-8")
    (d / "notes.txt").write_bytes(b"\xef\xbb\xbf" + NOTES.encode())  # a BOM: the same text
    (d / "field-manual.pdf").write_bytes((SAMPLES / "field-manual.pdf").read_bytes())
    (d / "latin1.md").write_bytes(make("latin1-md"))  # loads, with a warning
    (d / "empty.md").write_bytes(b"")
    (d / "encrypted.pdf").write_bytes(make("encrypted-user"))
    (d / "scanned.pdf").write_bytes(make("scanned"))
    (d / "truncated.pdf").write_bytes(make("truncated-pdf"))
    (d / "junk.md").write_bytes(make("junk-md"))
    (d / "slides.pptx").write_bytes(b"PK\x03\x04 not for us")
    with open(d / "huge.md", "wb") as f:  # sparse: refused by its size, never read
        f.truncate(41_000_000)
    with open(d / "huge.pdf", "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    (d / "gone.md").symlink_to(d / "nowhere.md")
    os.mkfifo(d / "pipe.md")  # reading it would block: refused before reading
    (d / "archive").mkdir()
    (d / "archive" / "old.md").write_text("# Old\n\nAn old page.\n", encoding="utf-8")
    (d / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")  # hidden: passed over silently
    return d


def test_a_folder_loads_the_good_files_and_lists_every_other_with_its_reason(
    folder: Path,
) -> None:
    progress: list[tuple[float, str]] = []
    loaded = load_folder(folder, progress=lambda f, m: progress.append((f, m)))
    assert loaded.names == ("field-manual.pdf", "guide.md", "latin1.md", "notes.md")
    assert loaded.paths == tuple(folder / n for n in loaded.names)
    assert loaded.document("guide.md").text == GUIDE
    assert loaded.document("latin1.md").warnings[0].startswith("not valid UTF-8")
    reasons = {s.path.name: s.reason for s in loaded.skipped}
    assert reasons == {
        "archive": "archive: a folder inside the one given; its files are not read",
        "empty.md": message(b"", "empty.md"),
        "encrypted.pdf": message(make("encrypted-user"), "encrypted.pdf"),
        "gone.md": f"gone.md: a broken link (to {folder / 'nowhere.md'}, which is missing)",
        "guide_copy.md": "guide_copy.md: a duplicate of guide.md (the same bytes); only the "
        "first is loaded",
        "huge.md": message(b"x" * 41_000_000, "huge.md"),
        "huge.pdf": "huge.pdf is too large to read (512 MiB; the limit is 512 MiB) — split it "
        "into parts",
        "junk.md": message(make("junk-md"), "junk.md"),
        "notes.txt": "notes.txt: a duplicate of notes.md (the same text); only the first is loaded",
        "pipe.md": "pipe.md: not a regular file (a pipe, socket or device); it is not read",
        "scanned.pdf": message(make("scanned"), "scanned.pdf"),
        "slides.pptx": message(b"x", "slides.pptx"),
        "truncated.pdf": message(make("truncated-pdf"), "truncated.pdf"),
    }
    # the loaders' messages are the ones the single-file tests pin down
    assert "the file is empty (0 bytes)" in reasons["empty.md"]
    assert "is encrypted; open it without a password" in reasons["encrypted.pdf"]
    assert "has no text layer — it may be scanned; OCR is not supported" in reasons["scanned.pdf"]
    assert "the limit for one document is 10,000,000 characters" in reasons["huge.md"]
    assert "unsupported file type '.pptx'" in reasons["slides.pptx"]
    assert "looks binary" in reasons["junk.md"]
    dups = {s.path.name: s.duplicate_of for s in loaded.skipped if s.duplicate_of}
    assert dups == {"guide_copy.md": folder / "guide.md", "notes.txt": folder / "notes.md"}
    assert [s.path.name for s in loaded.skipped] == sorted(reasons)  # in name order
    assert loaded.summary() == "4 documents loaded, 13 files skipped"
    fractions = [f for f, _ in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert progress[-1][1] == "4 loaded, 13 skipped"


def test_recursive_loads_the_folders_inside_by_relative_name(folder: Path) -> None:
    loaded = load_folder(folder, recursive=True)
    assert "archive/old.md" in loaded.names
    assert loaded.document("archive/old.md").text.startswith("# Old")
    assert "archive" not in {s.path.name for s in loaded.skipped}


def test_the_first_by_name_is_kept_whichever_was_written_first(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text(GUIDE)
    (tmp_path / "a.md").write_text(GUIDE)
    loaded = load_folder(tmp_path)
    assert loaded.names == ("a.md",)
    [dup] = loaded.skipped
    assert dup.path == tmp_path / "b.md" and dup.duplicate_of == tmp_path / "a.md"


def test_two_broken_copies_each_say_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(make("scanned"))
    (tmp_path / "b.pdf").write_bytes(make("scanned"))
    loaded = load_folder(tmp_path)
    assert loaded.documents == ()
    assert [s.reason for s in loaded.skipped] == [
        message(make("scanned"), "a.pdf"),
        message(make("scanned"), "b.pdf"),
    ]  # a copy of a file that did not load is not "a duplicate": it is as broken


def test_every_generated_bad_input_in_one_folder(tmp_path: Path) -> None:
    items = [x for x in bad_inputs.bad_inputs() if x.name != "pages-2000"]  # slow, and loads
    for x in items:
        (tmp_path / x.filename).write_bytes(make(x))
    loaded = load_folder(tmp_path)
    errors = {x.filename for x in items if x.expect == "error"}
    # utf16.md holds the very text of latin1.md (the same French, saved two ways)
    assert set(loaded.names) == {x.filename for x in items} - errors - {"utf16.md"}
    reasons = {s.path.name: s.reason for s in loaded.skipped}
    assert set(reasons) == errors | {"utf16.md"}
    assert reasons["utf16.md"] == (
        "utf16.md: a duplicate of latin1.md (the same text); only the first is loaded"
    )
    for x in items:
        if x.expect == "error":
            assert reasons[x.filename] == message(make(x), x.filename), x.name


def test_a_list_of_paths_mixes_files_and_folders_and_refuses_a_second_name(
    tmp_path: Path,
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "readme.md").write_text("# One\n\nThe first readme.\n")
    (two / "readme.md").write_text("# Two\n\nThe second readme.\n")
    (two / "extra.md").write_text("# Extra\n\nMore.\n")
    loaded = load_paths([one / "readme.md", two, tmp_path / "missing.md"])
    assert loaded.names == ("readme.md", "extra.md")
    assert [(s.path, s.reason) for s in loaded.skipped] == [
        (
            two / "readme.md",
            f"readme.md: the same name as {one / 'readme.md'}, which is loaded already; "
            "rename one of them to load both",
        ),
        (tmp_path / "missing.md", "missing.md: no such file"),
    ]


def test_a_file_without_read_permission_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked.md"
    locked.write_text("# Locked\n")
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads every file whatever its mode: the kernel's answer to others
        read = Path.read_bytes

        def refused(path: Path) -> bytes:
            if path.name == "locked.md":
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return read(path)

        monkeypatch.setattr(Path, "read_bytes", refused)
    (tmp_path / "open.md").write_text("# Open\n")
    loaded = load_folder(tmp_path)
    [skip] = loaded.skipped
    assert skip.reason == "locked.md: cannot be read (Permission denied)"
    assert loaded.names == ("open.md",)


def test_a_folder_that_is_not_there_raises_and_an_empty_one_loads_nothing(
    tmp_path: Path,
) -> None:
    assert load_folder(tmp_path) == Loaded((), (), ())
    with pytest.raises(DocumentError) as err:
        load_folder(tmp_path / "nowhere")
    assert str(err.value) == (
        f"{tmp_path / 'nowhere'}: no such folder; give the folder that holds the documents"
    )
    (tmp_path / "a.md").write_text("# A\n")
    with pytest.raises(DocumentError, match=r"a\.md: not a folder"):
        load_folder(tmp_path / "a.md")


def test_records_are_checked() -> None:
    with pytest.raises(ValueError, match="needs a reason"):
        Skipped(Path("a.md"), " ")
    doc = load_document(b"# A\n", name="a.md")
    with pytest.raises(ValueError, match="share a name"):
        Loaded((doc, doc), ())
    with pytest.raises(ValueError, match="1 paths for 2 documents"):
        Loaded((doc, load_document(b"# B\n", name="b.md")), (), (Path("a.md"),))


def test_a_link_that_leaves_the_folder_is_skipped_unread_and_one_inside_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38.6: ``passwd.md -> /etc/passwd`` was loaded into the corpus, while links to
    folders were refused. A link is judged by where it leads (one rule, leaves_folder)."""
    from explorer.documents import folder as folder_module

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nroot:x:0:0 the outside file.\n")
    d = tmp_path / "docs"
    (d / "archive").mkdir(parents=True)
    (d / "guide.md").write_text(GUIDE)
    (d / "archive" / "kept.md").write_text("# Kept\n\nInside the folder, one level down.\n")
    (d / "passwd.md").symlink_to(outside / "secret.md")  # leaves: refused
    (d / "etc.md").symlink_to("/etc/passwd")  # leaves, by an absolute link
    (d / "climb.md").symlink_to("../outside/secret.md")  # leaves, by a relative one
    (d / "chain.md").symlink_to(d / "passwd.md")  # a link inside to a link that leaves
    (d / "inner.md").symlink_to(d / "archive" / "kept.md")  # stays inside: followed
    (d / "linked").symlink_to(outside)  # a link to a folder: refused, as before
    (d / "archive" / "up.md").symlink_to("../../outside/secret.md")  # found recursively
    read: list[Path] = []
    real_read = folder_module._read

    def spy(path: Path, name: str) -> bytes:
        read.append(path)
        return real_read(path, name)

    monkeypatch.setattr(folder_module, "_read", spy)
    loaded = load_folder(d)
    assert loaded.names == ("guide.md", "inner.md")
    assert loaded.document("inner.md").text.startswith("# Kept")
    leaves = "a link to a file outside the folder; links that leave the folder are not followed"
    assert {s.path.name: s.reason for s in loaded.skipped} == {
        "archive": "archive: a folder inside the one given; its files are not read",
        "chain.md": f"chain.md: {leaves}",
        "climb.md": f"climb.md: {leaves}",
        "etc.md": f"etc.md: {leaves}",
        "linked": "linked: a link to a folder; links to folders are not followed",
        "passwd.md": f"passwd.md: {leaves}",
    }
    assert not [p for p in read if p.name in {"passwd.md", "etc.md", "climb.md", "chain.md"}]
    assert all("root:x" not in doc.text for doc in loaded.documents)

    deep = load_folder(d, recursive=True)
    assert deep.names == ("archive/kept.md", "guide.md")  # inner.md repeats archive/kept.md
    reasons = {s.path.relative_to(d).as_posix(): s.reason for s in deep.skipped}
    assert reasons["archive/up.md"] == f"archive/up.md: {leaves}"
    assert reasons["inner.md"].startswith("inner.md: a duplicate of archive/kept.md")
    assert all("root:x" not in doc.text for doc in deep.documents)


def test_a_link_inside_a_linked_folder_given_is_judged_against_its_real_place(
    tmp_path: Path,
) -> None:
    """The folder given may itself be a link: a file is inside when it is inside the folder's
    real place."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.md").write_text(GUIDE)
    (real / "b.md").symlink_to(real / "a.md")
    (tmp_path / "via").symlink_to(real)
    loaded = load_folder(tmp_path / "via")
    assert loaded.names == ("a.md",)
    assert [s.reason for s in loaded.skipped] == [
        "b.md: a duplicate of a.md (the same bytes); only the first is loaded"
    ]


def test_a_file_given_by_its_own_path_is_read_wherever_its_link_leads(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.md").write_text(GUIDE)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "link.md").symlink_to(tmp_path / "elsewhere.md")
    assert load_paths([tmp_path / "sub" / "link.md"]).names == ("link.md",)


def test_the_bundled_samples_listing_leaves_out_links_that_leave(tmp_path: Path) -> None:
    from explorer.documents.load import documents_in

    (tmp_path / "outside.md").write_text(GUIDE)
    d = tmp_path / "docs"
    d.mkdir()
    (d / "a.md").write_text(NOTES)
    (d / "b.md").symlink_to(d / "a.md")
    (d / "c.md").symlink_to(tmp_path / "outside.md")
    assert [p.name for p in documents_in(d)] == ["a.md", "b.md"]


def test_the_projects_own_folders_follow_the_links_the_project_made(tmp_path: Path) -> None:
    """queries/docs is a folder of links (to the samples and the shared corpus) that the project
    made; any other folder's links must stay inside it."""
    from explorer.documents.model import bundled_folder, leaves_folder

    bundled = REPO / "queries" / "docs"
    assert bundled_folder(bundled) and bundled_folder(SAMPLES)
    assert not bundled_folder(tmp_path) and not bundled_folder(REPO / "tests")
    link = bundled / "refund-policy.md"
    assert link.is_symlink() and not leaves_folder(link, bundled)
    assert "refund-policy.md" in load_folder(bundled).names
    (tmp_path / "refund-policy.md").symlink_to(link)  # the same link, in someone else's folder
    assert leaves_folder(tmp_path / "refund-policy.md", tmp_path)
    assert load_folder(tmp_path).names == ()


def test_a_folders_listing_is_its_files_as_load_folder_walks_them(tmp_path: Path) -> None:
    """The listing a folder's reading is cached on names every regular file load_folder would
    consider, by its path, with its size and time (a link to a file through the link; dot
    names, links to folders and broken links left out), and nothing else: a file rewritten in
    a folder inside changes it, a file in a dot folder does not."""
    import stat

    from explorer.documents.folder import _walk, listing
    from explorer.documents.model import sha256_of

    def expected(path: Path, recursive: bool) -> str:  # the files as _walk yields them
        entries = []
        for relative, problem in _walk(path, recursive=recursive):
            try:
                info = (path / relative).stat()
            except OSError:
                continue
            if problem is None and stat.S_ISREG(info.st_mode):
                entries.append((relative.as_posix(), info.st_size, info.st_mtime_ns))
        return sha256_of(repr(sorted(entries)).encode("utf-8", "surrogateescape"))

    for name in ("a.md", "guides/b.md", "guides/deep/c.txt", ".hidden/d.md", "guides/.e.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    (tmp_path / "link.md").symlink_to(tmp_path / "a.md")
    (tmp_path / "folder-link").symlink_to(tmp_path / "guides", target_is_directory=True)
    (tmp_path / "broken.md").symlink_to(tmp_path / "missing.md")
    for recursive in (True, False):
        assert listing(tmp_path, recursive=recursive) == expected(tmp_path, recursive)
    before = listing(tmp_path, recursive=True)
    (tmp_path / ".hidden" / "d.md").write_text("# changed\n", encoding="utf-8")
    assert listing(tmp_path, recursive=True) == before
    (tmp_path / "guides" / "deep" / "c.txt").write_text("rewritten, longer\n", encoding="utf-8")
    assert listing(tmp_path, recursive=True) != before
    assert listing(tmp_path / "nowhere") == ""
