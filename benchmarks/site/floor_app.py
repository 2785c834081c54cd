"""The least a Streamlit page is here, for ``benchmarks/site/paint.py --floor``: a title, the
words *Ask the corpus* and one table of 50 rows with two bar columns — what the Corpus page's
first screen holds, without reading a document. Its first paint is this machine's floor for any
page of the app: Streamlit's frontend loading, its websocket and its data grid."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Floor", layout="wide")  # as app.py sets it
st.title("Chunk Explorer")
st.subheader("Ask the corpus", anchor=False)
bar = st.column_config.ProgressColumn
st.dataframe(
    [{"document": f"reference/rules/rule-{i:05d}/README.md", "chunks": i % 5 + 1,
      "flagged": i % 2} for i in range(50)],
    hide_index=True,
    column_config={name: bar(max_value=5, format="%d") for name in ("chunks", "flagged")},
)  # fmt: skip
