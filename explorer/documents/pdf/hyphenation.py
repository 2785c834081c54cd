"""Joining lines: hyphenated words, compounds and addresses broken at line ends.

PDFs carry no dictionary, so the document is its own (:class:`_Lexicon`, built by
:func:`_vocabulary`): a form spelled elsewhere in it tells a word broken at a line end
(``compli-``/``ance``, joined without the hyphen) from a compound (``non-``/``normal``, joined
keeping it). :func:`_joiners` decides what joins each line of a paragraph or table cell to the
next: a space, or nothing.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from explorer.documents.pdf.records import _DASHES, _HYPHENS, _Stats, _Unit

_HYPHENATED_PREFIXES = {"self", "non", "cross", "well", "half", "quasi", "post", "anti"}
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


@dataclass(slots=True)
class _Lexicon:
    """The document as its own dictionary: its words, and whether it breaks words at line ends.

    ``hyphenates`` is false for a document whose line-end hyphens are all compounds as far as
    its words tell (at least :data:`_COMPOUNDS_TO_TRUST` of them, and not one word found broken):
    typical of word processors, which do not hyphenate. There a hyphen at a line end is kept.
    """

    words: set[str]
    hyphenates: bool = True


_COMPOUNDS_TO_TRUST = 5


def _vocabulary(units_per_page: list[list[_Unit]]) -> _Lexicon:
    """Words as the document spells them (lower case), leaving out the halves of words broken
    at line ends: they tell ``non-user`` from ``compli-ance``."""
    words: set[str] = set()
    seams: list[tuple[str, str]] = []
    soft = False
    for units in units_per_page:
        for unit in units:
            if unit.table is not None:
                for cells in unit.table.rows:
                    for cell in cells:
                        for f in cell:
                            words.update(w.lower() for w in _WORD.findall(f.text))
            broken = False
            for row, nxt in itertools.zip_longest(unit.rows, unit.rows[1:]):
                text = row.text
                found = _WORD.findall(text)
                if broken and found:
                    found = found[1:]
                broken = text.endswith(tuple(_HYPHENS))
                soft = soft or (broken and text.endswith("\u00ad"))
                if broken and found:
                    found = found[:-1]
                    if nxt is not None and text[-2:-1].islower() and nxt.text[:1].islower():
                        seams.append((text[:-1], nxt.text))
                words.update(word.lower() for word in found)
    lexicon = _Lexicon(words)
    verdicts = [_compound_by_words(*_halves(a, b), words) for a, b in seams]
    compounds = sum(1 for v in verdicts if v)
    lexicon.hyphenates = soft or False in verdicts or compounds < _COMPOUNDS_TO_TRUST
    return lexicon


def _halves(before: str, after: str) -> tuple[str, str]:
    """The word before a line-end hyphen (itself possibly hyphenated) and the letters after."""
    token = before.rsplit(" ", 1)[-1]
    head = re.sub(r"^.*[^\w-]", "", token).lower()
    match = re.match(r"[^\W\d_]*", after.split(" ", 1)[0])
    return head, match[0].lower() if match else ""


def _compound_by_words(head: str, tail: str, words: set[str]) -> bool | None:
    """What the document's own words say of ``head-`` + ``tail``: a compound (True), a word
    broken at the line end (False), or nothing (None)."""
    if f"{head}{tail}" in words:
        return False
    if f"{head}-{tail}" in words:
        return True
    first = head.rsplit("-", 1)[-1]
    if first in _HYPHENATED_PREFIXES:
        return True
    if len(first) >= 3 and len(tail) >= 3 and first in words and tail in words:
        return True
    return None


def _compound(chars: list[str], following: list[str], lexicon: _Lexicon) -> bool:
    """Is ``word-`` + ``next`` a hyphenated compound rather than one word broken at the line end?

    PDFs carry no dictionary, so the document itself is one: a form spelled elsewhere in it
    decides (``compliance`` -> join; ``non-normal`` -> keep); otherwise a compound of two words
    the document uses on their own (``hand-off``) or of a prefix English writes with a hyphen
    (``self-managed``) keeps it, as does a hyphen inside a web or e-mail address. Anything else
    (``compli-ance``) is joined, unless the document does not hyphenate words at all
    (:class:`_Lexicon`), where a line-end hyphen is always the writer's.
    """
    token = "".join(chars[:-1]).rsplit(" ", 1)[-1]
    if any(mark in token for mark in ("/", "@", "www.")):
        return True
    verdict = _compound_by_words(*_halves("".join(chars[:-1]), "".join(following)), lexicon.words)
    return (not lexicon.hyphenates) if verdict is None else verdict


def _seam(chars: list[str], following: list[str], joiner: str) -> str:
    """The word made where two lines join, for the normalisation notes."""
    head = "".join(chars[-30:]).rsplit(" ", 1)[-1]
    tail = "".join(following[:30]).split(" ", 1)[0]
    return head + joiner + tail


def _joiners(
    glyphs: list[tuple[list[str], list[float], list[float]]],
    vocabulary: _Lexicon,
    stats: _Stats,
) -> list[str]:
    """What joins each line to the next: a space, or nothing where a word, an address or a
    name wraps inside itself. Hyphens of words broken at line ends are deleted here."""
    joiners: list[str] = []
    for i in range(len(glyphs) - 1):
        chars, x0, x1 = glyphs[i]
        nxt = glyphs[i + 1][0]
        last = chars[-1]
        head = nxt[0] if nxt else ""
        if last in _HYPHENS and (len(chars) < 2 or chars[-2] != " "):
            before = chars[-2] if len(chars) > 1 else ""
            if last == "\u00ad" or (
                before.islower() and head.islower() and not _compound(chars, nxt, vocabulary)
            ):
                stats.hyphen_examples["joined"].append(_seam(chars[:-1], nxt, ""))
                del chars[-1], x0[-1], x1[-1]
                stats.dehyphenated += 1
            else:
                stats.hyphen_examples["kept"].append(_seam(chars, nxt, ""))
                stats.hyphen_kept += 1
            joiners.append("")
        elif last in _DASHES and (len(chars) < 2 or chars[-2] != " "):
            stats.hyphen_examples["kept"].append(_seam(chars, nxt, ""))
            stats.hyphen_kept += 1
            joiners.append("")
        elif (last in "/@" and (head.islower() or head.isdigit())) or (
            last in "_\\" and (head.isalnum() or head in "_.")
        ):
            stats.url_joined += 1  # an address, path or name broken at the line end
            joiners.append("")
        else:
            joiners.append(" ")
    for chars, x0, x1 in glyphs:  # soft hyphens left inside lines are invisible: drop them
        while "\u00ad" in chars:
            i = chars.index("\u00ad")
            del chars[i], x0[i], x1[i]
            stats.controls += 1
    return joiners
