"""The one reader of JSON that comes from outside (files, options, links): bounded, so a hostile
text is one :class:`~explorer.errors.JSONTextError` line instead of a RecursionError or a
ValueError from deep inside :mod:`json`.

:func:`loads_bounded` refuses a text nested more than :data:`MAX_DEPTH` levels, a number of more
than :data:`MAX_DIGITS` digits (Python's own limit for reading an integer), and a string holding
half of a UTF-16 surrogate pair (``"\\ud800"``: it parses, but no UTF-8 output can hold it).
The message names the text (``what``) and says what is wrong and where; it never quotes the
text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from explorer.errors import JSONTextError

MAX_DEPTH = 100
"""The most levels of ``[`` and ``{`` a text may nest (a query set needs 3)."""

MAX_DIGITS = 4_300
"""The most digits a number may have (Python's default for ``int(str)``)."""

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
"""A JSON string (skipped whole, so a bracket inside one does not count) or a bracket."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _TooLong(Exception):
    def __init__(self, digits: int) -> None:
        self.digits = digits


def _int(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_DIGITS:
        raise _TooLong(count)
    try:
        return int(digits)
    except ValueError:  # the process's own limit is lower (sys.set_int_max_str_digits)
        raise _TooLong(count) from None


def loads_bounded(text: str, *, what: str) -> Any:
    """``json.loads(text)``, bounded. The error names the text (``what``: ``"mine.json"``,
    ``"options"``) and the problem, which reads after a colon or an "is": ``not valid JSON (line
    2, column 5: Expecting value)``, ``nested too deeply (...)``, ``unreadable: ...``."""
    if _too_deep(text):
        raise JSONTextError(what, f"nested too deeply (more than {MAX_DEPTH} levels of [ and {{)")
    try:
        value = json.loads(text, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise JSONTextError(
            what, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except _TooLong as exc:
        raise JSONTextError(
            what,
            f"unreadable: a number has {exc.digits:,} digits (at most {MAX_DIGITS:,} are read)",
        ) from None
    except RecursionError:  # only if the stack is already deep: MAX_DEPTH is well below it
        raise JSONTextError(what, "nested too deeply to be read") from None
    if (_SURROGATE_ESCAPE.search(text) or _SURROGATE.search(text)) and _has_surrogate(value):
        raise JSONTextError(
            what,
            "unreadable: a string holds half of a UTF-16 surrogate pair (such as \\ud800), which "
            "is not a character; write the character itself, or both halves of the pair",
        )
    return value


def _too_deep(text: str) -> bool:
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # the common case, without a scan
        return False
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def _has_surrogate(value: Any) -> bool:
    """Whether a string anywhere in ``value`` (a key too) holds a lone surrogate; the depth is
    bounded, so the recursion is."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False
