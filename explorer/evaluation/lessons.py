"""Boundary lessons: a document, a question, the evidence its answer needs, a setting at which the
answer is incomplete, one line on why, and the moves that each repair it.

A lesson is one TOML file in the lessons folder (``lessons/`` in a checkout, see
:func:`explorer.resources.lessons_dir`), so a teacher can add one without code::

    title = "A rule and its exception"
    doc = "refund-policy.md"              # a file in the samples folder
    question = "How long do I have to ask for a refund?"
    evidence = ["within seven days", "does not apply to downloaded materials"]
    why = "Fixed 250-character windows cut the rule from its exception."

    [failing]                             # flat settings (see explorer.config), k and budget
    splitter = "fixed"
    unit = "chars"
    size = 250
    overlap = 0
    fill = false
    k = 2
    budget = 512                          # or "none"

    [[repairs]]                           # one move each, applied to the failing setting
    label = "Split by sentence"
    set = { splitter = "sentence" }

    [[no_help]]                           # optional: moves that do not repair it
    label = "Retrieve 5 chunks"
    set = { k = 5 }

Settings the failing table leaves out are the recommended ones (``Config()``). Every problem is
one :class:`~explorer.errors.LessonError` naming the file, the field and what is wrong.

:func:`check_lesson` answers the question through :meth:`explorer.workspace.Workspace.ask` (the
app's answer path) at the failing setting, after each repair and after each move that should not
help; ``explorer lessons check`` runs it over every lesson.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.config import FLAT_KEYS, SIZE_KEYS, Config
from explorer.errors import ExplorerError, LessonError
from explorer.evaluation.queries import Query

if TYPE_CHECKING:
    from explorer.answer import Answer
    from explorer.documents.model import Document
    from explorer.workspace import Workspace

FIELDS = ("title", "doc", "question", "evidence", "why", "failing", "repairs", "no_help", "note")
"""The top-level fields of a lesson file (``note`` and ``no_help`` are optional)."""
MOVE_FIELDS = ("label", "set", "why")


@dataclass(frozen=True)
class Setting:
    """Everything that decides an answer besides the question: the configuration, k, budget."""

    config: Config = field(default_factory=Config)
    k: int = 5
    budget: int | None = None

    def apply(self, changes: Mapping[str, Any]) -> Setting:
        """This setting with ``changes`` (flat configuration keys, ``k`` and ``budget``).

        A move is one change: a new splitter, unit or size keeps this setting's overlap unless
        the changes give one (``Config.replace`` would reset it to the default share).
        """
        rest = {key: v for key, v in changes.items() if key not in ("k", "budget")}
        if "overlap" not in rest and any(key in rest for key in SIZE_KEYS):
            rest["overlap"] = self.config.chunking.overlap
        return Setting(
            config=self.config.replace(**rest) if rest else self.config,
            k=changes.get("k", self.k),
            budget=changes.get("budget", self.budget),
        )

    def spec(self) -> str:
        """``"splitter=fixed,…; k=2; budget=512"``: the setting in one line."""
        budget = "none" if self.budget is None else str(self.budget)
        return f"{self.config.to_spec() or 'recommended'}; k={self.k}; budget={budget}"


@dataclass(frozen=True)
class Move:
    """One change to the failing setting: a label for the button, the changes, and why."""

    label: str
    changes: Mapping[str, Any]
    why: str = ""


@dataclass(frozen=True)
class Lesson:
    """One boundary lesson (see the module). ``name`` is the file's stem."""

    name: str
    title: str
    doc: str
    question: str
    evidence: tuple[str, ...]
    why: str
    failing: Setting
    repairs: tuple[Move, ...]
    no_help: tuple[Move, ...] = ()
    note: str = ""
    """More to say to the class: what to look at once it is repaired."""

    def repaired(self, n: int) -> Setting:
        """The failing setting after repair ``n`` (numbered from 1, as in a link)."""
        if not 1 <= n <= len(self.repairs):
            raise LessonError(f"lesson {self.name!r} has no repair {n}")
        return self.failing.apply(self.repairs[n - 1].changes)

    def settings(self) -> list[tuple[str, Setting]]:
        """The failing setting, each repair's and each no-help move's, with a name each."""
        out = [("failing", self.failing)]
        out += [(f"repair {n}", self.repaired(n)) for n in range(1, len(self.repairs) + 1)]
        out += [
            (f"no help {n}", self.failing.apply(m.changes)) for n, m in enumerate(self.no_help, 1)
        ]
        return out

    def query(self) -> Query:
        """The lesson as a query-set entry (its id is the lesson's name)."""
        return Query(id=self.name, doc=self.doc, query=self.question, evidence=self.evidence)


# --------------------------------------------------------------------------- reading


def _text(data: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        got = "missing" if value is None else f"got {value!r}"
        raise LessonError(f"{where}: {key!r} must be a non-empty string ({got})")
    return " ".join(value.split())


def _setting(base: Setting, changes: Any, where: str) -> tuple[Setting, dict[str, Any]]:
    """``base`` with the settings table ``changes``; every problem names ``where``."""
    if not isinstance(changes, Mapping) or not changes:
        raise LessonError(
            f'{where}: must be a table of settings such as {{ splitter = "sentence" }}'
        )
    flat: dict[str, Any] = {}
    for key, value in changes.items():
        if key == "k":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise LessonError(f"{where}: k must be a whole number, 1 or more, got {value!r}")
        elif key == "budget":
            value = None if value == "none" else value
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise LessonError(
                    f'{where}: budget must be a number of tokens, 1 or more, or "none"; '
                    f"got {value!r}"
                )
        elif key not in FLAT_KEYS:
            raise LessonError(
                f"{where}: unknown setting {key!r}; known: k, budget, {', '.join(FLAT_KEYS)}"
            )
        flat[key] = value
    try:
        return base.apply(flat), flat
    except ExplorerError as exc:
        raise LessonError(f"{where}: {exc}") from None


def _moves(data: Any, failing: Setting, where: str, *, required: bool) -> tuple[Move, ...]:
    if data is None and not required:
        return ()
    if not isinstance(data, list) or not data:
        raise LessonError(f"{where}: must be a list of moves, each [[{where.rsplit(' ', 1)[-1]}]] "
                          "with a label and a set table")  # fmt: skip
    out = []
    for n, item in enumerate(data, 1):
        at = f"{where} {n}"
        if not isinstance(item, Mapping):
            raise LessonError(f"{at}: must be a table with a label and a set table")
        unknown = sorted(set(item) - set(MOVE_FIELDS))
        if unknown:
            raise LessonError(f"{at}: unknown field(s) {', '.join(unknown)}; known: "
                              f"{', '.join(MOVE_FIELDS)}")  # fmt: skip
        label = _text(item, "label", at)
        _, changes = _setting(failing, item.get("set"), f"{at}: set")
        out.append(Move(label, changes, _text(item, "why", at, required=False)))
    return tuple(out)


def parse_lesson(data: Mapping[str, Any], *, name: str, source: str) -> Lesson:
    """Validate a decoded lesson file; every problem names ``source`` and the field."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise LessonError(
            f"{source}: unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELDS)}"
        )
    title = _text(data, "title", source)
    doc = _text(data, "doc", source)
    question = _text(data, "question", source)
    evidence = data.get("evidence")
    if (
        not isinstance(evidence, list)
        or not evidence
        or not all(isinstance(e, str) and e.strip() for e in evidence)
    ):
        raise LessonError(
            f"{source}: 'evidence' must be a list of the phrases the answer needs, such as "
            f'["within seven days"] (got {evidence!r})'
        )
    failing, _ = _setting(Setting(), data.get("failing"), f"{source}: [failing]")
    return Lesson(
        name=name,
        title=title,
        doc=doc,
        question=question,
        evidence=tuple(dict.fromkeys(e.strip() for e in evidence)),
        why=_text(data, "why", source),
        failing=failing,
        repairs=_moves(data.get("repairs"), failing, f"{source}: repairs", required=True),
        no_help=_moves(data.get("no_help"), failing, f"{source}: no_help", required=False),
        note=_text(data, "note", source, required=False),
    )


def load_lesson(path: str | Path) -> Lesson:
    """The lesson in the TOML file at ``path``."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LessonError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise LessonError(f"{path.name}: is not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(f"{path.name}: is not valid TOML ({exc})") from None
    except (RecursionError, ValueError):  # tomllib: nested past the stack, or a huge number
        raise LessonError(
            f"{path.name}: cannot be read as a lesson (nested too deeply, or a number too long)"
        ) from None
    return parse_lesson(data, name=path.stem, source=path.name)


def load_lessons(folder: str | Path | None = None) -> list[Lesson]:
    """Every lesson in ``folder`` (default: the bundled lessons), in file-name order."""
    if folder is None:
        from explorer.resources import lessons_dir

        folder = lessons_dir()
    folder = Path(folder)
    if not folder.is_dir():
        raise LessonError(f"{folder}: no such lessons folder")
    return [load_lesson(p) for p in sorted(folder.glob("*.toml"))]


# --------------------------------------------------------------------------- checking


@dataclass(frozen=True)
class Outcome:
    """One of a lesson's settings answered: what was expected and what came."""

    lesson: str
    step: str
    """``"failing"``, ``"repair N"`` or ``"no help N"``."""
    label: str
    setting: Setting
    answer: Answer

    @property
    def expected(self) -> bool:
        """A repair should be complete; the failing setting and a no-help move should not."""
        return self.step.startswith("repair")

    @property
    def ok(self) -> bool:
        return self.answer.scored and self.answer.complete == self.expected

    def to_json(self) -> dict[str, Any]:
        return {
            "lesson": self.lesson,
            "step": self.step,
            "label": self.label,
            "setting": self.setting.spec(),
            "expected": "complete" if self.expected else "incomplete",
            "verdict": None if self.answer.verdict is None else self.answer.verdict.sentence(),
            "ok": self.ok,
        }


def check_lesson(
    lesson: Lesson,
    doc: Document,
    *,
    answer: Callable[[Document, Setting, Sequence[str], str], Answer] | None = None,
    workspace: Workspace | None = None,
) -> list[Outcome]:
    """The lesson's question answered at each of its settings (see :meth:`Lesson.settings`).

    ``answer`` answers one question at one setting (default: ``workspace``'s answer, the app's
    answer path; a new workspace when none is given).
    """
    if answer is None:
        from explorer.workspace import Workspace

        ws = workspace if workspace is not None else Workspace()

        def answer(d: Document, s: Setting, evidence: Sequence[str], question: str) -> Answer:
            return ws.ask(d, question, evidence, config=s.config, k=s.k, budget=s.budget)

    labels = {"failing": "the failing setting"}
    labels |= {f"repair {n}": m.label for n, m in enumerate(lesson.repairs, 1)}
    labels |= {f"no help {n}": m.label for n, m in enumerate(lesson.no_help, 1)}
    return [
        Outcome(
            lesson.name, step, labels[step], s, answer(doc, s, lesson.evidence, lesson.question)
        )
        for step, s in lesson.settings()
    ]


def read_lessons(folder: str | Path | None = None) -> tuple[list[Lesson], list[str]]:
    """Every lesson in ``folder`` that can be read, and one message for each file that cannot
    (for the app: a teacher's broken file is named, and the other lessons still open)."""
    if folder is None:
        from explorer.resources import lessons_dir

        folder = lessons_dir()
    folder = Path(folder)
    if not folder.is_dir():
        return [], []
    good: list[Lesson] = []
    bad: list[str] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            good.append(load_lesson(path))
        except LessonError as exc:
            bad.append(str(exc))
    return good, bad
