"""The bundled samples and query sets are found the same way from a checkout and from a wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from explorer import resources
from tests.conftest import REPO, SAMPLES

FIND = (
    "import explorer, json; from explorer import resources, load_path; "
    "s = resources.samples_dir(); q = resources.query_set(); "
    "from explorer.evaluation.lessons import load_lessons; "
    "n = len(load_lessons(resources.lessons_dir())); "
    "print(json.dumps([explorer.__file__, str(s), str(q), "
    "len(load_path(s / 'refund-policy.md').text), q.is_file(), str(resources.lessons_dir()), n]))"
)


def test_a_checkout_finds_its_own_folders() -> None:
    assert resources.samples_dir() == SAMPLES
    assert resources.query_set() == REPO / "queries" / "boundary-questions.json"
    assert resources.lessons_dir() == REPO / "lessons"


@pytest.mark.slow
def test_a_wheel_carries_the_samples_and_query_sets(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(REPO)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    out = subprocess.run(
        [sys.executable, "-c", FIND], cwd=site, capture_output=True, text=True, check=True
    )
    import json

    module, samples, query_set, chars, found, lessons, n_lessons = json.loads(out.stdout)
    assert Path(module).is_relative_to(site)  # the wheel's copy, not the checkout
    assert Path(samples) == site / "explorer" / "_data" / "sample_docs"
    assert Path(query_set).is_relative_to(site) and found
    assert chars == len((SAMPLES / "refund-policy.md").read_text(encoding="utf-8"))
    assert Path(lessons) == site / "explorer" / "_data" / "lessons"
    assert n_lessons == len(list((REPO / "lessons").glob("*.toml")))
