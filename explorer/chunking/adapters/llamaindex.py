"""LlamaIndex's node parsers (llama-index-core): sentence, token, and Markdown then sentence.

Every unit goes through ``tokenizer=``: our encoding's ``encode_ordinary`` for tokens,
``str.split`` for words, ``list`` for characters. The text goes in as a LlamaIndex ``Document``
and the chunks come out as nodes.
"""

from __future__ import annotations

from explorer.chunking.adapters.base import Adapter, AdapterSettings, Option
from explorer.chunking.adapters.recipe import Call, Each, PerItem, Recipe, Ref, Step

_NP = "llama_index.core.node_parser:"
_SENTENCE_OPTIONS = (
    Option("separator", " ", "the separator between words"),
    Option("paragraph_separator", "\n\n\n", "the separator between paragraphs"),
    Option(
        "secondary_chunking_regex",
        "[^,.;。？！]+[,.;。？！]?|[,.;。？！]",
        "the pattern (a regular expression) that splits a sentence that is still too long",
        regex=True,
    ),
)
_TOKENIZERS = {"tokens": "enc.encode_ordinary", "words": "str.split", "chars": "list"}
_LENGTHS = {"tokens": "count_tokens", "words": "count_words", "chars": "len"}
"""What ``len(tokenizer(text))`` counts, as one function."""


def _nodes(of: object) -> Call:
    """``splitter.get_nodes_from_documents([of])``."""
    return Call("splitter.get_nodes_from_documents", args=([of],))


def _document() -> Call:
    return Call("llama_index.core:Document", kwargs={"text": Ref("text")})


def _sentence_splitter(s: AdapterSettings) -> Call:
    kwargs = {
        "chunk_size": s.size,
        "chunk_overlap": s.overlap,
        "separator": s.opt("separator"),
        "paragraph_separator": s.opt("paragraph_separator"),
        "secondary_chunking_regex": s.opt("secondary_chunking_regex"),
        "tokenizer": Ref(_TOKENIZERS[s.unit]),
    }
    return Call(_NP + "SentenceSplitter", kwargs=kwargs)


class _LlamaIndexBase(Adapter):
    group = "LlamaIndex"
    library = "llama-index-core"
    module = "llama_index.core"
    extra = "llamaindex"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "chars and words through tokenizer= (list, str.split)"
    offsets = "searched"
    offsets_note = (
        "node.start_char_idx, which LlamaIndex finds with text.find(chunk, previous start + 1): "
        "checked, not trusted"
    )

    def _recipe(self, s: AdapterSettings, splitter: Call) -> Recipe:
        return Recipe(
            steps=(Step("splitter", splitter), Step("nodes", _nodes(_document()))),
            chunks=Each("nodes", ".text", "n"),
            starts=Each("nodes", ".start_char_idx", "n"),
            length=Ref(_LENGTHS[s.unit]),
        )


class LlamaIndexSentence(_LlamaIndexBase):
    name = "llamaindex-sentence"
    title = "SentenceSplitter"
    options = _SENTENCE_OPTIONS

    def recipe(self, s: AdapterSettings) -> Recipe:
        return self._recipe(s, _sentence_splitter(s))


class LlamaIndexToken(_LlamaIndexBase):
    name = "llamaindex-token"
    title = "TokenTextSplitter"
    options = (
        Option("separator", " ", "the separator between words"),
        Option("backup_separators", ("\n",), "separators tried when a piece is still too long"),
        Option("keep_whitespaces", False, "keep white space around the chunks"),
    )

    def recipe(self, s: AdapterSettings) -> Recipe:
        backup = s.opt("backup_separators")
        assert isinstance(backup, tuple)
        kwargs = {
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "separator": s.opt("separator"),
            "backup_separators": list(backup),
            "keep_whitespaces": s.opt("keep_whitespaces"),
            "tokenizer": Ref(_TOKENIZERS[s.unit]),
        }
        return self._recipe(s, Call(_NP + "TokenTextSplitter", kwargs=kwargs))


class LlamaIndexMarkdown(_LlamaIndexBase):
    name = "llamaindex-markdown"
    title = "MarkdownNodeParser, then SentenceSplitter in each section"
    offsets_note = (
        "the section's start_char_idx plus the node's start_char_idx, which LlamaIndex counts "
        "from the start of the section and leaves unset where its own text.find fails: "
        "checked, not trusted"
    )
    options = _SENTENCE_OPTIONS
    note = (
        "MarkdownNodeParser has no size; SentenceSplitter cuts each section, and counts the "
        "section's header_path metadata against chunk_size (LlamaIndex's metadata-aware split)"
    )

    def recipe(self, s: AdapterSettings) -> Recipe:
        documents = Call("parser.get_nodes_from_documents", args=([_document()],))
        return Recipe(
            steps=(
                Step("parser", Call(_NP + "MarkdownNodeParser")),
                Step("sections", documents),
                Step("splitter", _sentence_splitter(s)),
                Step("nodes", _nodes(Ref("section"))),
            ),
            chunks=Each("nodes", ".text", "n"),
            starts=Each("nodes", ".start_char_idx", "n"),
            length=Ref(_LENGTHS[s.unit]),
            per=PerItem(
                "section",
                "sections",
                ".start_char_idx",
                note="one call per section: a node's start_char_idx counts from its section's",
            ),
        )
