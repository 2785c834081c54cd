"""The README's library example runs as written and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from tests.conftest import REPO


def readme_example() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use it from Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README has a Python example under 'Use it from Python'"
    return match.group(1)


@pytest.mark.slow
def test_the_readme_example_runs_and_its_verdicts_are_as_commented(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)  # the example opens sample_docs/ from the repository's root
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(readme_example(), "README.md", "exec"), {})
    first, second = out.getvalue().splitlines()
    comment = re.search(r"print\(answer\.verdict\)  # (.*?) …", readme_example())
    assert comment and first.startswith(comment.group(1))
    assert first.startswith("incomplete: 'does not apply to downloaded materials' is in chunk 4")
    assert second.startswith("complete")
    assert os.getcwd() == str(REPO)
