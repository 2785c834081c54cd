"""semantic-text-splitter's TextSplitter and MarkdownSplitter.

Characters are its own measure; words and tokens go through ``from_callback`` with our counter,
which cuts as the library's bundled cl100k does. Offsets come from ``chunk_indices``: character
offsets the splitter computed.
"""

from __future__ import annotations

from explorer.chunking.adapters.base import Adapter, AdapterSettings, Option
from explorer.chunking.adapters.recipe import Call, Each, Recipe, Ref, Step

_COUNTERS = {"tokens": "count_tokens", "words": "count_words"}


class _TextSplitterBase(Adapter):
    group = "semantic-text-splitter"
    library = "semantic-text-splitter"
    module = "semantic_text_splitter"
    extra = "text-splitter"
    units: tuple[str, ...] = ("chars", "words", "tokens")
    units_note = "words and tokens through from_callback"
    offsets = "computed"
    offsets_note = "chunk_indices(text): character offsets computed by the splitter, verified"
    options = (Option("trim", True, "trim white space from both ends of every chunk"),)
    size_parameter = "capacity"
    overlap_parameter = "overlap"
    cls = ""

    def recipe(self, s: AdapterSettings) -> Recipe:
        cls = f"semantic_text_splitter:{self.cls}"
        kwargs: dict[str, object] = {
            "capacity": s.size,
            "overlap": s.overlap,
            "trim": s.opt("trim"),
        }
        counter = _COUNTERS.get(s.unit)
        if counter is None:
            splitter = Call(cls, kwargs=kwargs, positional=1)
        else:
            kwargs = {"callback": Ref(counter), **kwargs}
            splitter = Call(cls + ".from_callback", kwargs=kwargs, positional=2)
        return Recipe(
            steps=(
                Step("splitter", splitter),
                Step("pairs", Call("splitter.chunk_indices", args=(Ref("text"),))),
            ),
            chunks=Each("pairs", "[1]", "p"),
            starts=Each("pairs", "[0]", "p"),
            length=Ref(counter or "len"),
        )


class TextSplitterText(_TextSplitterBase):
    name = "text-splitter"
    title = "TextSplitter"
    cls = "TextSplitter"


class TextSplitterMarkdown(_TextSplitterBase):
    name = "text-splitter-markdown"
    title = "MarkdownSplitter"
    cls = "MarkdownSplitter"
