"""Table audit across splitters: what each splitter does to the tables of the documents that
have them (the shared corpus and the bundled samples), at one configuration.

Run ``python -m benchmarks.bench_tables`` (options: ``--size N`` and ``--unit U`` for every
splitter, default: each splitter at the recommended 256 tokens with its default overlap; plus a
row of 250-character windows, the opening lesson's setting). Prints one row per splitter with
the totals over the documents: tables, tables split, rows cut (of all rows), continuation chunks
without the header row, and the mean cohesion (1 / chunks a table touches). The semantic
splitter is left out (it embeds the text; its cuts are structure's within a topic).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explorer.chunking.adapters import ADAPTERS
from explorer.chunking.records import SPLITTERS, ChunkSettings
from explorer.chunking.tables import table_audit
from explorer.config import Config
from explorer.documents.load import load_path
from explorer.errors import ExplorerError
from explorer.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
FOLDERS = (REPO.parent / "shared" / "corpus", REPO / "sample_docs")


def documents() -> list[Path]:
    paths = [
        p
        for f in FOLDERS
        for p in sorted(f.iterdir())
        if p.suffix in (".pdf", ".md") and p.name != "SOURCES.md"  # the corpus's list of sources
    ]
    out = []
    for p in paths:
        doc = load_path(p)
        if any(b.kind == "table" for b in doc.blocks):
            out.append(p)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_tables", description=__doc__)
    parser.add_argument("--size", type=int, default=None)
    parser.add_argument("--unit", default=None)
    args = parser.parse_args(argv)
    paths = documents()
    ws = Workspace()
    docs = [ws.load(p.read_bytes(), name=p.name) for p in paths]
    print(f"{len(docs)} documents with tables: {', '.join(p.name for p in paths)}")
    rows = [("fixed, 250 chars, overlap 0", ChunkSettings("fixed", "chars", 250, 0))]
    for name in [s for s in SPLITTERS if s != "semantic"] + sorted(ADAPTERS):
        try:
            kw = {k: v for k, v in (("size", args.size), ("unit", args.unit)) if v is not None}
            rows.append((name, ChunkSettings(splitter=name, **kw)))
        except ExplorerError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
    print(
        f"{'splitter':<30} {'tables':>6} {'split':>6} {'rows cut':>12} {'no header':>9} "
        f"{'cohesion':>8}"
    )
    for label, settings in rows:
        t = s = cut = n_rows = nh = 0
        shares: list[float] = []
        try:
            for d in docs:
                a = table_audit(d, ws.chunks(d, Config(chunking=settings)))
                t, s, cut, n_rows, nh = (
                    t + a.tables,
                    s + a.split,
                    cut + a.rows_cut,
                    n_rows + a.rows,
                    nh + a.without_header,
                )
                shares += [a.cohesion] * a.tables
        except ExplorerError as exc:
            print(f"{label:<30} {exc}")
            continue
        cohesion = sum(shares) / len(shares) if shares else 1.0
        print(f"{label:<30} {t:>6} {s:>6} {f'{cut} / {n_rows}':>12} {nh:>9} {cohesion:>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
