"""Chunk Explorer: see what chunking does to a document before you build a RAG index.

Run with ``streamlit run app.py``. This entry file is the frame every page shares: it starts the
session (the view a link names, else the refund lesson), keeps each page's widget values while
another page is shown (a fragment's own run keeps them too: ``ui.frame.fragment``), draws the
navigation and the one configuration sidebar (chunking, embedding, retrieval), and runs the page
the visitor chose:

* ``app_pages/explore.py`` — one document: its chunks on the page, a question and its evidence;
* ``app_pages/corpus.py`` — many documents ranked as one index;
* ``app_pages/evaluate.py`` — query sets, A/B comparisons and sweeps.

The embedding model (and ``sentence_transformers``, slow to import) is loaded only when a
question is asked with the dense or hybrid retriever, or the semantic splitter is picked.
"""

from __future__ import annotations

import streamlit as st

from ui import frame, widgets
from ui.timing import timed

st.set_page_config(page_title="Chunk Explorer", page_icon="🧩", layout="wide")
with timed("rerun"):  # the server's own time for the rerun (ui.timing: only when asked)
    frame.start_session()
    frame.apply_next()
    frame.keep_pages()  # and each fragment's own run keeps them too (frame.fragment)

    explore = st.Page(
        "app_pages/explore.py", title="Explore a document", icon=":material/article:", default=True
    )
    page = st.navigation(
        [
            explore,
            st.Page(
                "app_pages/corpus.py",
                title="Ask a corpus",
                icon=":material/library_books:",
                url_path="corpus",
            ),
            st.Page(
                "app_pages/evaluate.py",
                title="Evaluate settings",
                icon=":material/fact_check:",
                url_path="evaluate",
            ),
        ]
    )
    frame.enter_page(explore=page.url_path == explore.url_path)
    with st.sidebar:
        frame.set_page_slot(st.container())  # the page's own controls go above the configuration
        st.header("Configuration", anchor=False)
        st.caption("Used by every page (the Evaluate page's A starts from it).")
        widgets.config_widgets()
    page.run()
