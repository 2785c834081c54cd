"""Compare with another version, in the app: the page tinted by what changed, the removed chunks
listed, and the questions whose verdict changes."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from explorer.chunking.diff import diff_chunks
from explorer.chunking.splitters import split
from explorer.config import Config
from explorer.documents.load import load_document
from tests.conftest import REPO, SAMPLES
from ui.highlights import CHANGE_LABELS

APP = str(REPO / "app.py")
TEXT = (SAMPLES / "refund-policy.md").read_text(encoding="utf-8")
GONE = "Old section\n\n" + " ".join(
    f"Sentence {i} of a section removed in the new version." for i in range(30)
)
_PARTS = TEXT.split("\n## ")
OLD = "\n## ".join([*_PARTS[:2], GONE + "\n", *_PARTS[2:]]).replace(
    "within seven days", "within thirty days"
)
"""An earlier version: a section the new one dropped, and another refund window."""
SETTINGS = {"splitter": "structure", "unit": "tokens", "size": 128, "overlap": 0}


def test_a_version_to_compare_with_tints_the_page_and_lists_what_changed() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    for key, value in SETTINGS.items():
        at.session_state[key] = value
    at.run()
    at.file_uploader(key="version_upload").set_value(
        ("refund-policy-v1.md", OLD.encode(), "text/markdown")
    ).run()
    assert not at.exception, [e.value for e in at.exception]
    config = Config().replace(**SETTINGS)
    old = load_document(OLD.encode(), name="refund-policy-v1.md")
    new = load_document(TEXT.encode(), name="refund-policy.md")
    want = diff_chunks(old, split(old, config.chunking), new, split(new, config.chunking))
    metrics = {m.label: int(m.value) for m in at.metric if m.label in ("Unchanged", "Changed",
               "New", "Removed", "To embed")}  # fmt: skip
    assert metrics == {
        "Unchanged": want.counts()["unchanged"],
        "Changed": want.counts()["changed"],
        "New": want.counts()["added"],
        "Removed": want.counts()["removed"],
        "To embed": want.counts()["reembed"],
    }
    assert want.counts()["removed"] >= 1 and want.counts()["changed"] >= 1
    assert any("removed in the new version" in c.value for c in at.code)  # the removed chunk
    at.radio(key="view").set_value("Changes").run()
    html = next(h.value for h in at.html if 'class="ce-doc' in h.value)
    titles = re.findall(r'title="chunk (\d+): (unchanged|changed|new)"', html)
    changed = {c.new.index for c in want.changed}
    assert {int(i) for i, k in titles if k == "changed"} == changed
    # the demo's question: its rule is "within seven days" now, "within thirty days" before
    verdicts = next(d.value for d in at.dataframe if "verdict changed" in d.value.columns)
    row = verdicts[verdicts["question"] == "(this question)"].iloc[0]
    assert bool(row["verdict changed"]) == (row["before"] != row["now"])
    assert CHANGE_LABELS["added"] == "new"


def test_switching_documents_ends_the_comparison() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    at.run()
    at.file_uploader(key="version_upload").set_value(
        ("refund-policy-v1.md", OLD.encode(), "text/markdown")
    ).run()
    assert at.session_state["version"] is not None
    at.selectbox(key="source").set_value("writing-guide.md").run()
    assert not at.exception
    assert at.session_state["version"] is None
    assert not any(s.value.startswith("What changed") for s in at.subheader)


def test_the_comparison_shows_the_churn_of_each_splitter() -> None:
    """A paragraph inserted near the top: the churn table re-embeds more of fixed windows than
    of the structure splitter, with the library's figures for each splitter chosen."""
    from explorer.chunking.churn import insert_near_top
    from explorer.workspace import Workspace

    path = SAMPLES / "writing-guide.md"
    ws = Workspace()
    old = ws.load_path(path)
    paragraph = "This guide was revised: two sections moved and one definition was added."
    new_text = insert_near_top(old, paragraph)
    settings = {**SETTINGS, "size": 256, "overlap": 64}
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    for key, value in settings.items():
        at.session_state[key] = value
    at.session_state["churn_splitters"] = ["fixed", "structure", "langchain-recursive"]
    at.run()
    at.file_uploader(key="upload").set_value(
        ("writing-guide-v2.md", new_text.encode(), "text/markdown")
    ).run()
    for key, value in settings.items():  # an upload opens on the recommended configuration
        at.session_state[key] = value
    at.file_uploader(key="version_upload").set_value(
        ("writing-guide.md", path.read_bytes(), "text/markdown")
    ).run()
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "re-embedded" in d.value.columns)
    assert list(table["splitter"]) == ["fixed", "structure", "langchain-recursive"]
    new = ws.load(new_text.encode(), name="writing-guide-v2.md")
    config = Config().replace(**settings)
    want = ws.churn(old, new, config, list(table["splitter"]))
    for _, row in table.iterrows():
        c = want[row["splitter"]]
        assert (row["new chunks"], row["re-embedded"]) == (c.new_chunks, c.reembedded)
        assert row["share"] == round(100 * c.share, 1)
    share = dict(zip(table["splitter"], table["share"], strict=True))
    assert share["fixed"] > share["structure"]
