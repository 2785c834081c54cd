"""Questions across two versions of a document: each one answered on the old version and on the
new, its verdict before and after, and whether it changed (complete on one, not on the other).

The Explore page's "what changed since" panel and ``python -m explorer diff --queries`` both
call :func:`version_verdicts`, so they cannot disagree; each words the verdicts where it shows
them (the page by their kind, the command by their sentence)::

    for v in version_verdicts(ws, old, new, queries, config=Config(), k=5):
        if v.changed:
            print(v.query.id, v.before and v.before.kind, "→", v.after and v.after.kind)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.answer import DEFAULT_K
from explorer.config import Config
from explorer.documents.model import Document
from explorer.evaluation.queries import Query

if TYPE_CHECKING:
    from explorer.retrieval.evidence import Verdict
    from explorer.workspace import Workspace


@dataclass(frozen=True)
class VersionVerdict:
    """One question answered on both versions: its verdict on the old one (``before``) and on
    the new one (``after``); ``None`` where the question has no evidence to check."""

    query: Query
    before: Verdict | None
    after: Verdict | None

    @property
    def changed(self) -> bool:
        """Complete on one version and not on the other."""
        return _complete(self.before) != _complete(self.after)


def _complete(verdict: Verdict | None) -> bool:
    return verdict is not None and verdict.complete


def version_verdicts(
    ws: Workspace,
    old: str | Document,
    new: str | Document,
    queries: Sequence[Query],
    *,
    config: Config,
    k: int | None = DEFAULT_K,
    budget: int | None = None,
) -> list[VersionVerdict]:
    """Each of ``queries`` asked of ``old`` and of ``new`` under ``config``, ``k`` and
    ``budget``, through the workspace (nothing is chunked or embedded twice: it keeps both
    versions' retrievers), in the order given. The queries' own ``doc`` is not read: they are
    asked of the two versions."""
    out = []
    for q in queries:
        was, now = (
            ws.ask(d, q.query, q.evidence, config=config, k=k, budget=budget) for d in (old, new)
        )
        out.append(VersionVerdict(q, was.verdict, now.verdict))
    return out
