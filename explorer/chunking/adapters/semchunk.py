"""semchunk's ``chunkerify``: a chunker for a token counter, asked for offsets and overlap.

Tokens are counted by our tiktoken encoding itself, words and characters by a counting function.
"""

from __future__ import annotations

from explorer.chunking.adapters.base import Adapter, AdapterSettings
from explorer.chunking.adapters.recipe import Call, Each, Recipe, Ref, Step

_COUNTERS = {"tokens": "enc", "words": "count_words", "chars": "len"}


class Semchunk(Adapter):
    name = "semchunk"
    group = "semchunk"
    library = "semchunk"
    module = "semchunk"
    extra = "semchunk"
    title = "chunkerify(...)(text, offsets=True, overlap=...)"
    units = ("chars", "words", "tokens")
    units_note = "chars and words through a token counter (len, len(text.split()))"
    offsets = "computed"
    offsets_note = "offsets=True: (start, end) computed by semchunk, verified"
    note = "overlap is given in tokens (an int); 0 means no overlap (overlap=None)"
    overlap_parameter = "overlap"

    def recipe(self, s: AdapterSettings) -> Recipe:
        chunker = Call(
            "semchunk:chunkerify",
            kwargs={"tokenizer_or_token_counter": Ref(_COUNTERS[s.unit]), "chunk_size": s.size},
            positional=2,
        )
        split = Call(
            "chunker", args=(Ref("text"),), kwargs={"offsets": True, "overlap": s.overlap or None}
        )
        return Recipe(
            steps=(Step("chunker", chunker), Step(("chunks", "offsets"), split)),
            chunks=Ref("chunks"),
            starts=Each("offsets", "[0]", "o"),
            length=Ref("chunker.token_counter"),
        )
