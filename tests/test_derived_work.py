"""What the pages show of a chunking, asked of the workspace and keyed once: the diagnosis, the
table audit and the version diff (content key + settings + edits), and the version verdicts that
the Explore page and ``explorer diff --queries`` both take from one function.

Each is checked against an independent recomputation from the library's own functions.
"""

from __future__ import annotations

from explorer import Config, Workspace
from explorer.chunking.diagnostics import diagnose
from explorer.chunking.diff import diff_chunks
from explorer.chunking.edits import decode_edits
from explorer.chunking.measures import get_measure
from explorer.chunking.splitters import split
from explorer.chunking.tables import table_audit_by_chunk
from explorer.documents.load import load_document
from explorer.evaluation.queries import Query
from explorer.evaluation.versions import VersionVerdict, version_verdicts
from tests.conftest import SAMPLES

BM25 = Config().replace(retriever="bm25")
POLICY = (SAMPLES / "refund-policy.md").read_bytes()
PLANS = (SAMPLES / "support-plans.md").read_bytes()
EDITS = decode_edits("m1")


def test_the_diagnosis_is_made_once_per_content_chunking_prefix_and_edits() -> None:
    ws = Workspace()
    doc = ws.load(POLICY, name="refund-policy.md")
    got = ws.diagnosis(doc, BM25)
    chunks = split(doc, BM25.chunking)
    nothing = [0] * len(chunks)  # BM25 embeds nothing: no chunk meets the model's window
    want = diagnose(
        doc,
        chunks,
        heading_prefix=False,
        model_measure=get_measure("model-tokens"),
        embedded=nothing,
    )
    assert got == want
    assert ws.diagnosis(doc, BM25) is got  # kept
    assert ws.diagnosis(doc, BM25.replace(fill=False)) is got  # a context setting: same chunks
    prefixed = ws.diagnosis(doc, BM25.replace(heading_prefix=True))
    assert prefixed is not got
    assert prefixed == diagnose(
        doc,
        chunks,
        heading_prefix=True,
        model_measure=get_measure("model-tokens"),
        embedded=nothing,
    )
    assert prefixed.model_tokens != got.model_tokens  # the heading path is embedded too
    edited = ws.diagnosis(doc, BM25, edits=EDITS)
    assert len(edited.issues) == len(ws.chunks(doc, BM25, edits=EDITS)) == len(got.issues) - 1
    # another name for the same bytes: the same entry (keyed by content)
    assert ws.diagnosis(ws.load(POLICY, name="copy.md"), BM25) is got


def test_the_table_audit_is_the_library_s_and_follows_the_edits() -> None:
    ws = Workspace()
    doc = ws.load(PLANS, name="support-plans.md")
    config = BM25.replace(splitter="fixed", unit="chars", size=120, overlap=0)
    tables, problems = ws.table_audit(doc, config)
    want_tables, want_problems = table_audit_by_chunk(doc, split(doc, config.chunking))
    assert (tables, problems) == (want_tables, want_problems)
    assert tables.tables > 0 and problems  # small fixed windows cut the plans' tables
    assert ws.table_audit(doc, config)[0] is tables
    edits = decode_edits("d0")
    assert ws.table_audit(doc, config, edits=edits) == table_audit_by_chunk(
        doc, ws.chunks(doc, config, edits=edits)
    )


def test_the_version_diff_compares_the_old_chunks_with_the_new_edited_ones() -> None:
    ws = Workspace()
    old = ws.load(POLICY, name="refund-policy.md")
    changed = POLICY.decode().replace("within seven days", "within thirty days").encode()
    new = ws.load(changed, name="refund-policy.md")
    diff = ws.version_diff(old, new, BM25)
    assert diff == diff_chunks(old, split(old, BM25.chunking), new, split(new, BM25.chunking))
    assert diff.counts()["changed"] >= 1
    assert ws.version_diff(old, new, BM25) is diff
    edited = ws.version_diff(old, new, BM25, edits=EDITS)
    assert edited == diff_chunks(old, ws.chunks(old, BM25), new, ws.chunks(new, BM25, edits=EDITS))
    assert edited != diff


def test_version_verdicts_answer_each_question_on_both_versions() -> None:
    ws = Workspace()
    old = load_document(POLICY, name="refund-policy.md")
    new = load_document(
        POLICY.decode().replace("within seven days", "within thirty days").encode(),
        name="refund-policy.md",
    )
    asked = [
        Query(
            "days", "refund-policy.md", "How long do I have for a refund?", ("within seven days",)
        ),
        Query("shipping", "refund-policy.md", "Are shipping costs refunded?", ("shipping",)),
        Query("none", "refund-policy.md", "Anything?", ()),
    ]
    got = version_verdicts(ws, old, new, asked, config=BM25, k=3, budget=None)
    assert [v.query for v in got] == asked
    for v, q in zip(got, asked, strict=True):
        was = ws.ask(old, q.query, q.evidence, config=BM25, k=3)
        now = ws.ask(new, q.query, q.evidence, config=BM25, k=3)
        assert (v.before, v.after) == (was.verdict, now.verdict)
        assert v.changed == (was.complete != now.complete)
    days, shipping, none = got
    assert days.changed and days.before is not None and days.before.complete
    assert days.after is not None and days.after.kind == "unchecked"  # the phrase is gone
    assert not shipping.changed
    assert (none.before, none.after, none.changed) == (None, None, False)


def test_a_verdict_changes_only_between_complete_and_not() -> None:
    ws = Workspace()
    doc = load_document(POLICY, name="refund-policy.md")
    q = Query("q", doc.name, "How long do I have for a refund?", ("within seven days",))
    complete = ws.ask(doc, q.query, q.evidence, config=BM25, k=3).verdict
    missing = ws.ask(doc, q.query, ("not in this text at all",), config=BM25, k=3).verdict
    assert complete is not None and complete.complete
    assert missing is not None and not missing.complete
    assert VersionVerdict(q, complete, missing).changed
    assert VersionVerdict(q, None, complete).changed
    assert not VersionVerdict(q, missing, None).changed  # neither is complete
    assert not VersionVerdict(q, complete, complete).changed
