"""Churn: the share of chunks one paragraph inserted near the top makes an index re-embed.

Run from the repository root: ``python -m benchmarks.bench_churn``. Each Markdown document
of ``../shared/corpus/`` and ``sample_docs/`` (a PDF has no text to edit in place) gets one
paragraph (:data:`PARAGRAPH`) after its first paragraph of prose
(:func:`~explorer.chunking.churn.insert_near_top`); for each splitter,
ours and other libraries', at 256 tokens (overlap 64) and at 1,000 characters (overlap 200), it
prints the chunks re-embedded of all the new versions' chunks, and the smallest and largest share
of one document. Nothing is embedded (a content-addressed index re-embeds a new text; see
:mod:`explorer.chunking.churn`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's explorer, not an installed one

from explorer.chunking.churn import insert_near_top  # noqa: E402
from explorer.config import Config  # noqa: E402
from explorer.workspace import Workspace  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
SAMPLES = REPO / "sample_docs"
PARAGRAPH = (
    "Before you start, note that this document was revised: some sections were reordered and "
    "two definitions were added, so read it again even if you have read an earlier version."
)
SPLITTERS = (
    "fixed",
    "sentence",
    "recursive",
    "structure",
    "page",
    "langchain-recursive",
    "langchain-markdown",
    "llamaindex-sentence",
    "text-splitter-markdown",
    "semchunk",
    "chonkie-recursive",
)
CONFIGS = {
    "256 tokens / 64": Config(),
    "1,000 chars / 200": Config().replace(unit="chars", size=1000, overlap=200),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splitters", default=",".join(SPLITTERS))
    args = parser.parse_args()
    names = [n for n in args.splitters.split(",") if n]
    ws = Workspace()
    paths = sorted(p for d in (CORPUS, SAMPLES) for p in d.iterdir() if p.suffix == ".md")
    paths = [p for p in paths if p.name != "SOURCES.md"]
    pairs = []
    for p in paths:
        old = ws.load_path(p)
        new = ws.load(insert_near_top(old, PARAGRAPH).encode(), name="edited-" + p.name)
        pairs.append((old, new))
    print(f"{len(pairs)} documents; one paragraph inserted after the first paragraph of each\n")
    print("| splitter | size | re-embedded (all documents) | share | lowest–highest |")
    print("| --- | --- | ---: | ---: | ---: |")
    for label, config in CONFIGS.items():
        for name in names:
            done = total = 0
            shares = []
            for old, new in pairs:
                c = ws.churn(old, new, config, [name])[name]
                done += c.reembedded
                total += c.new_chunks
                shares.append(c.share)
            print(
                f"| {name} | {label} | {done:,} of {total:,} | {done / max(total, 1):.1%} | "
                f"{min(shares):.0%}–{max(shares):.0%} |"
            )


if __name__ == "__main__":
    main()
