"""The configuration as the app shows it: the splitters it offers, each size unit's slider range,
the retrieval settings' limits and help texts, and the session-state form of a
:class:`~explorer.config.Config` (:func:`state_of`, :func:`config_of`) that every page's widgets
use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.chunking.records import RECURSIVE_LEVELS, SEMANTIC_PERCENTILE
from explorer.config import CARRY, FLAT_KEYS, Config
from explorer.corpus import HYBRID_WEIGHT
from explorer.retrieval.scoring import PASSAGE_TOKENS

APP_SPLITTERS = {
    "fixed": "Fixed windows: cut every N units, wherever that falls",
    "sentence": "Sentences: pack whole sentences up to the size",
    "recursive": "Recursive: paragraphs, then lines, sentences, words",
    "structure": "Structure: headings and blocks first; tables and code kept whole",
    "semantic": "Semantic: cut where the topic shifts between sentence groups (embeds the text)",
    "page": "Pages: a chunk per PDF page (Markdown: per top-level section), cut only where a "
    "page is over the size — raise the size to keep pages whole",
}
"""The splitters the app offers, with a one-line description for the picker's help."""


@dataclass(frozen=True, slots=True)
class SizeRange:
    """The slider range and starting values for one size unit."""

    low: int
    high: int
    default: int
    overlap: int

    def __post_init__(self) -> None:
        if not 0 < self.low <= self.default <= self.high:
            raise ValueError(f"default {self.default} outside [{self.low}, {self.high}]")
        if not 0 <= self.overlap < self.default:
            raise ValueError("the default overlap must be below the default size")

    def clamp(self, size: int) -> int:
        return max(self.low, min(self.high, int(size)))


SIZE_RANGES: dict[str, SizeRange] = {
    "chars": SizeRange(50, 4000, 600, 0),
    "words": SizeRange(10, 800, 100, 0),
    "tokens": SizeRange(16, 2048, 128, 0),
    "model-tokens": SizeRange(16, 512, 128, 0),
}


UNIT_LABELS = {
    "chars": "characters",
    "words": "words",
    "tokens": "cl100k tokens",
    "model-tokens": "model tokens",
}
"""Each size measure's short name in the pickers and metrics (the manifest records the measure's
own label, such as "model tokens (all-MiniLM-L6-v2 word pieces)")."""


def clamp_overlap(overlap: int, size: int) -> int:
    """The overlap kept strictly below ``size`` (a chunk must move forward)."""
    return max(0, min(int(overlap), size - 1))


def splitter_label(name: str) -> str:
    """A splitter's name in the picker: ours as they are, a library's with its library."""
    from explorer.chunking.adapters import ADAPTERS

    spec = ADAPTERS.get(name)
    return name if spec is None else f"{spec.group} · {spec.title} ({name})"


def splitter_help() -> str:
    """The picker's help: our splitters, then the libraries'."""
    from explorer.chunking.adapters import adapters_by_group

    ours = "  \n".join(f"**{k}**: {v}" for k, v in APP_SPLITTERS.items())
    theirs = "  \n".join(
        f"**{group}**: " + ", ".join(a.title for a in members)
        for group, members in adapters_by_group().items()
    )
    return f"{ours}  \n\nOther libraries, called through their own APIs and audited:  \n{theirs}"


def takes_overlap(name: str) -> bool:
    """Whether the splitter ``name`` has an overlap (some library splitters have none)."""
    from explorer.chunking.adapters import ADAPTERS

    spec = ADAPTERS.get(name)
    return spec is None or bool(spec.overlap)


def splitter_names() -> list[str]:
    from explorer.chunking.adapters import LIBRARY_SPLITTERS

    return [*APP_SPLITTERS, *LIBRARY_SPLITTERS]


RETRIEVER_HELP = (
    "**dense**: cosine similarity of the question's embedding and the document's (see "
    "*Dense scores from* in the sidebar).  \n"
    "**bm25**: word overlap (BM25, stemmed, English stop words removed).  \n"
    f"**hybrid**: both, each scaled to 0–1 over the document's chunks, weighted "
    f"{HYBRID_WEIGHT:g} dense + {1 - HYBRID_WEIGHT:g} BM25."
)


TABLE_HEADERS_HELP = (
    "A hit on a table's rows also sends the table's header rows, which say what its columns "
    "mean. They count towards the context's tokens (once per table when hits are merged)."
)


CARRY_HELP = (
    f"Each chunk's score also gains this share of the score of the chunk before it in the "
    f"document (recommended: {CARRY:g}; 0 for none): the text after a relevant passage often "
    "completes it (the exception after a rule, the explanation after a code line) while sharing "
    "few of the question's words."
)


SECTION_HELP = (
    "Send the whole section (heading to the next heading of its level) around each hit instead "
    "of its neighbours."
)


FILL_HELP = (
    "Spend the tokens the budget has left after the hits on the text around them: each stretch "
    "of context grows evenly, half before and half after, so a phrase just past a hit's edge "
    "comes along. The context never costs more than the budget; when the hits alone cost more, "
    "nothing is added."
)


NEIGHBOURS_HELP = (
    "Small-to-big: each retrieved chunk brings this many chunks on each side into the context."
)
PREFIX_HELP = (
    'Embed and index "Heading > Sub" + a blank line + the chunk text, as many pipelines do.'
)
CONTEXT_HEADER_LABELS = {
    "off": "off",
    "embed": "embed",
    "embed+bm25": "embed + BM25",
}
CONTEXT_HEADER_HELP = (
    "A contextual header without an LLM: the document's title and the heading path "
    '("Title > Heading > Sub") before what is embedded, or before what is embedded and what '
    "BM25 indexes — Anthropic's contextual embeddings and contextual BM25, with the title and "
    "headings in place of an LLM-written context. It replaces the heading prefix where it is on. "
    "The displayed chunks, their offsets and highlights do not change; new texts are embedded."
)
MERGE_HELP = (
    "Send text shared by hits (overlap, touching chunks, shared neighbours) once, so a token "
    "budget counts it once."
)
BUDGETS = (None, 256, 512, 1024, 2048)
"""The token budgets the query panel offers (512, the evaluation's smallest, to start)."""


def budget_label(budget: int | None) -> str:
    """How a token budget reads in a picker."""
    return "no budget" if budget is None else f"{budget:,} tokens"


BUDGET_HELP = (
    "At most this many cl100k tokens of context: hits are taken in rank order while they fit. "
    "Fill to budget spends what they leave on the text around them."
)


DENSE_HELP = (
    f"**passages**: the document's sentences, packed to at most {PASSAGE_TOKENS} tokens, are "
    "embedded once; a chunk scores as its best passage, or its best two neighbouring passages "
    "taken together. Every passage fits the model's window, "
    "and a new chunk size or overlap embeds nothing new.  \n"
    "**chunks**: each chunk's text is embedded whole, as most pipelines do; the model silently "
    "truncates a text longer than its window (256 word pieces for all-MiniLM-L6-v2)."
)


PERCENTILE_HELP = (
    "cut where the distance between neighbouring sentence groups is above this percentile"
)


PERCENTILE_RANGE = (50, 99, SEMANTIC_PERCENTILE)
"""The semantic splitter's percentile slider: low, high, start."""


TOP_K_MAX = 20


NEIGHBOURS_MAX = 5


CARRY_RANGE = (0.0, 1.0, 0.05)
"""The carry slider: low, high, step."""


def describe_config(config: Config) -> str:
    """The configuration in a line for people: its chunking and retriever, then each setting
    that differs from the recommended configuration."""
    c = config.chunking
    out = f"{c.splitter}, {c.size} {c.unit}, overlap {c.overlap}, {config.retriever}"
    flat, default = config.to_json(), Config().to_json()
    skip = {"splitter", "splitter_version", "unit", "size", "overlap", "retriever"}
    changed = [k for k in FLAT_KEYS if k not in skip and flat[k] != default[k]]
    labels = {True: "on", False: "off"}
    for key in changed:
        value = flat[key]
        shown = labels[value] if isinstance(value, bool) else value
        if isinstance(value, list):
            shown = "+".join(value) or "none"
        out += f", {key.replace('_', ' ')} {shown}"
    return out


def state_of(config: Config, *, prefix: str = "") -> dict[str, Any]:
    """The session-state values that show ``config`` in a page's widgets: each flat setting under
    its own name after ``prefix``, the exact-size boxes, and a library splitter's options."""
    flat = config.to_json()
    out = {prefix + k: flat[k] for k in FLAT_KEYS}
    out[prefix + "separators"] = [
        lvl for lvl in RECURSIVE_LEVELS if lvl in config.chunking.separators
    ]
    out[prefix + "neighbours"] = min(config.neighbours, NEIGHBOURS_MAX)
    out[prefix + "size_exact"] = config.chunking.size
    out[prefix + "overlap_exact"] = config.chunking.overlap
    for name, value in config.chunking.options:
        out[f"{prefix}opt_{config.chunking.splitter}_{name}"] = value
    return out


def config_of(state: Any, *, prefix: str = "", base: Config | None = None) -> Config:
    """The configuration a page's widgets show: every flat setting found under ``prefix`` in
    ``state``, the others from ``base`` (default: the recommended configuration)."""
    base = base or Config()
    flat = {k: state[prefix + k] for k in FLAT_KEYS if prefix + k in state}
    if "separators" in flat:
        flat["separators"] = tuple(s for s in RECURSIVE_LEVELS if s in flat["separators"])
    flat.setdefault("overlap", base.chunking.overlap)
    return Config.from_json(flat, base=base)
