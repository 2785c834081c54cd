"""Query sets: a JSON list of ``{"id", "doc", "query", "evidence": [...]}`` objects (other
fields are kept, such as ``kind``; an optional ``spans`` list gives ``[start, end]`` per evidence
phrase). ``doc`` names a file in the documents folder."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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
