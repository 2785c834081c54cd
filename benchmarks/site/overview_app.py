"""The Corpus page's overview alone over the pages of ``OVERVIEW_SITE``, for a browser's first
paint (``benchmarks/site/paint.py`` runs it under ``streamlit run`` with the checkout on
PYTHONPATH): no frame, no sidebar, BM25. The documents are read and chunked once per server
(``st.cache_resource``)."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from explorer.config import Config
from explorer.workspace import Workspace
from ui.corpus import overview

SITE = Path(os.environ["OVERVIEW_SITE"])  # the pages paint.py wrote
st.set_page_config(page_title="Overview", layout="wide")  # as app.py sets it


@st.cache_resource  # type: ignore[untyped-decorator]
def corpus() -> tuple[dict, dict, dict]:  # type: ignore[type-arg]
    config = Config(retriever="bm25")
    ws = Workspace(None, {})
    docs = {}
    for path in sorted(SITE.rglob("*.md")):
        name = path.relative_to(SITE).as_posix()
        docs[name] = ws.load(path.read_bytes(), name=name)
    chunks = {n: ws.chunks(d, config) for n, d in docs.items()}
    diagnoses = {n: ws.diagnosis(d, config) for n, d in docs.items()}
    return docs, chunks, diagnoses


docs, chunks, diagnoses = corpus()
st.title("Overview", anchor=False)
overview.draw(docs, chunks, diagnoses)
st.caption("painted")
