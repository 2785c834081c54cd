"""chonkie's TokenChunker, SentenceChunker and RecursiveChunker.

Tokens are counted by our tiktoken encoding given as the tokenizer, characters by
``tokenizer='character'``, words by a counting function. Offsets are each chunk's
``start_index``, which chonkie computes from token lengths.
"""

from __future__ import annotations

from explorer.chunking.adapters.base import Adapter, AdapterSettings, Option
from explorer.chunking.adapters.recipe import Call, Each, Recipe, Ref, Step

_TOKENIZERS: dict[str, object] = {
    "tokens": Ref("enc"),
    "words": Ref("count_words"),
    "chars": "character",
}


class _ChonkieBase(Adapter):
    group = "chonkie"
    library = "chonkie"
    module = "chonkie"
    extra = "chonkie"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "chars through tokenizer='character', words through a token-counting function"
    offsets = "computed"
    offsets_note = "chunk.start_index: computed by chonkie from token lengths, verified"
    cls = ""

    def recipe(self, s: AdapterSettings) -> Recipe:
        kwargs: dict[str, object] = {"tokenizer": _TOKENIZERS[s.unit], "chunk_size": s.size}
        if self.overlap:
            kwargs["chunk_overlap"] = s.overlap
        for o in self.options:  # every option is a parameter of the same name
            value = s.opt(o.name)
            kwargs[o.name] = list(value) if isinstance(value, tuple) else value
        return Recipe(
            steps=(
                Step("chunker", Call(f"chonkie:{self.cls}", kwargs=kwargs)),
                Step("result", Call("chunker.chunk", args=(Ref("text"),))),
            ),
            chunks=Each("result", ".text", "c"),
            starts=Each("result", ".start_index", "c"),
            length=Ref("chunker.tokenizer.count_tokens"),
        )


class ChonkieToken(_ChonkieBase):
    name = "chonkie-token"
    title = "TokenChunker"
    cls = "TokenChunker"
    units = ("chars", "tokens")
    units_note = "chars through tokenizer='character'; TokenChunker must encode and decode"


class ChonkieSentence(_ChonkieBase):
    name = "chonkie-sentence"
    title = "SentenceChunker"
    cls = "SentenceChunker"
    options = (
        Option("min_sentences_per_chunk", 1, "fewest sentences in a chunk", minimum=1),
        Option(
            "min_characters_per_sentence",
            12,
            "a shorter sentence joins its neighbour",
            minimum=1,
        ),
        Option("delim", (". ", "! ", "? ", "\n"), "the strings a sentence ends with"),
        Option(
            "include_delim",
            "prev",
            "the delimiter goes with the sentence before ('prev') or after ('next')",
            choices=("prev", "next"),
        ),
    )


class ChonkieRecursive(_ChonkieBase):
    name = "chonkie-recursive"
    title = "RecursiveChunker"
    cls = "RecursiveChunker"
    units = ("chars", "tokens")
    units_note = "chars through tokenizer='character'; RecursiveChunker may need to encode"
    overlap = False
    options = (
        Option(
            "min_characters_per_chunk",
            24,
            "a shorter piece joins its neighbour",
            minimum=1,
        ),
    )
    note = "RecursiveChunker has no overlap parameter"
    overlap_parameter = "-"
