"""The README's library example runs as written and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from tests.conftest import REPO


def readme_examples() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use it from Python", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"```python\n(.*?)```", section, re.S)
    assert found, "the README has Python examples under 'Use it from Python'"
    return found


def readme_example() -> str:
    return readme_examples()[0]


@pytest.mark.slow
def test_the_readme_example_runs_and_its_verdicts_are_as_commented(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)  # the example opens sample_docs/ from the repository's root
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(readme_example(), "README.md", "exec"), {})
    first, kinds, second = out.getvalue().splitlines()
    comment = re.search(r"print\(answer\.verdict\)  # (.*?) …", readme_example())
    assert comment and first.startswith(comment.group(1))
    assert first.startswith("incomplete: 'does not apply to downloaded materials' is in chunk 4")
    said = re.search(r"print\(answer\.verdict\.kind, .*?\)  # (.*)", readme_example())
    assert said and kinds == said.group(1)  # the kind, and what cut each phrase
    assert second.startswith("complete")
    assert os.getcwd() == str(REPO)


@pytest.mark.slow
def test_the_readme_workspace_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(readme_examples()[1], "README.md", "exec"), {})
    hits = eval(out.getvalue())
    assert hits and all(isinstance(doc, str) and rank >= 1 for doc, rank in hits)
    assert [rank for _, rank in hits] == list(range(1, len(hits) + 1))


@pytest.mark.slow
def test_the_readme_edits_example_prints_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    example = readme_examples()[2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README.md", "exec"), {})
    repair, kind = out.getvalue().splitlines()
    said = re.search(r"\.sentence\(\)\)\n# (.*)\n", example)
    assert said and repair == said.group(1)
    assert kind == "complete" and "# complete" in example
