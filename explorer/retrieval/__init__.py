"""Retrieval: chunks in, what they are scored by and the context an LLM would receive out.

* :mod:`~explorer.retrieval.store` — the lasting index: vectors kept on disk between runs;
* :mod:`~explorer.retrieval.embeddings` — the bundled embedding model, vectors cached by text;
* :mod:`~explorer.retrieval.scoring` — what chunks are scored by: BM25 texts, dense vectors;
* :mod:`~explorer.retrieval.retriever` — one document's chunks made ready under one configuration;
* :mod:`~explorer.retrieval.context` — hits widened, merged and filled to a token budget;
* :mod:`~explorer.retrieval.evidence` — do the retrieved spans hold the phrases an answer needs?

The one ranking of chunks is :meth:`explorer.corpus.Corpus.rank` (one document is a corpus of
one): the question's vector and text in, every chunk ranked out.
"""

from explorer.retrieval.context import ContextPiece, context_pieces, widen_to_budget
from explorer.retrieval.evidence import Evidence, Verdict, check, locate
from explorer.retrieval.scoring import Hit, ScoringInputs

__all__ = [
    "ContextPiece",
    "Evidence",
    "Hit",
    "ScoringInputs",
    "Verdict",
    "check",
    "context_pieces",
    "locate",
    "widen_to_budget",
]
