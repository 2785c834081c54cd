"""Chunking: size measures, the splitters, their diagnostics and the export records.

* :mod:`~explorer.chunking.measures` — characters, words, tiktoken tokens, the model's tokens;
* :mod:`~explorer.chunking.records` — chunks, chunk settings, chunk ids, the splitter names;
* :mod:`~explorer.chunking.splitters` — one packing engine behind every splitter;
* :mod:`~explorer.chunking.diagnostics` — what is wrong with a chunk (cut mid-sentence, …);
* :mod:`~explorer.chunking.adapters` — other libraries' splitters, placed exactly and audited;
* :mod:`~explorer.chunking.diff` — what changed between two versions' chunks;
* :mod:`~explorer.chunking.edits` — what-if edits: split, merge or drop chunks by hand.
"""

from explorer.chunking import adapters as adapters  # registers the library splitters
from explorer.chunking.records import SPLITTERS, Chunk, ChunkSettings, embedded_text
from explorer.chunking.splitters import split

__all__ = ["SPLITTERS", "Chunk", "ChunkSettings", "embedded_text", "split"]
