"""The documents folder of ``eval``, ``sweep``, ``ab``, ``lessons`` and ``index``, read as the app
reads the site it serves (``--docs``, ``CHUNK_EXPLORER_DOCS``): every file below the folder, each
named by its path in it (``rules/color-hex-case.md``), with the same refusals (a link that leaves
the folder, a file that cannot be read: each listed on stderr with why).

A query set's ``doc`` names are matched to the site's as the app matches them
(:func:`explorer.evaluation.queries.match_documents`): by relative path, else by a unique file
name. A question whose document matches none is left out, one ``left out:`` line on stderr for
each such document with why (ambiguous, not in the site, a file that could not be used); when no
question is left to run, the command stops with one line and status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from explorer.cli.stderr import print_skipped
from explorer.documents.folder import Skipped, check_folder, site_names
from explorer.documents.model import display_name
from explorer.errors import DocumentError, QuerySetError
from explorer.evaluation.queries import Query, Unmatched, match_document, match_documents
from explorer.workspace import Workspace

HELP = (
    "the site's folder: every file below it, each named by its path in it (as the app's "
    "--docs); a query set's doc names match by that path, else by a unique file name"
)
"""``--docs``'s help, the same for every command that takes a site."""


def site(folder: str | Path) -> Workspace:
    """A workspace over the site in ``folder`` (read on first need, folders inside and all);
    a path that is not a folder is one :class:`DocumentError`."""
    return Workspace(check_folder(folder), recursive=True)


def matched_queries(
    queries: Sequence[Query], workspace: Workspace, *, scope: str
) -> tuple[list[Query], list[Unmatched]]:
    """The ``queries`` whose document the site has, each renamed to the site's name for it, and
    the documents left out with why (each printed as one ``left out:`` line on stderr, after
    the files the site skipped in corpus scope, each a ``skipped:`` line).

    In corpus scope the names are the documents that loaded (:meth:`Workspace.names`); in
    document scope, the names the site's files would have (no file is read to match). A name
    that reaches outside the folder is refused, as ever; no question left is one
    :class:`QuerySetError` that says why the first document was left out."""
    folder = _folder_of(workspace)
    if scope == "corpus":
        names, refused = workspace.names(), _by_name(workspace.skipped, folder)
    else:
        found, skipped = site_names(folder)
        names, refused = found, _by_name(skipped, folder)
    for doc in dict.fromkeys(q.doc for q in queries):
        if doc not in refused:  # a file of the site refused is left out below, with why
            workspace.inside(doc)  # an absolute path, a `..` that climbs out: one line
    kept, left = match_documents(queries, names)
    left = [_with_skip_reason(u, refused) for u in left]
    if not kept and left:
        more = len(left) - 1
        others = f" (and {more} more document{'s' if more != 1 else ''} left out)" if more else ""
        raise QuerySetError(
            f"no question can run: {left[0].line()}{others}; the site is {display_name(folder)}"
        )
    if scope == "corpus":  # what the site skipped, before the work
        print_skipped(workspace.skipped)
    for u in left:
        print(f"left out: {u.line()}", file=sys.stderr)
    return kept, left


def left_out_json(left: Sequence[Unmatched]) -> list[dict[str, Any]]:
    """The documents left out, for ``--json``."""
    return [{"doc": u.doc, "questions": u.questions, "reason": u.reason} for u in left]


def site_document(name: str, workspace: Workspace) -> str:
    """The site's name for one document a lesson names (matched as a query set's are); a name
    that matches none is one :class:`QuerySetError` with why."""
    folder = _folder_of(workspace)
    names, skipped = site_names(folder)
    refused = _by_name(skipped, folder)
    if name not in refused:
        workspace.inside(name)
    found, reason = match_document(name, names)
    if found is None:
        u = _with_skip_reason(Unmatched(name, reason, 1), refused)
        raise QuerySetError(f"document {name!r} is not in {display_name(folder)}: {u.reason}")
    return found


def _folder_of(workspace: Workspace) -> Path:
    if workspace.docs_dir is None:
        raise DocumentError("no documents folder was given; give it with --docs")
    return workspace.docs_dir


def _by_name(skipped: Sequence[Skipped], folder: Path) -> dict[str, str]:
    """The reason each file below ``folder`` was skipped, by the name it would have had."""
    out: dict[str, str] = {}
    for s in skipped:
        try:
            out.setdefault(display_name(s.path.relative_to(folder).as_posix()), s.reason)
        except ValueError:
            continue
    return out


def _with_skip_reason(u: Unmatched, refused: dict[str, str]) -> Unmatched:
    """``u`` with the reason its file was skipped, where the name is a file the site refused or
    could not load (a link that leaves the folder, a file that cannot be read, a duplicate)."""
    reason = refused.get(u.doc)
    return u if reason is None else replace(u, reason=f"the file was not used ({reason})")
