"""Retrieval: chunks in, ranked hits and the context an LLM would receive out.

* :mod:`~explorer.retrieval.embeddings` — the bundled embedding model, vectors cached by text;
* :mod:`~explorer.retrieval.index` — dense, BM25 and hybrid ranking of every chunk;
* :mod:`~explorer.retrieval.retriever` — one document's chunks indexed under one configuration;
* :mod:`~explorer.retrieval.context` — hits widened, merged and filled to a token budget;
* :mod:`~explorer.retrieval.evidence` — do the retrieved spans hold the phrases an answer needs?
"""

from explorer.retrieval.context import ContextPiece, context_pieces, widen_to_budget
from explorer.retrieval.evidence import Evidence, Verdict, check, locate
from explorer.retrieval.index import ChunkIndex, Hit

__all__ = [
    "ChunkIndex",
    "ContextPiece",
    "Evidence",
    "Hit",
    "Verdict",
    "check",
    "context_pieces",
    "locate",
    "widen_to_budget",
]
