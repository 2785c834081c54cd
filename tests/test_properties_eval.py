"""Properties of the evidence locator and check, the evaluation metrics and the context pieces.

Each property is checked against a brute-force reference written here over character sets, so
the library's bisections, interval unions and regular expressions are compared with the plain
definitions in ``explorer/retrieval/evidence.py`` and ``explorer/evaluation/coverage.py``. The
answers the metrics are read from (the budget, k, fill) have their own properties in
``test_answer_properties.py``. The number of examples comes from the hypothesis profile
(``HYPOTHESIS_PROFILE=large`` for the on-demand run).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from explorer.evaluation.coverage import char_metrics
from explorer.retrieval.context import ContextPiece, context_pieces, section_span, widen_to_budget
from explorer.retrieval.evidence import Evidence, Verdict, check, covered_by, locate, union
from explorer.retrieval.scoring import Hit
from tests.conftest import make_chunks, make_doc

Span = tuple[int, int]


def holds(located: Sequence[Sequence[Span]], context: Sequence[Span]) -> bool:
    """:attr:`Verdict.covered` for phrases found at ``located`` (empty: not found), each covered
    as :func:`covered_by` says against the retrieved ``context``."""
    merged = union(context)
    found = tuple(
        Evidence(f"p{i}", tuple(occ), any(covered_by(o, merged) for o in occ), (), (), None, False)
        for i, occ in enumerate(located)
    )
    return bool(found) and Verdict(found).covered


# --------------------------------------------------------------------------- strategies

PIECES = [
    "a", "b", "A", "ab", "ab ", "a a", "word", "Word", "WORD", "é", "e\u0301", "🙂", "𝔘𝔫𝔦",
    "中文", "ﬁ", "ß", "İ", "K", " ", "  ", "\t", "\n", "\r\n", "\n\n", "\u00a0", "\u2003",
    "\u200b", ". ", "'", "’", "‘", "`", '"', "“", "”", "-", "‐", "‑", "–", "—", "it's",
    "It’s", "seven days", "SEVEN\n days", "# ", "## ", " | ", "|", "a|b", "fi", "ﬀ", "ﬃ", "ffi",
    "st", "ﬆ", " ...... ", "..", "…", ". ",
]  # fmt: skip

texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=30).map("".join)
phrases = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=4).map("".join)

FAMILIES = ("'‘’`", '"“”', "-‐‑–—")
"""Characters the locator treats as one (the module docstring of
``explorer.retrieval.evidence``)."""


@lru_cache(maxsize=65536)
def same_char(phrase_ch: str, text_ch: str) -> bool:
    """Does a phrase character match a text character: equal, one quote/dash family, or case."""
    if phrase_ch == text_ch or any(phrase_ch in f and text_ch in f for f in FAMILIES):
        return True
    # case: Python's own single-character case-insensitive rule is the reference
    return re.fullmatch(re.escape(phrase_ch), text_ch, re.IGNORECASE) is not None


LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
"""Ligatures and their letters: a ligature in the text matches its letters, whole."""


def is_separator(word: str) -> bool:
    """Cell separators (``|``, ``||``) and dot leaders (``..``, ``......``, ``…``)."""
    return bool(word) and (
        set(word) == {"|"} or set(word) == {"…"} or (set(word) == {"."} and len(word) >= 2)
    )


def ref_words(phrase: str) -> list[str]:
    """The phrase's words: ligatures spelled out, separators dropped."""
    for ligature, letters in LIGATURES.items():
        phrase = phrase.replace(ligature, letters)
    return [w for w in phrase.split() if not is_separator(w)]


def skip_gap(text: str, pos: int) -> int:
    """Past the white space at ``pos`` and any separators standing in white space."""
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        end = pos
        while end < len(text) and not text[end].isspace():
            end += 1
        if end == len(text) or end == pos or not is_separator(text[pos:end]):
            return pos  # a word (or a separator the text ends with) comes next
        pos = end


def match_at(words: Sequence[str], text: str, i: int) -> int | None:
    """End of the phrase ``words`` matched at ``text[i]`` (a gap of white space and separators
    between words; a ligature in the text stands for its letters)."""
    pos = i
    for n, word in enumerate(words):
        if n:
            if pos >= len(text) or not text[pos].isspace():
                return None
            pos = skip_gap(text, pos)
        k = 0
        while k < len(word):
            if pos >= len(text):
                return None
            letters = LIGATURES.get(text[pos])
            if letters is not None:
                piece = word[k : k + len(letters)]
                if len(piece) < len(letters) or not all(map(same_char, piece, letters)):
                    return None
                k += len(letters)
            elif same_char(word[k], text[pos]):
                k += 1
            else:
                return None
            pos += 1
    return pos


def ref_locate(phrase: str, text: str) -> list[Span]:
    """Every occurrence, overlapping ones included: a match tried at every position."""
    words = ref_words(phrase)
    if not words:
        return []
    out = []
    for i in range(len(text)):
        end = match_at(words, text, i)
        if end is not None:
            out.append((i, end))
    return out


def token_at(text: str, i: int) -> str:
    """The run of non-space characters of ``text`` that holds ``text[i]``."""
    a = b = i
    while a > 0 and not text[a - 1].isspace():
        a -= 1
    while b < len(text) and not text[b].isspace():
        b += 1
    return text[a:b]


def cuts_separator(text: str, s: int, e: int) -> bool:
    """Does ``text[s:e]`` begin or end inside a separator of the text (part of a dot leader)?
    Part of a separator is not a word of the text, so such a slice is no occurrence."""
    cut_end = e < len(text) and not text[e].isspace() and not text[e - 1].isspace()
    cut_start = s > 0 and not text[s - 1].isspace() and not text[s].isspace()
    return (cut_end and is_separator(token_at(text, e - 1))) or (
        cut_start and is_separator(token_at(text, s))
    )


def kept(phrase: str) -> list[re.Match[str]]:
    """The phrase's words as matches in it (a word of cell separators only is not one)."""
    return [m for m in re.finditer(r"\S+", phrase) if not is_separator(m[0])]


def chars(spans: Sequence[Span]) -> set[int]:
    return {i for s, e in spans for i in range(s, e)}


@st.composite
def chunkings(draw: st.DrawFn, length: int) -> list[Span]:
    """Chunk spans over ``[0, length)``: a partition, or windows that overlap or leave gaps.

    Starts and ends both strictly increase, as every splitter's chunks do.
    """
    assert length > 0
    if draw(st.booleans()):
        cuts = sorted(draw(st.sets(st.integers(1, length - 1), max_size=12)) if length > 1 else ())
        bounds = [0, *cuts, length]
        return list(itertools.pairwise(bounds))
    width = draw(st.integers(1, length))
    stride = draw(st.integers(1, 2 * width))
    out = []
    for s in range(0, length, stride):
        out.append((s, min(s + width, length)))
        if s + width >= length:
            break
    return out


@st.composite
def ranked_chunks(draw: st.DrawFn) -> tuple[str, list[Chunk], list[Hit]]:
    """A non-empty text, chunks over it, and a ranking of some or all of them (rank 1 best)."""
    text = draw(texts.filter(bool))
    chunks = make_chunks(text, draw(chunkings(len(text))))
    order = draw(st.permutations(range(len(chunks))))
    ranked = draw(st.integers(0, len(chunks)))
    hits = [Hit(r + 1, i, 1.0 / (r + 1), "x") for r, i in enumerate(order[:ranked])]
    return text, chunks, hits


@st.composite
def phrase_lists(draw: st.DrawFn, text: str) -> list[str]:
    """Evidence phrases: slices of the text (so mostly found) and arbitrary strings."""
    out = []
    for _ in range(draw(st.integers(0, 4))):
        if text and draw(st.booleans()):
            i = draw(st.integers(0, len(text) - 1))
            j = draw(st.integers(i + 1, min(len(text), i + 12)))
            out.append(text[i:j])
        else:
            out.append(draw(phrases))
    return out


# --------------------------------------------------------------------------- found by these


def test_what_the_properties_found() -> None:
    """Minimal failing examples the properties produced, kept as golden cases."""
    # overlapping occurrences were skipped (finditer): evidence in the second went unseen
    assert locate("aa", "aaa") == [(0, 2), (1, 3)]
    assert locate("ab ab", "ab ab ab") == [(0, 5), (3, 8)]
    # the quote and dash families match each other both ways
    assert locate("‐", "-") == [(0, 1)]
    assert locate("a`b", "a'b") == [(0, 3)]
    # a dot leader standing in a gap is all gap: its first dot is not the phrase's "." word
    assert locate("000 .", "000 ...... ") == []
    # a phrase whose short occurrence is retrieved whole is covered and has recall 1, even
    # when a longer occurrence (more white space) has more characters retrieved
    located, retrieved = [((0, 3), (5, 13))], [(0, 3), (5, 10)]
    assert holds(located, retrieved) and char_metrics(located, retrieved)[0] == 1.0


# --------------------------------------------------------------------------- the locator


@given(phrase=phrases, text=texts)
def test_locate_finds_exactly_the_brute_force_occurrences(phrase: str, text: str) -> None:
    spans = locate(phrase, text)
    assert spans == ref_locate(phrase, text)
    for s, e in spans:
        assert 0 <= s < e <= len(text)
        words = [w for w in text[s:e].split() if not is_separator(w)]
        assert len(words) == len(ref_words(phrase)), "gaps match gaps"
        assert not text[s].isspace() and not text[e - 1].isspace()


@given(text=texts, data=st.data())
def test_a_slice_of_the_text_is_located_where_it_was_taken(text: str, data: st.DataObject) -> None:
    assume(text.strip())
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    phrase = text[i:j]
    words = kept(phrase)
    assume(words)
    # the occurrence is the slice without its outer white space and lone cell separators
    s, e = i + words[0].start(), i + words[-1].end()
    assume(not cuts_separator(text, s, e))
    assert (s, e) in locate(phrase, text)


def variant(data: st.DataObject, phrase: str) -> str:
    """``phrase`` as a document may write it: other case, quote and dash styles, white space."""
    words = []
    for word in phrase.split():
        out = []
        for ch in word:
            family = next((f for f in FAMILIES if ch in f), None)
            if family is not None:
                out.append(data.draw(st.sampled_from(family)))
            elif (
                data.draw(st.booleans())
                and same_char(ch, ch.swapcase())
                and len(ch.swapcase()) == 1
            ):
                out.append(ch.swapcase())
            else:
                out.append(ch)
        written = "".join(out)
        ligature = data.draw(st.sampled_from(["", *LIGATURES]))  # a ligature for its letters
        if ligature:
            written = written.replace(LIGATURES[ligature], ligature)
        words.append(written)
    gaps = st.sampled_from(
        [
            " ",
            "  ",
            "\n",
            "\r\n",
            "\t",
            " \n ",
            "\u00a0",
            "\u2003",
            " | ",
            "\n| ",
            " || ",
            " ..... | ",
        ]
    )
    return "".join(w if n == 0 else data.draw(gaps) + w for n, w in enumerate(words))


@given(before=texts, phrase=phrases, after=texts, data=st.data())
def test_a_phrase_inserted_in_any_style_is_found_at_its_offset(
    before: str, phrase: str, after: str, data: st.DataObject
) -> None:
    assume(kept(phrase))
    written = variant(data, phrase)
    text = before + written + after
    words = kept(written)
    s, e = len(before) + words[0].start(), len(before) + words[-1].end()
    assume(not cuts_separator(text, s, e))  # "." next to a leader in ``after`` is part of it
    assert (s, e) in locate(phrase, text)


@given(before=texts, phrase=phrases, after=texts)
def test_a_phrase_absent_from_the_text_is_not_found_and_never_counted(
    before: str, phrase: str, after: str
) -> None:
    text = before + after
    assume(phrase.strip() and not locate(phrase, text))
    chunks = make_chunks(text, [(0, len(text))]) if text else []
    ranking = [Hit(1, 0, 1.0, "x")] if text else []
    [r] = check([phrase], text, chunks, ranking, context=[(0, len(text))])
    assert not r.found and not r.covered and not r.cut_by_boundary
    assert r.chunk_ids == () and r.best_rank is None
    assert Verdict((r,)).sentence().startswith("unchecked: ")
    # in the metrics: neither a hit nor a miss (a query of such phrases is not scored)
    located, context = [r.spans], [(0, len(text))]
    assert located == [()] and not any(located)
    assert not holds(located, context) and char_metrics(located, context) == (0.0, 0.0, 0.0)


# --------------------------------------------------------------------------- the check


def ref_evidence(
    phrase: str, chunks: Sequence[Chunk], ranking: Sequence[Hit], context: Sequence[Span], text: str
) -> tuple[bool, tuple[int, ...], int | None, bool]:
    spans = ref_locate(phrase, text)
    inside = chars(context)
    covered = any(set(range(s, e)) <= inside for s, e in spans)
    rank_of = {h.index: h.rank for h in ranking}
    holders = [c for c in chunks if any(c.start <= s and e <= c.end for s, e in spans)]
    holders.sort(key=lambda c: (rank_of.get(c.index, len(chunks) + 1), c.index))
    ranks = [rank_of[c.index] for c in holders if c.index in rank_of]
    return (
        covered,
        tuple(c.index for c in holders),
        min(ranks) if ranks else None,
        bool(spans) and not holders,
    )


@given(case=ranked_chunks(), data=st.data())
def test_check_agrees_with_brute_force_for_every_k(
    case: tuple[str, list[Chunk], list[Hit]], data: st.DataObject
) -> None:
    text, chunks, ranking = case
    evidence = data.draw(phrase_lists(text))
    before: list[Evidence] | None = None
    for k in range(len(ranking) + 1):
        context = [(chunks[h.index].start, chunks[h.index].end) for h in ranking[:k]]
        results = check(evidence, text, chunks, ranking, context=context)
        kept = [p.strip() for p in evidence if p.strip()]
        assert [r.phrase for r in results] == kept
        for r in results:
            assert r.spans == tuple(ref_locate(r.phrase, text))
            got = (r.covered, r.chunk_indices, r.best_rank, r.cut_by_boundary)
            assert got == ref_evidence(r.phrase, chunks, ranking, context, text)
            assert r.chunk_ids == tuple(chunks[i].id for i in r.chunk_indices)
        if before is not None:
            # one more retrieved chunk never loses evidence
            for old, new in zip(before, results, strict=True):
                assert new.covered or not old.covered
        before = results
        check_verdict(results)


def check_verdict(results: Sequence[Evidence]) -> None:
    if not results:
        with pytest.raises(ValueError):  # a verdict needs a phrase: an answer without says None
            Verdict(())
        return
    said = Verdict(tuple(results)).sentence()
    missing = [r for r in results if r.found and not r.covered]
    absent = [r for r in results if not r.found]
    if not missing and not absent:
        assert said.startswith("complete: ")
    elif missing:
        assert said.startswith("incomplete: ")
    else:
        assert said.startswith("unchecked: ")
    for r in missing:
        assert repr(r.phrase) in said
        if not r.chunk_indices:
            assert f"{r.phrase!r} is cut by a chunk boundary" in said
    for r in absent:
        assert f"{r.phrase!r} was not found in the document" in said


MARK_OPEN, MARK_CLOSE = "§", "¶"
plain = texts.map(lambda t: t.replace(MARK_OPEN, "").replace(MARK_CLOSE, ""))


@given(left=plain, middle=plain, right=plain, data=st.data())
def test_evidence_straddling_chunks_is_covered_only_when_all_of_them_are_retrieved(
    left: str, middle: str, right: str, data: st.DataObject
) -> None:
    """A phrase that occurs once, cut by chunk boundaries: covered iff every chunk is retrieved."""
    phrase = MARK_OPEN + middle + MARK_CLOSE
    text = left + phrase + right
    s, e = len(left), len(left) + len(phrase)
    inner = data.draw(st.sets(st.integers(s + 1, e - 1), min_size=1))
    outer = data.draw(st.sets(st.integers(1, len(text) - 1).filter(lambda c: not s < c < e)))
    bounds = [0, *sorted(inner | outer), len(text)]
    chunks = make_chunks(text, list(itertools.pairwise(bounds)))
    across = [c.index for c in chunks if c.start < e and c.end > s]
    assert len(across) >= 2
    others = [c.index for c in chunks if c.index not in across]
    chosen = data.draw(st.lists(st.sampled_from(others), unique=True)) if others else []
    order = data.draw(st.permutations(across + chosen))
    ranking = [Hit(r + 1, i, 0.0, "x") for r, i in enumerate(order)]
    context = [(chunks[i].start, chunks[i].end) for i in order]
    [r] = check([phrase], text, chunks, ranking, context=context)
    assert r.spans == ((s, e),)
    assert r.covered and r.cut_by_boundary and r.best_rank is None
    assert Verdict((r,)).sentence().startswith("complete")
    # leave out any one of the chunks the phrase runs through: no longer covered
    gone = data.draw(st.sampled_from(across))
    context = [(chunks[i].start, chunks[i].end) for i in order if i != gone]
    [r] = check([phrase], text, chunks, ranking, context=context)
    assert not r.covered
    assert "is cut by a chunk boundary" in Verdict((r,)).sentence()


# --------------------------------------------------------------------------- the metrics


@st.composite
def scoring_cases(draw: st.DrawFn, min_spans: int = 0) -> Case:
    """Located evidence, ranked retrieved spans (overlaps and repeats allowed) and ks over a
    document of up to 60 characters."""
    length = draw(st.integers(1, 60))
    span = st.integers(0, length - 1).flatmap(
        lambda s: st.integers(s + 1, length).map(lambda e: (s, e))
    )
    located = draw(st.lists(st.lists(span, max_size=3).map(tuple), max_size=4))
    spans = draw(st.lists(span, min_size=min_spans, max_size=8))
    ks = draw(st.lists(st.integers(1, 10), min_size=1, max_size=4, unique=True))
    return located, spans, ks


Case = tuple[list[tuple[Span, ...]], list[Span], list[int]]


def ref_covered(located: Sequence[Sequence[Span]], spans: Sequence[Span]) -> bool:
    inside = chars(spans)
    found = [occ for occ in located if occ]
    return bool(found) and all(any(chars([o]) <= inside for o in occ) for occ in found)


def ref_metrics(
    located: Sequence[Sequence[Span]], spans: Sequence[Span]
) -> tuple[float, float, float]:
    """Recall, precision and IoU from the definitions, over sets of character positions."""
    inside = chars(spans)
    evidence: set[int] = set()
    for occ in located:
        if occ:
            # the best-covered occurrence: the largest share retrieved, then the earliest
            best = max(occ, key=lambda o: (len(chars([o]) & inside) / (o[1] - o[0]), -o[0]))
            evidence |= chars([best])
    inter = len(evidence & inside)
    retrieved = sum(e - s for s, e in spans)  # with multiplicity
    recall = inter / len(evidence) if evidence else 0.0
    precision = inter / retrieved if retrieved else 0.0
    denominator = retrieved + len(evidence - inside)
    iou = inter / denominator if denominator else 0.0
    return recall, precision, iou


@given(case=scoring_cases())
def test_metrics_agree_with_the_definitions_over_character_sets(case: Case) -> None:
    """``holds`` and ``char_metrics`` over the top k retrieved spans (a hit's header rows are
    more retrieved spans of it, see ``test_answer_properties``) match the definitions."""
    located, spans, ks = case
    for k in ks:
        retrieved = spans[:k]
        recall, precision, iou = ref_metrics(located, retrieved)
        got = char_metrics(located, retrieved)
        assert got == pytest.approx((recall, precision, iou))
        assert holds(located, retrieved) == ref_covered(located, retrieved)
        for value in got:
            assert 0.0 <= value <= 1.0
        assert got[2] <= min(got[0], got[1]) + 1e-12
        if any(located):
            # covered exactly when every evidence character is retrieved
            assert holds(located, retrieved) == (got[0] == 1.0)


@given(case=scoring_cases())
def test_coverage_never_falls_as_more_is_retrieved(case: Case) -> None:
    """Over longer prefixes of the ranking coverage never falls, nor (one phrase) recall. The
    answers' prefixes (at every k, at every budget) are in ``test_answer_properties``."""
    located, spans, _ = case
    prefixes = [spans[:n] for n in range(len(spans) + 1)]
    covered = [holds(located, p) for p in prefixes]
    recalls = [char_metrics(located, p)[0] for p in prefixes]
    assert all(b or not a for a, b in itertools.pairwise(covered))
    if sum(1 for occ in located if occ) == 1:
        # one phrase: its best share retrieved can only grow. (Several phrases need not: one
        # may move to an occurrence outside another's, growing the evidence total.)
        assert all(b >= a for a, b in itertools.pairwise(recalls))


@given(case=scoring_cases(min_spans=1), data=st.data())
def test_repeated_retrieved_text_lowers_precision_not_recall(
    case: Case, data: st.DataObject
) -> None:
    located, spans, _ = case
    k = data.draw(st.integers(1, len(spans)))
    again = data.draw(st.sampled_from(spans[:k]))
    twice = [*spans[:k], again]
    one, two = char_metrics(located, spans[:k]), char_metrics(located, twice)
    assert two[0] == pytest.approx(one[0])
    assert holds(located, twice) == holds(located, spans[:k])
    p1, p2 = one[1], two[1]
    assert p2 < p1 if p1 > 0 else p2 == 0
    assert two[2] <= one[2] + 1e-12


@given(case=scoring_cases(), where=st.integers(0, 4))
def test_evidence_that_was_not_located_changes_no_metric(case: Case, where: int) -> None:
    located, spans, ks = case
    with_absent = [*located[:where], (), *located[where:]]
    for k in (0, *ks):
        assert holds(with_absent, spans[:k]) == holds(located, spans[:k])
        assert char_metrics(with_absent, spans[:k]) == char_metrics(located, spans[:k])


@given(text=texts, blanks=st.lists(st.sampled_from(["", " ", "\n"]), max_size=2), data=st.data())
def test_a_known_span_is_kept_only_when_it_is_an_occurrence(
    text: str, blanks: list[str], data: st.DataObject
) -> None:
    """``check(..., known=)``: a query set's span is the phrase's only occurrence when it is one
    of them, else the phrase is searched for; ``known`` lines up with the phrases as given,
    blank ones included."""
    phrase = data.draw(phrase_lists(text).filter(bool))[0]
    assume(phrase.strip())
    occurrences = tuple(locate(phrase, text))
    given_span = data.draw(
        st.one_of(
            st.sampled_from(occurrences) if occurrences else st.nothing(),
            st.tuples(st.integers(0, len(text)), st.integers(0, len(text) + 2)),
        )
    )
    chunks = make_chunks(text, [(0, len(text))]) if text else []
    expected = (given_span,) if given_span in occurrences else occurrences

    def spans(known: Sequence[Span | None]) -> list[tuple[Span, ...]]:
        found = check([*blanks, phrase], text, chunks, [], context=[], known=known)
        return [r.spans for r in found]

    assert spans([*([None] * len(blanks)), given_span]) == [expected]
    assert spans([*([None] * len(blanks)), None]) == [occurrences]
    assert spans([]) == [occurrences]
    if blanks:  # a span given for a blank phrase is nobody's
        assert spans([given_span] * len(blanks)) == [occurrences]


# --------------------------------------------------------------------------- context pieces


def expanded(h: Hit, chunks: Sequence[Chunk], neighbours: int) -> Span:
    lo, hi = max(0, h.index - neighbours), min(len(chunks) - 1, h.index + neighbours)
    return chunks[lo].start, chunks[hi].end


def check_merged(
    pieces: Sequence[ContextPiece], raw: Sequence[Span], hits: Sequence[Hit], text: str | None
) -> None:
    """Pieces are disjoint, cover the hits' spans (and only white space between them), carry
    each hit's rank exactly once and come in the order of their best rank."""
    by_start = sorted(pieces, key=lambda p: p.start)
    for a, b in itertools.pairwise(by_start):
        assert a.end < b.start, "merged pieces neither overlap nor touch"
        if text is not None:
            assert text[a.end : b.start].strip(), "only white space between: they merge"
    covered = chars([(p.start, p.end) for p in pieces])
    wanted = chars(raw)
    assert wanted <= covered
    extra = covered - wanted
    if text is None:
        assert not extra
    else:
        assert all(text[i].isspace() for i in extra)
    assert sorted(r for p in pieces for r in p.ranks) == sorted(h.rank for h in hits)
    for p in pieces:
        assert list(p.ranks) == sorted(p.ranks)
        inside = [(h, sp) for h, sp in zip(hits, raw, strict=True) if h.rank in p.ranks]
        assert all(p.start <= s and e <= p.end for _, (s, e) in inside)
        assert p.chunk_indices == tuple(sorted({h.index for h, _ in inside}))
        assert p.start in {s for _, (s, _) in inside} and p.end in {e for _, (_, e) in inside}
    assert [p.ranks[0] for p in pieces] == sorted(p.ranks[0] for p in pieces)


@given(case=ranked_chunks(), neighbours=st.integers(0, 3), with_doc=st.booleans())
def test_context_pieces_merge_into_disjoint_pieces_covering_the_hits(
    case: tuple[str, list[Chunk], list[Hit]], neighbours: int, with_doc: bool
) -> None:
    text, chunks, hits = case
    doc = make_doc(text) if with_doc else None
    raw = [expanded(h, chunks, neighbours) for h in hits]
    unmerged = context_pieces(hits, chunks, neighbours=neighbours, doc=doc, merge=False)
    assert [(p.start, p.end, p.ranks, p.chunk_indices) for p in unmerged] == [
        (s, e, (h.rank,), (h.index,)) for h, (s, e) in zip(hits, raw, strict=True)
    ]
    pieces = context_pieces(hits, chunks, neighbours=neighbours, doc=doc)
    check_merged(pieces, raw, hits, text if with_doc else None)
    if not with_doc:
        assert [(p.start, p.end) for p in sorted(pieces, key=lambda p: p.start)] == union(raw)


TABLE_PIECES = [
    "| a | b |\n|---|---|\n", "| 1 | 2 |\n", "| 3 | 4 |\n", "\n", "text\n", "# H\n",
    "| x |\n|:-|\n| y |\n\n", "- item\n",
]  # fmt: skip
table_texts = st.lists(st.sampled_from(TABLE_PIECES), min_size=1, max_size=20).map("".join)


def ref_headers(doc: Document, span: Span) -> list[Span]:
    """From the definition: for each table the span reaches past the header of, the header
    rows, unless they lie wholly inside the span."""
    s, e = span
    out = []
    for b in doc.blocks:
        head = [r for r in b.rows if r.header]
        if b.kind != "table" or not head or head[-1].end >= b.end:
            continue
        hs, he = head[0].start, head[-1].end
        if s < b.end and e > he and b.start < e and not (s <= hs and he <= e):
            out.append((hs, he))
    return out


@given(text=table_texts, data=st.data())
def test_a_hit_on_table_rows_brings_the_header_rows(text: str, data: st.DataObject) -> None:
    doc = make_doc(text, kind="markdown", name="t.md")
    assume(doc.text)
    chunks = make_chunks(doc.text, data.draw(chunkings(len(doc.text))))
    order = data.draw(st.permutations(range(len(chunks))))
    hits = [Hit(r + 1, i, 0.0, "x") for r, i in enumerate(order[: data.draw(st.integers(0, 4))])]
    unmerged = context_pieces(hits, chunks, doc=doc, merge=False, table_headers=True)
    expected = []
    for h in hits:
        c = chunks[h.index]
        expected.append((c.start, c.end, (h.rank,), (h.index,), ()))
        expected += [
            (a, b, (h.rank,), (), ((a, b),)) for a, b in ref_headers(doc, (c.start, c.end))
        ]
    assert [(p.start, p.end, p.ranks, p.chunk_indices, p.headers) for p in unmerged] == expected
    for p in unmerged:
        if p.headers:  # a header piece is the table's header rows, ending with a row
            assert doc.text[p.start : p.end].lstrip().startswith("|")
    merged = context_pieces(hits, chunks, doc=doc, table_headers=True)
    covered = chars([(p.start, p.end) for p in merged])
    assert chars([(p.start, p.end) for p in unmerged]) <= covered
    for p in merged:
        assert p.headers == tuple(
            sorted({h for q in unmerged for h in q.headers if p.start <= h[0] and h[1] <= p.end})
        )
    without = context_pieces(hits, chunks, doc=doc, merge=False)
    assert [(p.start, p.end) for p in without] == [
        (p.start, p.end) for p in unmerged if not p.headers
    ]


SECTION_PIECES = [
    "# One\n", "## Two\n", "### Three\n", "#### Four\n", "text\n", "more words\n", "\n",
    "  \n", "é🙂\r\n", "```\n# not a heading\n```\n", "- item\n", "para. ",
]  # fmt: skip
markdown_texts = st.lists(
    st.one_of(st.sampled_from(SECTION_PIECES), st.text(max_size=3)), min_size=1, max_size=25
).map("".join)


def ref_section(doc: Document, offset: int) -> Span:
    """The section holding ``offset``, from the definition: walk back to the nearest heading,
    then forward to the first heading that is not deeper than it."""
    above = [h for h in doc.headings if h.start <= offset]
    if not above:
        return 0, min((h.start for h in doc.headings), default=len(doc.text))
    head = max(above, key=lambda h: h.start)
    ends = [h.start for h in doc.headings if h.start > head.start and h.level <= head.level]
    return head.start, min(ends, default=len(doc.text))


@given(text=markdown_texts, data=st.data())
def test_section_span_is_the_enclosing_section(text: str, data: st.DataObject) -> None:
    doc = make_doc(text, kind="markdown", name="s.md")
    assume(doc.text)
    offset = data.draw(st.integers(0, len(doc.text) - 1))
    s, e = section_span(doc, offset)
    assert (s, e) == ref_section(doc, offset)
    assert s <= offset < e
    # no heading as high as the section's own starts inside it
    level = next((h.level for h in doc.headings if h.start == s), 0)
    assert not any(s < h.start < e and (level == 0 or h.level <= level) for h in doc.headings)


@given(text=markdown_texts, data=st.data())
def test_section_context_holds_each_hit_and_its_whole_section(
    text: str, data: st.DataObject
) -> None:
    doc = make_doc(text, kind="markdown", name="s.md")
    assume(doc.text)
    chunks = make_chunks(doc.text, data.draw(chunkings(len(doc.text))))
    order = data.draw(st.permutations(range(len(chunks))))
    k = data.draw(st.integers(0, len(chunks)))
    hits = [Hit(r + 1, i, 0.0, "x") for r, i in enumerate(order[:k])]
    raw = []
    for h in hits:
        s, e = section_span(doc, chunks[h.index].start)
        raw.append((min(s, chunks[h.index].start), max(e, chunks[h.index].end)))
    unmerged = context_pieces(hits, chunks, doc=doc, section=True, merge=False)
    assert [(p.start, p.end) for p in unmerged] == raw
    check_merged(context_pieces(hits, chunks, doc=doc, section=True), raw, hits, doc.text)


# --------------------------------------------------------------------------- filling the budget


@given(text=texts.filter(bool), data=st.data())
def test_widening_to_a_budget_keeps_the_hits_and_the_budget(text: str, data: st.DataObject) -> None:
    """The widened context holds every input span, is merged, stays inside the text and costs
    at most the budget (counted on its union, as the budget is); over the budget it is the
    input merged."""
    units = get_measure("tokens").units(text)
    spans = data.draw(st.lists(st.sampled_from(chunkings_of(len(text))), max_size=4))
    budget = data.draw(st.integers(0, units.total() + 10))
    out = widen_to_budget(spans, units, budget)
    merged = union(spans)
    cost = sum(units.size(s, e) for s, e in merged)
    assert out == union(out)
    assert all(0 <= s < e <= len(text) for s, e in out)
    assert all(any(a <= s and e <= b for a, b in out) for s, e in spans)
    if cost >= budget:
        assert out == merged
    else:
        assert sum(units.size(s, e) for s, e in out) <= budget


def chunkings_of(length: int) -> list[Span]:
    """Every span of a text of ``length`` characters up to 8 long (candidates for hits)."""
    return [(s, e) for s in range(length) for e in range(s + 1, min(length, s + 8) + 1)]
