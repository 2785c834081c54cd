"""The Corpus page's overview alone over 10,000 documents, for a browser's first paint
(``benchmarks/site/paint.py`` runs it under ``streamlit run`` with the checkout on PYTHONPATH).
The documents are read and chunked once per server (``st.cache_resource``), as the page's
workspace keeps them."""

from __future__ import annotations

import os

import streamlit as st

from explorer.config import Config
from explorer.workspace import Workspace
from ui.corpus import overview

N = int(os.environ.get("OVERVIEW_PAGES", "10000"))
st.set_page_config(page_title="Overview", layout="wide")  # as app.py sets it


@st.cache_resource  # type: ignore[untyped-decorator]
def corpus() -> tuple[dict, dict, dict]:  # type: ignore[type-arg]
    config = Config(retriever="bm25")
    ws = Workspace(None, {})
    docs = {}
    for i in range(N):
        text = (
            f"# Rule {i}\n\nRule {i} disallows one thing.\n\n"
            + (f"| option | value |\n|---|---|\n| a{i} | b |\n\n" if i % 7 == 0 else "")
            + "".join(
                f"Paragraph {p} of page {i}: what it checks and why.\n\n" for p in range(i % 5)
            )
        )
        name = f"docs/reference/rules/section-{i // 100:03d}/rule-number-{i:05d}/README.md"
        docs[name] = ws.load(text.encode(), name=name)
    chunks = {n: ws.chunks(d, config) for n, d in docs.items()}
    diagnoses = {n: ws.diagnosis(d, config) for n, d in docs.items()}
    return docs, chunks, diagnoses


docs, chunks, diagnoses = corpus()
st.title("Overview", anchor=False)
overview.draw(docs, chunks, diagnoses)
st.caption("painted")
