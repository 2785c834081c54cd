"""The main page's view as one frozen record: the address bar's link, a lesson's steps, "open at
hit" on the Corpus page and "open in the explorer" on the Evaluate page are all made from a
:class:`View`, and read back into the session state through :meth:`View.state` — the one place
that knows which widget shows which part of it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from explorer.chunking.adapters import regex_options
from explorer.chunking.edits import Reapplied, decode_link, encode_link
from explorer.config import Config
from explorer.errors import ExplorerError
from ui.allowed import check_config
from ui.settings import BUDGETS, TOP_K_MAX, config_of, state_of

if TYPE_CHECKING:
    from explorer.evaluation.lessons import Lesson

VIEWS = ("Chunks", "Query hits", "Heat")
"""What the document view tints: every chunk, the retrieved hits, or every chunk by its score."""
LINK_VIEWS = {"chunks": "Chunks", "hits": "Query hits", "heat": "Heat"}
"""The views' names in a link."""
DEFAULT_K = 5
DEFAULT_BUDGET = 512


def query_keys(source: str) -> tuple[str, str]:
    """Widget keys of the question and evidence boxes of one document.

    Each document has its own pair, so a run cut short by a document switch (the browser sends
    back the boxes it last showed) never carries one document's question into another's.
    """
    return f"question::{source}", f"evidence::{source}"


@dataclass(frozen=True)
class View:
    """Everything the main page shows: the document, the configuration, the question and its
    evidence (the box's text, a phrase a line), k and the budget, the selected chunk, the view of
    the document, the PDF page, the lesson it is at (``repair``: ``None`` at the failing setting)
    and presentation mode. ``uploaded``: the document is an upload (a link cannot carry it)."""

    source: str
    config: Config = field(default_factory=Config)
    question: str = ""
    evidence: str = ""
    k: int = DEFAULT_K
    budget: int | None = DEFAULT_BUDGET
    chunk: int | None = None
    view: str = "Query hits"
    page: int = 1
    lesson: str | None = None
    repair: int | None = None
    present: bool = False
    uploaded: bool = False
    edits: str = ""
    """What-if edits to the chunking, in the compact form of links (``m3.s1250.d7``; see
    :mod:`explorer.chunking.edits`): they belong to this document and chunking. A link's carry
    their anchors (``m3~77b2e0aa``)."""
    edits_from: str | None = None
    """Where ``edits`` were made when a link brought them: the version of the document the link
    names (``Document.version``; ``""`` when it names none), so that they are checked against
    the document shown before they apply (:func:`explorer.chunking.edits.reapply`); ``None`` for
    the session's own edits. A link made from a view writes it as ``version``."""

    def replace(self, **changes: Any) -> View:
        return replace(self, **changes)

    @classmethod
    def of_lesson(cls, lesson: Lesson, repair: int | None = None) -> View:
        """The view of ``lesson`` at its failing setting, or after repair ``repair`` (from 1):
        its document, question, evidence (a phrase a line) and setting; no chunk selected, hits
        shown."""
        setting = lesson.failing if not repair else lesson.repaired(repair)
        return cls(
            lesson.doc,
            setting.config,
            lesson.question,
            "\n".join(lesson.evidence),
            setting.k,
            setting.budget,
            lesson=lesson.name,
            repair=repair or None,
        )

    # ------------------------------------------------------------------ session state

    def state(self) -> dict[str, Any]:
        """The session-state values that show this view in the main page's widgets."""
        question_key, evidence_key = query_keys(self.source)
        return {
            **state_of(self.config),
            "source": self.source,
            question_key: self.question,
            evidence_key: self.evidence,
            "k": self.k,
            "budget": self.budget,
            "chunk": self.chunk,
            "view": self.view,
            "page": self.page,
            "lesson": self.lesson,
            "present": self.present,
            "edits": edit_state(self.source, self.config, self.edits),
            "edits_from": self.edits_from if self.edits else None,
            # the view's question is not a new one: its view stands (a new question shows hits)
            "asked": f"{self.source}\n{self.question.strip()}",
        }

    def apply(self, state: Any) -> None:
        """Show this view: its values into ``state`` (before the widgets are drawn, or from a
        callback), the question and evidence remembered for its document."""
        state.update(self.state())
        queries = dict(state.get("queries", {}))
        queries[self.source] = (self.question, self.evidence)
        state["queries"] = queries

    @classmethod
    def of(cls, state: Any, *, config: Config | None = None, uploaded: bool = False) -> View:
        """The view the main page's session state shows (``config``: when already read)."""
        source = state["source"]
        question_key, evidence_key = query_keys(source)
        return cls(
            source=source,
            config=config if config is not None else config_of(state),
            question=state.get(question_key, ""),
            evidence=state.get(evidence_key, ""),
            k=state.get("k", DEFAULT_K),
            budget=state.get("budget", DEFAULT_BUDGET),
            chunk=state.get("chunk"),
            view=state.get("view", "Query hits"),
            page=state.get("page", 1),
            lesson=state.get("lesson"),
            present=bool(state.get("present", False)),
            uploaded=uploaded,
            edits=edits_of(state, source, config if config is not None else config_of(state)),
            edits_from=state.get("edits_from"),
        )

    # ------------------------------------------------------------------ links

    def params(self, *, pdf: bool = False) -> dict[str, str]:
        """The view as URL query parameters (see :meth:`from_params`); ``pdf``: the page counts.
        A view at a lesson's step names the lesson instead of its settings."""
        out: dict[str, str] = {}
        if self.lesson is not None:
            out["lesson"] = self.lesson
            if self.repair:
                out["repair"] = str(self.repair)
        if self.present:
            out["present"] = "1"
        out["doc"] = self.source
        if self.uploaded:
            out["upload"] = "1"
        spec = self.config.to_spec()
        if spec:
            out["config"] = spec
        out["k"] = str(self.k)
        out["budget"] = "none" if self.budget is None else str(self.budget)
        if self.question:
            out["q"] = self.question
        if self.evidence.strip():
            out["e"] = self.evidence
        if self.edits:
            out["edits"] = self.edits
            if self.edits_from:
                out["version"] = self.edits_from
        if self.chunk is not None:
            out["chunk"] = str(self.chunk)
        names = {v: n for n, v in LINK_VIEWS.items()}
        if self.view in names and self.view != "Query hits":
            out["view"] = names[self.view]
        if pdf and self.page != 1:
            out["page"] = str(self.page)
        return out

    @classmethod
    def from_params(
        cls,
        params: Mapping[str, Any],
        *,
        start: View,
        samples: Collection[str],
        lessons: Mapping[str, Lesson] | None = None,
    ) -> Opened:
        """The view a link's query parameters stand for, over ``start`` (what the app opens on
        without a link): the parts the link leaves out, or cannot use, are ``start``'s.

        A link naming one of ``lessons`` (``lesson=NAME``, ``repair=N``) opens that lesson at its
        failing setting or after repair N, whatever else it says. A link to a document that is
        not a sample (an upload, which a link cannot carry) is kept as ``waiting``: shown when a
        file of that name is uploaded.
        """
        if not params:
            return Opened(start)
        notes = []
        present = _one(params, "present") == "1"
        name = _one(params, "lesson")
        lesson = (lessons or {}).get(name or "")
        if name is not None and lesson is None:
            notes.append(f"There is no lesson {name!r} here; the link's own settings are shown.")
        if lesson is not None:
            repair = _whole(_one(params, "repair"), 0, len(lesson.repairs))
            view = cls.of_lesson(lesson, repair or None)
            view = _view_params(params, view, notes).replace(present=present)
            return Opened(view, _note(notes))
        source = _one(params, "doc")
        # a link to a document opens it as choosing it would: what the link leaves out is that
        # document's recommended view, not the opening lesson's settings (its k of 2, say)
        view = (View(source) if source is not None else start).replace(present=present)
        spec = _one(params, "config") or ""
        try:
            config, note = without_regexes(check_config(Config.from_spec(spec)))
            if note:
                notes.append(note)
            view = view.replace(config=config)
        except ExplorerError as exc:
            notes.append(
                f"The link's settings cannot be used ({exc}); the starting ones are shown."
            )
        k = _whole(_one(params, "k"), 1, TOP_K_MAX)
        if k is not None:
            view = view.replace(k=k)
        budget = _one(params, "budget")
        if budget == "none":
            view = view.replace(budget=None)
        elif budget is not None and budget.isdigit() and int(budget) in BUDGETS:
            view = view.replace(budget=int(budget))
        if source is not None:
            view = view.replace(
                source=source, question=_one(params, "q") or "", evidence=_one(params, "e") or ""
            )
        view = _view_params(params, view, notes)
        if source is not None and source not in samples:
            kind = "a document uploaded in another session" if _one(params, "upload") else "a file"
            notes.append(
                f"This link shows {source}, {kind} that a link cannot carry: upload a file named "
                f"{source} here to see that view (its question and settings are kept for it)."
            )
            return Opened(start.replace(present=present), _note(notes), waiting=view)
        return Opened(view, _note(notes))


@dataclass(frozen=True)
class Opened:
    """What a link opens: the view to show, a note when part of it cannot be shown, and a view
    waiting for its document to be uploaded."""

    view: View
    note: str | None = None
    waiting: View | None = None


def _note(notes: list[str]) -> str | None:
    return " ".join(notes) or None


def _one(params: Mapping[str, Any], key: str) -> str | None:
    value = params.get(key)
    if isinstance(value, list):
        value = value[-1] if value else None
    return None if value is None else str(value)


def _whole(text: str | None, low: int, high: int) -> int | None:
    try:
        return min(max(int(text), low), high) if text is not None else None
    except ValueError:
        return None


def without_regexes(config: Config, *, side: str = "") -> tuple[Config, str | None]:
    """``config`` with the regular expressions a link set left out (a pattern can keep the whole
    server busy for minutes, so one from a link is never run), and the note that says so
    (``side`` names the configuration, as " for A")."""
    regexes = regex_options(config.chunking)
    if not regexes:
        return config, None
    kept = {k: v for k, v in config.chunking.options if k not in regexes}
    return config.replace(options=kept), (
        f"The link's regular expression in {' and '.join(regexes)}{side} was left out "
        "(the default is used): a link may not set one, as a pattern can keep the "
        "app busy for minutes. One you set yourself runs under a time limit."
    )


def _view_params(params: Mapping[str, Any], view: View, notes: list[str] | None = None) -> View:
    """The selected chunk, the view, the PDF page and the what-if edits a link names, over
    ``view`` (edits that cannot be read are left out, with a note in ``notes``)."""
    edits = _one(params, "edits")
    if edits:
        version = _one(params, "version") or ""
        if version and not _VERSION.fullmatch(version):
            version = ""  # unreadable: checked as a link that names no version
        try:
            link = decode_link(edits, version=version)
            view = view.replace(edits=encode_link(link.edits, link.anchors), edits_from=version)
        except ExplorerError as exc:
            if notes is not None:
                notes.append(
                    f"The link's edits cannot be used ({exc}); the chunking is shown as cut."
                )
    chunk = _whole(_one(params, "chunk"), 0, 10**9)
    if chunk is not None:
        view = view.replace(chunk=chunk)
    shown = LINK_VIEWS.get(_one(params, "view") or "hits")
    if shown is not None:
        view = view.replace(view=shown)
    page = _whole(_one(params, "page"), 1, 10**6)
    if page is not None:
        view = view.replace(page=page)
    return view


_VERSION = re.compile(r"[0-9a-f]{12}")
"""A link's ``version``: ``Document.version``, 12 hex digits of the file's SHA-256."""


def reapplied_note(name: str, placed: Reapplied) -> str | None:
    """What the page says of a link's edits read against ``name`` (None: nothing to say, the
    link was made on this version)."""
    n = len(placed.edits) + len(placed.left_out)
    if placed.version == "same" or not n:
        return None
    applied = len(placed.edits)
    of = f"{applied} of {n} edit{'s' if n != 1 else ''}"
    if placed.version == "other":
        head = (
            f"This link was made on another version of {name}; {of} still appl"
            f"{'ies' if applied == 1 else 'y'} where "
            f"{'its' if applied == 1 else 'their'} text stands"
        )
    else:
        head = (
            f"This link does not record which version of {name} its edits were made on; {of} "
            f"appl{'ies' if applied == 1 else 'y'} (a split only where a sentence, a paragraph "
            "or a block ends)"
        )
    if placed.moved:
        head += f" ({placed.moved} moved with {'its' if placed.moved == 1 else 'their'} text)"
    if not placed.left_out:
        return head + "."
    gone = "; ".join(f"{e.describe()}: {why}" for e, why in placed.left_out[:3])
    more = f"; and {len(placed.left_out) - 3} more" if len(placed.left_out) > 3 else ""
    out = len(placed.left_out)
    return f"{head}, {out} {'was' if out == 1 else 'were'} left out ({gone}{more})."


def edit_scope(source: str, config: Config) -> str:
    """What edits belong to: one document under one chunking (another chunking's chunks are
    numbered otherwise, so its edits would not mean the same)."""
    return f"{source}\n{config.chunking.key()}"


def edit_state(source: str, config: Config, edits: str) -> tuple[str, str]:
    """The session state's ``edits``: the scope they belong to and the edits."""
    return (edit_scope(source, config), edits)


def edits_of(state: Any, source: str, config: Config) -> str:
    """The edits in ``state`` when they belong to ``source`` under ``config``, else none."""
    held = state.get("edits")
    if isinstance(held, tuple) and len(held) == 2 and held[0] == edit_scope(source, config):
        return str(held[1])
    return ""


def link_url(base: str | None, params: Mapping[str, str]) -> str:
    """The link to ``params`` on the app at ``base`` (its address in the browser, if known)."""
    query = urlencode(params)
    root = (base or "").split("?", 1)[0]
    return f"{root}?{query}" if root else f"?{query}"
