"""The bundled query sets stay sound: every phrase is found in its document as the project loads
it, so a change to a loader that moves or mangles text shows here, not as a silent fall in the
benchmark figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.evaluation.queries import load_queries
from explorer.retrieval.evidence import check
from tests.conftest import load_cached

QUERIES = Path(__file__).resolve().parents[1] / "queries"
SETS = sorted(QUERIES.glob("*-questions.json"))
KINDS = {
    "rule+exception",
    "table-row+header",
    "code+explanation",
    "definition+example",
    "referent",
    "multi-part-list",
}


def test_every_set_is_found() -> None:
    assert [p.name for p in SETS] == [
        "boundary-questions.json",
        *(f"holdout{n}-questions.json" for n in ("", 2, 3, 4, 5, 6)),
    ]


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_every_phrase_is_in_its_document(path: Path) -> None:
    queries = load_queries(path)
    ids = [q.id for q in queries]
    assert len(set(ids)) == len(ids)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert {item["kind"] for item in raw} <= KINDS
    missing = []
    for q in queries:
        assert len(q.evidence) >= 2, q.id  # boundary questions need two pieces or more
        doc = load_cached(QUERIES / "docs" / q.doc)
        # located as evaluation locates it: a span the set gives wins when it is an occurrence
        found = check(q.evidence, doc.text, [], [], context=[], known=q.spans)
        for phrase, r in zip(q.evidence, found, strict=True):
            assert r.phrase == phrase.strip()
            if not r.found:
                missing.append((q.id, phrase))
    assert not missing
