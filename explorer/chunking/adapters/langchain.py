"""LangChain's splitters (langchain-text-splitters): recursive, token, and Markdown headers.

Each adapter's :meth:`~explorer.chunking.adapters.base.Adapter.recipe` is the one description
of its calls; words are measured through ``length_function``, tokens through LangChain's own
tiktoken constructors with our encoding.
"""

from __future__ import annotations

from explorer.chunking.adapters.base import Adapter, AdapterSettings, Option
from explorer.chunking.adapters.recipe import Call, Each, Recipe, Ref, Step

_LC = "langchain_text_splitters:"
_SEPARATORS = ("\n\n", "\n", " ", "")
_OPTIONS = (
    Option(
        "separators",
        _SEPARATORS,
        "separators tried in order, coarsest first ('' splits between characters)",
        regex="is_separator_regex",
    ),
    Option(
        "keep_separator",
        True,
        "keep the separator: True or 'start' puts it at the start of the next piece, "
        "'end' at the end of the previous; False drops it",
        choices=(True, False, "start", "end"),
    ),
    Option("is_separator_regex", False, "treat the separators as regular expressions"),
    Option("strip_whitespace", True, "strip white space from both ends of every chunk"),
)
_SEARCHED = (
    "metadata['start_index'] (add_start_index=True), which LangChain finds with "
    "text.find(chunk, previous index + previous length - chunk_overlap): checked, not trusted"
)


def _as_text() -> dict[str, object]:
    """tiktoken's special tokens as text like any other: ``allowed_special=set()`` encodes them
    as text, ``disallowed_special=()`` does not raise on them."""
    return {"allowed_special": set(), "disallowed_special": ()}


def _recursive(s: AdapterSettings, **extra: object) -> Call:
    """RecursiveCharacterTextSplitter in ``s``'s unit, with its options (and ``extra``)."""
    separators = s.opt("separators")
    assert isinstance(separators, tuple)
    kwargs: dict[str, object] = {
        "chunk_size": s.size,
        "chunk_overlap": s.overlap,
        "separators": list(separators),
        "keep_separator": s.opt("keep_separator"),
        "is_separator_regex": s.opt("is_separator_regex"),
        "strip_whitespace": s.opt("strip_whitespace"),
        **extra,
    }
    if s.unit == "tokens":
        return Call(
            _LC + "RecursiveCharacterTextSplitter.from_tiktoken_encoder",
            kwargs={"encoding_name": Ref("enc_name"), **_as_text(), **kwargs},
        )
    if s.unit == "words":
        kwargs = {"length_function": Ref("count_words"), **kwargs}
    return Call(_LC + "RecursiveCharacterTextSplitter", kwargs=kwargs)


def _documents(splitter: Call, length: Ref) -> Recipe:
    """The recipe of a text splitter that makes documents with their ``start_index``."""
    return Recipe(
        steps=(
            Step("splitter", splitter),
            Step("docs", Call("splitter.create_documents", args=([Ref("text")],))),
        ),
        chunks=Each("docs", ".page_content", "d"),
        starts=Each("docs", ".metadata['start_index']", "d"),
        length=length,
    )


class _LangChainBase(Adapter):
    group = "LangChain"
    library = "langchain-text-splitters"
    module = "langchain_text_splitters"
    extra = "langchain"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "words through length_function"


class LangChainRecursive(_LangChainBase):
    name = "langchain-recursive"
    title = "RecursiveCharacterTextSplitter"
    offsets = "searched"
    offsets_note = _SEARCHED
    options = _OPTIONS

    def recipe(self, s: AdapterSettings) -> Recipe:
        return _documents(_recursive(s, add_start_index=True), Ref("splitter._length_function"))


class LangChainToken(_LangChainBase):
    name = "langchain-token"
    title = "TokenTextSplitter"
    units = ("tokens",)
    units_note = ""
    offsets = "searched"
    offsets_note = _SEARCHED

    def recipe(self, s: AdapterSettings) -> Recipe:
        kwargs = {
            "encoding_name": Ref("enc_name"),
            **_as_text(),
            "chunk_size": s.size,
            "chunk_overlap": s.overlap,
            "add_start_index": True,
        }
        # measured as TokenTextSplitter counts (its own length function counts characters)
        return _documents(Call(_LC + "TokenTextSplitter", kwargs=kwargs), Ref("count_tokens"))


class LangChainMarkdown(_LangChainBase):
    name = "langchain-markdown"
    title = "MarkdownHeaderTextSplitter, then RecursiveCharacterTextSplitter in each section"
    offsets = "none"
    offsets_note = (
        "none: MarkdownHeaderTextSplitter reports no offsets and re-joins each section's lines "
        "with '  \\n', so start_index inside a section is not a document offset; located"
    )
    options = (
        Option(
            "headers",
            3,
            "split on headings of levels 1 to this ('#' ... '######')",
            minimum=1,
            maximum=6,
        ),
        Option(
            "strip_headers",
            True,
            "leave the heading lines out of the chunks (LangChain's default; they go to metadata)",
        ),
        *_OPTIONS,
    )
    note = "headings become metadata; with strip_headers their text is in no chunk"

    def recipe(self, s: AdapterSettings) -> Recipe:
        levels = s.opt("headers")
        assert isinstance(levels, int)
        headers = Call(
            _LC + "MarkdownHeaderTextSplitter",
            kwargs={
                "headers_to_split_on": [("#" * k, f"Header {k}") for k in range(1, levels + 1)],
                "strip_headers": s.opt("strip_headers"),
            },
        )
        sections = Call("headers.split_text", args=(Ref("text"),))
        return Recipe(
            steps=(
                Step("headers", headers),
                Step("splitter", _recursive(s)),
                Step("docs", Call("splitter.split_documents", args=(sections,))),
            ),
            chunks=Each("docs", ".page_content", "d"),
            starts=None,
            starts_note="no document offsets",
            length=Ref("splitter._length_function"),
        )
