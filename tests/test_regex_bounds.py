"""No regular expression a visitor or a file supplies can freeze the process (issue 38.1).

Python's ``re`` holds the interpreter lock while it backtracks: ``(.*)*Q`` on a page of text
stopped every thread of the server (its health check, every session, SIGTERM) for minutes. The
adapters declare which options are regular expressions; a link may not set one (it is left out
with a note), and elsewhere (the command line, the app's option widgets, a configuration file)
a split with one runs in a child process that is killed after the time limit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.chunking.adapters import (
    ADAPTERS,
    AdapterSettings,
    bounded,
    regex_options,
    split_library,
)
from explorer.chunking.adapters import split as split_module
from explorer.chunking.records import ChunkSettings
from explorer.config import Config
from explorer.errors import LibraryError, SettingsError, TimeLimitError
from tests.conftest import REPO, load_cached, make_doc
from ui.settings import config_of
from ui.view_state import View

EVIL = "(.*)*Q"
"""Backtracks catastrophically on any line without a Q (minutes on a short document)."""
LINK_CONFIG = (
    "splitter=llamaindex-sentence,unit=chars,size=30,overlap=0,"
    'options={"secondary_chunking_regex":"(.*)*Q"}'
)
"""The configuration of the link that froze the server (issue 38.1), decoded."""
LANGCHAIN_OPTIONS = '{"separators":["(.*)*Q"],"is_separator_regex":true}'
REFUND = REPO / "sample_docs" / "refund-policy.md"
APP = str(REPO / "app.py")
TEXT = "A sentence that runs on and on, without the letter, for a good while longer. " * 8


def _llama(pattern: str, **more: object) -> AdapterSettings:
    options = {"secondary_chunking_regex": pattern, **more}
    return AdapterSettings("llamaindex-sentence", unit="chars", size=30, options=options)


def _langchain(separators: list[str], *, regex: bool = True) -> AdapterSettings:
    options = {"separators": separators, "is_separator_regex": regex}
    return AdapterSettings("langchain-recursive", unit="chars", size=30, options=options)


# --------------------------------------------------------------------------- which options


def test_the_adapters_declare_which_options_are_regular_expressions() -> None:
    declared = {
        (name, o.name, o.regex) for name, spec in ADAPTERS.items() for o in spec.options if o.regex
    }
    assert declared == {
        ("llamaindex-sentence", "secondary_chunking_regex", True),
        ("llamaindex-markdown", "secondary_chunking_regex", True),
        ("langchain-recursive", "separators", "is_separator_regex"),
        ("langchain-markdown", "separators", "is_separator_regex"),
    }


def test_a_regular_expression_is_the_users_when_it_is_not_the_default() -> None:
    assert AdapterSettings("llamaindex-sentence").regexes == ()
    default = ADAPTERS["llamaindex-sentence"].options[-1].default
    assert _llama(str(default)).regexes == ()  # the default pattern, given: still ours
    assert _llama("[^.]+[.]?").regexes == ("secondary_chunking_regex",)
    # LangChain's separators are patterns only under is_separator_regex
    assert _langchain([EVIL], regex=False).regexes == ()
    assert _langchain([EVIL]).regexes == ("separators",)
    on = AdapterSettings("langchain-recursive", options={"is_separator_regex": True})
    assert on.regexes == ()  # the default separators as patterns: ours
    assert regex_options(ChunkSettings(splitter="fixed")) == ()
    ours = ChunkSettings(splitter="llamaindex-sentence", options={"secondary_chunking_regex": EVIL})
    assert regex_options(ours) == ("secondary_chunking_regex",)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: _llama("(a"),
            "llamaindex-sentence option 'secondary_chunking_regex': '(a' is not a valid regular "
            "expression (missing ), unterminated subpattern at position 0); correct it, or "
            "escape it with a backslash before each special character",
        ),
        (
            lambda: _langchain(["\n", "[z-a]"]),
            "langchain-recursive option 'separators': '[z-a]' is not a valid regular expression "
            "(bad character range z-a at position 1)",
        ),
    ],
)
def test_a_pattern_that_does_not_compile_is_refused_at_construction(
    make: object, message: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        make()  # type: ignore[operator]
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_literal_separator_is_not_compiled() -> None:
    assert _langchain(["(a"], regex=False).opt("separators") == ("(a",)


# --------------------------------------------------------------------------- the time limit


def test_a_backtracking_pattern_is_killed_at_the_limit_and_the_process_keeps_running() -> None:
    doc = make_doc(TEXT)
    ticks = []
    stop = threading.Event()

    def tick() -> None:  # another thread of this process: it runs while the child backtracks
        while not stop.wait(0.05):
            ticks.append(time.monotonic())

    settings = _llama(EVIL)
    split_module._warm(settings.adapter, settings.unit, settings.encoding)  # LlamaIndex imported
    ticker = threading.Thread(target=tick)
    ticker.start()
    began = time.monotonic()
    try:
        with pytest.raises(TimeLimitError) as caught:
            split_library(doc, settings, limit=2)
    finally:
        stop.set()
        ticker.join()
    took = time.monotonic() - began
    assert 2 <= took < 5, took
    assert str(caught.value) == (
        "the regular expression in secondary_chunking_regex took over 2 s on this document (it "
        "may backtrack catastrophically); simplify it"
    )
    assert isinstance(caught.value, LibraryError)
    assert len([t for t in ticks if t < began + 2]) >= 20, len(ticks)  # not frozen
    # asked again, the same split fails at once
    began = time.monotonic()
    with pytest.raises(TimeLimitError):
        split_library(doc, _llama(EVIL), limit=2)
    assert time.monotonic() - began < 0.5


def test_langchains_regex_separators_are_killed_at_the_limit_too() -> None:
    with pytest.raises(TimeLimitError, match="regular expression in separators took over 1 s"):
        split_library(make_doc(TEXT), _langchain([EVIL]), limit=1)


@pytest.mark.parametrize(
    "settings",
    [_llama("[^,.;]+[,.;]?|[,.;]"), _langchain(["\n\n", "\n", r"(?<=\.) ", " ", ""])],
    ids=["llamaindex", "langchain"],
)
def test_a_normal_pattern_in_the_child_gives_what_it_gives_here(settings: AdapterSettings) -> None:
    doc = load_cached(REFUND)
    child = split_library(doc, settings)
    here = split_module._split_library(doc, settings)
    assert child == here
    assert [c.text for c in child.chunks] == [doc.text[c.start : c.end] for c in child.chunks]


def test_default_patterns_split_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_child(*args: object, **kwargs: object) -> object:
        raise AssertionError("a split without a pattern of the user's went to a child")

    monkeypatch.setattr(bounded, "run_within", no_child)
    doc = load_cached(REFUND)
    for name in ("llamaindex-sentence", "langchain-recursive"):
        assert split_library(doc, AdapterSettings(name, unit="chars", size=200)).chunks
    with pytest.raises(AssertionError, match="went to a child"):
        split_library(doc, _llama("[^.]+[.]?"))


def test_the_childs_library_error_comes_back_typed_in_one_line() -> None:
    # compiles alone, but LangChain wraps it as "((?i)x)" to keep the separator: re refuses
    settings = _langchain([r"(?i)x"])
    with pytest.raises(LibraryError) as caught:
        split_library(make_doc(TEXT), settings)
    assert not isinstance(caught.value, TimeLimitError)
    assert "langchain-recursive (langchain-text-splitters" in str(caught.value)
    assert "global flags not at the start" in str(caught.value)


def test_run_within_reports_a_child_that_dies() -> None:
    import os

    with pytest.raises(LibraryError, match="ended without a result"):
        bounded.run_within(os._exit, 3, limit=5, error=TimeLimitError("late"))


# --------------------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    ("splitter", "options", "option"),
    [
        (
            "llamaindex-sentence",
            '{"secondary_chunking_regex":"(.*)*Q"}',
            "secondary_chunking_regex",
        ),
        ("langchain-recursive", LANGCHAIN_OPTIONS, "separators"),
    ],
)
def test_the_cli_exits_2_at_the_limit_with_one_line(
    splitter: str, options: str, option: str, tmp_path: Path
) -> None:
    # the link's settings: with pieces this small the pattern is reached (at 256 tokens every
    # sentence of this document fits, and LlamaIndex never runs it)
    command = [sys.executable, "-m", "explorer", "chunk", str(REFUND), "--splitter", splitter,
               "--unit", "chars", "--size", "30", "--overlap", "0"]  # fmt: skip
    env = {**os.environ, "CHUNK_EXPLORER_CACHE": str(tmp_path)}

    def run(*more: str) -> tuple[subprocess.CompletedProcess[str], float]:
        began = time.monotonic()
        done = subprocess.run(
            [*command, *more], capture_output=True, text=True, timeout=120, cwd=REPO, env=env
        )
        return done, time.monotonic() - began

    normal, usual = run()  # the same command without the pattern: the library's start-up
    assert normal.returncode == 0, normal.stderr
    done, took = run("--options", options)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"error: the regular expression in {option} took over 10 s on this document (it may "
        "backtrack catastrophically); simplify it"
    ]
    assert bounded.TIME_LIMIT <= took < usual + bounded.TIME_LIMIT + 8, (took, usual)


def test_the_cli_refuses_a_pattern_that_does_not_compile_in_one_line(tmp_path: object) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "chunk", str(REFUND), "--splitter",
         "llamaindex-sentence", "--options", '{"secondary_chunking_regex":"(a"}'],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "'(a' is not a valid regular expression" in line


# --------------------------------------------------------------------------- links


@pytest.mark.parametrize(
    ("spec", "option"),
    [
        (LINK_CONFIG, "secondary_chunking_regex"),
        (
            f"splitter=langchain-recursive,unit=chars,size=30,overlap=0,options={LANGCHAIN_OPTIONS}",
            "separators",
        ),
    ],
)
def test_a_link_leaves_its_regular_expressions_out_with_a_note(spec: str, option: str) -> None:
    opened = View.from_params(
        {"doc": "refund-policy.md", "config": spec},
        start=View("refund-policy.md"),
        samples={"refund-policy.md"},
    )
    chunking = opened.view.config.chunking
    linked = Config.from_spec(spec).chunking
    assert option not in dict(chunking.options)  # dropped, never run
    assert regex_options(chunking) == ()
    # the rest of the link applies
    assert (chunking.splitter, chunking.unit, chunking.size) == (linked.splitter, "chars", 30)
    assert {k: v for k, v in linked.options if k != option} == dict(chunking.options)
    assert opened.note == (
        f"The link's regular expression in {option} was left out (the default is used): a link "
        "may not set one, as a pattern can keep the app busy for minutes. One you set yourself "
        "runs under a time limit."
    )


def test_a_link_with_the_default_pattern_opens_without_a_note() -> None:
    default = ADAPTERS["llamaindex-sentence"].options[-1].default
    spec = Config().replace(
        splitter="llamaindex-sentence",
        options={"secondary_chunking_regex": default, "separator": "-"},
    )
    opened = View.from_params(
        {"doc": "refund-policy.md", "config": spec.to_spec()},
        start=View("refund-policy.md"),
        samples={"refund-policy.md"},
    )
    assert opened.note is None
    assert dict(opened.view.config.chunking.options)["separator"] == "-"


def test_the_freezing_link_opens_the_page_with_the_note_and_the_default_options() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"doc": "refund-policy.md", "config": LINK_CONFIG})
    began = time.monotonic()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert time.monotonic() - began < 100
    s = at.session_state
    assert (s["splitter"], s["unit"], s["size"], s["overlap"]) == (
        "llamaindex-sentence", "chars", 30, 0,
    )  # fmt: skip
    assert s["options"] == ""  # the defaults
    (note,) = [w.value for w in at.warning if "regular expression" in w.value]
    shown = note.replace("\\_", "_")  # the message's Markdown escapes
    assert "secondary_chunking_regex was left out (the default is used)" in shown
    assert not at.error, [e.value for e in at.error]
    assert "(.*)*Q" not in at.query_params.get("config", "")


def test_an_a_b_link_leaves_its_regular_expressions_out_with_a_note() -> None:
    """The Evaluate page's ``a=``/``b=`` are checked as ``config=`` is (issue 38.1): the
    pattern is never put in A's settings, B's separator stays, one note says what was left."""
    b = Config().replace(
        splitter="llamaindex-sentence", unit="chars", size=30, overlap=0,
        options={"separator": "-"},
    )  # fmt: skip
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"a": LINK_CONFIG, "b": b.to_spec(), "k": "3"})
    at.switch_page("app_pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    a = config_of(at.session_state, prefix="ab_A_")
    assert regex_options(a.chunking) == ()
    assert (a.chunking.splitter, a.chunking.unit, a.chunking.size) == (
        "llamaindex-sentence", "chars", 30,
    )  # fmt: skip
    assert config_of(at.session_state, prefix="ab_B_") == b
    (note,) = [w.value.replace("\\_", "_") for w in at.warning if "regular" in w.value]
    assert note == (
        "The link's regular expression in secondary_chunking_regex for A was left out (the "
        "default is used): a link may not set one, as a pattern can keep the app busy for "
        "minutes. One you set yourself runs under a time limit."
    )


def test_an_a_b_link_cannot_name_a_model_folder() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"a": "retriever=hybrid,model=/etc"})
    at.switch_page("app_pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert config_of(at.session_state, prefix="ab_A_").model != "/etc"
    (note,) = [w.value for w in at.warning if "cannot be used" in w.value]
    assert "the embedding model must be the bundled" in note


def test_a_pattern_typed_in_the_sidebar_runs_under_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bounded, "TIME_LIMIT", 1.0)
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(
        {"doc": "refund-policy.md", "config": "splitter=llamaindex-sentence,unit=chars,size=30"}
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.text_input(key="opt_llamaindex-sentence_secondary_chunking_regex").set_value(EVIL).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value.replace("\\_", "_") for e in at.error]  # the Markdown escapes
    assert (
        "the regular expression in secondary_chunking_regex took over 1 s on this document (it "
        "may backtrack catastrophically); simplify it"
    ) in " ".join(errors), errors
