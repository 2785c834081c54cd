"""Many documents at once: every supported file of a folder (or of a list of paths), loaded as
far as each can be, with the files that could not be used listed beside them and why.

A file is skipped — never raised — when it cannot be read, is empty, encrypted, scanned (no
text layer), too large, of a type the loaders do not read, or a duplicate of a file already
loaded. The reason is the loaders' own one-line message (a :class:`DocumentError`), so the same
file says the same thing alone and in a folder. Duplicates are found by content: the same bytes
(sha256), or the same extracted text (a PDF re-saved, a ``.md`` copied to ``.txt``); the first
file by name is kept and each duplicate names the file it repeats.

A link is judged by where it leads, by the rule every listing of a folder's files follows
(:func:`~explorer.documents.model.leaves_folder`): a link to a file that lies inside the folder
given is followed (what it reaches is the folder's anyway; a second copy of a file loaded is
then skipped as a duplicate), a link to a file outside it (``passwd.md -> /etc/passwd``) is
skipped unread, saying so, and a link to a folder is never entered, wherever it leads. The
project's own bundled folders are the exception: their links are the project's (``queries/docs``
links to the samples and the shared corpus) and are followed. A file given by its own path, not
found in a folder, is read wherever it is.

Files are taken in name order; names starting with ``.`` (``.git``, ``.DS_Store``) are passed
over without a word. A document's name is its path relative to the folder given, with ``/``
between folders, so two documents of one corpus never share a name; bytes of a file name that
are not UTF-8 are shown as U+FFFD (:func:`~explorer.documents.model.display_name`), and a second
file whose name then reads the same is skipped, saying so.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from explorer.documents.load import load_document, unsupported_type
from explorer.documents.model import (
    MARKDOWN_SUFFIXES,
    MAX_CHARS,
    SUPPORTED_SUFFIXES,
    TEXT_SUFFIXES,
    Document,
    display_name,
    document_name,
    leaves_folder,
    sha256_of,
    too_long,
)
from explorer.errors import DocumentError, QuerySetError
from explorer.progress import Progress, quiet

__all__ = [
    "MAX_FILE_BYTES",
    "Loaded",
    "Skipped",
    "check_folder",
    "load_folder",
    "load_paths",
    "site_names",
]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""A file bigger than this (512 MiB) is not read at all. Text files have the lower limit their
loader sets (four bytes for each of :data:`MAX_CHARS` characters), checked before reading too."""


@dataclass(frozen=True)
class Skipped:
    """A file that was not loaded, and why (one line that names the file)."""

    path: Path
    reason: str
    duplicate_of: Path | None = None
    """For a duplicate, the file it repeats (the one that was loaded)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise ValueError("a skipped file needs a reason")
        if self.duplicate_of is not None:
            object.__setattr__(self, "duplicate_of", Path(self.duplicate_of))


@dataclass(frozen=True)
class Loaded:
    """The documents that loaded (in name order) and the files that were skipped.

    ``paths[i]`` is the file ``documents[i]`` was read from.
    """

    documents: tuple[Document, ...]
    skipped: tuple[Skipped, ...]
    paths: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "documents", tuple(self.documents))
        object.__setattr__(self, "skipped", tuple(self.skipped))
        object.__setattr__(self, "paths", tuple(Path(p) for p in self.paths))
        if self.paths and len(self.paths) != len(self.documents):
            raise ValueError(
                f"{len(self.paths)} paths for {len(self.documents)} documents; give one each"
            )
        names = [d.name for d in self.documents]
        if len(set(names)) != len(names):
            raise ValueError(f"two documents share a name: {sorted(names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.documents)

    def document(self, name: str) -> Document:
        for d in self.documents:
            if d.name == name:
                return d
        raise DocumentError(f"no document named {name!r} was loaded")

    def summary(self) -> str:
        """One line, such as "5 documents loaded, 2 files skipped"."""
        n, s = len(self.documents), len(self.skipped)
        docs = f"{n} document{'s' if n != 1 else ''} loaded"
        return docs if not s else f"{docs}, {s} file{'s' if s != 1 else ''} skipped"


Loader = Callable[[bytes, str], Document]
"""Reads one file's bytes, by its name, into a document (default: :func:`load_document`; a
workspace passes its own, which reads the same bytes once)."""


def _load_document(data: bytes, name: str) -> Document:
    return load_document(data, name=name)


def load_folder(
    folder: str | Path,
    *,
    recursive: bool = False,
    progress: Progress = quiet,
    load: Loader = _load_document,
) -> Loaded:
    """Load every supported file in ``folder`` (and, with ``recursive``, in the folders inside).

    Without ``recursive``, a folder inside is listed as skipped. Raises :class:`DocumentError`
    only when ``folder`` itself is not a folder that can be listed.
    """
    path = check_folder(folder)
    return load_paths([path], recursive=recursive, progress=progress, load=load)


def check_folder(folder: str | Path) -> Path:
    """``folder`` as a path, if it is a folder; else one :class:`DocumentError` that says so."""
    path = Path(folder)
    if not path.is_dir():
        what = "not a folder" if path.exists() else "no such folder"
        raise DocumentError(
            f"{display_name(path)}: {what}; give the folder that holds the documents"
        )
    return path


def load_paths(
    paths: Iterable[str | Path],
    *,
    recursive: bool = False,
    progress: Progress = quiet,
    load: Loader = _load_document,
) -> Loaded:
    """Load files and folders (each folder as :func:`load_folder` does), in the order given.

    A file given directly is named by its file name; files found in a folder by their path
    relative to it. A second file with a name already taken is skipped (rename one of them).
    """
    entries = [e for p in paths for e in _entries(Path(p), recursive=recursive)]
    documents: list[Document] = []
    where: list[Path] = []
    skipped: list[Skipped] = []
    by_name: dict[str, Path] = {}
    by_bytes: dict[str, Path] = {}
    by_text: dict[str, Path] = {}
    first_name: dict[Path, str] = {}
    for n, (path, name, problem) in enumerate(entries):
        progress(n / max(len(entries), 1), f"reading {name}")
        if problem is not None:
            skipped.append(Skipped(path, problem))
            continue
        if name in by_name:
            skipped.append(
                Skipped(
                    path,
                    f"{name}: the same name as {display_name(by_name[name])}, which is loaded "
                    "already; rename one of them to load both",
                )
            )
            continue
        try:
            data = _read(path, name)
        except DocumentError as exc:
            skipped.append(Skipped(path, str(exc)))
            continue
        digest = sha256_of(data)
        if digest in by_bytes:
            skipped.append(_duplicate(path, name, by_bytes[digest], first_name, "bytes"))
            continue
        try:
            doc = load(data, name)
        except DocumentError as exc:
            skipped.append(Skipped(path, str(exc)))
            continue
        text_digest = sha256_of(doc.text.encode("utf-8", "surrogatepass"))
        if text_digest in by_text:
            skipped.append(_duplicate(path, name, by_text[text_digest], first_name, "text"))
            continue
        by_name[name] = by_bytes[digest] = by_text[text_digest] = path
        first_name[path] = name
        documents.append(doc)
        where.append(path)
    progress(1.0, f"{len(documents):,} loaded, {len(skipped):,} skipped")
    return Loaded(tuple(documents), tuple(skipped), tuple(where))


def _duplicate(path: Path, name: str, first: Path, names: dict[Path, str], what: str) -> Skipped:
    return Skipped(
        path,
        f"{name}: a duplicate of {names[first]} (the same {what}); only the first is loaded",
        duplicate_of=first,
    )


Entry = tuple[Path, str, str | None]
"""A file to load: its path, the document name it would have, and why it cannot be (or None)."""


def _entries(path: Path, *, recursive: bool) -> Iterator[Entry]:
    """The files to consider for one path given: itself, or the files of a folder by name."""
    if not path.is_dir():
        yield _entry(path, document_name(path))
        return
    try:
        found = sorted(_walk(path, recursive=recursive))
    except OSError as exc:
        raise DocumentError(
            f"{display_name(path)}: the folder cannot be read ({exc.strerror})"
        ) from None
    for relative, problem in found:
        name = display_name(relative.as_posix())
        if problem is not None:
            yield path / relative, name, problem
        else:
            yield _entry(path / relative, name, folder=path)


def _walk(
    folder: Path, *, recursive: bool, below: Path = Path()
) -> Iterator[tuple[Path, str | None]]:
    """Paths relative to the top folder; folders themselves only when they are not entered. A
    folder inside that cannot be listed comes with why (the top folder's failure is raised)."""
    try:
        it = os.scandir(folder / below)
    except OSError as exc:
        if below == Path():
            raise
        shown = display_name(below.as_posix())
        yield below, f"{shown}/: the folder cannot be read ({exc.strerror}); its files are not read"
        return
    with it:
        for e in it:
            if e.name.startswith("."):
                continue
            relative = below / e.name
            if e.is_dir(follow_symlinks=False) and recursive:
                yield from _walk(folder, recursive=True, below=relative)
            else:
                yield relative, None


def _entry(path: Path, name: str, *, folder: Path | None = None) -> Entry:
    """Why ``path`` (found in ``folder``, if given) cannot be loaded, as far as that is known
    before reading it."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            target = display_name(os.readlink(path))
            return path, name, f"{name}: a broken link (to {target}, which is missing)"
        return path, name, f"{name}: no such file"
    except OSError as exc:
        return path, name, f"{name}: cannot be read ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        if path.is_symlink():
            return path, name, f"{name}: a link to a folder; links to folders are not followed"
        return path, name, f"{name}: a folder inside the one given; its files are not read"
    if folder is not None and leaves_folder(path, folder):
        return (
            path,
            name,
            f"{name}: a link to a file outside the folder; links that leave the folder are "
            "not followed",
        )
    if not stat.S_ISREG(info.st_mode):
        return path, name, f"{name}: not a regular file (a pipe, socket or device); it is not read"
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        return path, name, str(unsupported_type(name))
    if suffix in TEXT_SUFFIXES + MARKDOWN_SUFFIXES and info.st_size > 4 * MAX_CHARS:
        # what the text loader refuses after reading, refused before reading
        return path, name, str(too_long(name, f"{info.st_size / 1e6:.1f} MB"))
    if info.st_size > MAX_FILE_BYTES:
        return (
            path,
            name,
            f"{name} is too large to read ({info.st_size / 2**20:,.0f} MiB; the limit is "
            f"{MAX_FILE_BYTES // 2**20:,} MiB) — split it into parts",
        )
    return path, name, None


def _read(path: Path, name: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"{name}: cannot be read ({exc.strerror})") from None


def inside_folder(folder: Path, name: str) -> Path:
    """The file ``name`` names in ``folder``; a name that reaches outside it (an absolute path,
    a ``..`` that climbs out, a link that leaves the folder) is refused, whether or not the file
    exists. Links are judged as loading the folder judges them (:func:`leaves_folder`): one that
    stays inside is followed. The one rule for every command that names a document by path."""
    relative = os.path.normpath(name) if name else ""
    if (
        not relative
        or Path(name).is_absolute()
        or relative == ".."
        or relative.startswith(".." + os.sep)
        or Path(name).drive
    ):
        raise QuerySetError(
            f"document {name!r} is outside the documents folder {folder}; a query set names "
            "documents by their path inside it"
        )
    path = folder / relative
    if leaves_folder(path, folder):
        raise QuerySetError(
            f"document {name!r} is a link that leaves the documents folder {folder}; links that "
            "leave the folder are not followed"
        )
    return path


def listing(path: Path, *, recursive: bool = False) -> str:
    """The names, sizes and times of the files in ``path`` (with ``recursive``, in the folders
    inside it too, walked as :func:`load_folder` walks them): a file added, removed or rewritten
    changes it, in a folder inside as well. One ``scandir`` a folder and one ``stat`` a file,
    on strings (a site's 10,000 files in about a quarter of the time paths take)."""
    entries: list[tuple[str, int, int]] = []

    def walk(folder: str, below: str) -> None:
        try:
            it = os.scandir(folder)
        except OSError:
            if not below:  # the top folder: no listing at all
                raise
            return  # a folder inside that cannot be listed: load_folder reads none of it
        with it:
            for e in it:
                if e.name.startswith("."):
                    continue
                relative = below + e.name
                try:
                    if recursive and e.is_dir(follow_symlinks=False):
                        walk(e.path, relative + "/")
                        continue
                    info = e.stat()  # through a link, as the file is read
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    entries.append((relative, info.st_size, info.st_mtime_ns))

    try:
        walk(os.fspath(path), "")
    except OSError:
        return ""
    return sha256_of(repr(sorted(entries)).encode("utf-8", "surrogateescape"))


def folder_key(path: Path, *, recursive: bool) -> tuple[str, bool, str]:
    """What a folder's reading is cached on: where it is, how it is walked, and its
    :func:`listing` (so a file added, removed or rewritten is read again)."""
    return (str(path.resolve()), recursive, listing(path, recursive=recursive))


def site_names(folder: str | Path) -> tuple[tuple[str, ...], tuple[Skipped, ...]]:
    """The document names a site's files would have (every file below ``folder``, by its path
    in it, as :func:`load_folder` with ``recursive`` names them) and the files refused before
    reading, with why — without reading any file, for matching names that need no document yet.
    Raises :class:`DocumentError` as :func:`load_folder` does."""
    folder = check_folder(folder)
    names: list[str] = []
    refused: list[Skipped] = []
    for path, name, problem in _entries(folder, recursive=True):
        if problem is None:
            names.append(name)
        else:
            refused.append(Skipped(path, problem))
    return tuple(names), tuple(refused)
