"""What the app may read on the machine it runs on: the bundled samples and evaluation
documents, and the folders the person who started it named — nothing else, whatever a visitor
types or a link says. (Which documents the app offers, samples and uploads, is
:mod:`ui.sources`'s.)

Folders are allowed with ``make run ARGS="-- --docs DIR"`` (``--docs`` may be given more than
once) or ``CHUNK_EXPLORER_DOCS`` (folders separated by ``:``). A path outside them gets one
message that says how to allow it, and says nothing of whether the path exists. An embedding
model is the bundled one, or a folder inside those; a tiktoken encoding is one installed with
its files (:func:`explorer.chunking.measures.offline_encodings`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from explorer import resources
from explorer.config import BUNDLED, Config
from explorer.errors import DocumentError, SettingsError

ENV = "CHUNK_EXPLORER_DOCS"
HOW = (
    'the person running the app can allow a folder with make run ARGS="-- --docs DIR" or '
    f"the {ENV} variable"
)


def _docs_args(argv: Sequence[str] | None = None) -> list[str]:
    """The values of ``--docs`` on the app's command line (``streamlit run app.py -- --docs
    DIR``), as typed."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = []
    for n, arg in enumerate(args):
        if arg == "--docs" and n + 1 < len(args):
            out.append(args[n + 1])
        elif arg.startswith("--docs="):
            out.append(arg.split("=", 1)[1])
    return out


def folders_from_argv(argv: Sequence[str] | None = None) -> list[Path]:
    """The folders given with ``--docs`` on the app's command line."""
    return [Path(a) for a in _docs_args(argv)]


def docs_from_argv(argv: Sequence[str] | None = None) -> str:
    """The first folder given with ``--docs`` on the app's command line, as typed, or ``""``
    (what the Corpus page's folder box starts with)."""
    return next(iter(_docs_args(argv)), "")


def served_folder(argv: Sequence[str] | None = None) -> str:
    """The site the app serves: the first ``--docs`` folder as typed, else the first folder of
    ``CHUNK_EXPLORER_DOCS``, else ``""``."""
    typed = docs_from_argv(argv)
    if typed:
        return typed
    return next((p for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()), "")


def named_folders(argv: Sequence[str] | None = None) -> list[Path]:
    """The folders the person who started the app named (``--docs``, ``CHUNK_EXPLORER_DOCS``):
    where a visitor may type a folder on this machine at all."""
    named = folders_from_argv(argv)
    named += [Path(p) for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]
    return [p.expanduser().resolve() for p in named]


def allowed_roots(argv: Sequence[str] | None = None) -> list[Path]:
    """The folders the app may read below: the bundled ones and those its starter named."""
    bundled = [resources.samples_dir(), resources.query_sets_dir()]
    return [*(p.expanduser().resolve() for p in bundled), *named_folders(argv)]


def allowed_folder(text: str, *, base: Path | None = None) -> Path:
    """The folder ``text`` names, if it lies inside an allowed root (a relative path starts at
    ``base``, default the project's folder); else one :class:`DocumentError` saying so."""
    path = Path(text.strip()).expanduser()
    if not path.is_absolute():
        path = (base or resources.samples_dir().parent) / path
    resolved = path.resolve()
    if not any(resolved == r or resolved.is_relative_to(r) for r in allowed_roots()):
        raise DocumentError(f"{text.strip()} is not a folder this app may read; {HOW}")
    return resolved


def check_config(config: Config) -> Config:
    """``config`` if its model is the bundled one or a folder the app may read; else a
    :class:`SettingsError` (a visitor never makes the server open a path or fetch a model)."""
    if config.model == BUNDLED:
        return config
    try:
        allowed_folder(config.model)
    except DocumentError:
        raise SettingsError(
            f"the embedding model must be the bundled {BUNDLED} or a model folder inside the "
            f"folders this app may read; {HOW}"
        ) from None
    return config
