"""The one bounded JSON reader (:mod:`explorer.jsontext`) and the library readers that share it:
a link's or the command line's ``options``, edit files, query sets, converted question sets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.config import Config
from explorer.errors import ExplorerError, JSONTextError, QuerySetError, SettingsError
from explorer.evaluation.queries import read_query_set
from explorer.jsontext import MAX_DEPTH, MAX_DIGITS, loads_bounded

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(JSON_VALUES)
def test_what_json_reads_it_reads_the_same(value: Any) -> None:
    text = json.dumps(value)
    assert loads_bounded(text, what="x") == json.loads(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "x: nested too deeply (more than 100"),
        ("[" * 100_000, "x: nested too deeply (more than 100 levels of [ and {)"),
        ('{"a": ' * 2000, "x: nested too deeply"),
        (
            "[" + "1" * 5001 + "]",
            "x: unreadable: a number has 5,001 digits (at most 4,300 are read)",
        ),
        ("-" + "9" * (MAX_DIGITS + 1), "x: unreadable: a number has 4,301 digits"),
        (
            '["\\ud800"]',
            "x: unreadable: a string holds half of a UTF-16 surrogate pair (such as \\ud800)",
        ),
        ('{"\\udfff": 1}', "x: unreadable: a string holds half of a UTF-16 surrogate pair"),
        ('{"a": 1', "x: not valid JSON (line 1, column 8: Expecting ',' delimiter)"),
        ("[1,\n2,\n", "x: not valid JSON (line 3, column 1: Expecting value)"),
        ("", "x: not valid JSON (line 1, column 1: Expecting value)"),
    ],
)
def test_a_text_out_of_bounds_is_one_typed_line(text: str, message: str) -> None:
    with pytest.raises(JSONTextError) as caught:
        loads_bounded(text, what="x")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
    assert isinstance(caught.value, ExplorerError)


def test_the_bounds_themselves_are_read() -> None:
    deepest = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads_bounded(deepest, what="x") == json.loads(deepest)
    assert loads_bounded("9" * MAX_DIGITS, what="x") == int("9" * MAX_DIGITS)
    assert loads_bounded('"\\ud83d\\ude00"', what="x") == "😀"  # a whole pair is a character
    assert loads_bounded('"\\\\ud800"', what="x") == "\\ud800"  # an escaped backslash, not one


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    text = json.dumps(["[" * 500, {"k": "{" * 500, "q": 'a "quoted" [ \\ ]'}])
    assert loads_bounded(text, what="x") == json.loads(text)


def test_the_message_never_quotes_the_text() -> None:
    secret = "a-secret-line " * 10
    for text in ("[" * 200 + json.dumps(secret), json.dumps([secret, 10]) + "junk"):
        with pytest.raises(JSONTextError) as caught:
            loads_bounded(text, what="x")
        assert "secret" not in str(caught.value)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ("[" * 2000, "nested too deeply"),
        ('{"a": ' + "1" * 5001 + "}", "a number has 5,001 digits"),
        ('{"a": "\\ud800"}', "half of a UTF-16 surrogate pair"),
        ("{bad", "not valid JSON (line 1, column 2"),
    ],
    ids=["deep", "digits", "surrogate", "malformed"],
)
def test_a_links_options_are_one_settings_error(options: str, problem: str) -> None:
    """A link's ``config=...,options=...`` (and ``--options``) read through the bounded reader."""
    with pytest.raises(SettingsError) as caught:
        Config.from_spec(f"splitter=langchain-recursive,options={options}")
    message = str(caught.value)
    assert message.startswith("options: ") and problem in message and "\n" not in message
    assert message.endswith('Options are a JSON object such as {"keep_separator": "end"}.')


def test_a_query_set_out_of_bounds_is_a_query_set_error() -> None:
    """The app's Evaluate upload and ``eval --queries`` read query sets the same way."""
    entry = '[{"id": "a", "doc": "d.md", "query": "q", "evidence": ["e"], "n": %s}]'
    with pytest.raises(QuerySetError, match=r"mine\.json: unreadable: a number has 5,001 digits"):
        read_query_set((entry % ("1" * 5001)).encode(), name="mine.json")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 2000, "The splitter's options: nested too deeply (more than 100 levels"),
        ("1" * 5001, "The splitter's options: unreadable: a number has 5,001 digits"),
        ('"separator"', "The splitter's options must be a JSON object"),
    ],
)
def test_the_sidebar_reads_a_sessions_options_bounded(text: str, says: str) -> None:
    """``ui/widgets.py`` reads the options a page's state holds through :func:`loads_bounded`:
    one warning and the splitter's defaults, the rest of the settings kept, no traceback."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import REPO

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    settings = {"splitter": "llamaindex-sentence", "unit": "chars", "size": 300, "overlap": 0}
    for key, value in {**settings, "options": text}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value[:200] for e in at.exception]
    (warning,) = [w.value.replace("\\", "") for w in at.warning if "options" in w.value]
    assert warning.startswith(says), warning
    assert warning.endswith("the splitter's defaults are shown.")
    assert {k: at.session_state[k] for k in settings} == settings
    assert at.session_state["options"] == ""  # the defaults, written back as the widgets show


def test_a_list_option_a_link_gave_is_kept_and_said() -> None:
    """LangChain's ``separators`` has no sidebar widget: given by a link (its ``options=``), it
    stays in the configuration and the sidebar says so, instead of vanishing from the URL
    (issue 38.8)."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import REPO

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    given = {"separators": ["\n\n", ". ", " "]}
    settings = {"splitter": "langchain-recursive", "unit": "chars", "size": 300, "overlap": 0}
    for key, value in {**settings, "options": json.dumps(given)}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value[:200] for e in at.exception]
    assert json.loads(at.session_state["options"]) == given
    said = [c.value for c in at.caption if c.value.startswith("separators:")]
    assert said and "as the link gave it" in said[0]
