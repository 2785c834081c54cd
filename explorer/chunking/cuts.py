"""Cut positions of one text, by level: paragraph and line ends found once, sentence ends and
word gaps found lazily in the window asked about (the packing engine in
:mod:`explorer.chunking.splitters` asks for the last cut before a limit and the first after a
start)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from explorer.chunking import sentences
from explorer.errors import SettingsError


class Cuts(Protocol):
    """A set of cut positions in one text."""

    def last_in(self, a: int, b: int) -> int:
        """The largest cut ``c`` with ``a < c <= b``, or -1."""
        ...

    def first_in(self, a: int, b: int) -> int:
        """The smallest cut ``c`` with ``a <= c < b``, or -1."""
        ...


class ListCuts:
    """Cuts from a sorted list of positions."""

    def __init__(self, positions: Iterable[int], *, ordered: bool = False) -> None:
        """``ordered``: the positions are a list already sorted and distinct (not checked)."""
        self.positions: list[int] = (
            positions if ordered and isinstance(positions, list) else sorted(set(positions))
        )

    def last_in(self, a: int, b: int) -> int:
        i = bisect.bisect_right(self.positions, b) - 1
        return self.positions[i] if i >= 0 and self.positions[i] > a else -1

    def first_in(self, a: int, b: int) -> int:
        i = bisect.bisect_left(self.positions, a)
        return self.positions[i] if i < len(self.positions) and self.positions[i] < b else -1


class RegexCuts:
    """Cuts at each match of a pattern, found lazily in the window asked about.

    ``cut`` maps a match to its cut position (by default the match's start). Matches are searched
    from a little before the window to a little after it, so look-arounds see enough text.
    """

    MARGIN = 16

    def __init__(
        self,
        text: str,
        pattern: re.Pattern[str],
        *,
        cut: Callable[[re.Match[str]], int] = re.Match.start,
        accept: Callable[[str, int], bool] | None = None,
        exclude: Sequence[tuple[int, int]] = (),
        scan: Callable[[str, int, int], Iterable[int]] | None = None,
    ) -> None:
        self.text = text
        self.pattern = pattern
        self.cut = cut
        self.scan = scan
        """``scan(text, pos, endpos)``, when given, yields the cuts of the pattern's matches in
        ``[pos, endpos)`` in order, faster (:func:`~explorer.chunking.sentences.candidate_cuts`)."""
        self.accept = accept
        self._ex_starts = [s for s, _ in exclude]
        self._ex_ends = [e for _, e in exclude]

    def _ok(self, c: int) -> bool:
        if self._ex_starts:
            i = bisect.bisect_left(self._ex_starts, c) - 1  # the last span starting before c
            if i >= 0 and c < self._ex_ends[i]:
                return False  # strictly inside an excluded span
        return self.accept is None or self.accept(self.text, c)

    def _cuts(self, a: int, b: int) -> Iterable[int]:
        n = len(self.text)
        lo, hi = max(0, a - self.MARGIN), min(n, b + self.MARGIN)
        if self.scan is not None:
            return self.scan(self.text, lo, hi)
        cut = self.cut
        return (cut(m) for m in self.pattern.finditer(self.text, lo, hi))

    def last_in(self, a: int, b: int) -> int:
        # look near b first and widen: the last cut is usually close to the end of the window
        lo = b
        for width in (256, 2048, b - a):
            if lo <= a:
                break
            lo = max(a, b - width)
            found = []
            for c in self._cuts(lo, b):
                if c > b:
                    break
                if c > max(a, lo - self.MARGIN):
                    found.append(c)
            for c in reversed(found):  # the (costly) acceptance test runs from the end
                if self._ok(c):
                    return c
        return -1

    def first_in(self, a: int, b: int) -> int:
        for c in self._cuts(a, b):
            if c >= b:
                break
            if c >= a and self._ok(c):
                return c
        return -1

    def all(self) -> list[int]:
        """Every cut strictly inside the text, in order."""
        n = len(self.text)
        return sorted({c for c in self._cuts(0, n) if 0 < c < n and self._ok(c)})


class FirstCuts(ListCuts):
    """Cuts that must all be taken: a chunk ends at the *first* cut within reach, not the last."""

    def last_in(self, a: int, b: int) -> int:
        i = bisect.bisect_right(self.positions, a)
        return self.positions[i] if i < len(self.positions) and self.positions[i] <= b else -1


# Cuts sit in the white space between two pieces; chunks are trimmed afterwards.
PARAGRAPH = re.compile(r"\n[ \t]*\r?\n")
LINE = re.compile(r"\n")
WORD = re.compile(r"\s+")


def sentence_cuts(text: str, exclude: Sequence[tuple[int, int]] = ()) -> RegexCuts:
    """Sentence ends of ``text`` (the rules are in :mod:`explorer.chunking.sentences`), found
    lazily."""
    return _sentence_ends(text, sentences.is_sentence_end, exclude)


def stop_cuts(text: str, exclude: Sequence[tuple[int, int]] = ()) -> RegexCuts:
    """The sentence ends of ``text`` that follow a stop or a blank line
    (:func:`~explorer.chunking.sentences.is_stop_end`), found lazily."""
    return _sentence_ends(text, sentences.is_stop_end, exclude)


def _sentence_ends(
    text: str, accept: Callable[[str, int], bool], exclude: Sequence[tuple[int, int]]
) -> RegexCuts:
    return RegexCuts(
        text,
        sentences.CANDIDATES,
        cut=sentences.candidate_cut,
        accept=accept,
        exclude=exclude,
        scan=sentences.candidate_cuts,
    )


def level_cuts(text: str, name: str) -> Cuts:
    # paragraph and line ends are few (a few thousand in a megabyte): found all at once in C,
    # then each question is one bisect
    if name == "paragraph":
        return ListCuts([m.start() for m in PARAGRAPH.finditer(text)], ordered=True)
    if name == "line":
        return ListCuts([m.start() for m in LINE.finditer(text)], ordered=True)
    if name == "sentence":
        return sentence_cuts(text)
    if name == "word":
        return RegexCuts(text, WORD)
    raise SettingsError(f"unknown separator level {name!r}")
