"""Sentence boundaries: ours, pysbd and blingfire side by side.

Run from the repository root: ``python -m benchmarks.bench_sentences``. Prints, for each
segmenter, the English Golden Rules passed (of 48, ``../shared/benchmarks/sentence-golden-rules``),
the accuracy on our real-text set (``tests/data/sentences-realtext.json``; whole passages right or
wrong, white space inside a sentence collapsed; the tuning part and the held-out part apart) and
milliseconds per 100,000 characters (median of ``--runs`` runs over a text of about 1 MB built
from the shared corpus by repetition). pysbd and blingfire come with the ``dev`` extra.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's explorer, not an installed one

from explorer.chunking.sentences import split_sentences  # noqa: E402
from explorer.documents.load import load_path  # noqa: E402

SHARED = REPO.parent / "shared"
GOLDEN_RULES = SHARED / "benchmarks" / "sentence-golden-rules" / "english-golden-rules.json"
CORPUS = SHARED / "corpus"
REAL_TEXT = REPO / "tests" / "data" / "sentences-realtext.json"

Segmenter = Callable[[str], list[str]]


def segmenters() -> dict[str, Segmenter]:
    out: dict[str, Segmenter] = {"ours (explorer.chunking.sentences)": split_sentences}
    try:
        import pysbd

        plain = pysbd.Segmenter(language="en", clean=False)
        cleaning = pysbd.Segmenter(language="en", clean=True)
        out["pysbd"] = lambda t: [str(s) for s in plain.segment(t)]
        out["pysbd (clean=True)"] = lambda t: [str(s) for s in cleaning.segment(t)]
    except ImportError:
        print("pysbd is not installed (pip install -e '.[dev]'): left out", file=sys.stderr)
    try:
        import blingfire

        out["blingfire"] = lambda t: blingfire.text_to_sentences(t).split("\n") if t.strip() else []
    except ImportError:
        print("blingfire is not installed (pip install -e '.[dev]'): left out", file=sys.stderr)
    return out


def normal(sentences: list[str]) -> list[str]:
    """Stripped, white space inside collapsed, empty ones dropped."""
    return [n for n in (" ".join(s.split()) for s in sentences) if n]


def passed(segment: Segmenter, cases: list[dict[str, object]]) -> int:
    return sum(
        normal(segment(str(c["text"]))) == normal(list(c["sentences"]))  # type: ignore[call-overload]
        for c in cases
    )


def corpus_text(target: int) -> str:
    texts = [
        load_path(p).text
        for p in sorted(CORPUS.iterdir())
        if p.suffix in (".md", ".pdf") and p.name != "SOURCES.md"
    ]
    one = "\n\n".join(texts)
    return "\n\n".join([one] * max(1, -(-target // len(one))))


def ms_per_100k(segment: Segmenter, text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        segment(text)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) / len(text) * 100_000 * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per segmenter (median)")
    parser.add_argument("--chars", type=int, default=1_000_000, help="size of the timed text")
    parser.add_argument("--part", choices=("tune", "heldout", "all"), default="all")
    parser.add_argument("--no-timing", action="store_true", help="accuracy only")
    args = parser.parse_args(argv)
    rules = json.loads(GOLDEN_RULES.read_text(encoding="utf-8"))
    cases = json.loads(REAL_TEXT.read_text(encoding="utf-8"))["cases"]
    parts = ("tune", "heldout") if args.part == "all" else (args.part,)
    by_part = {p: [c for c in cases if c["part"] == p] for p in parts}
    text = "" if args.no_timing else corpus_text(args.chars)
    head = "| segmenter | Golden Rules (of 48) | "
    head += " | ".join(f"real text, {p} ({len(by_part[p])})" for p in parts)
    head += " | ms per 100k chars |"
    print(head)
    print("|---|---:|" + "---:|" * len(parts) + "---:|")
    for name, segment in segmenters().items():
        gr = passed(segment, rules)
        accs = [passed(segment, by_part[p]) / len(by_part[p]) for p in parts]
        speed = "-" if args.no_timing else f"{ms_per_100k(segment, text, args.runs):.1f}"
        cells = " | ".join(f"{a:.1%}" for a in accs)
        print(f"| {name} | {gr} | {cells} | {speed} |", flush=True)
    if text:
        print(f"\ntimed text: {len(text):,} characters (the shared corpus, repeated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
