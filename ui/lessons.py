"""The boundary lessons as the app offers them: those that fit its widgets, the one the app opens
on (lesson 1), where the main page stands in one, and presentation mode. The view of a lesson's
step is :meth:`ui.view_state.View.of_lesson`."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from explorer.evaluation.lessons import Lesson, Setting, read_lessons
from ui.safe import md_text
from ui.settings import BUDGETS, NEIGHBOURS_MAX, TOP_K_MAX, describe_config
from ui.sources import SAMPLES_DIR, sample_paths
from ui.view_state import View


def starting_query(source: str) -> tuple[str, str]:
    """The question and evidence box contents a document opens with: the first lesson's on that
    document (for the opening document, lesson 1's), else empty."""
    lesson = next((a for a in LESSONS.values() if a.doc == source), None)
    if lesson is not None:
        return lesson.question, "\n".join(lesson.evidence)
    return "", ""


def bundled_lessons(
    folder: Path | None = None, *, samples: Collection[str] | None = None
) -> tuple[dict[str, Lesson], list[str]]:
    """The lessons by name, and one message per lesson file that cannot be used: it cannot be
    read, its document is not among the samples, or one of its settings is beyond what the app's
    widgets offer."""
    found, problems = read_lessons(folder)
    names = {p.name for p in sample_paths()} if samples is None else set(samples)
    out: dict[str, Lesson] = {}
    for lesson in found:
        if lesson.doc not in names:
            problems.append(
                f"{lesson.name}.toml: doc: {lesson.doc!r} is not a sample document; put the file "
                f"in {SAMPLES_DIR.name}/ or fix the name"
            )
            continue
        beyond = [
            f"{lesson.name}.toml: {step}: {why}"
            for step, setting in lesson.settings()
            if (why := beyond_widgets(setting))
        ]
        if beyond:
            problems.extend(beyond)
        else:
            out[lesson.name] = lesson
    return out, problems


def beyond_widgets(setting: Setting) -> str | None:
    """What in ``setting`` the app's widgets cannot show (``None``: all of it fits)."""
    if setting.k > TOP_K_MAX:
        return f"k must be at most {TOP_K_MAX} (the Top k slider), got {setting.k}"
    if setting.budget not in BUDGETS:
        offered = ", ".join("none" if b is None else str(b) for b in BUDGETS)
        return f"budget must be one of {offered} (the budget picker), got {setting.budget}"
    if setting.config.neighbours > NEIGHBOURS_MAX:
        return (
            f"neighbours must be at most {NEIGHBOURS_MAX} (the Neighbours slider), got "
            f"{setting.config.neighbours}"
        )
    return None


LESSONS, LESSON_PROBLEMS = bundled_lessons()
"""The bundled lessons by name (in file-name order) and the files that could not be used."""


OPENING: Lesson | None = next(iter(LESSONS.values()), None)
"""The lesson the app opens on: lesson 1, the first in file-name order ("A rule and its
exception": the refund policy at fixed 250-character windows, top 2, a 512-token budget)."""


def opening_view() -> View:
    """What the app opens on without a link: lesson 1 at its failing setting (were no lesson
    usable, the first sample at the recommended configuration)."""
    if OPENING is not None:
        return View.of_lesson(OPENING)
    samples = sample_paths()
    return View(samples[0].name if samples else "")


def lesson_step(
    lesson: Lesson,
    *,
    source: str,
    question: str,
    evidence: Sequence[str],
    setting: Setting,
) -> int | None:
    """Where the view stands in ``lesson``: 0 at its failing setting, ``n`` after repair ``n``,
    ``None`` when the document, question, evidence or settings are not one of the lesson's."""
    if source != lesson.doc or question.strip() != lesson.question:
        return None
    if tuple(evidence) != lesson.evidence:
        return None
    if setting == lesson.failing:
        return 0
    for n in range(1, len(lesson.repairs) + 1):
        if setting == lesson.repaired(n):
            return n
    return None


def lesson_status(lesson: Lesson, step: int | None) -> str:
    """A line saying where the lesson stands (Markdown)."""
    if step is None:
        return (
            "The settings, question or evidence have been changed by hand: *Reset to the failing "
            "setting* starts the lesson again."
        )
    if step == 0:
        return f"At the failing setting: {md_text(describe_setting(lesson.failing))}."
    return f"After repair {step}, **{md_text(lesson.repairs[step - 1].label)}**."


def describe_setting(setting: Setting) -> str:
    """``"fixed, 250 chars, overlap 0, hybrid, fill off; top 2; 512-token budget"``."""
    budget = "no budget" if setting.budget is None else f"{setting.budget:,}-token budget"
    return f"{describe_config(setting.config)}; top {setting.k}; {budget}"


def lesson_links(lesson: Lesson) -> list[tuple[str, dict[str, str]]]:
    """A link for the lesson (its failing setting) and one for each repair, with a label."""
    out = [(f"{lesson.title} (failing)", {"lesson": lesson.name})]
    for n, move in enumerate(lesson.repairs, 1):
        out.append((f"Repair {n}: {move.label}", {"lesson": lesson.name, "repair": str(n)}))
    return out


PAGE_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 1.2rem; padding-bottom: 3rem; }
[data-testid="stSidebarUserContent"] { padding-top: 0.5rem; }
.st-key-ce_lesson [data-testid="stButton"] button { padding: 0.1rem 0.6rem; min-height: 2rem; }
.st-key-ce_title p { margin-bottom: 0; }
</style>"""
"""The app's own spacing: less room above the page, so the document starts on the first screen."""

PRESENTATION_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stSidebarCollapseButton"], [class*="st-key-ce_hide_"] { display: none !important; }
[data-testid="stMain"] { font-size: 1.3rem; }
[data-testid="stMain"] p, [data-testid="stMain"] li { font-size: 1.3rem; line-height: 1.5; }
.st-key-ce_lesson h2 { font-size: 2.4rem; }
.st-key-ce_lesson .ce-question { font-size: 1.8rem; font-weight: 600; margin: 0.2em 0 0.4em; }
[data-testid="stAlert"] p { font-size: 1.5rem; }
.ce-doc { font-size: 1.35rem !important; line-height: 1.7 !important; }
.st-key-doc_view { max-height: max(300px, calc(100vh - 480px)) !important; }
</style>"""
"""Presentation mode: the sidebar folded away, only the lesson, the question, the verdict and the
document, in larger text for a projector (the parts shown otherwise sit in containers whose key
starts with ``ce_hide_``); the document view is cut to the window's height below the lesson, so
the best hit, scrolled to its top, and the text after it are in sight (at 1280x800 too)."""
