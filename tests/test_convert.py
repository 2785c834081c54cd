"""``explorer convert``: Chroma's chunking_evaluation CSV and JSON Lines question sets into the
query-set format, every reference checked against its document."""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from explorer.cli import main
from explorer.errors import QuerySetError
from explorer.evaluation.convert import convert_chroma, convert_jsonl
from explorer.evaluation.queries import load_queries
from tests.conftest import REPO

CHROMA = REPO.parent / "shared" / "benchmarks" / "chroma-chunking-eval"
SHARED = json.loads((CHROMA / "questions.json").read_text(encoding="utf-8"))


def write_csv(path: Path, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({c: r[c] for c in columns})
    return path


def chroma_rows(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The shared set back in Chroma's original form: question, references (JSON), corpus_id."""
    return [
        {
            "question": q["query"],
            "references": json.dumps(
                [
                    {"content": e, "start_index": s, "end_index": t}
                    for e, (s, t) in zip(q["evidence"], q["spans"], strict=True)
                ]
            ),
            "corpus_id": Path(q["doc"]).stem,
        }
        for q in items
    ]


COLUMNS = ("question", "references", "corpus_id")


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_the_chroma_csv_converts_to_the_shared_query_set_exactly(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "questions_df.csv", chroma_rows(SHARED), COLUMNS)
    out = tmp_path / "questions.json"
    code, printed, err = run("convert", "chroma", str(source), str(CHROMA / "docs"), "--out",
                             str(out))  # fmt: skip
    assert code == 0 and err == ""
    assert json.loads(out.read_text(encoding="utf-8")) == SHARED
    assert printed.startswith(f"{len(SHARED)} questions over 5 documents, 790 references")
    assert len(load_queries(out)) == len(SHARED) == 472  # the loader reads it back


def test_an_extra_index_column_is_ignored(tmp_path: Path) -> None:
    rows = [dict(r, **{"": str(i)}) for i, r in enumerate(chroma_rows(SHARED[:3]))]
    source = write_csv(tmp_path / "q.csv", rows, ("", *COLUMNS))
    assert list(convert_chroma(source, CHROMA / "docs").items) == SHARED[:3]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.update(references='[{"content": "x", "start_index": 1'),
            r"question 2 \(c002, .*\): references are not valid JSON \(line 1, column 35",
        ),
        (
            lambda r: r.update(
                references=json.dumps(
                    [{"content": "x", "start_index": 10**7, "end_index": 10**7 + 1}]
                )
            ),
            r"question 2 \(c002.*the reference at \[10000000, 10000001\) lies outside "
            r"state_of_the_union\.md \(its text has 48,",
        ),
        (
            lambda r: r.update(
                references=json.dumps(
                    [{"content": "Not what is there.", "start_index": 29533, "end_index": 29551}]
                )
            ),
            r"question 2 \(c002.*the reference at \[29533, 29551\) does not match "
            r"state_of_the_union\.md there: the set says 'Not what is there\.', the text has "
            r"'But unfortunately,'",
        ),
        (
            lambda r: r.update(references=json.dumps([{"content": "x", "start_index": 1}])),
            r"question 2 .*reference 1 must be an object with content, start_index, end_index",
        ),
        (
            lambda r: r.update(corpus_id="nosuch"),
            r"question 2 .*corpus 'nosuch' has no file in .* \(looked for nosuch\.md",
        ),
    ],
)
def test_a_bad_row_is_named_with_its_offsets(tmp_path: Path, change: Any, message: str) -> None:
    rows = chroma_rows(SHARED[:3])
    change(rows[1])
    source = write_csv(tmp_path / "q.csv", rows, COLUMNS)
    with pytest.raises(QuerySetError, match=message):
        convert_chroma(source, CHROMA / "docs")
    # on the command line: exit 2, one error line, nothing written
    out = tmp_path / "out.json"
    code, _, err = run("convert", "chroma", str(source), str(CHROMA / "docs"), "--out", str(out))
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert "--skip-bad" in err and not out.exists()
    # --skip-bad leaves the question out and names it
    code, printed, err = run("convert", "chroma", str(source), str(CHROMA / "docs"), "--out",
                             str(out), "--skip-bad")  # fmt: skip
    assert code == 0 and "2 questions" in printed and "1 skipped" in printed
    assert err.startswith("skipped: q.csv: question 2 (c002")
    assert [q["id"] for q in json.loads(out.read_text(encoding="utf-8"))] == ["c001", "c003"]


def test_a_missing_column_names_it_and_what_chroma_has(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "q.csv", chroma_rows(SHARED[:2]), ("question", "corpus_id"))
    code, _, err = run("convert", "chroma", str(source), str(CHROMA / "docs"), "--out",
                       str(tmp_path / "o.json"))  # fmt: skip
    assert code == 2
    assert err == (
        f"error: {source}: no column 'references' (it has 'question', 'corpus_id'; Chroma's "
        "questions_df.csv has question, references, corpus_id)\n"
    )


def test_json_lines_take_references_spans_or_exact_strings(tmp_path: Path) -> None:
    (tmp_path / "policy.md").write_text(
        "# Refunds\n\nRefunds are available within seven days. Seven days.\n", encoding="utf-8"
    )
    lines = [
        {"question": "How long?", "doc": "policy.md",
         "references": [{"content": "Refunds are available", "start_index": 11, "end_index": 32}]},
        {"id": "mine", "query": "Heading?", "doc": "policy.md", "spans": [[2, 9]]},
        {"question": "Days?", "doc": "policy.md", "evidence": ["seven days", "Seven days"]},
        {"question": "Twice?", "doc": "policy.md", "evidence": ["days"]},
    ]  # fmt: skip
    src = tmp_path / "set.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    items = list(convert_jsonl(src, tmp_path).items)
    assert items == [
        {"id": "j001", "doc": "policy.md", "query": "How long?",
         "evidence": ["Refunds are available"], "spans": [[11, 32]]},
        {"id": "mine", "doc": "policy.md", "query": "Heading?", "evidence": ["Refunds"],
         "spans": [[2, 9]]},
        {"id": "j003", "doc": "policy.md", "query": "Days?",
         "evidence": ["seven days", "Seven days"], "spans": [[40, 50], [52, 62]]},
        {"id": "j004", "doc": "policy.md", "query": "Twice?", "evidence": ["days"]},
    ]  # fmt: skip
    out = tmp_path / "q.json"
    assert run("convert", "jsonl", str(src), str(tmp_path), "--out", str(out))[0] == 0
    assert [q.spans for q in load_queries(out)][2] == ((40, 50), (52, 62))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"set\.jsonl: line 1: not valid JSON \(line 1, column 2: Expecting"),
        ('{"question": "q", "doc": "policy.md", "evidence": ["absent words"]}',
         r"line 1: the evidence 'absent words' does not occur in policy\.md"),
        ('{"question": "q", "doc": "policy.md", "spans": [[5, 500]]}',
         r"line 1: the reference at \[5, 500\) lies outside policy\.md"),
        ('{"question": "q", "doc": "other.md", "spans": [[0, 1]]}',
         r"line 1: document 'other\.md' is not a file in"),
        ('{"question": "q", "doc": "policy.md"}',
         r"line 1: give the evidence as 'references', 'spans' or 'evidence'"),
    ],
)  # fmt: skip
def test_bad_json_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "policy.md").write_text("Refunds within seven days.\n", encoding="utf-8")
    src = tmp_path / "set.jsonl"
    src.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(QuerySetError, match=message):
        convert_jsonl(src, tmp_path)


SECRET = "TOP SECRET hunter2: the outside file's text"


def outside_layout(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp_path/docs`` (the documents folder, with one policy) beside ``tmp_path/outside``
    (a secret in .txt and .md, the latter as Chroma would name a corpus)."""
    docs, outside = tmp_path / "docs", tmp_path / "outside"
    docs.mkdir()
    outside.mkdir()
    (docs / "policy.md").write_text("Refunds within seven days.\n", encoding="utf-8")
    for suffix in (".txt", ".md"):
        (outside / ("secret" + suffix)).write_text(SECRET + "\n", encoding="utf-8")
    return docs, outside


OUTSIDE_NAMES = ["../outside/secret", "ABSOLUTE/secret", "sub/../../outside/secret"]


@pytest.mark.parametrize("name", OUTSIDE_NAMES)
@pytest.mark.parametrize("fmt", ["jsonl", "chroma"])
def test_a_name_that_leaves_the_documents_folder_is_refused_unread(
    tmp_path: Path, fmt: str, name: str
) -> None:
    """A JSON Lines ``doc`` or a Chroma ``corpus_id`` outside the folder (``..``, absolute) is
    refused as ``eval`` refuses it — before the file is read: nothing of it is written, and no
    message quotes it (even a reference that does not match, which quotes the text it finds)."""
    docs, outside = outside_layout(tmp_path)
    name = name.replace("ABSOLUTE", str(outside))
    good = {"question": "How long?", "doc": "policy.md", "evidence": ["seven days"]}
    if fmt == "jsonl":
        bad = {"question": "Secret?", "doc": name + ".txt", "evidence": ["TOP SECRET"]}
        source = tmp_path / "set.jsonl"
        source.write_text("".join(json.dumps(x) + "\n" for x in (good, bad)), encoding="utf-8")
        shown = name + ".txt"
    else:
        refs = [{"content": "not it", "start_index": 0, "end_index": 10}]
        rows = [
            {"question": "How long?", "references": json.dumps(
                [{"content": "seven days", "start_index": 15, "end_index": 25}]),
             "corpus_id": "policy"},
            {"question": "Secret?", "references": json.dumps(refs), "corpus_id": name},
        ]  # fmt: skip
        source = write_csv(tmp_path / "q.csv", rows, COLUMNS)
        shown = name
    out = tmp_path / "out.json"
    code, printed, err = run("convert", fmt, str(source), str(docs), "--out", str(out))
    assert code == 2 and not out.exists() and printed == ""
    assert err.count("\n") == 1 and ("line 2" in err or "question 2" in err), err
    assert f"document {shown!r} is outside the documents folder {docs}; a query set names " in err
    assert "SECRET" not in err and "hunter2" not in err
    code, printed, err = run(
        "convert", fmt, str(source), str(docs), "--out", str(out), "--skip-bad"
    )
    assert code == 0 and "1 questions" in printed and "1 skipped" in printed
    assert err.startswith("skipped: ") and "is outside the documents folder" in err
    written = out.read_text(encoding="utf-8")
    assert "SECRET" not in written + err and "hunter2" not in written + err
    assert [q["doc"] for q in json.loads(written)] == ["policy.md"]


def test_eval_and_convert_refuse_an_outside_name_with_the_same_message(tmp_path: Path) -> None:
    """One rule for every command (:meth:`Workspace.inside`): the same line after the name."""
    docs, _ = outside_layout(tmp_path)
    name = "../outside/secret.md"
    queries = tmp_path / "set.json"
    queries.write_text(json.dumps([{"id": "a", "doc": name, "query": "q", "evidence": ["e"]}]))
    jsonl = tmp_path / "set.jsonl"
    jsonl.write_text(json.dumps({"question": "q", "doc": name, "evidence": ["e"]}) + "\n")
    code, _, by_eval = run("eval", "--queries", str(queries), "--docs", str(docs),
                           "--retriever", "bm25")  # fmt: skip
    assert code == 2
    code, _, by_convert = run("convert", "jsonl", str(jsonl), str(docs), "--out",
                              str(tmp_path / "o.json"))  # fmt: skip
    assert code == 2
    refusal = f"document {name!r} is outside the documents folder {docs}; a query set names " \
        "documents by their path inside it"  # fmt: skip
    assert by_eval == f"error: {refusal}\n"
    assert (
        by_convert
        == f"error: set.jsonl: line 1: {refusal} (--skip-bad leaves such questions out)\n"
    )


@pytest.mark.slow
def test_convert_jsonl_finds_evidence_by_the_rule_eval_finds_it_by(tmp_path: Path) -> None:
    """The project's boundary questions, their evidence given as phrases over the evaluation's
    documents (PDFs among them): every question converts, and each span kept is where ``eval``
    locates the phrase (issue 36.10: one rule for "located")."""
    from explorer.config import Config
    from explorer.workspace import Workspace

    docs = REPO / "queries" / "docs"
    questions = json.loads((REPO / "queries" / "boundary-questions.json").read_text("utf-8"))
    src = tmp_path / "set.jsonl"
    src.write_text(
        "".join(
            json.dumps({"id": q["id"], "question": q["query"], "doc": q["doc"],
                        "evidence": q["evidence"]}) + "\n"
            for q in questions
        ),
        encoding="utf-8",
    )  # fmt: skip
    items = convert_jsonl(src, docs).items  # none is refused
    assert len(items) == len(questions)
    assert any(q["doc"].endswith(".pdf") for q in items)
    ws = Workspace(docs)
    config = Config(retriever="bm25")
    for item in items:
        answer = ws.ask(item["doc"], item["query"], item["evidence"], config=config, k=1)
        assert all(e.found for e in answer.evidence), item["id"]
        for e, span in zip(answer.evidence, item.get("spans", []), strict=False):
            assert span is None or tuple(span) in e.spans, (item["id"], e.phrase)


def test_a_document_in_a_subfolder_keeps_its_path_and_eval_finds_it(tmp_path: Path) -> None:
    """The query set names a document by its path inside the folder (``guides/policy.md``), as
    ``eval`` looks it up, not by its file name alone, which is not a file there."""
    docs = tmp_path / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "guides" / "policy.md").write_text(
        "# Refunds\n\nRefunds are available within seven days.\n", encoding="utf-8"
    )
    src = tmp_path / "set.jsonl"
    lines = [
        {"question": "How long?", "doc": "guides/policy.md", "evidence": ["seven days"]},
        {"question": "Refunds?", "doc": "./guides/../guides/policy.md", "evidence": ["Refunds"]},
    ]
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    assert [i["doc"] for i in convert_jsonl(src, docs).items] == ["guides/policy.md"] * 2
    out = tmp_path / "q.json"
    assert run("convert", "jsonl", str(src), str(docs), "--out", str(out))[0] == 0
    code, printed, err = run(
        "eval", "--queries", str(out), "--docs", str(docs), "--retriever", "bm25", "--json"
    )
    assert (code, err) == (0, ""), err
    report = json.loads(printed)
    assert report["documents"] == ["guides/policy.md"] and report["counts"]["queries"] == 2


def test_a_site_page_named_by_its_file_name_alone_converts_to_its_path(tmp_path: Path) -> None:
    """``convert`` reads the folder as a site, as eval and the app match a set's names: a name
    that is no file there stands for the one file below it with that name (and the set names
    it by its path); a file name two pages share is one line naming both, and nothing is
    written."""
    docs = tmp_path / "docs"
    for path, text in (
        ("guides/policy.md", "# Refunds\n\nRefunds are available within seven days.\n"),
        ("a/setup.md", "# Setup A\n\nRun it.\n"),
        ("b/setup.md", "# Setup B\n\nRun it too.\n"),
    ):
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_text(text, encoding="utf-8")
    src = tmp_path / "set.jsonl"
    src.write_text(
        json.dumps({"question": "How long?", "doc": "policy.md", "evidence": ["seven days"]})
        + "\n",
        encoding="utf-8",
    )
    [item] = convert_jsonl(src, docs).items
    at = (docs / "guides/policy.md").read_text(encoding="utf-8").index("seven days")
    assert item["doc"] == "guides/policy.md" and item["spans"] == [[at, at + len("seven days")]]
    src.write_text(
        json.dumps({"question": "Setup?", "doc": "setup.md", "evidence": ["Run it"]}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "q.json"
    code, _, err = run("convert", "jsonl", str(src), str(docs), "--out", str(out))
    assert code == 2 and not out.exists()
    assert "ambiguous: 2 files named setup.md (a/setup.md, b/setup.md)" in err, err
    assert len(err.strip().splitlines()) == 1
