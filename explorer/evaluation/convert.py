"""Public question sets in: converting question + exact-reference data into the query-set format
(``{"id", "doc", "query", "evidence": [...], "spans": [[start, end], ...]}``, see
:mod:`explorer.evaluation.queries`).

Two inputs:

* **Chroma's chunking_evaluation** (github.com/brandonstarxel/chunking_evaluation):
  ``questions_df.csv`` with the columns ``question``, ``references`` (a JSON list of
  ``{"content", "start_index", "end_index"}``) and ``corpus_id`` (the corpus file's name without
  its suffix), and the folder of corpus files. Question ``n`` (1-based, in file order) gets the
  id ``c001``, ``c002``, …; its ``doc`` is the corpus file's name.
* **JSON Lines** for similar sets: one object a line with ``question`` (or ``query``), ``doc`` (a
  file in the documents folder), an optional ``id`` (default ``j001``, …), and the evidence as
  ``references`` (as Chroma's), ``spans`` (``[[start, end], ...]``: the evidence is the text
  there) or ``evidence`` (phrases; each must be found in the document by the rule ``explorer
  eval`` finds it by — :func:`explorer.retrieval.evidence.locate` over the loaded document, a
  PDF's text too — and its span is kept when it stands there once).

Every reference is checked against the document's text (the file's bytes as UTF-8, which is what
the offsets count in code points): a reference whose offsets lie outside the text, or whose
content is not the text at its offsets, is an error naming the question and the offsets — or,
with ``skip_bad``, the question is left out and named in :attr:`Conversion.skipped`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from explorer.documents.folder import site_names
from explorer.documents.model import SUPPORTED_SUFFIXES, Document
from explorer.errors import DocumentError, ExplorerError, JSONTextError, QuerySetError
from explorer.evaluation.queries import match_document
from explorer.jsontext import loads_bounded
from explorer.workspace import Workspace

CHROMA_COLUMNS = ("question", "references", "corpus_id")
CORPUS_SUFFIXES = (".md", ".txt", ".markdown", ".text")
"""The corpus files a ``corpus_id`` may name (Chroma's are Markdown and plain text)."""


@dataclass(frozen=True)
class Conversion:
    """The converted query set, and one message per question left out (``skip_bad``)."""

    items: tuple[dict[str, Any], ...]
    skipped: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(list(self.items), ensure_ascii=False, indent=1) + "\n"


class _Bad(Exception):
    """One question cannot be converted (the message names it)."""


def _clip(text: str, n: int = 60) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= n else one[: n - 1] + "…")


class _Texts:
    """The documents' texts, read once each; a name is looked up under ``folder``, by the rule
    every command keeps (:meth:`Workspace.inside`): a name that leaves the folder is refused
    before anything is read."""

    def __init__(self, folder: Path, *, suffixes: Sequence[str] = ()) -> None:
        if not folder.is_dir():
            raise QuerySetError(f"{folder}: no such folder of documents")
        self.folder = folder
        self.suffixes = tuple(suffixes)
        self._texts: dict[str, tuple[str, str]] = {}
        self._folder = Workspace(folder)
        self._names: tuple[str, ...] | None = None

    def _found(self, name: str, inside: Path) -> Path:
        """The file ``name`` stands for: ``inside`` when it is one, else the one file below the
        folder that :func:`~explorer.evaluation.queries.match_document` matches (a site's page
        named by its file name alone), as eval and the app match a set's names."""
        if inside.is_file() or Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
            return inside
        if self._names is None:
            try:
                self._names = site_names(self.folder)[0]
            except DocumentError:
                self._names = ()
        match, reason = match_document(name, self._names)
        if match is None:
            raise _Bad(f"document {name!r} is not a file in {self.folder}: {reason}")
        return self._folder.inside(match)

    def get(self, name: str) -> tuple[str, str]:
        """(the file's path inside the folder, its text) for ``name`` (with ``suffixes``: a
        stem)."""
        if name not in self._texts:
            self._texts[name] = self._read(name)
        return self._texts[name]

    def document(self, name: str) -> tuple[str, Document]:
        """(the file's path inside the folder, the document as every command loads it: a PDF's
        text layer too)."""
        try:
            inside = self._folder.inside(name)
        except QuerySetError as exc:
            raise _Bad(str(exc)) from None
        inside = self._found(name, inside)
        if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES or not inside.is_file():
            raise _Bad(f"document {name!r} is not a file in {self.folder}")
        assert self._folder.docs_dir is not None
        found = inside.relative_to(self._folder.docs_dir).as_posix()
        try:
            # its path inside the folder, as eval looks it up (a file in a subfolder keeps it)
            return found, self._folder.document(found)
        except ExplorerError as exc:
            raise _Bad(str(exc)) from None

    def _read(self, name: str) -> tuple[str, str]:
        try:
            inside = self._folder.inside(name)
        except QuerySetError as exc:
            raise _Bad(str(exc)) from None
        if self.suffixes:
            tried = [inside.with_name(inside.name + s) for s in self.suffixes]
            path = next((p for p in tried if p.is_file()), None)
            if path is None:
                looked = ", ".join(p.name for p in tried)
                raise _Bad(f"corpus {name!r} has no file in {self.folder} (looked for {looked})")
        else:
            path = self._found(name, inside)
            if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES or not path.is_file():
                raise _Bad(f"document {name!r} is not a file in {self.folder}")
        if Path(path).suffix.lower() == ".pdf":
            raise _Bad(f"document {name!r} is a PDF: offsets into it cannot be checked here")
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Bad(f"{path} is not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise _Bad(f"{path} cannot be read ({exc.strerror})") from None
        assert self._folder.docs_dir is not None
        # its path inside the folder, as eval looks it up (a file in a subfolder keeps it)
        return path.relative_to(self._folder.docs_dir).as_posix(), text


def _span(raw: Any, what: str) -> tuple[int, int]:
    if (
        not isinstance(raw, list | tuple)
        or len(raw) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in raw)
    ):
        raise _Bad(f"{what} must be [start, end] whole numbers, got {raw!r}")
    return raw[0], raw[1]


def _check(text: str, doc: str, span: tuple[int, int], content: str | None) -> str:
    """The text at ``span``, checked against ``content`` when given."""
    s, e = span
    if not 0 <= s < e <= len(text):
        raise _Bad(
            f"the reference at [{s}, {e}) lies outside {doc} (its text has {len(text):,} "
            "characters; a reference needs 0 <= start < end <= that)"
        )
    found = text[s:e]
    if content is not None and found != content:
        raise _Bad(
            f"the reference at [{s}, {e}) does not match {doc} there: the set says "
            f"{_clip(content)}, the text has {_clip(found)}"
        )
    return found


def _references(raw: Any, text: str, doc: str) -> list[tuple[str, tuple[int, int]]]:
    """Chroma's references (a JSON list, or its text) checked against ``text``."""
    if isinstance(raw, str):
        try:
            raw = loads_bounded(raw, what="references")
        except JSONTextError as exc:
            raise _Bad(f"references are {exc.problem}") from None
    if not isinstance(raw, list) or not raw:
        raise _Bad("references must be a non-empty JSON list of {content, start_index, end_index}")
    out = []
    for n, ref in enumerate(raw, 1):
        keys = ("content", "start_index", "end_index")
        if not isinstance(ref, Mapping) or any(k not in ref for k in keys):
            raise _Bad(f"reference {n} must be an object with {', '.join(keys)}")
        if not isinstance(ref["content"], str):
            raise _Bad(f"reference {n}: content must be text")
        span = _span([ref["start_index"], ref["end_index"]], f"reference {n}'s offsets")
        out.append((_check(text, doc, span, ref["content"]), span))
    return out


def _located(texts: _Texts, name: str, raw: Any) -> tuple[str, list[tuple[str, Any]]]:
    """Exact-string evidence found in the document by the rule ``explorer eval`` finds it by
    (:func:`explorer.retrieval.evidence.locate` over the loaded document, PDFs too, and a
    Markdown document's rendered page): the file's name, and each phrase with its span where
    it stands once (as written, when it occurs once so; else as located, when located once)."""
    if not isinstance(raw, list) or not raw or not all(isinstance(e, str) for e in raw):
        raise _Bad("'evidence' must be a non-empty list of exact strings")
    name, doc = texts.document(name)
    from explorer.documents.markdown_view import rendered_text
    from explorer.retrieval.evidence import locate

    rendered = rendered_text(doc)
    refs: list[tuple[str, Any]] = []
    for e in raw:
        spans = locate(e, doc.text, rendered) if e.strip() else []
        if not spans:
            raise _Bad(f"the evidence {_clip(e)} does not occur in {name}")
        at = doc.text.find(e)
        exact = (at, at + len(e))
        if at >= 0 and doc.text.find(e, at + 1) < 0 and exact in spans:
            refs.append((e, exact))
        else:
            refs.append((e, spans[0] if len(spans) == 1 else None))
    return name, refs


def _item(qid: str, doc: str, query: str, refs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": qid, "doc": doc, "query": query, "evidence": [r for r, _ in refs]}
    if any(s is not None for _, s in refs):
        out["spans"] = [list(s) if s is not None else None for _, s in refs]
    return out


def _collect(
    rows: Iterator[tuple[str, Callable[[], dict[str, Any]]]], *, skip_bad: bool
) -> Conversion:
    """Each row's item; a bad row raises (named) or, with ``skip_bad``, is listed and left out."""
    items: list[dict[str, Any]] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for where, make in rows:
        try:
            item = make()
            if item["id"] in seen:
                raise _Bad(f"duplicate id {item['id']!r}")
            seen.add(item["id"])
            items.append(item)
        except _Bad as exc:
            message = f"{where}: {exc}"
            if not skip_bad:
                raise QuerySetError(message + " (--skip-bad leaves such questions out)") from None
            skipped.append(message)
    if not items:
        raise QuerySetError(
            "no question could be converted" + (": " + skipped[0] if skipped else "")
        )
    return Conversion(tuple(items), tuple(skipped))


def _ids(prefix: str, total: int) -> Callable[[int], str]:
    width = max(3, len(str(total)))
    return lambda n: f"{prefix}{n:0{width}d}"


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise QuerySetError(f"{path}: no such {what}") from None
    except UnicodeDecodeError as exc:
        raise QuerySetError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise QuerySetError(f"{path}: cannot be read ({exc.strerror})") from None


def convert_chroma(
    questions: str | Path, corpora: str | Path, *, skip_bad: bool = False
) -> Conversion:
    """Chroma's ``questions_df.csv`` over the corpus files in ``corpora`` (see the module)."""
    path = Path(questions)
    source = _read_text(path, "questions file")
    csv.field_size_limit(1 << 30)  # a row's references can be long
    try:
        reader = csv.DictReader(io.StringIO(source, newline=""))
        header = reader.fieldnames or []
        rows = list(reader)
    except csv.Error as exc:
        raise QuerySetError(f"{path}: not a readable CSV file ({exc})") from None
    missing = [c for c in CHROMA_COLUMNS if c not in header]
    if missing:
        raise QuerySetError(
            f"{path}: no column {', '.join(repr(c) for c in missing)} (it has "
            f"{', '.join(repr(c) for c in header) or 'no header'}; Chroma's questions_df.csv "
            f"has {', '.join(CHROMA_COLUMNS)})"
        )
    texts = _Texts(Path(corpora), suffixes=CORPUS_SUFFIXES)
    qid = _ids("c", len(rows))

    def make(n: int, row: Mapping[str, Any]) -> dict[str, Any]:
        query = (row.get("question") or "").strip()
        if not query:
            raise _Bad("the question is empty")
        corpus = (row.get("corpus_id") or "").strip()
        if not corpus:
            raise _Bad("corpus_id is empty")
        doc, text = texts.get(corpus)
        return _item(qid(n), doc, query, _references(row.get("references"), text, doc))

    def where(n: int, row: Mapping[str, Any]) -> str:
        return f"{path.name}: question {n} ({qid(n)}, {_clip(row.get('question') or '', 50)})"

    return _collect(
        ((where(n, r), partial(make, n, r)) for n, r in enumerate(rows, 1)),
        skip_bad=skip_bad,
    )


def convert_jsonl(path: str | Path, docs: str | Path, *, skip_bad: bool = False) -> Conversion:
    """A JSON Lines question set over the documents in ``docs`` (see the module)."""
    p = Path(path)
    lines = [(n, line) for n, line in enumerate(_read_text(p, "file").splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line.strip()]
    texts = _Texts(Path(docs))
    qid = _ids("j", len(lines))

    def make(k: int, line: str) -> dict[str, Any]:
        try:
            obj = loads_bounded(line, what="the line")
        except JSONTextError as exc:
            raise _Bad(exc.problem) from None
        if not isinstance(obj, dict):
            raise _Bad("a line must be a JSON object")
        query = obj.get("question", obj.get("query"))
        if not isinstance(query, str) or not query.strip():
            raise _Bad("'question' (or 'query') must be a non-empty string")
        name = obj.get("doc")
        if not isinstance(name, str) or not name.strip():
            raise _Bad("'doc' must name a file in the documents folder")
        ident = obj.get("id", qid(k))
        if not isinstance(ident, str | int) or isinstance(ident, bool) or not str(ident).strip():
            raise _Bad("'id' must be a non-empty string")
        refs: list[tuple[str, Any]]
        if "evidence" in obj and "references" not in obj and "spans" not in obj:
            doc, located = _located(texts, name, obj["evidence"])
            return _item(str(ident), doc, query.strip(), located)
        doc, text = texts.get(name)
        if "references" in obj:
            refs = list(_references(obj["references"], text, doc))
        elif "spans" in obj:
            raw = obj["spans"]
            if not isinstance(raw, list) or not raw:
                raise _Bad("'spans' must be a non-empty list of [start, end]")
            spans = [_span(s, f"span {i}") for i, s in enumerate(raw, 1)]
            refs = [(_check(text, doc, s, None), s) for s in spans]
        else:
            raise _Bad("give the evidence as 'references', 'spans' or 'evidence'")
        return _item(str(ident), doc, query.strip(), refs)

    return _collect(
        ((f"{p.name}: line {n}", partial(make, k, line)) for k, (n, line) in enumerate(lines, 1)),
        skip_bad=skip_bad,
    )


FORMATS = {"chroma": convert_chroma, "jsonl": convert_jsonl}
"""The inputs ``explorer convert`` takes."""
