"""Sentence boundaries in documentation text: rules written out, in pure Python and ``re``.

A *cut* is a position ``c`` at the start of the white space between two sentences (or right after
a CJK full stop, which needs no space). :data:`CANDIDATES` finds every position that could be one;
:func:`is_sentence_end` decides, looking at the text around ``c`` only, so cuts can be found
lazily in any window (:class:`explorer.chunking.cuts.RegexCuts`) or all at once
(:func:`sentence_spans`).

The rules, in the order they are tried:

1. **Paragraphs.** A blank line ends a sentence; so does the end of the text.
2. **Punctuation** (``.``, ``!``, ``?``, ``…``, then any closing quotes, brackets or Markdown
   emphasis) followed by white space ends a sentence, except:

   * ``!`` or ``?`` followed by a lower-case word (``Yahoo! in``), and any stop followed by a
     closing quote or bracket and then a lower-case word (``"This is great." she said``);
   * a stop after a known abbreviation: titles and references (``Dr.``, ``Mt.``, ``e.g.``,
     ``vs.``, ``Fig.``, ``pp.``, ``No. 5``) never end one; words such as ``etc.``, ``Inc.``,
     ``co.``, ``et al.`` and months end one only before a capital (``Jane and co. They``), and
     so do ``a.m.``/``p.m.`` unless a day or time zone follows (``5 p.m. Friday``);
   * other initialisms (``U.S.``, ``E.U.``, ``Ph.D.``) end one only before a word that
     usually opens a sentence (``the U.S. How`` ends, ``the U.S. Census Bureau`` does not); a
     time never ends a short opener such as ``At 5 a.m.``;
   * an initial (``J. L. Blue``, ``Jonas E. Smith``) unless a sentence opener follows
     (``you and I. Did``) or it follows a word in capitals (``Mac OS X. Patch``) or a word
     that names a letter (``Appendix A. Appendix B``);
   * a list marker (``1.``, ``a.``, ``2.1.`` at the start of a line, or an inline ``2.`` after
     ``1.``); a single lower-case letter (``p. 55``);
   * an unknown short word before a number (``N°. 1026``); numbers, versions, section numbers,
     money, dotted identifiers, e-mail addresses and URLs are words like any other, so
     ``$100.00. It``, ``3.10.0a1. Python`` and ``process.stderr. The`` end sentences;
   * ellipses: ``[...]`` and a free-standing or spaced ``. . .`` continue the sentence; an
     attached ``...`` ends it before a capital; ``. . . .`` is a full stop plus an ellipsis.

   A footnote number glued to a full stop (``checklists.14 These``) ends a sentence too, and so
   does a free-standing stop, as tokenised text has them (``the series . It was``), unless a
   lower-case word follows (``a ? b``).
3. **Line breaks.** A single line break ends a sentence when the next line starts a block (a
   list item ``-``/``*``/``1.``/``a.``/``(a)``, a quote ``>``, a table row, a heading ``#``, a
   code fence or a Markdown link definition ``[id]: url``), when the line is a heading or a
   table row (``| a |`` or ``a | b``), an underline (``-----``, ``=====``; the line above it is
   its heading), a lead-in ending in ``:``, or a line that cannot be a wrapped one: it is short
   enough that the next line's first word would have fitted on it (headings such as ``HISTORY``,
   definition terms, list items without a full stop), unless it ends with a comma or a word such
   as ``the``/``in`` or the next line goes on in lower case. Other line breaks are hard wraps
   inside a sentence.
4. **Inline lists.** White space before an inline list marker that continues a list (``2.``
   after ``1.``, ``b.`` after ``a.``, a second ``•``) ends the item before it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

__all__ = [
    "CANDIDATES",
    "candidate_cut",
    "candidate_cuts",
    "ends_sentence",
    "is_sentence_end",
    "is_stop_end",
    "sentence_spans",
    "split_sentences",
]

TERMINALS = ".!?…‼⁇⁈⁉"
CJK_TERMINALS = "。！？｡"
CLOSERS = "\"'”’»)]}*_`」』）】〕"
"""Closing quotes, brackets and Markdown emphasis that may follow a sentence's stop."""
OPENERS = "\"'“‘«([{*_`¿¡"
BULLETS = "•◦▪‣⁃●"

CANDIDATES = re.compile(r"[.!?…‼⁇⁈⁉。！？｡\n•◦▪‣⁃●]|\s(?=(?:\d{1,2}|[a-z])(?:\.\)?|\))\s)")
"""Where a sentence may end: a stop, a line break, a bullet, or the white space before an inline
list marker. :func:`candidate_cut` turns a match into the cut it stands for; :func:`candidate_cuts`
gives the same cuts faster."""

_SCAN = re.compile(r"[.!?…‼⁇⁈⁉。！？｡\n•◦▪‣⁃●)]")
"""The stops, breaks and bullets of :data:`CANDIDATES`, and ``)``: one character class, which
``re`` scans several times faster than the alternation (an inline list marker's ``.`` or ``)``
is where it is noticed)."""
_MARKER = re.compile(r"(?:\d{1,2}|[a-z])(?:\.\)?|\))\s")
"""An inline list marker after its white space (the look-ahead of :data:`CANDIDATES`)."""


def candidate_cut(m: re.Match[str]) -> int:
    """The cut of a :data:`CANDIDATES` match: right after a stop and the closers after it (and a
    footnote number glued to it), or at the start of the white space before a line break, a
    bullet or a list marker. Cuts never decrease from one match to the next."""
    return _cut_at(m.string, m.start())


def candidate_cuts(text: str, pos: int = 0, endpos: int | None = None) -> Iterator[int]:
    """``candidate_cut(m) for m in CANDIDATES.finditer(text, pos, endpos)``, in the same order:
    the stops, breaks and bullets are scanned as one character class, and the white space of an
    inline list marker is found from the marker's ``.`` or ``)``."""
    end = len(text) if endpos is None else min(endpos, len(text))
    for m in _SCAN.finditer(text, pos, end):
        j = m.start()
        ch = text[j]
        if ch == "." or ch == ")":
            # a marker's label is one character after white space, or two digits: most stops
            # (after a word) fail this test, without the call
            if j >= 2 and (text[j - 2].isspace() or text[j - 2].isdigit()):
                s = _marker_space(text, j, pos, end)
                if s >= 0:
                    yield _cut_at(text, s)
            if ch == ")":
                continue  # a bracket is a candidate only as the end of a marker
        yield _cut_at(text, j)


def _marker_space(text: str, j: int, pos: int, end: int) -> int:
    """Where the white space before an inline list marker whose punctuation starts at ``j``
    stands, if it is a :data:`CANDIDATES` match in ``[pos, end)``; else -1."""
    if j < 2 or (text[j] == ")" and text[j - 1] == "."):
        return -1  # ".)" is noticed at its "."
    label = text[j - 1]
    if not (label.isdigit() or "a" <= label <= "z"):
        return -1
    s = j - 2
    if text[s].isdigit() and label.isdigit():
        s = j - 3  # a two-digit label ("12.")
        if s < 0 or not text[s].isspace():
            s = j - 2  # not two digits after a space: only "2." after a digit, which fails
    if s < pos or not text[s].isspace() or text[s] == "\n":
        return -1  # ("\n" matches as a line break first)
    return s if _MARKER.match(text, s + 1, end) else -1


def _cut_at(text: str, i: int) -> int:
    ch = text[i]
    if ch in TERMINALS or ch in CJK_TERMINALS:
        n = len(text)
        if i + 1 < n and text[i + 1] in TERMINALS:
            return i + 1  # not the last stop of a run ("..."): the run's last one stands for it
        q = i + 1
        while q < n and text[q] in TERMINALS:
            q += 1
        while q < n and text[q] in CLOSERS:
            q += 1
        d = q
        while d < n and d - q < 4 and text[d].isdigit():
            d += 1
        if q < d < n and d - q <= 3 and text[d].isspace():
            return d  # "checklists.14 These": a footnote number after the stop
        return q
    k = i
    if ch == "\n":  # back over the line's trailing blanks only
        while k > 0 and text[k - 1] in " \t\r":
            k -= 1
    else:  # a bullet or a list marker: back over all the white space before it
        while k > 0 and text[k - 1].isspace():
            k -= 1
    return k


# --------------------------------------------------------------------------- word lists

_NEVER_END = frozenset(
    (
        "mr mrs ms mx dr prof rev hon sen rep gov gen col capt lt sgt cmdr adm maj pres supt "
        "messrs mme mlle mt st fr e.g i.e cf vs viz approx ca fig figs eq eqs vol vols pp ch "
        "chap sec secs sect art arts nos nr tab ref refs op cit ed eds ex esp incl resp univ "
        "ps"
    ).split()
)
"""Abbreviations that are followed by more of the same sentence: titles before a name, and
words that introduce a reference or an example."""
_END_BEFORE_CAPITAL = frozenset(
    (
        "etc co inc ltd corp llc plc bros jr sr esq al dept assn intl govt misc min max hr hrs "
        "mins ft lb lbs oz yr yrs sq jan feb mar apr jun jul aug sep sept oct nov dec"
    ).split()
)
"""Abbreviations that often end a sentence: they end one when a capital follows."""
_TIMES = frozenset(("a.m", "p.m"))
_TIME_QUALIFIERS = frozenset(
    (
        "monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun "
        "utc gmt est edt cst cdt mst mdt pst pdt et ct mt pt cet cest bst eastern central "
        "mountain pacific local"
    ).split()
)
"""Words that go on a time's sentence after ``a.m.``/``p.m.`` (``5 p.m. Friday``)."""
_LABELS = frozenset(
    (
        "appendix annex exhibit schedule part table figure form type class group option plan "
        "step phase level grade zone section chapter article item unit model version vitamin "
        "attachment enclosure tier"
    ).split()
)
"""Words that name a letter (``Appendix A``): such a letter is a label, not an initial."""
_STARTERS = frozenset(
    (
        "a an the this that these those it its he she they we i you his her their our my your "
        "there here what when where which who whom whose why how if in on at for from to by with "
        "as of after before since while although though because once unless until also but and "
        "or so yet then thus therefore hence however moreover furthermore otherwise instead "
        "meanwhile finally first next now each every all any some many most both either neither "
        "no not none only please note see use do does did is are was were be has have had let "
        "such other another one two being millions more today mr mrs ms dr prof"
    ).split()
)
"""Words that usually open a sentence: after an initialism or an initial, one of them means the
sentence ended there (``the E.U. How``)."""
_OPENER_PREPOSITIONS = frozenset("at by from until till before after since around about".split())
_FUNCTION_WORDS = frozenset(
    (
        "a an the and or nor but of to in on at by for from with as into onto than that via "
        "if is are was were be its their our your his her my this these those such"
    ).split()
)
"""A line ending with one of these cannot end a sentence (it was wrapped)."""

_LINE_MARKER = re.compile(r"(?:\d{1,3}(?:\.\d{1,3})*|[a-z](?:\.\d{1,3})*|[ivxlc]{1,5})$")
_BLOCK_START = re.compile(
    r"[ \t]*(?:(?:[-*+>|#•◦▪‣⁃●]|\d{1,3}[.)]|[a-z][.)]|\([a-zA-Z0-9]{1,4}\)|\[[^\]\n]+\]:)(?=\s|$)"
    r"|```|~~~)"
)
_UNDERLINE = re.compile(r"[ \t]*([-=~^*#+_])\1{2,}[ \t]*$")
_QUOTE = re.compile(r"[ \t]*(?:>[ \t]?)+")
_INLINE_MARKER = re.compile(r"([•◦▪‣⁃●])|(\d{1,2}|[a-z])(\.\)|\.|\))(?=\s)")
_WINDOW = 2000
_CHAIN = 3
"""How many markers back an inline list is followed (a longer run of them is a list)."""
"""How far back (characters, inside one paragraph) an inline list is followed."""


# --------------------------------------------------------------------------- the decision


def is_sentence_end(text: str, c: int) -> bool:
    """Does a sentence end at ``c``, the start of the white space after it? See the module
    docstring for the rules. ``c`` right after a CJK full stop needs no white space."""
    return _verdict(text, c, stops_only=False)


def is_stop_end(text: str, c: int) -> bool:
    """Does a sentence end at ``c`` by rule 1 or 2 (a blank line, the end of the text, or its
    stop), not by rule 3 or 4 (a line break or an inline list marker without a stop before it)?
    Every such end is also an :func:`is_sentence_end`."""
    return _verdict(text, c, stops_only=True)


def _verdict(text: str, c: int, *, stops_only: bool) -> bool:
    n = len(text)
    if c <= 0 or c >= n or text[c - 1].isspace():
        return False
    j = c
    while j < n and text[j].isspace():
        j += 1
    if j >= n:
        return True  # only white space follows
    if j == c:
        return _after_cjk_stop(text, c)
    gap = text[c:j]
    breaks = gap.count("\n") + gap.count("\r") - gap.count("\r\n")
    if breaks >= 2:
        return True  # a blank line
    if breaks == 0 and text[j] == "|":
        return False  # the end of a table cell, not of a sentence
    stop = _stop_verdict(text, c, j)
    if stop:
        return True
    if stops_only:
        return False
    if breaks == 1 and _line_end_verdict(text, c, j, stop is None):
        return True
    return _inline_item_starts(text, j)


_NOT_SPACE = re.compile(r"\S")  # \s is str.isspace's white space


def ends_sentence(text: str, end: int) -> bool:
    """Does the piece of ``text`` that ends at ``end`` end a sentence? (The end of the text, or
    only white space after it, does.)"""
    if end >= len(text) or _NOT_SPACE.search(text, end) is None:
        return True  # (a search, not ``text[end:].strip()``: that copies the rest of the text,
        # which over a long document's thousands of chunk ends was most of a settings change)
    return is_sentence_end(text, end)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Every sentence of ``text`` as a ``(start, end)`` span, trimmed of white space."""
    n = len(text)
    cuts = sorted(set(candidate_cuts(text)))
    bounds = [0, *(c for c in cuts if 0 < c < n and is_sentence_end(text, c)), n]
    spans = []
    for a, b in itertools.pairwise(bounds):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            spans.append((a, b))
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, in order, each stripped (``text[a:b]`` of each span)."""
    return [text[a:b] for a, b in sentence_spans(text)]


# --------------------------------------------------------------------------- stops


def _after_cjk_stop(text: str, c: int) -> bool:
    k = c
    while k > 0 and text[k - 1] in CLOSERS:
        k -= 1
    return k > 0 and text[k - 1] in CJK_TERMINALS


def _next_char(text: str, j: int) -> str:
    """The first character of the next piece after any opening quotes or brackets (also a quote
    standing alone, as tokenised text has them: ``Ready . " The``)."""
    n = len(text)
    for _ in range(3):
        while j < n and text[j] in OPENERS:
            j += 1
        if j >= n or text[j] not in " \t" or text[j - 1] not in OPENERS:
            break
        while j < n and text[j] in " \t":
            j += 1
    return text[j] if j < n else ""


def _next_token(text: str, j: int) -> str:
    """The next piece up to white space."""
    k = j
    while k < len(text) and not text[k].isspace():
        k += 1
    return text[j:k]


def _next_word(text: str, j: int) -> str:
    n = len(text)
    while j < n and text[j] in OPENERS:
        j += 1
    k = j
    while k < n and text[k].isalpha():
        k += 1
    return text[j:k]


def _stop_verdict(text: str, c: int, j: int) -> bool | None:
    """The verdict of the punctuation before ``c``; ``None`` when there is none."""
    k = c
    while k > 0 and text[k - 1] in CLOSERS:
        k -= 1
    closed = k < c
    if k == 0:
        return None
    last = text[k - 1]
    if last.isdigit():
        return _footnote_end(text, k, j)
    if last in CJK_TERMINALS:
        return True
    if last not in TERMINALS:
        return None
    r = k
    while r > 0 and text[r - 1] in TERMINALS:
        r -= 1
    run = text[r:k]
    nc = _next_char(text, j)
    lower_next = nc.islower()
    if run == "." and (text[j] == "." or (r >= 2 and text[r - 2 : r] == ". ")):
        return _spaced_ellipsis(text, r, j)
    if r == 0 or text[r - 1].isspace():
        # a free-standing stop: tokenised text ("the series . It was") ends a sentence before a
        # capital; " ... well", "a ? b" and ". . ." (above) do not
        return len(run) == 1 and bool(nc) and not nc.islower()
    if "!" in run or "?" in run or "‼" in run:
        return not lower_next
    if run != ".":  # "...", "…", "....": an ellipsis attached to a word
        if text[r - 1] in "[(":
            return False  # "[...]", "(...)": an omission
        return nc.isupper() or nc.isdigit()
    if closed and lower_next:
        return False  # 'This is great.' she said
    return _period_verdict(text, r, j, nc, closed)


def _footnote_end(text: str, k: int, j: int) -> bool | None:
    """``checklists.14 These``: a stop, a footnote number, then a capital."""
    d = k
    while d > 0 and text[d - 1].isdigit():
        d -= 1
    e = d
    while e > 0 and text[e - 1] in "\"'”’)":
        e -= 1
    if k - d > 3 or e < 3 or text[e - 1] not in ".!?" or not text[e - 3 : e - 1].isalpha():
        return None
    if not text[e - 3 : e - 1].islower():
        return None
    return _next_char(text, j).isupper()


def _spaced_ellipsis(text: str, r: int, j: int) -> bool:
    """The stop at ``r`` is one dot of a spaced ellipsis (``. . .``)."""
    first = r
    count = 1
    while count < 8 and first >= 2 and text[first - 1] == " " and text[first - 2] == ".":
        first -= 2
        count += 1
    attached = first > 0 and not text[first - 1].isspace()
    if text[j] == ".":  # more dots follow
        if count != 1 or not attached:
            return False
        q = j
        more = 0
        while q < len(text) and text[q] == "." and more < 4:
            more += 1
            q += 1
            if text.startswith(" .", q):
                q += 1
        # "compounds. . . . The": a full stop, then an ellipsis that opens the next sentence
        return more == 3 and _after_gap_upper(text, q)
    if count >= 4 and not attached:
        return _next_char(text, j).isupper()  # "a period . . . . Next"
    return False


def _after_gap_upper(text: str, q: int) -> bool:
    n = len(text)
    if q >= n or not text[q].isspace():
        return False
    while q < n and text[q].isspace():
        q += 1
    return _next_char(text, q).isupper()


def _word_before(text: str, r: int) -> tuple[int, str]:
    """The start and text of the word that ends at ``r`` (opening quotes and bullets dropped)."""
    w = r
    while w > 0 and not text[w - 1].isspace():
        w -= 1
    s = w
    while s < r and (text[s] in OPENERS or text[s] in BULLETS):
        s += 1
    return s, text[s:r]


def _period_verdict(text: str, r: int, j: int, nc: str, closed: bool) -> bool:
    """A single full stop at ``r`` with the next piece starting at ``j`` (first letter ``nc``)."""
    s, word = _word_before(text, r)
    if not word:
        return False
    low = word.lower()
    if _LINE_MARKER.match(low) and _is_list_marker(text, s, word):
        return False  # "1.", "1.)", "a.", "2.1."
    if word[-1] in CLOSERS:
        return True  # "(HPC).", "`process.stderr`.": a word that is not an abbreviation
    if len(word) == 1 and word.isalpha():
        return word.isupper() and _initial_ends(text, s, j, nc)
    if low in _NEVER_END:
        return False
    following = _next_token(text, j)
    if low == "no":
        return not any(ch.isdigit() for ch in following)  # "No. 5", "Docket No. FAA-2020-0746"
    if low in _END_BEFORE_CAPITAL:
        return nc.isupper() and "." not in following[:-1]  # not "Inc. P.O. Box"
    if "." in word and _is_initialism(word):
        if low in _TIMES:  # "at 6 P.M. Mr. Smith", but not "At 5 a.m. Mr. Smith went"
            after = _next_word(text, j).lower()
            return nc.isupper() and after not in _TIME_QUALIFIERS and not _short_opener(text, s)
        return _next_word(text, j).lower() in _STARTERS and nc.isupper()
    if nc.isdigit():
        # "10. 0 disables" ends; an unknown short word before a number is an abbreviation
        return any(ch.isdigit() for ch in word) or len(word) > 5
    return True


def _is_initialism(word: str) -> bool:
    """``U.S``, ``e.g``, ``Ph.D``: dotted pieces of one or two letters each."""
    parts = word.split(".")
    return all(1 <= len(p) <= 2 and p.isalpha() for p in parts)


def _initial_ends(text: str, s: int, j: int, nc: str) -> bool:
    """A single capital letter and a full stop at ``s``: a sentence end or an initial?"""
    if not nc.isupper():
        return False
    nxt = text[j : j + 3]
    if len(nxt) >= 2 and nxt[0].isupper() and nxt[1] == ".":
        return False  # another initial follows: "J. L. Blue"
    if _next_word(text, j).lower() in _STARTERS:
        return True  # "you and I. Did", "set it to Y. The"
    p = s
    while p > 0 and text[p - 1] in " \t":
        p -= 1
    q = p
    while q > 0 and not text[q - 1].isspace():
        q -= 1
    prev = text[q:p]
    if prev.lower() in _LABELS:
        # "defined in Appendix A. Appendix B lists", but a heading "Appendix A. Glossary"
        return bool(text[text.rfind("\n", 0, q) + 1 : q].strip())
    letters = [ch for ch in prev if ch.isalpha()]
    # "Mac OS X. Patch": after a word in capitals (or with digits) the letter is a name's end
    return bool(prev) and (
        (len(letters) >= 2 and all(ch.isupper() for ch in letters))
        or any(ch.isdigit() for ch in prev)
    )


def _short_opener(text: str, s: int) -> bool:
    """``At 5 a.m.``: the sentence so far is a preposition and a time, not a sentence."""
    a = max(0, s - 40)
    head = text[a:s]
    for stop in (". ", "! ", "? ", "\n"):
        i = head.rfind(stop)
        if i >= 0:
            head = head[i + len(stop) :]
    words = head.split()
    return 1 <= len(words) <= 2 and words[0].lower() in _OPENER_PREPOSITIONS


# --------------------------------------------------------------------------- lists


def _paragraph_start(text: str, pos: int) -> int:
    lo = max(0, pos - _WINDOW)
    i = max(text.rfind("\n\n", lo, pos), text.rfind("\n\r\n", lo, pos))
    return i + 1 if i >= 0 else lo


def _line_prefix_is_marker_room(text: str, s: int) -> bool:
    """Only indentation, bullets or Markdown markers stand between the line start and ``s``."""
    ls = text.rfind("\n", 0, s) + 1
    return all(ch in " \t#>*+-" or ch in BULLETS for ch in text[ls:s])


def _is_list_marker(text: str, s: int, word: str) -> bool:
    """Is ``word`` (at ``s``, before a full stop) a list marker such as ``1.``, ``a.``,
    ``2.1.``?"""
    if _line_prefix_is_marker_room(text, s):
        return True
    if (s > 0 and text[s - 1] in BULLETS) or (s > 1 and text[s - 2] in BULLETS):
        return True
    if not (word.isdigit() and len(word) <= 2) and not (len(word) == 1 and word.islower()):
        return False
    ps = _paragraph_start(text, s)
    style = ".)" if text.startswith(".)", s + len(word)) else "."
    if _chain_back(text, ps, s, word, style):
        return True
    # the first item of an inline list: "follows. 1. Enter ... 2. Sign"
    if word in ("1", "a") and _item_may_start(text, ps, s):
        nxt = "2" if word == "1" else "b"
        end = min(len(text), s + _WINDOW)
        para_end = text.find("\n\n", s, end)
        return _find_marker(text, s + 2, para_end if para_end >= 0 else end, nxt, style) >= 0
    return False


def _inline_item_starts(text: str, j: int) -> bool:
    """Does an inline list item that continues a list start at ``j``?"""
    m = _INLINE_MARKER.match(text, j)
    if m is None:
        return False
    ps = _paragraph_start(text, j)
    if m.group(1):
        return text.find(m.group(1), ps, j) >= 0  # a second bullet in the paragraph
    return _chain_back(text, ps, j, m.group(2), m.group(3))


def _previous_label(label: str) -> str | None:
    if label.isdigit():
        v = int(label)
        return str(v - 1) if v > 1 else None
    return chr(ord(label) - 1) if label > "a" else None


def _chain_back(text: str, ps: int, pos: int, label: str, style: str) -> bool:
    """Do the markers before ``label`` (``1.`` … or ``a.`` …, of one style) precede ``pos`` in
    the paragraph starting at ``ps``, the first of them where an item may start?"""
    prev = _previous_label(label)
    if prev is None:
        return False
    end = pos
    for _ in range(_CHAIN):
        q = _find_marker(text, ps, end, prev, style, last=True)
        if q < 0:
            return False
        end = q
        prev = _previous_label(prev)
        if prev is None:
            return _item_may_start(text, ps, end)
    return True  # a long list, followed far enough back


def _find_marker(text: str, a: int, b: int, label: str, style: str, *, last: bool = False) -> int:
    """Where ``label + style`` stands as a marker (after white space or a bullet) in
    ``[a, b)``; the last such place with ``last``. -1 if nowhere."""
    token = label + style
    pos = b if last else a
    while True:
        q = text.rfind(token, a, pos) if last else text.find(token, pos, b)
        if q < 0:
            return -1
        before_ok = q == 0 or text[q - 1].isspace() or text[q - 1] in BULLETS
        after = q + len(token)
        after_ok = after >= len(text) or text[after].isspace()
        if before_ok and after_ok:
            return q
        pos = q if last else q + 1


def _item_may_start(text: str, ps: int, q: int) -> bool:
    """A first list item may start at ``q``: at the paragraph or line start, or after ``:`` or
    a sentence's stop."""
    head = text[ps:q].rstrip()
    if not head:
        return True
    if _line_prefix_is_marker_room(text, q):
        return True
    return head[-1] in ":.!?" or head[-1] in BULLETS


# --------------------------------------------------------------------------- line ends


def _line_end_verdict(text: str, c: int, j: int, no_stop: bool) -> bool:
    """A single line break in the white space ``[c, j)``: does a sentence end at ``c``?"""
    ls = text.rfind("\n", 0, c) + 1
    line = text[ls:c]
    ns = text.rfind("\n", 0, j) + 1
    ne = text.find("\n", j)
    next_line = text[ns : ne if ne >= 0 else len(text)].rstrip("\r")
    q1, q2 = _QUOTE.match(line), _QUOTE.match(next_line)
    if q1 and q2:  # two lines of one block quote: judge the text inside it
        if not next_line[q2.end() :].strip():
            return True  # an empty quote line: a paragraph break
        if not line[q1.end() :].strip():
            return False
        line, next_line = line[q1.end() :], next_line[q2.end() :]
    if _UNDERLINE.match(next_line):
        return False  # the line is a heading underlined by the next one
    if _UNDERLINE.match(line) or _BLOCK_START.match(next_line):
        return True
    stripped = line.strip()
    if stripped[:1] in ("#", "|") or (" | " in line and " | " in next_line):
        return True  # a Markdown heading or a table row
    if not no_stop:
        return False  # a stop that was judged not to end the sentence ("Dr.\nSmith")
    if stripped.endswith(":"):
        return not (next_line.lstrip()[:1].islower() and _indent(next_line) <= _indent(line))
    if _split_subscript(text, c, stripped, next_line):
        return False
    return _unwrapped(text, ls, c - ls, line, next_line)


_SUBSCRIPT = re.compile(r"[ \t]*\d+(?![\d.)])")
_STOP_GAP = re.compile(r"[.!?][\"')\]]*\s")
_LONE_LETTER = re.compile(r"(?:^|[^\w])[^\W\d_]$")


def _split_subscript(text: str, c: int, line: str, next_line: str) -> bool:
    """A symbol's index put on a line of its own by the text's extraction (``… the rate k`` /
    ``15 = 0.3 min−1 …``, ``starting at t`` / ``0 = 0.``, ``1 / (k`` / ``6``): running text
    (three words or more since the paragraph's start or the last full stop) ending in a lone
    letter, and a next line opening with a number that is not a list marker. A heading
    (``Appendix A`` / ``2 Scope``) has fewer words."""
    if not _LONE_LETTER.search(line) or _SUBSCRIPT.match(next_line) is None:
        return False
    a = max(_paragraph_start(text, c), c - 200)
    stops = list(_STOP_GAP.finditer(text, a, c))
    run = text[stops[-1].end() if stops else a : c]
    return len(run.split()) >= 3


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _text_indent(line: str) -> int:
    """Where the text of a line starts, after indentation and any list marker."""
    m = re.match(r"[ \t]*(?:[-*+•◦▪‣⁃●]|\d{1,3}[.)]|\([a-zA-Z0-9]{1,4}\))?[ \t]*", line)
    return m.end() if m else 0


def _unwrapped(text: str, ls: int, width: int, line: str, next_line: str) -> bool:
    """Is ``line`` (``width`` characters as laid out, no stop at its end) a line that was not
    wrapped: a heading, a term, a list item, a short line? True when the next line's first word
    would have fitted on it."""
    stripped = line.strip()
    last = stripped.rsplit(None, 1)[-1] if stripped else ""
    if not last or last[-1] in ",;([{/-–—&+=<" or last.lower() in _FUNCTION_WORDS:
        return False
    first = _first_unit(next_line)
    if not first:
        return True
    if first.lstrip(OPENERS)[:1].islower():  # goes on in lower case: after a heading in
        # capitals or a term only
        letters = [ch for ch in stripped if ch.isalpha()]
        capitals = len(letters) >= 2 and all(ch.isupper() for ch in letters)
        if not capitals and _indent(next_line) <= _text_indent(line) + 1:
            return False
    return width + 1 + len(first) <= _wrap_width(text, ls)


def _first_unit(line: str) -> str:
    """The first piece of ``line`` that a wrapper cannot break: its first word, or a whole
    Markdown link ``[text](url)`` or code span that opens it."""
    body = line.lstrip()
    if body[:1] == "[":
        close = body.find("](")
        end = body.find(")", close) if close >= 0 else -1
        if end >= 0:
            return body[: end + 1]
    elif body[:1] == "`":
        end = body.find("`", 1)
        if end >= 0:
            return body[: end + 1]
    return body.split(None, 1)[0] if body else ""


def _wrap_width(text: str, ls: int) -> int:
    """The longest line among a few around the one starting at ``ls``, inside its paragraph."""
    width = 0
    a = ls
    for _ in range(4):  # this line and up to three before it
        e = text.find("\n", a)
        e = len(text) if e < 0 else e
        seg = text[a:e].rstrip()
        if not seg:
            break
        width = max(width, len(seg))
        if a == 0:
            break
        a = text.rfind("\n", 0, a - 1) + 1
    e = text.find("\n", ls)
    for _ in range(4):  # up to four after it
        if e < 0:
            break
        a = e + 1
        e = text.find("\n", a)
        seg = text[a : len(text) if e < 0 else e].rstrip()
        if not seg:
            break
        width = max(width, len(seg))
    return width
