"""The undici question set (``queries/undici-docs``) holds the checks ``queries/SPLIT.md`` names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.documents.load import load_path
from explorer.documents.markdown_view import rendered_text
from explorer.evaluation.queries import Query, load_queries
from explorer.retrieval.evidence import locate

SET = Path(__file__).resolve().parents[1] / "queries" / "undici-docs"
QUERIES = load_queries(SET / "questions.json")


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def test_the_set_has_its_size_and_every_named_page() -> None:
    pages = {p.name for p in SET.glob("*.md")}
    assert len(QUERIES) == 60
    assert len(pages) == 32
    assert {q.doc for q in QUERIES} <= pages
    assert len({q.id for q in QUERIES}) == len(QUERIES)
    assert (SET / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.id)
def test_each_phrase_is_found_once_and_not_echoed_by_its_question(query: Query) -> None:
    doc = load_path(SET / query.doc)
    rendered = rendered_text(doc)
    spans = []
    for phrase in query.evidence:
        found = locate(phrase, doc.text, rendered)
        assert len(found) == 1, (phrase, found)
        spans.append(found[0])
    asked = _words(query.query)
    grams = {tuple(asked[i : i + 5]) for i in range(len(asked) - 4)}
    for phrase in query.evidence:
        said = _words(phrase)
        assert not any(tuple(said[i : i + 5]) in grams for i in range(len(said) - 4)), phrase
    assert len(spans) >= 2
    (a, _), (b, _) = sorted(spans)[:2]
    assert re.search(r"[.!?:;]\s|\n", doc.text[a:b]), "two phrases in one sentence"
