"""Reading order against PyMuPDF's own readers: the share of ground-truth phrases each one's
text holds, and its time per page.

Each file in ``benchmarks/reading_order/`` names a PDF (the shared corpus, ``sample_docs/``, or
one of the layouts ``tests/pdf_layouts.py`` generates) and lists phrases written from its page
images, as a person reads them: a table row, a sentence across a line break, a column break or a
page break, a footnote, a heading with its first sentence. A phrase counts as located when
``explorer.evidence.locate`` finds it in the reader's text (ignoring case, white space, cell
separators, dot leaders and ligatures, for every reader alike).

Readers: ours (``explorer.documents.load_path(path).text``), ``page.get_text()`` and
``page.get_text(sort=True)`` with pages joined by a line break, and ``pymupdf4llm.to_markdown``
(with pymupdf-layout installed it uses its layout model; OCR off), scored on its Markdown as it
is and with the markup taken off (``**``, backticks, ``#``, ``<br>``, table delimiter rows; cell
pipes spaced as ``" | "``), so that markup alone is not counted as a miss.

Run from the repository root::

    python benchmarks/bench_reading_order.py [--repeat N] [--markdown PATH] [--misses]

Times are the best of ``--repeat`` runs (default 3) in this process; pymupdf4llm's first call
also loads its layout model, which is left out by a warm-up call on the first document.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's explorer/ and tests/, not an installed copy

import pymupdf  # noqa: E402

from explorer.documents.load import load_path  # noqa: E402
from explorer.retrieval.evidence import locate  # noqa: E402
from tests.pdf_layouts import LAYOUTS  # noqa: E402

PHRASES = Path(__file__).resolve().parent / "reading_order"
CORPUS = REPO.parent / "shared" / "corpus"
SAMPLES = REPO / "sample_docs"


@dataclass(frozen=True)
class Case:
    """A document and the phrases written from its page images."""

    name: str
    where: str
    path: Path
    phrases: tuple[tuple[int, str, str], ...]  # (page, kind, text)


def cases(folder: Path, work: Path) -> list[Case]:
    out = []
    for file in sorted(folder.glob("*.json")):
        spec = json.loads(file.read_text(encoding="utf-8"))
        name, where = spec["document"], spec["where"]
        if where == "corpus":
            path = CORPUS / name
        elif where == "sample":
            path = SAMPLES / name
        elif where == "generated":
            path = work / name
            path.write_bytes(LAYOUTS[name]())
        else:
            raise SystemExit(f"{file.name}: unknown 'where' {where!r}")
        phrases = tuple((p["page"], p["kind"], p["text"]) for p in spec["phrases"])
        out.append(Case(name, where, path, phrases))
    return out


def ours(path: Path) -> str:
    return load_path(path).text


def plain(path: Path) -> str:
    with pymupdf.open(path) as doc:
        return "\n".join(page.get_text() for page in doc)


def sorted_text(path: Path) -> str:
    with pymupdf.open(path) as doc:
        return "\n".join(page.get_text(sort=True) for page in doc)


def markdown(path: Path) -> str:
    import pymupdf4llm

    with pymupdf.open(path) as doc:
        text: Any = pymupdf4llm.to_markdown(doc, use_ocr=False, show_progress=False)
    return str(text)


_MARKUP = [
    (re.compile(r"(?m)^\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$"), ""),  # table delimiter rows
    (re.compile(r"(?m)^#{1,6} "), ""),  # heading marks
    (re.compile(r"<br\s*/?>"), " "),
    (re.compile(r"\*\*|`|~~"), ""),  # bold, code and strike-through marks
    (re.compile(r"(?<![\w\\])_(\S(?:[^\n]*?\S)?)_(?!\w)"), r"\1"),  # _italic_, not snake_case
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>])"), r"\1"),  # escapes
    (re.compile(r"\|"), " | "),  # table cells, as the other readers separate them
]


def unmark(text: str) -> str:
    """pymupdf4llm's text with its Markdown markup taken off, so that markup is not a miss."""
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    return text


READERS: dict[str, Callable[[Path], str]] = {
    "ours": ours,
    "get_text": plain,
    "get_text sort=True": sorted_text,
    "pymupdf4llm": markdown,
}
DERIVED: dict[str, tuple[str, Callable[[str], str]]] = {
    "pymupdf4llm, markup removed": ("pymupdf4llm", unmark),
}
"""Readers scored on another reader's text, changed (timed as that reader plus the change)."""


def run(path: Path, reader: Callable[[Path], str], repeat: int) -> tuple[str, float]:
    best = float("inf")
    text = ""
    for _ in range(repeat):
        started = time.perf_counter()
        text = reader(path)
        best = min(best, time.perf_counter() - started)
    return text, best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument("--misses", action="store_true", help="list each reader's misses")
    args = parser.parse_args(argv)

    import pymupdf4llm

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        found = cases(PHRASES, work)
        markdown(found[0].path)  # warm-up: pymupdf4llm loads its layout model once
        names = [*READERS, *DERIVED]
        rows = []
        totals = dict.fromkeys(names, 0)
        phrases_total = 0
        worse = []
        for case in found:
            with pymupdf.open(case.path) as doc:
                pages = doc.page_count
            shares = {}
            times = {}
            seconds_of: dict[str, float] = {}
            texts: dict[str, str] = {}
            for reader_name in names:
                if reader_name in DERIVED:
                    source, change = DERIVED[reader_name]
                    started = time.perf_counter()
                    text = change(texts[source])
                    seconds = seconds_of[source] + time.perf_counter() - started
                else:
                    text, seconds = run(case.path, READERS[reader_name], args.repeat)
                texts[reader_name] = text
                seconds_of[reader_name] = seconds
                hits = [bool(locate(t, text)) for _p, _k, t in case.phrases]
                shares[reader_name] = sum(hits)
                times[reader_name] = seconds / pages * 1000
                totals[reader_name] += sum(hits)
                if args.misses:
                    for (page, kind, t), hit in zip(case.phrases, hits, strict=True):
                        if not hit:
                            print(f"miss  {reader_name:<19} {case.name} p{page} {kind}: {t}")
            phrases_total += len(case.phrases)
            n = len(case.phrases)
            if any(shares["ours"] < shares[other] for other in names[1:]):
                worse.append(case.name)
            cells = " | ".join(
                f"{shares[r] / n:.2f} ({shares[r]}/{n}), {times[r]:.1f} ms" for r in names
            )
            rows.append(f"| {case.name} ({pages} p.) | {cells} |")
        header = "| document | " + " | ".join(names) + " |"
        rule = "|---|" + "---|" * len(names)
        total = " | ".join(
            f"**{totals[r] / phrases_total:.3f}** ({totals[r]}/{phrases_total})" for r in names
        )
        table = "\n".join([header, rule, *rows, f"| all {phrases_total} phrases | {total} |"])
    versions = f"PyMuPDF {pymupdf.VersionBind}, pymupdf4llm {pymupdf4llm.__version__}"
    print(f"share of phrases located, and ms per page (best of {args.repeat}); {versions}\n")
    print(table)
    if worse:
        print(f"\nours is behind another reader on: {', '.join(worse)}")
    if args.markdown:
        args.markdown.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
