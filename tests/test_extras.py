"""The library alone, its extras, and the lock.

``pip install chunk-explorer`` is the library: documents, measures, our splitters, embedding and
ranking. The app (streamlit, plotly) and each other library's splitter are extras; a library
splitter picked without its extra says which one to install, in one line (the command line exits
2, the app shows one error). constraints.txt pins what CI installs, consistently with
pyproject.toml.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
import tomllib

import pytest
from packaging.requirements import Requirement
from streamlit.testing.v1 import AppTest

from explorer.chunking.adapters import ADAPTERS, adapter_settings
from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.cli import main
from explorer.errors import LibraryError
from tests.conftest import REPO, SAMPLES, make_doc
from ui.safe import md_text

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS: dict[str, list[str]] = PYPROJECT["optional-dependencies"]
APP_MODULES = ("streamlit", "plotly")
LIBRARY_MODULES = sorted({a.module.split(".")[0] for a in ADAPTERS.values()})


def _dist(requirement: str) -> str:
    return Requirement(requirement).name.lower().replace("_", "-")


def _extras_of(requirement: str) -> set[str]:
    """The extras a self-reference names (``chunk-explorer[app,splitters]``)."""
    req = Requirement(requirement)
    return set(req.extras) if _dist(requirement) == "chunk-explorer" else set()


def _closure(extra: str) -> set[str]:
    """Every distribution an extra installs, following its self-references."""
    out: set[str] = set()
    for r in EXTRAS[extra]:
        nested = _extras_of(r)
        out |= set().union(*map(_closure, nested)) if nested else {_dist(r)}
    return out


def _hint(name: str) -> str:
    spec = ADAPTERS[name]
    return (
        f"the {name} splitter needs {spec.library}, which is not installed; install it with: "
        f"pip install 'chunk-explorer[{spec.extra}]' (every library splitter: "
        "'chunk-explorer[splitters]')"
    )


def _settings(name: str) -> ChunkSettings:
    return ChunkSettings(splitter=name, unit="chars", size=200, overlap=0)


# --------------------------------------------------------------------------- the extras


def test_the_library_alone_depends_on_neither_the_app_nor_another_librarys_splitter() -> None:
    core = {_dist(r) for r in PYPROJECT["dependencies"]}
    optional = _closure("app") | _closure("splitters")
    assert {"streamlit", "plotly", "langchain-text-splitters", "chonkie"} <= optional
    assert not core & optional
    assert "pymupdf" in core


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_each_library_splitter_names_the_extra_that_installs_its_library(name: str) -> None:
    spec = ADAPTERS[name]
    assert spec.extra in EXTRAS, f"{name}: no extra {spec.extra!r} in pyproject.toml"
    assert {_dist(r) for r in EXTRAS[spec.extra]} == {spec.library}
    assert spec.extra in _extras_of(EXTRAS["splitters"][0])


def test_all_is_the_app_and_every_library_splitter_and_make_installs_it_with_dev() -> None:
    assert _closure("all") == _closure("app") | _closure("splitters") | _closure("ray")
    assert _closure("splitters") == {a.library for a in ADAPTERS.values()}
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "-c constraints.txt -e '.[all,dev]'" in makefile


def test_import_explorer_and_our_splitters_need_neither_the_app_nor_the_libraries() -> None:
    """What ``pip install chunk-explorer`` (no extras) gives, with the optional modules made
    unimportable: the package imports, and Markdown and a PDF are loaded and chunked by our
    splitters. The library splitter says what to install."""
    blocked = [*APP_MODULES, *LIBRARY_MODULES]
    script = textwrap.dedent(
        f"""
        import json, sys
        for name in {blocked!r}:
            sys.modules[name] = None  # as if not installed
        import explorer
        from explorer import ChunkSettings, load_path, split
        from explorer.errors import LibraryError
        md = load_path({str(SAMPLES / "refund-policy.md")!r})
        pdf = load_path({str(SAMPLES / "field-manual.pdf")!r})
        counts = [len(split(d, ChunkSettings(splitter=s)))
                  for d in (md, pdf) for s in ("structure", "recursive", "sentence")]
        try:
            split(md, ChunkSettings(splitter="langchain-recursive"))
            hint = None
        except LibraryError as exc:
            hint = str(exc)
        print(json.dumps({{"counts": counts, "hint": hint}}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(n > 0 for n in out["counts"]), out
    assert out["hint"] == _hint("langchain-recursive")


# --------------------------------------------------------------------------- the install hint


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_a_library_splitter_without_its_library_says_which_extra_to_install(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, ADAPTERS[name].module, None)
    settings = ChunkSettings(splitter=name, unit="tokens", size=200, overlap=0)  # all take tokens
    adapter_settings(settings)  # the settings themselves are fine
    with pytest.raises(LibraryError) as caught:
        split(make_doc("One sentence. Another one.\n\nA paragraph."), settings)
    assert str(caught.value) == _hint(name)


def test_a_library_whose_own_import_fails_says_why_as_well(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Installed, but something it imports is missing: the hint, and what failed."""
    real = importlib.import_module

    def broken(name: str, package: str | None = None) -> object:
        if name == "semchunk":
            raise ModuleNotFoundError("No module named 'mpire'", name="mpire")
        return real(name, package)

    monkeypatch.setattr("importlib.import_module", broken)
    with pytest.raises(LibraryError) as caught:
        split(make_doc("One sentence. Another one."), _settings("semchunk"))
    message = str(caught.value)
    assert message.startswith(
        "the semchunk splitter needs semchunk, which is not installed (importing semchunk "
        "failed: No module named 'mpire'); install it with: pip install 'chunk-explorer[semchunk]'"
    ), message


def test_the_command_line_exits_2_with_the_hint_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    code = main(["chunk", str(SAMPLES / "refund-policy.md"), "--splitter", "langchain-recursive"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.strip().splitlines() == [f"error: {_hint('langchain-recursive')}"]


def test_the_app_shows_the_hint_as_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.session_state["splitter"] = "recursive"
    at.run()
    assert not at.exception
    at.selectbox(key="splitter").set_value("langchain-recursive").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [e.value for e in at.error if "not installed" in e.value]
    assert shown == [md_text(_hint("langchain-recursive"))], [e.value for e in at.error]


# --------------------------------------------------------------------------- the lock


def _constraints() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_the_lock_pins_every_requirement_at_a_version_pyproject_allows() -> None:
    pins = _constraints()
    requirements = [*PYPROJECT["dependencies"], *(r for rs in EXTRAS.values() for r in rs)]
    for r in requirements:
        if _extras_of(r):
            continue
        req = Requirement(r)
        name = _dist(r)
        assert name in pins, f"{name} is not pinned in constraints.txt"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name])


def test_the_lock_is_not_this_machines_and_brings_no_layout_model() -> None:
    pins = _constraints()
    assert not [f"{n}=={v}" for n, v in pins.items() if "+" in v or "/" in v]  # no local builds
    assert pins["torch"] == "2.13.0"
    assert pins["pymupdf"].split(".")[0] == "1"
    assert not {"onnxruntime", "pymupdf-layout", "pymupdf4llm"} & set(pins)
    assert "chunk-explorer" not in pins


def test_the_tools_ci_runs_are_pinned_exactly_and_locked_alike() -> None:
    pins = _constraints()
    dev = {_dist(r): Requirement(r) for r in EXTRAS["dev"]}
    for tool in ("ruff", "mypy"):
        (spec,) = dev[tool].specifier
        assert spec.operator == "==", f"{tool} is not pinned exactly in the dev extra"
        assert spec.version == pins[tool]


def test_import_explorer_loads_neither_the_app_nor_a_library_splitter() -> None:
    script = (
        "import sys, json, explorer, explorer.chunking, explorer.cli\n"
        f"print(json.dumps(sorted(m for m in {[*APP_MODULES, *LIBRARY_MODULES]!r} "
        "if m in sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == []
