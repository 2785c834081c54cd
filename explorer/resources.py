"""The bundled sample documents and query sets, found the same way from a checkout and from an
installed wheel: they ship inside the package as ``explorer/_data/`` (a wheel) or stand beside it
in the repository (``sample_docs/``, ``queries/``), and these functions look in that order."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_REPOSITORY = _PACKAGE.parent


def _first(name: str) -> Path:
    for base in (_PACKAGE / "_data", _REPOSITORY):
        if (base / name).is_dir():
            return base / name
    return _REPOSITORY / name


def samples_dir() -> Path:
    """The folder of bundled sample documents."""
    return _first("sample_docs")


def query_sets_dir() -> Path:
    """The folder of bundled query sets (and ``docs/``, the documents they name)."""
    return _first("queries")


def query_set(name: str = "boundary-questions.json") -> Path:
    """One bundled query set (default: the boundary questions the Evaluate page starts with)."""
    return query_sets_dir() / name


def lessons_dir() -> Path:
    """The folder of bundled boundary lessons (one TOML file each)."""
    return _first("lessons")
