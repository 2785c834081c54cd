"""Phrases a reader copies from a table row are located in the text the project extracts.

The phrases were written from the rendered pages (PyMuPDF at 150 dpi), not from extracted text:
the FAA cost table (pages 5 and 6) and the IRS withholding tables (pages 1 and 2). The text
joins cells with ``" | "`` and keeps the dot leaders; the locator treats both as white space,
and typographic ligatures as their letters, with spans that are exact offsets.
"""

from __future__ import annotations

import re

import pytest

from explorer.retrieval.evidence import check, locate
from tests.conftest import CORPUS, load_cached, make_chunks

FAA = "federal-register-2020-17221-faa-737max-nprm.pdf"
IRS = "irs-notice-1036-2011-withholding.pdf"

# (document, page, phrase as read across the printed row)
ROWS = [
    (FAA, 5, "Action Labor cost Parts cost Cost per product Cost on U.S. operators"),
    (FAA, 5, "AFM revisions 1 work-hour × $85 per hour = $85 $0 $85 $6,205."),
    (FAA, 6, "AOA sensor system test 40 work-hours × $85 per hour = $3,400. $0 $3,400 $248,200."),
    (FAA, 6, "Up to $3,790 Up to $10,505 Up to $766,865."),
    (IRS, 1, "Payroll Period Allowance"),
    (IRS, 1, "Biweekly 142.31"),
    (IRS, 1, "Annually 3,700.00 Daily or Miscellaneous 14.23"),
    (IRS, 2, "Payroll Period Add Additional"),
    (IRS, 2, "Monthly 175.00"),
    (IRS, 2, "Weekly $ 40.40"),
]


def plain_pattern(phrase: str) -> str:
    """What locating ignoring white space alone would look for."""
    return r"\s+".join(re.escape(w) for w in phrase.split())


@pytest.mark.parametrize(("name", "page", "phrase"), ROWS)
def test_a_phrase_copied_from_a_table_row_is_located(name: str, page: int, phrase: str) -> None:
    doc = load_cached(CORPUS / name)
    spans = locate(phrase, doc.text)
    assert spans, f"{phrase!r} is not located"
    for s, e in spans:
        found = doc.text[s:e]
        assert found.split()[0] == phrase.split()[0] and found.split()[-1] == phrase.split()[-1]
    assert page in {doc.page_span(s, e)[0] for s, e in spans}
    # what makes these hard: the cells in between are joined by " | " (and dot leaders)
    assert not re.search(plain_pattern(phrase), doc.text, re.IGNORECASE)


def test_the_check_reports_a_table_row_found_and_covered() -> None:
    doc = load_cached(CORPUS / IRS)
    start = doc.text.index("Monthly")
    chunks = make_chunks(doc.text, [(0, start), (start, len(doc.text))])
    [result] = check(["monthly 175.00"], doc.text, chunks, [], context=[(start, len(doc.text))])
    assert result.found and result.covered
    (s, e), *_ = result.spans
    assert doc.text[s:e] == "Monthly | 175.00"


def test_separators_are_ignored_only_between_words() -> None:
    text = "Plan | Price\nBasic | $10 ........ | monthly\nTotal…due"
    assert locate("Plan Price Basic $10 monthly", text) == [(0, len(text) - 10)]
    assert locate("Plan | Price | Basic", text) == [(0, 18)]
    assert locate("Price Basic | $10", text) == [(7, 24)]
    assert locate("Total due", text) == []  # a leader inside a word is not a gap
    assert locate("Basic || $10", text) == [(13, 24)]  # any run of separators is one gap
    assert locate("Basic|$10", text) == []  # a '|' inside a word is a character
    assert locate("| | ...", text) == []


def test_ligatures_match_their_letters_both_ways_with_exact_spans() -> None:
    text = "The ﬁrst ﬂoor oﬃce is staﬀed; the first floor office is staffed."
    spans = locate("first floor office", text)
    assert [text[s:e] for s, e in spans] == ["ﬁrst ﬂoor oﬃce", "first floor office"]
    assert [text[s:e] for s, e in locate("STAFFED", text)] == ["staﬀed", "staffed"]
    assert [text[s:e] for s, e in locate("ﬁrst ﬂoor", text)] == ["ﬁrst ﬂoor", "first floor"]
    assert locate("ﬆ", "the last step") == [(6, 8), (9, 11)]
    assert locate("irst", "ﬁrst") == []  # half a ligature is not an occurrence
