"""Sentence boundaries: the public Golden Rules, our real-text set, exact cuts, and properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.chunking.cuts import sentence_cuts
from explorer.chunking.diagnostics import diagnose
from explorer.chunking.records import ChunkSettings
from explorer.chunking.sentences import (
    CANDIDATES,
    candidate_cut,
    candidate_cuts,
    ends_sentence,
    is_sentence_end,
    is_stop_end,
    sentence_spans,
    split_sentences,
)
from explorer.chunking.splitters import split
from tests.conftest import REPO, SHARED, make_chunks, make_doc

GOLDEN_RULES = SHARED / "benchmarks" / "sentence-golden-rules" / "english-golden-rules.json"
REAL_TEXT = REPO / "tests" / "data" / "sentences-realtext.json"


def _normal(sentences: list[str]) -> list[str]:
    """White space inside a sentence collapsed: a hard wrap is not a difference."""
    return [" ".join(s.split()) for s in sentences]


def _failures(cases: list[dict[str, object]]) -> list[str]:
    out = []
    for case in cases:
        got = split_sentences(str(case["text"]))
        if _normal(got) != _normal(list(case["sentences"])):  # type: ignore[call-overload]
            out.append(f"{case.get('id')} {case.get('rule', case.get('category'))}: {got}")
    return out


def test_golden_rules_pass_at_least_46_of_48() -> None:
    rules = json.loads(GOLDEN_RULES.read_text(encoding="utf-8"))
    assert len(rules) == 48
    failed = _failures(rules)
    assert len(rules) - len(failed) >= 46, "failing Golden Rules:\n" + "\n".join(failed)


def _real_text(part: str) -> list[dict[str, object]]:
    cases = json.loads(REAL_TEXT.read_text(encoding="utf-8"))["cases"]
    return [c for c in cases if c["part"] == part]


def test_real_text_cases_are_pieces_of_their_passages() -> None:
    """Each expected sentence is an exact, stripped piece of its passage, in order, and together
    they hold every non-space character: the set cannot ask for the impossible."""
    cases = _real_text("tune") + _real_text("heldout")
    assert len(cases) >= 150
    categories = {c["category"] for c in cases}
    assert {
        "money",
        "version",
        "abbreviation-end",
        "abbreviation-inside",
        "initials",
        "email-url",
        "ellipsis",
        "quotes-brackets",
        "identifier",
        "numbered-list",
        "lettered-list",
        "heading",
        "list-item",
        "hard-wrap",
    } <= categories
    for case in cases:
        text, pos = str(case["text"]), 0
        for s in case["sentences"]:  # type: ignore[attr-defined]
            assert s == s.strip() and s
            at = text.find(s, pos)
            assert at >= 0, (case["id"], s)
            assert not text[pos:at].strip(), (case["id"], text[pos:at])
            pos = at + len(s)
        assert not text[pos:].strip(), case["id"]


@pytest.mark.parametrize(("part", "floor"), [("tune", 0.98), ("heldout", 0.98)])
def test_real_text_set_accuracy(part: str, floor: float) -> None:
    """Whole passages right or wrong. The tuning part got 114 of 115 when the rules were final;
    the held-out part, written with it before any rule and run once after, 55 of 55. Each floor
    allows one more miss."""
    cases = _real_text(part)
    failed = _failures(cases)
    accuracy = 1 - len(failed) / len(cases)
    assert accuracy >= floor, f"{part}: {accuracy:.3f} < {floor}\n" + "\n".join(failed)


# --------------------------------------------------------------------------- the issue's cases

ISSUE_CASES = [
    ("She has $100.00. It is in her bag.", ["She has $100.00.", "It is in her bag."]),
    ("Up to $6,715. The rest is yours.", ["Up to $6,715.", "The rest is yours."]),
    (
        "This is 3.10.0a1. Python 3.10 is in development.",
        ["This is 3.10.0a1.", "Python 3.10 is in development."],
    ),
    ("See Section 67.4.3. Set it.", ["See Section 67.4.3.", "Set it."]),
    (
        "It writes to process.stderr. The stream is sync.",
        ["It writes to process.stderr.", "The stream is sync."],
    ),
    ("Mail Jane.Doe@example.com. She replies.", ["Mail Jane.Doe@example.com.", "She replies."]),
    (
        "Go to https://example.com/a.html. Then log in.",
        ["Go to https://example.com/a.html.", "Then log in."],
    ),
    ("Tabs, spaces, etc. This is ignored.", ["Tabs, spaces, etc.", "This is ignored."]),
    ("Let's ask Jane and co. They should know.", ["Let's ask Jane and co.", "They should know."]),
    ("I live in the E.U. How about you?", ["I live in the E.U.", "How about you?"]),
    ("He left at 6 P.M. Mr. Smith stayed.", ["He left at 6 P.M.", "Mr. Smith stayed."]),
    ("Built for Mac OS X. Patch notes follow.", ["Built for Mac OS X.", "Patch notes follow."]),
    ("Data from the U.S. Census Bureau is used.", ["Data from the U.S. Census Bureau is used."]),
    ("See J. L. Blue, G. T. Candela and others.", ["See J. L. Blue, G. T. Candela and others."]),
    ("1. The first item 2. The second item", ["1. The first item", "2. The second item"]),
    ("It ends . . . . Next one.", ["It ends . . . .", "Next one."]),
    (
        "HISTORY\nThe -no_alt_chains option was added in OpenSSL 1.1.0.",
        ["HISTORY", "The -no_alt_chains option was added in OpenSSL 1.1.0."],
    ),
    ("- Added `--json` output\n- Fixed a crash", ["- Added `--json` output", "- Fixed a crash"]),
]


@pytest.mark.parametrize(("text", "expected"), ISSUE_CASES, ids=[t[:24] for t, _ in ISSUE_CASES])
def test_the_issues_cases(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


OTHER_SHAPES = [
    # tokenised text (WikiText, in Chroma's benchmark): free-standing stops and quotes
    (
        'It was released in 2011 . The game , " Always Ready . " The team returned .',
        ["It was released in 2011 .", 'The game , " Always Ready .', '" The team returned .'],
    ),
    ("a ? b : c", ["a ? b : c"]),
    # pipe-table rows without outer pipes, starting in lower case (Chroma's finance text)
    (
        "item | 2017 | 2016\ninterest rates net | $-410 (410) | $-381 (381)\nother | 1 | 2",
        ["item | 2017 | 2016", "interest rates net | $-410 (410) | $-381 (381)", "other | 1 | 2"],
    ),
    # a block quote's lines are one paragraph; an empty quote line ends it
    (
        "> Containers in this mode get a root shell on the host\n> and take control.\n>\n> Next",
        [
            "> Containers in this mode get a root shell on the host\n> and take control.",
            ">\n> Next",
        ],
    ),
    # Markdown link definitions stand one per line
    (
        "[SemVer]: https://semver.org\n[crates.io]: https://crates.io/",
        ["[SemVer]: https://semver.org", "[crates.io]: https://crates.io/"],
    ),
    # a symbol's index on a line of its own (Chroma's PubMed text) goes on with the sentence...
    (
        "The turnover depends on the parameters ν\n14 and k\n15 (curves a: reference). All else.",
        [
            "The turnover depends on the parameters ν\n14 and k\n15 (curves a: reference).",
            "All else.",
        ],
    ),
    (
        "with the ratio K\n17/K\n8 = 10 of the constants.",
        ["with the ratio K\n17/K\n8 = 10 of the constants."],
    ),
    # ...but a short heading ending in a letter still ends before a numbered line
    ("Annex B\n\n1 Scope", ["Annex B", "1 Scope"]),
    (
        "It is listed in Part B\n1. Scope\n2. Methods",
        ["It is listed in Part B", "1. Scope", "2. Methods"],
    ),
]


@pytest.mark.parametrize(("text", "expected"), OTHER_SHAPES, ids=[t[:24] for t, _ in OTHER_SHAPES])
def test_other_text_shapes(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_golden_offsets_cut_at_the_start_of_the_white_space() -> None:
    text = "Dr. Smith paid $5.00. He left.\nHISTORY\nThe end.  \n\nNext."
    assert sentence_cuts(text).all() == [21, 30, 38, 47]
    assert [text[c] for c in (21, 30, 38, 47)] == [" ", "\n", "\n", " "]
    assert sentence_spans(text) == [(0, 21), (22, 30), (31, 38), (39, 47), (51, 56)]


def test_a_cjk_full_stop_needs_no_space() -> None:
    assert split_sentences("今天下雨。明天晴。") == ["今天下雨。", "明天晴。"]


def test_crlf_text() -> None:
    text = "First line ends here.\r\nSecond one.\r\n\r\nThird"
    assert split_sentences(text) == ["First line ends here.", "Second one.", "Third"]


# --------------------------------------------------------------------------- properties

PIECES = [
    "word", "Word", "U.S.", "Dr.", "e.g.", "etc.", "J.", "a.m.", "$100.00", "3.10.0a1", "1.",
    "2.", "a.", "b.", "1)", "•", "⁃", ". . .", "...", "…", "!", "?", ". ", "! ", "? ", ".)",
    '."', "”", " ", "  ", "\t", "\n", "\r\n", "\n\n", "# ", "- ", "> ", "| ", "-----", "HISTORY",
    "。", "🙂", "e\u0301", "\u200b", "\x0c", ":", "12.", "123.", "1.)", "a)", "\u00a0", "٣.",
]  # fmt: skip
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=5)), max_size=60).map("".join)


@given(text=texts)
def test_spans_are_trimmed_ordered_and_cover_every_character(text: str) -> None:
    spans = sentence_spans(text)
    covered = bytearray(len(text))
    prev_end = 0
    for a, b in spans:
        assert prev_end <= a < b <= len(text)
        assert text[a:b] == text[a:b].strip()
        covered[a:b] = b"\x01" * (b - a)
        prev_end = b
    assert all(covered[i] or ch.isspace() for i, ch in enumerate(text))


@given(text=texts, data=st.data())
def test_lazy_windows_find_the_same_cuts_as_the_whole_text(text: str, data: st.DataObject) -> None:
    """``RegexCuts`` looks at a window only; the cuts it finds are those of the whole text."""
    n = len(text)
    everything = sentence_cuts(text).all()
    assert everything == sorted(set(everything))
    for c in everything:
        assert 0 < c < n and not text[c - 1].isspace() and is_sentence_end(text, c)
    a = data.draw(st.integers(0, n))
    b = data.draw(st.integers(a, n))
    inside = [c for c in everything if a < c <= b]
    assert sentence_cuts(text).last_in(a, b) == (inside[-1] if inside else -1)
    from_a = [c for c in everything if a <= c < b]
    assert sentence_cuts(text).first_in(a, b) == (from_a[0] if from_a else -1)


@given(text=texts, data=st.data())
def test_the_fast_candidate_scan_finds_what_the_pattern_finds(
    text: str, data: st.DataObject
) -> None:
    """``candidate_cuts`` (one character class, markers found from their ``.`` or ``)``) gives
    the cuts of :data:`CANDIDATES` in the same order, in the whole text and in any window."""
    n = len(text)
    a = data.draw(st.integers(0, n))
    b = data.draw(st.integers(a, n))
    for pos, endpos in ((0, n), (a, b)):
        want = [candidate_cut(m) for m in CANDIDATES.finditer(text, pos, endpos)]
        assert list(candidate_cuts(text, pos, endpos)) == want


@pytest.mark.parametrize(
    "text",
    ["see a) this, b) that", "1. one 2.) two 12. twelve 123. no", "x\n a) y\n\tb. z", "x.)  1)"],
)
def test_the_fast_candidate_scan_agrees_in_every_window(text: str) -> None:
    """Windows that start or end inside a marker (between its space and its label, or before
    the space after it) find no more and no fewer markers than the pattern does."""
    n = len(text)
    for pos in range(n + 1):
        for endpos in range(pos, n + 1):
            want = [candidate_cut(m) for m in CANDIDATES.finditer(text, pos, endpos)]
            assert list(candidate_cuts(text, pos, endpos)) == want, (pos, endpos)


# --------------------------------------------------------------------------- downstream


def test_the_sentence_splitter_uses_the_new_ends() -> None:
    doc = make_doc("She has $100.00. It is in her bag. Ask Dr. Smith.")
    chunks = split(doc, ChunkSettings(splitter="sentence", unit="chars", size=20))
    assert [c.text for c in chunks] == ["She has $100.00.", "It is in her bag.", "Ask Dr. Smith."]


def test_ends_mid_sentence_follows_the_new_ends() -> None:
    text = "Ask Dr. Smith. She has $100.00. It is fine.\nHISTORY\nThe option was added in 1.1.0."
    doc = make_doc(text)
    it = text.index("It is")
    spans = [(0, len("Ask Dr.")), (0, it - 1), (it, text.index("HISTORY") + len("HISTORY"))]
    assert diagnose(doc, make_chunks(text, spans)).issues == (("mid_sentence",), (), ())
    assert ends_sentence(text, len(text)) and not ends_sentence(text, len("Ask Dr."))


WORKS = (  # a WikiText article's end and the next one's title, all in one block
    "The font was carved in 1948 . It stands in the nave .\n"
    "Out of Great Tribulation , Norbury , 1948\n"
    "I Am Among You , St. Edmund 's , Pitlake , 1962\n"
    "= Gambia women 's national football team =\n"
    "The team represents the Gambia .\nHISTORY\nThe option was added.\n\nA new paragraph"
)


def test_stop_ends_are_the_sentence_ends_after_a_stop_or_a_blank_line() -> None:
    ends = [c for c in range(len(WORKS)) if is_sentence_end(WORKS, c)]
    stops = [c for c in range(len(WORKS)) if is_stop_end(WORKS, c)]
    lines = [WORKS.index("\nI Am"), WORKS.index("\n= Gambia"), WORKS.index("\nThe option")]
    assert set(lines) <= set(ends)  # lines that end a sentence without a stop
    assert stops == [c for c in ends if c not in lines]
    assert stops == [
        WORKS.index(" It stands"),
        WORKS.index("\nOut of"),
        WORKS.index("\nHISTORY"),
        WORKS.index("\n\nA new"),
    ]


def test_structure_ends_a_chunk_inside_a_block_after_a_stop_before_a_bare_line_end() -> None:
    # one block: a title line without a stop goes with what follows it when a stop is in reach
    text = "Install it with pip . Run it once .\nHISTORY\nThe option was added in 1.1 ."
    doc = make_doc(text, kind="markdown")
    assert len(doc.blocks) == 1
    size = text.index("The option") + 3
    chunks = split(doc, ChunkSettings("structure", "chars", size, 0))
    assert [c.text for c in chunks] == [
        "Install it with pip . Run it once .",
        "HISTORY\nThe option was added in 1.1 .",
    ]
