"""Presets: the published chunking baselines, each with its source and what the source claimed.

A :class:`Preset` names the :meth:`Config.replace` changes it stands for (applied to the
recommended configuration), where the setting was published, the one-line claim made there,
and — where the claim compares the setting with others — an :class:`Expectation` an A/B can
check: the preset against ours (``Config()``) on coverage@k, with the exact paired test and the
bootstrap interval of :mod:`explorer.evaluation.stats`.

:func:`agreement` reads such an A/B (A = ours, B = the preset) as one of three verdicts:

* ``agrees`` — the test finds a difference (p below alpha, the interval excludes 0) in the
  direction the claim says;
* ``no detectable difference`` — it finds none on these questions (a valid answer, not a
  failure: the set may be too small, or the two alike);
* ``disagrees`` — it finds one in the other direction.

The claims compare a setting with the *other strategies tested* in each study; here the one
other strategy is ours, so "below average" is read as "below ours". That reading is stated with
every verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from explorer.config import Config
from explorer.errors import SettingsError
from explorer.evaluation.stats import PairedComparison

Direction = Literal["lower", "higher"]
VERDICTS = ("agrees", "no detectable difference", "disagrees")


@dataclass(frozen=True)
class Expectation:
    """What the claim predicts for the preset against ours: its coverage ``lower`` or
    ``higher``."""

    direction: Direction
    reading: str
    """How the claim is read as this comparison, in one line."""

    def __post_init__(self) -> None:
        if self.direction not in ("lower", "higher"):
            raise SettingsError(f"an expectation is lower or higher, got {self.direction!r}")


@dataclass(frozen=True)
class Preset:
    """One published baseline: a name for the command line, a title, its settings, its source."""

    name: str
    title: str
    changes: Mapping[str, Any]
    """The :meth:`Config.replace` changes, by flat name (empty: the recommended configuration)."""
    source: str
    """The publication, as text."""
    url: str
    claim: str
    """What the source said of this setting, in one line."""
    expectation: Expectation | None = None
    changes_items: tuple[tuple[str, Any], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "changes_items", tuple(sorted(dict(self.changes).items())))
        object.__setattr__(self, "changes", dict(self.changes_items))
        self.config()  # bad settings fail here, at construction

    def __hash__(self) -> int:
        return hash((self.name, self.changes_items))

    def config(self, base: Config | None = None) -> Config:
        """The recommended configuration (or ``base``) with this preset's changes."""
        return (base or Config()).replace(**dict(self.changes_items))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "settings": self.config().to_json(),
            "changes": dict(self.changes_items),
            "spec": self.config().to_spec(),
            "source": self.source,
            "url": self.url,
            "claim": self.claim,
            "expectation": None
            if self.expectation is None
            else {"direction": self.expectation.direction, "reading": self.expectation.reading},
        }


_CHROMA = "Smith & Troynikov, Evaluating Chunking Strategies for Retrieval (Chroma, 2024)"
_CHROMA_URL = "https://research.trychroma.com/evaluating-chunking"

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="ours",
            title="Ours (the recommended configuration)",
            changes={},
            source="Chunk Explorer's own evaluation",
            url="docs/evaluation.md",
            claim="chosen on the bundled query sets and checked on held-out ones",
        ),
        Preset(
            name="langchain-1000-200",
            title="LangChain recursive, 1000/200 characters",
            changes={
                "splitter": "langchain-recursive",
                "unit": "chars",
                "size": 1000,
                "overlap": 200,
            },
            source="LangChain, Build a Retrieval Augmented Generation (RAG) App (tutorial)",
            url="https://python.langchain.com/docs/tutorials/rag/",
            claim="RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200) is the "
            "tutorial's splitter, the setting most RAG code starts from",
        ),
        Preset(
            name="openai-800-400",
            title="OpenAI Assistants default, 800/400 tokens",
            changes={"splitter": "fixed", "unit": "tokens", "size": 800, "overlap": 400},
            source=_CHROMA,
            url=_CHROMA_URL,
            claim="the OpenAI Assistants default (800-token windows, 400 overlap) gave "
            "below-average recall and among the lowest precision and IoU",
            expectation=Expectation("lower", "below average, read as below ours"),
        ),
        Preset(
            name="chroma-recursive-200",
            title="Chroma's recursive 200/0 tokens",
            changes={
                "splitter": "langchain-recursive",
                "unit": "tokens",
                "size": 200,
                "overlap": 0,
            },
            source=_CHROMA,
            url=_CHROMA_URL,
            claim="RecursiveCharacterTextSplitter at 200 tokens without overlap scored "
            "consistently high on every measure, the best of the simple settings",
            expectation=Expectation("higher", "the best simple setting, read as above ours"),
        ),
        Preset(
            name="chroma-recursive-400",
            title="Chroma's recursive 400/0 tokens",
            changes={
                "splitter": "langchain-recursive",
                "unit": "tokens",
                "size": 400,
                "overlap": 0,
            },
            source=_CHROMA,
            url=_CHROMA_URL,
            claim="RecursiveCharacterTextSplitter at 400 tokens without overlap was among the "
            "best-performing simple settings",
            expectation=Expectation("higher", "among the best simple settings, read as above ours"),
        ),
        Preset(
            name="semchunk-256",
            title="semchunk, 256 tokens",
            changes={"splitter": "semchunk", "unit": "tokens", "size": 256, "overlap": 0},
            source="isaacus-dev/semchunk, README",
            url="https://github.com/isaacus-dev/semchunk",
            claim="splits text into semantically meaningful chunks of a given size, by a "
            "hierarchy of splitters (paragraphs, lines, sentences, words)",
        ),
        Preset(
            name="page",
            title="Page-level (one chunk per page)",
            changes={"splitter": "page", "unit": "tokens", "size": 2048},
            source="NVIDIA, Finding the Best Chunking Strategy for Accurate AI Responses "
            "(NVIDIA technical blog, 2024/25)",
            url="https://developer.nvidia.com/blog/finding-the-best-chunking-strategy-for-"
            "accurate-ai-responses/",
            claim="page-level chunking had the best average accuracy (0.648) and the lowest "
            "variance across its datasets",
            expectation=Expectation("higher", "best on average, read as above ours"),
        ),
    )
}
"""Every preset, by name (the order is the one listed)."""


def preset(name: str) -> Preset:
    """The preset called ``name``; an unknown name says which there are."""
    found = PRESETS.get(name.strip())
    if found is None:
        raise SettingsError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return found


def preset_config(name: str, changes: Mapping[str, Any] | None = None) -> Config:
    """The preset's configuration with ``changes`` (flat names) on top (they win)."""
    config = preset(name).config()
    if not changes:
        return config
    return Config.from_json(dict(changes), base=config)


def spec_config(spec: str) -> Config:
    """An A/B SPEC: ``key=value`` pairs on the recommended configuration, where ``preset=NAME``
    starts from that preset instead and the other pairs override it."""
    parts = [p.strip() for p in re.split(r",(?=\s*[a-z_-]+=)", spec) if p.strip()]
    named = [p for p in parts if p.partition("=")[0].strip() == "preset"]
    if len(named) > 1:
        raise SettingsError("give preset= at most once in a SPEC")
    rest = ",".join(p for p in parts if p not in named)
    if not named:
        return Config.from_spec(rest)
    base = preset(named[0].partition("=")[2]).config()
    return Config.from_spec(rest, base=base)


def claim_for(a: Config, b: Config) -> tuple[Preset, str] | None:
    """The preset with a checkable claim that one side of an A/B is, and that side (``"A"`` or
    ``"B"``), when the other side is ours: both with the same retriever, a preset's settings
    otherwise unchanged (the claims are about chunking, so the retriever both share may differ
    from the default). ``None`` for any other pair."""
    if a.retriever != b.retriever:
        return None
    ours = Config().replace(retriever=a.retriever)
    for found in PRESETS.values():
        if found.expectation is None:
            continue
        theirs = found.config().replace(retriever=a.retriever)
        if b == theirs and a == ours:
            return found, "B"
        if a == theirs and b == ours:
            return found, "A"
    return None


def spec_preset(spec: str) -> Preset | None:
    """The preset a SPEC names when it is that preset alone (``preset=NAME``, nothing else)."""
    parts = [p.strip() for p in re.split(r",(?=\s*[a-z_-]+=)", spec) if p.strip()]
    if len(parts) != 1 or parts[0].partition("=")[0].strip() != "preset":
        return None
    return preset(parts[0].partition("=")[2])


@dataclass(frozen=True)
class Agreement:
    """What an A/B (A = ours, B = the preset) says of the preset's claim."""

    preset: Preset
    verdict: str
    """One of :data:`VERDICTS`."""
    measure: str
    """Where it was read (``"coverage@5"``)."""
    difference: float
    """coverage(preset) − coverage(ours)."""
    comparison: PairedComparison

    def sentence(self) -> str:
        exp = self.preset.expectation
        assert exp is not None
        d = self.difference
        where = "equal to" if d == 0 else f"{abs(d):.2f} {'below' if d < 0 else 'above'}"
        return (
            f"{self.preset.source.split(',')[0]} reported {self.preset.title}: {exp.reading}; "
            f"here it is {where} ours on {self.measure} (p {self.comparison.p_value:.3g}) — "
            f"{self.verdict}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset.name,
            "claim": self.preset.claim,
            "expectation": self.preset.expectation.direction if self.preset.expectation else None,
            "measure": self.measure,
            "difference": self.difference,
            "verdict": self.verdict,
            "sentence": self.sentence(),
        }


def agreement(
    found: Preset, comparison: PairedComparison, *, measure: str, side: str = "B"
) -> Agreement | None:
    """The verdict on ``found``'s claim from ``comparison``, in which the preset is ``side``
    (``"B"``: A is ours; ``"A"``: B is ours); ``None`` when the preset makes no checkable
    claim."""
    if found.expectation is None:
        return None
    if side not in ("A", "B"):
        raise SettingsError(f"the preset is side A or B, got {side!r}")
    difference = comparison.difference if side == "B" else -comparison.difference
    winner = comparison.winner
    if winner is None:
        verdict = VERDICTS[1]
    else:
        lower = winner != side
        verdict = VERDICTS[0] if lower == (found.expectation.direction == "lower") else VERDICTS[2]
    return Agreement(found, verdict, measure, difference, comparison)


def presets_json() -> list[dict[str, Any]]:
    """Every preset as JSON (``explorer presets --json``)."""
    return [p.to_json() for p in PRESETS.values()]


def presets_text() -> str:
    """Every preset as text: name, title, the settings that differ from ours, source, claim."""
    lines = []
    for p in PRESETS.values():
        lines.append(f"{p.name}: {p.title}")
        lines.append(f"  settings: {p.config().to_spec() or '(the recommended configuration)'}")
        lines.append(f"  source:   {p.source} <{p.url}>")
        lines.append(f"  claim:    {p.claim}")
        if p.expectation is not None:
            lines.append(f"  checked:  coverage {p.expectation.direction} than ours in an A/B")
    return "\n".join(lines) + "\n"
