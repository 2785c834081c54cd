"""A query set's ``doc`` names matched to a corpus's documents: by relative path, else by a
unique file name; each that matches none is listed once with why."""

from __future__ import annotations

from explorer.evaluation.queries import Query, match_document, match_documents

NAMES = ["doc/md022.md", "doc/md023.md", "a/README.md", "b/README.md", "guide/intro.md"]


def q(qid: str, doc: str) -> Query:
    return Query(qid, doc, "a question", ("a phrase",))


def test_the_same_path_a_path_from_another_root_and_a_unique_file_name_match() -> None:
    assert match_document("doc/md022.md", NAMES) == ("doc/md022.md", "")
    assert match_document("site/doc/md022.md", NAMES) == ("doc/md022.md", "")  # a folder above
    assert match_document("md022.md", NAMES) == ("doc/md022.md", "")
    assert match_document("intro.md", ["site/guide/intro.md"]) == ("site/guide/intro.md", "")


def test_what_does_not_match_says_why() -> None:
    name, why = match_document("README.md", NAMES)
    assert name is None and "ambiguous: 2 files named README.md (a/README.md, b/README.md)" in why
    name, why = match_document("nope.md", NAMES)
    assert name is None and why == "no document of the corpus has this path or this file name"
    # the corpus's own folder, another page: not taken for the one file of that name
    name, why = match_document("guide/setup/intro.md", ["guide/intro.md", "guide/x.md"])
    assert name is None and "the one file of that name is guide/intro.md" in why
    name, why = match_document("api/intro.md", ["guide/intro.md", "api/x.md"])
    assert name is None and "the one file of that name is guide/intro.md" in why


def test_queries_are_renamed_to_the_corpus_names_and_each_miss_is_counted_once() -> None:
    queries = [q("1", "md022.md"), q("2", "README.md"), q("3", "README.md"), q("4", "x.md")]
    matched, missing = match_documents(queries, NAMES)
    assert [(m.id, m.doc) for m in matched] == [("1", "doc/md022.md")]
    assert [(u.doc, u.questions) for u in missing] == [("README.md", 2), ("x.md", 1)]
    assert missing[0].line().startswith("README.md (2 questions): ambiguous")
