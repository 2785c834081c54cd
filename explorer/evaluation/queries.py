"""Query sets: a JSON list of ``{"id", "doc", "query", "evidence": [...]}`` objects (other
fields are kept, such as ``kind``; an optional ``spans`` list gives ``[start, end]`` per evidence
phrase). ``doc`` names a file in the documents folder."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from explorer.errors import JSONTextError, QuerySetError
from explorer.jsontext import loads_bounded
from explorer.retrieval.context import Span


@dataclass(frozen=True)
class Query:
    id: str
    doc: str
    query: str
    evidence: tuple[str, ...]
    spans: tuple[Span | None, ...] = ()
    """Optional known location of each evidence phrase (``None`` where unknown)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "doc": self.doc,
            "query": self.query,
            "evidence": list(self.evidence),
        }
        if any(s is not None for s in self.spans):
            out["spans"] = [list(s) if s else None for s in self.spans]
        return out


def parse_queries(data: Any, *, source: str = "query set") -> list[Query]:
    """Validate decoded JSON into queries; every problem names the entry and the field."""
    if not isinstance(data, list):
        raise QuerySetError(f"{source}: expected a JSON list of queries, got {type(data).__name__}")
    queries: list[Query] = []
    seen: set[str] = set()
    for n, item in enumerate(data, 1):
        where = f"{source}: entry {n}"
        if not isinstance(item, dict):
            raise QuerySetError(f"{where} is not an object")
        for key in ("id", "doc", "query"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise QuerySetError(f"{where}: {key!r} must be a non-empty string")
        qid = item["id"]
        if qid in seen:
            raise QuerySetError(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        evidence = item.get("evidence")
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise QuerySetError(f"{where} ({qid}): 'evidence' must be a list of strings")
        spans: list[Span | None] = []
        raw_spans = item.get("spans")
        if isinstance(raw_spans, list) and len(raw_spans) == len(evidence):
            for sp in raw_spans:
                ok = isinstance(sp, list) and len(sp) == 2 and all(isinstance(x, int) for x in sp)
                spans.append((sp[0], sp[1]) if ok else None)
        queries.append(
            Query(
                id=qid,
                doc=item["doc"],
                query=item["query"],
                evidence=tuple(e for e in evidence if e.strip()),
                # the known span of each phrase kept, with the blank phrases dropped
                spans=tuple(sp for e, sp in zip(evidence, spans, strict=True) if e.strip())
                if len(spans) == len(evidence)
                else (),
            )
        )
    return queries


def load_queries(path: str | Path) -> list[Query]:
    """The queries of the query-set file at ``path``."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise QuerySetError(f"{p}: no such query set file") from None
    except OSError as exc:
        raise QuerySetError(f"{p}: cannot be read ({exc.strerror})") from None
    return parse_queries(read_query_set(data, name=str(p)), source=str(p))


def read_query_set(data: bytes, *, name: str) -> list[dict[str, Any]]:
    """Decode and check a query-set file's bytes; the entries as dicts, extra fields kept.

    One :class:`QuerySetError` says what is wrong and where. A UTF-8 byte-order mark is allowed.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuerySetError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        raw = loads_bounded(text, what=name)
    except JSONTextError as exc:
        raise QuerySetError(
            f"{exc}. A query set is a JSON list of "
            '{"id", "doc", "query", "evidence": [...]} objects.'
        ) from None
    parse_queries(raw, source=name)  # raises on the first bad entry, naming it
    return [normalise(item) for item in raw]


def dumps(items: Iterable[Mapping[str, Any] | Query]) -> str:
    """A query set in the file format (UTF-8, one level of indentation)."""
    rows = [i.to_json() if isinstance(i, Query) else normalise(i) for i in items]
    return json.dumps(rows, ensure_ascii=False, indent=1) + "\n"


CORE = ("id", "doc", "query", "evidence")


def normalise(item: Mapping[str, Any]) -> dict[str, Any]:
    """A query-set entry with the core fields first and extra fields (``kind``...) kept."""
    out = {key: item[key] for key in CORE if key in item}
    out.update({key: v for key, v in item.items() if key not in CORE})
    return out


def merge(
    current: Sequence[Mapping[str, Any]], loaded: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``current`` followed by the ``loaded`` entries whose id is new; also the skipped ids."""
    ids = {i.get("id") for i in current}
    out = [normalise(i) for i in current]
    skipped = []
    for item in loaded:
        if item.get("id") in ids:
            skipped.append(str(item.get("id")))
        else:
            out.append(normalise(item))
            ids.add(item.get("id"))
    return out, skipped


def add_query(
    items: Sequence[Mapping[str, Any]], *, doc: str, query: str, evidence: Sequence[str]
) -> tuple[list[dict[str, Any]], str | None]:
    """``items`` with a new entry for this question (the query panel's "add to the query set").

    The new id is ``added-N``, the first N not taken. Returns the items and the new id, or the
    items unchanged and ``None`` when the same document, question and evidence are already there.
    """
    query, phrases = query.strip(), [p.strip() for p in evidence if p.strip()]
    if not query:
        raise QuerySetError("type a question first")
    if not phrases:
        raise QuerySetError("give at least one evidence phrase: coverage is measured on them")
    out = [normalise(i) for i in items]
    for item in out:
        if (item.get("doc"), item.get("query"), item.get("evidence")) == (doc, query, phrases):
            return out, None
    ids = {str(i.get("id")) for i in out}
    n = 1 + sum(1 for i in ids if i.startswith("added-"))
    while f"added-{n}" in ids:
        n += 1
    new = f"added-{n}"
    out.append({"id": new, "doc": doc, "query": query, "evidence": phrases})
    parse_queries(out[-1:], source="the new question")
    return out, new


def documents_named(items: Iterable[Mapping[str, Any]]) -> list[str]:
    """The distinct ``doc`` values, in first-seen order."""
    return list(dict.fromkeys(str(i.get("doc")) for i in items if i.get("doc")))


@dataclass(frozen=True)
class Unmatched:
    """A document a query set names that no document of the corpus answers to, and why."""

    doc: str
    reason: str
    questions: int

    def line(self) -> str:
        """One line for a list of what was left out."""
        n = f"{self.questions} question" + ("" if self.questions == 1 else "s")
        return f"{self.doc} ({n}): {self.reason}"


NO_SUCH_DOCUMENT = "no document of the corpus has this path or this file name"
""":func:`match_document`'s reason when no name comes near."""


def _parts(name: str) -> tuple[str, ...]:
    return tuple(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))


def match_document(doc: str, names: Sequence[str]) -> tuple[str | None, str]:
    """The corpus name a query set's ``doc`` stands for, or None with the reason.

    The rule, in order: the same relative path; else the one name whose path ends with
    ``doc``'s (or whose path ``doc``'s ends with: a set written from a folder above or below
    the corpus's root), a folder and the file name at least in common; else the one name with
    the same file name (unless ``doc``'s folders are the corpus's own: then it names another
    page). Two or more candidates at a step are ambiguous, and the reason names them."""
    if doc in names:
        return doc, ""
    want = _parts(doc)
    if not want:
        return None, "an empty document name"
    by_path = [
        n
        for n in names
        if min(len(p := _parts(n)), len(want)) >= 2  # more than the file name in common
        and (p[-len(want) :] == want or want[-len(p) :] == p)
    ]
    if len(by_path) == 1:
        return by_path[0], ""
    if len(by_path) > 1:
        return None, _ambiguous("paths that end the same way", by_path)
    by_file = [n for n in names if _parts(n)[-1:] == want[-1:]]
    folders = {p for n in names for p in _parts(n)[:-1]}
    if len(by_file) == 1 and folders & set(want[:-1]):  # the same site, another folder
        return None, f"no document at this path; the one file of that name is {by_file[0]}"
    if len(by_file) == 1:
        return by_file[0], ""
    if len(by_file) > 1:
        return None, _ambiguous(f"files named {want[-1]}", by_file)
    return None, NO_SUCH_DOCUMENT


def _ambiguous(what: str, names: Sequence[str]) -> str:
    shown = ", ".join(sorted(names)[:3]) + (", …" if len(names) > 3 else "")
    return f"ambiguous: {len(names)} {what} ({shown}); name it by its path in the corpus"


def match_documents(
    queries: Sequence[Query], names: Sequence[str]
) -> tuple[list[Query], list[Unmatched]]:
    """The ``queries`` whose document is in the corpus of ``names``, each renamed to the corpus's
    name for it (:func:`match_document`), and each document that matched none with its reason
    and how many questions it kept out (in first-seen order)."""
    known = list(names)
    matched: list[Query] = []
    missing: dict[str, tuple[str, int]] = {}
    cache: dict[str, tuple[str | None, str]] = {}
    for q in queries:
        if q.doc not in cache:
            cache[q.doc] = match_document(q.doc, known)
        name, reason = cache[q.doc]
        if name is None:
            _, count = missing.get(q.doc, (reason, 0))
            missing[q.doc] = (reason, count + 1)
        else:
            matched.append(q if name == q.doc else replace(q, doc=name))
    return matched, [Unmatched(d, r, n) for d, (r, n) in missing.items()]
