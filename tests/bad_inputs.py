"""A corpus of bad and extreme inputs, generated in memory (no binary fixtures).

``bad_inputs()`` lists them cheaply; ``make(item)`` builds the bytes, deterministically (the
big ones are cached for the session). ``expect`` says what the loader must do with each:
``"error"`` — raise a :class:`~explorer.errors.DocumentError` with one clear message — or
``"loads"`` — load, possibly with warnings (``Document.warnings``) that say what was assumed.

Used by ``tests/test_bad_inputs.py`` (library and command line) and by the app tests.
``python -m tests.bad_inputs`` measures load and split time and peak memory of the big ones,
each in a fresh process (figures, not a test: nothing here asserts a speed).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pymupdf as _pymupdf

pymupdf: Any = _pymupdf

Expect = Literal["error", "loads"]

#: Sizes of the extreme inputs (named, so tests and the benchmark can quote them).
PAGES = 2000
BIG_MARKDOWN_BYTES = 50 * 1024 * 1024
LONG_LINE_CHARS = 1024 * 1024
NESTING_DEPTH = 1000
QUOTE_DEPTH = 5000
LATE_BINARY_AT = 200 * 1024
MOSTLY_INVALID_BYTES = 1024 * 1024
TABLE_COLUMNS = 1000
TABLE_ROWS = 20


@dataclass(frozen=True)
class BadInput:
    """One bad or extreme input: a short id, the file name a user would give it, the outcome."""

    name: str
    filename: str
    expect: Expect
    description: str = ""


_ITEMS: tuple[BadInput, ...] = (
    BadInput("empty", "empty.md", "error", "0 bytes"),
    BadInput("one-byte", "one-byte.md", "loads", "a single letter"),
    BadInput("one-byte-pdf", "one-byte.pdf", "error", "a single '%' named .pdf"),
    BadInput("truncated-pdf", "truncated.pdf", "error", "a 6-page PDF cut in half"),
    BadInput("broken-xref", "broken-xref.pdf", "loads", "cross-reference offsets all wrong"),
    BadInput("not-a-pdf", "report.pdf", "error", "plain text named .pdf"),
    BadInput("encrypted-user", "encrypted-user.pdf", "error", "AES-256, a user password"),
    BadInput(
        "encrypted-owner", "encrypted-owner.pdf", "loads", "owner password only, copying denied"
    ),
    BadInput("scanned", "scanned.pdf", "error", "an image of text, no text layer"),
    BadInput("pages-2000", "pages-2000.pdf", "loads", f"{PAGES} pages of a few lines each"),
    BadInput("rotated", "rotated.pdf", "loads", "pages rotated by 90, 180 and 270 degrees"),
    BadInput("latin1-md", "latin1.md", "loads", "Markdown saved as latin-1"),
    BadInput("cp1252-md", "cp1252.md", "loads", "Markdown saved as Windows-1252 (curly quotes)"),
    BadInput("utf16-md", "utf16.md", "loads", "Markdown saved as UTF-16 with a byte-order mark"),
    BadInput("junk-md", "junk.md", "error", "random bytes named .md"),
    BadInput("md-50mb", "big.md", "error", "50 MB of ordinary Markdown (over MAX_CHARS)"),
    BadInput("line-1mb", "one-line.md", "loads", "one 1 MB line with no spaces"),
    BadInput("nested-lists", "nested.md", "loads", f"a list nested {NESTING_DEPTH} levels deep"),
    BadInput(
        "nested-quotes", "deep-quote.md", "loads", f"a quote nested {QUOTE_DEPTH} levels deep"
    ),
    BadInput("late-nul", "late-nul.md", "error", "200 KiB of text, then a NUL byte"),
    BadInput(
        "late-binary", "late-binary.md", "error", "200 KiB of text, then control bytes (no NUL)"
    ),
    BadInput(
        "mostly-invalid-utf8",
        "legacy.md",
        "loads",
        "1 MiB of accented letters in Windows-1252: nearly every byte sequence invalid UTF-8",
    ),
    BadInput("table-1000-cols", "wide-table.md", "loads", f"a table of {TABLE_COLUMNS} columns"),
    BadInput("html-md", "html.md", "loads", "raw HTML and a script inside Markdown"),
)


def bad_inputs() -> list[BadInput]:
    """Every bad input, cheap to call (nothing is generated)."""
    return list(_ITEMS)


def by_name(name: str) -> BadInput:
    """The bad input with this id."""
    for it in _ITEMS:
        if it.name == name:
            return it
    raise KeyError(f"no bad input named {name!r}")


def make(item: BadInput | str) -> bytes:
    """The bytes of a bad input (built once per session, then cached)."""
    name = item if isinstance(item, str) else item.name
    return _make(name)


@functools.cache
def _make(name: str) -> bytes:
    return _BUILDERS[name]()


# --------------------------------------------------------------------------- PDF builders

_LOREM = (
    "The field team checks every valve before the morning shift. A reading outside the "
    "range is written down with the time and the name of the person who took it."
)


def _text_pdf(pages: int, *, lines: int = 6, rotate: Callable[[int], int] | None = None) -> Any:
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 110), f"Section {n + 1}", fontsize=16)  # below the header zone
        y = 140.0
        for i in range(lines):
            text = f"Page {n + 1}, line {i + 1}: " + _LOREM[: 60 + (i * 7 + n) % 40]
            page.insert_text((72, y), text, fontsize=10)
            y += 16
        if rotate is not None:
            page.set_rotation(rotate(n))
    return doc


def _pdf_bytes(doc: Any, **kwargs: Any) -> bytes:
    data: bytes = doc.tobytes(no_new_id=True, **kwargs)
    doc.close()
    return data


def _truncated_pdf() -> bytes:
    data = _pdf_bytes(_text_pdf(6))
    return data[: len(data) // 2]


def _broken_xref() -> bytes:
    data = _pdf_bytes(_text_pdf(3))

    # every in-use entry points 7 bytes too far, and startxref points into the middle of nowhere
    def shift(m: re.Match[bytes]) -> bytes:
        return b"%010d 00000 n" % (int(m.group(1)) + 7)

    head, sep, tail = data.rpartition(b"\nxref\n")
    tail = re.sub(rb"(\d{10}) 00000 n", shift, tail)
    tail = re.sub(rb"startxref\n\d+", b"startxref\n123", tail)
    return head + sep + tail


def _encrypted(*, user: bool) -> bytes:
    doc = _text_pdf(2)
    permissions = pymupdf.PDF_PERM_PRINT if not user else -1
    return _pdf_bytes(
        doc,
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="user-secret" if user else "",
        owner_pw="owner-secret",
        permissions=permissions,
    )


def _scanned() -> bytes:
    # render a text page to an image, then place only the image on a new page
    src = _text_pdf(1)
    pix = src[0].get_pixmap(dpi=72)
    src.close()
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_image(page.rect, pixmap=pix)
    return _pdf_bytes(doc, deflate=True)


def _rotated() -> bytes:
    return _pdf_bytes(_text_pdf(4, rotate=lambda n: (n * 90) % 360))


# --------------------------------------------------------------------------- text builders

_MD_SECTION = """## Section {n}

The refund window is {d} days. A customer who asks after that gets store credit, unless the
item arrived damaged — then the window does not apply.

- Keep the receipt.
- Photograph the damage.

| Item | Days |
|------|------|
| Boots | {d} |

"""


def _big_markdown() -> bytes:
    out = bytearray(b"# A very large handbook\n\n")
    n = 0
    while len(out) < BIG_MARKDOWN_BYTES:
        n += 1
        out += _MD_SECTION.format(n=n, d=14 + n % 30).encode()
    return bytes(out[:BIG_MARKDOWN_BYTES].rsplit(b"\n", 1)[0] + b"\n")


def _long_line() -> bytes:
    unit = b"abcdefghijklmnopqrstuvwxyz0123456789"
    return b"# One line\n\n" + (unit * (LONG_LINE_CHARS // len(unit) + 1))[:LONG_LINE_CHARS] + b"\n"


def _nested_lists() -> bytes:
    lines = [b"# Nested", b""]
    for depth in range(NESTING_DEPTH):
        lines.append(b"  " * depth + b"- level %d" % (depth + 1))
    return b"\n".join(lines) + b"\n"


def _nested_quotes() -> bytes:
    return b"# Quoted\n\n" + b"> " * QUOTE_DEPTH + b"the innermost words\n\nAfter the quote.\n"


def _text_then(tail: bytes) -> bytes:
    """:data:`LATE_BINARY_AT` bytes of Markdown, then ``tail``, then more Markdown."""
    line = b"A line of ordinary Markdown text, the kind every document has.\n"
    head = (b"# Text first\n\n" + line * (LATE_BINARY_AT // len(line) + 1))[:LATE_BINARY_AT]
    return head + tail + b"\n\n" + line * 10


def _late_binary() -> bytes:
    import random

    rng = random.Random(29)  # bytes below 0x20 but tab, line and page breaks: no NUL among them
    controls = [b for b in range(1, 32) if b not in (9, 10, 12, 13)]
    return _text_then(bytes(rng.choice(controls) for _ in range(4096)))


def _mostly_invalid() -> bytes:
    import random

    rng = random.Random(8)  # words of Windows-1252 letters (no byte is valid UTF-8 on its own)
    out = bytearray()
    while len(out) < MOSTLY_INVALID_BYTES:
        out += bytes(rng.randrange(0xC0, 0x100) for _ in range(rng.randrange(2, 10)))
        out += b"\n" if rng.random() < 0.08 else b" "
    return bytes(out[:MOSTLY_INVALID_BYTES])


def _wide_table() -> bytes:
    header = "| " + " | ".join(f"c{i}" for i in range(TABLE_COLUMNS)) + " |"
    rule = "|" + "---|" * TABLE_COLUMNS
    rows = [
        "| " + " | ".join(f"r{r}v{i}" for i in range(TABLE_COLUMNS)) + " |"
        for r in range(TABLE_ROWS)
    ]
    return ("# Wide\n\n" + "\n".join([header, rule, *rows]) + "\n").encode()


def _junk() -> bytes:
    import random

    rng = random.Random(6)
    return bytes(rng.randrange(256) for _ in range(4096))


_FRENCH = (
    "# Café\n\nDéjà vu à la carte: the naïve façade of the hôtel.\n\n## Crème brûlée\n\nVoilà.\n"
)

_BUILDERS: dict[str, Callable[[], bytes]] = {
    "empty": lambda: b"",
    "one-byte": lambda: b"x",
    "one-byte-pdf": lambda: b"%",
    "truncated-pdf": _truncated_pdf,
    "broken-xref": _broken_xref,
    "not-a-pdf": lambda: b"Quarterly report\n\nThis is plain text saved with a .pdf suffix.\n",
    "encrypted-user": lambda: _encrypted(user=True),
    "encrypted-owner": lambda: _encrypted(user=False),
    "scanned": _scanned,
    "pages-2000": lambda: _pdf_bytes(_text_pdf(PAGES, lines=4), garbage=1, deflate=True),
    "rotated": _rotated,
    "latin1-md": lambda: _FRENCH.encode("latin-1"),
    "cp1252-md": lambda: "# “Quotes”\n\nIt’s €5 — a bargain…\n".encode("cp1252"),
    "utf16-md": lambda: _FRENCH.encode("utf-16"),
    "junk-md": _junk,
    "md-50mb": _big_markdown,
    "line-1mb": _long_line,
    "nested-lists": _nested_lists,
    "nested-quotes": _nested_quotes,
    "late-nul": lambda: _text_then(b"\x00\x01\x02binary\x00"),
    "late-binary": _late_binary,
    "mostly-invalid-utf8": _mostly_invalid,
    "table-1000-cols": _wide_table,
    "html-md": lambda: (
        b"# HTML inside\n\n<script>alert('x')</script>\n\n<div onclick=\"evil()\">a <b>bold</b> "
        b"div</div>\n\nText with <img src=x onerror=alert(1)> inline.\n"
    ),
}

assert set(_BUILDERS) == {it.name for it in _ITEMS}


# --------------------------------------------------------------------------- measuring

BIG = (
    "pages-2000", "md-50mb", "line-1mb", "nested-lists", "nested-quotes", "mostly-invalid-utf8",
    "table-1000-cols",
)  # fmt: skip

_MEASURE = """
import json, re, sys, time
from pathlib import Path

def peak_mb():  # VmHWM: unlike ru_maxrss it does not carry the parent's peak across exec
    status = Path("/proc/self/status").read_text()
    return int(re.search(r"VmHWM:\\s+(\\d+)", status).group(1)) / 1024

from explorer.documents.load import load_document
from explorer.errors import ExplorerError
from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
settings = ChunkSettings()  # the command line's default
settings.measure.units("warm up")
path = Path(sys.argv[1])
data = path.read_bytes()
before = peak_mb()
t0 = time.perf_counter()
try:
    doc = load_document(data, name=path.name)
    t1 = time.perf_counter()
    chunks = split(doc, settings)
    out = {"outcome": f"loads: {len(doc.text):,} characters, {len(chunks):,} chunks"}
except ExplorerError as exc:
    t1 = time.perf_counter()
    out = {"outcome": f"error: {exc}"}
t2 = time.perf_counter()
out.update(load=t1 - t0, split=t2 - t1, peak=peak_mb(), base=before)
print(json.dumps(out))
"""


def measure(names: Sequence[str] = BIG) -> None:
    """Print load and split seconds and peak memory (RSS) for each input, in a fresh process.

    A name may also be the path of a file of your own.
    """
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    print(
        f"{'input':16s} {'bytes':>12s} {'load s':>7s} {'split s':>7s} {'peak MB':>8s} "
        f"{'(base)':>7s}  outcome"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if Path(name).is_file():
                path = Path(name)
            else:
                path = Path(tmp) / by_name(name).filename
                path.write_bytes(make(name))
            res = subprocess.run(
                [sys.executable, "-c", _MEASURE, str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            m = json.loads(res.stdout)
            print(
                f"{name[-16:]:16s} {path.stat().st_size:>12,d} {m['load']:7.2f} {m['split']:7.2f} "
                f"{m['peak']:8.0f} {m['base']:7.0f}  {m['outcome'][:90]}"
            )


if __name__ == "__main__":
    import sys

    measure(sys.argv[1:] or BIG)
