"""Mutation fuzzing of the Markdown and PDF loaders: the only failures allowed are ours.

The bytes of real documents (the samples, a few corpus files, and an uncompressed copy of the
field manual, so mutations reach the page content) are mutated — bit flips, inserted and
deleted bytes, duplicated chunks, truncation, two files spliced, bytes overwritten with
interesting values, numbers (offsets, lengths, coordinates) replaced — and loaded.
``load_document`` must return a valid ``Document`` (which then splits into chunks whose text is
exactly their span) or raise an ``ExplorerError``; anything else is a loader bug.

Every case is reproducible from its seed file and case seed (printed with each failure)::

    python -m tests.test_fuzz_loaders field-manual.pdf 1234567 > case.pdf

CI runs a few hundred cases per seed file; ``FUZZ_EXAMPLES=20000`` runs that many.
"""

from __future__ import annotations

import functools
import os
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf as _pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents.load import load_document
from explorer.errors import ExplorerError
from tests.conftest import CORPUS, SAMPLES

pymupdf: Any = _pymupdf

#: Cases per seed file (PDF seeds run a tenth of it: a PDF load costs 10-700 ms).
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
#: Changes the whole sequence of cases (CI keeps 0, so a failure is the same on every run).
RUN_SEED = int(os.environ.get("FUZZ_SEED", "0"))

INTERESTING = [
    b"\x00", b"\xff", b"\xff\xff\xff\xff", b"\x80", b"\xc3", b"\xef\xbb\xbf", b"\xff\xfe",
    b"\r", b"\n", b"\r\n", b"\t", b" ", b"%%EOF", b"%PDF-1.7\n", b"obj", b"endobj", b"stream\n",
    b"endstream", b"xref", b"trailer", b"startxref", b"<<", b">>", b"[", b"]", b"(", b")",
    b"/Length 999999999", b"/Length -1", b"1 0 R", b"0 0 R", b"99999 0 R", b"/Filter/FlateDecode",
    b"/Type/Page", b"/Rotate 90", b"/MediaBox[0 0 0 0]", b"BT", b"ET", b"Tj", b"TJ", b"Tf",
    b"9999999999", b"-1", b"1e308", b"NaN", b"#", b"######", b"- ", b"> ", b"```", b"~~~", b"|",
    b"|---|", b"<!--", b"<script>", b"---\n", b"[x]: ", b"\\", b"*", b"_", b"`",
]  # fmt: skip

SETTINGS = [ChunkSettings(), ChunkSettings(splitter="structure", size=128, overlap=16)]


# --------------------------------------------------------------------------- seed files


def _expanded(path: Path) -> bytes:
    """The PDF with every stream decompressed, so mutations land in page content."""
    doc = pymupdf.open(path)
    data: bytes = doc.tobytes(expand=255, no_new_id=True)
    doc.close()
    return data


SEED_PATHS: dict[str, Path] = {
    p.name: p
    for p in [
        *sorted(SAMPLES.glob("*.md")),
        SAMPLES / "field-manual.pdf",
        CORPUS / "curl-vulnerability-disclosure-policy.md",
        CORPUS / "cargo-specifying-dependencies.md",
        CORPUS / "irs-notice-1036-2011-withholding.pdf",
    ]
}


@functools.cache
def seed_bytes(name: str) -> bytes:
    if name == "field-manual-expanded.pdf":
        return _expanded(SAMPLES / "field-manual.pdf")
    return SEED_PATHS[name].read_bytes()


SEEDS = [*SEED_PATHS, "field-manual-expanded.pdf"]


# --------------------------------------------------------------------------- mutations

Mutation = Callable[[bytes, random.Random], tuple[bytes, str]]


def _pos(data: bytes, rng: random.Random) -> int:
    return rng.randrange(len(data) + 1)


def flip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if not data:
        return data, "flip(empty)"
    i, bit = rng.randrange(len(data)), rng.randrange(8)
    return data[:i] + bytes([data[i] ^ (1 << bit)]) + data[i + 1 :], f"flip@{i}.{bit}"


def insert(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = _pos(data, rng)
    if rng.random() < 0.5:
        new = rng.randbytes(rng.randint(1, 16))
    else:
        new = rng.choice(INTERESTING) * rng.choice([1, 1, 2, 50])
    return data[:i] + new + data[i:], f"insert@{i}:{new[:20]!r}"


def delete(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = _pos(data, rng)
    n = rng.choice([1, rng.randint(1, 64), rng.randint(1, max(1, len(data) // 10))])
    return data[:i] + data[i + n :], f"delete@{i}+{n}"


def duplicate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = _pos(data, rng)
    n = rng.randint(1, max(1, min(4096, len(data) // 4)))
    j = _pos(data, rng)
    times = rng.choice([1, 1, 3, 100])
    return data[:j] + data[i : i + n] * times + data[j:], f"duplicate[{i}:+{n}]x{times}@{j}"


def truncate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = _pos(data, rng)
    return data[:i], f"truncate@{i}"


def overwrite(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = _pos(data, rng)
    new = rng.choice(INTERESTING)
    return data[:i] + new + data[i + len(new) :], f"overwrite@{i}:{new!r}"


def splice(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    other_name = rng.choice(SEEDS)
    other = seed_bytes(other_name)
    i, j = _pos(data, rng), _pos(other, rng)
    return data[:i] + other[j:], f"splice@{i}+{other_name}[{j}:]"


_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")
NUMBERS = [b"0", b"-1", b"1", b"-0.0", b"65535", b"2147483648", b"99999999999", b"1e308", b"3.5"]


def renumber(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Replace one number (an offset, a length, a coordinate, an object number) with another."""
    i = _pos(data, rng)
    m = _NUMBER.search(data, i) or _NUMBER.search(data)
    if m is None:
        return data, "renumber(none)"
    new = rng.choice(NUMBERS)
    return data[: m.start()] + new + data[m.end() :], f"renumber@{m.start()}:{new!r}"


MUTATIONS: list[Mutation] = [flip, insert, delete, duplicate, truncate, overwrite, splice, renumber]


def mutate(data: bytes, case_seed: int) -> tuple[bytes, str]:
    """1-4 random mutations of ``data``; the same seed always gives the same bytes."""
    rng = random.Random(case_seed)
    steps = []
    weights = [5, 3, 3, 2, 1, 4, 1, 3]
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        op = rng.choices(MUTATIONS, weights)[0]
        data, step = op(data, rng)
        steps.append(step)
    return data, " ".join(steps)


# --------------------------------------------------------------------------- the property


def check(data: bytes, name: str, settings: ChunkSettings) -> str:
    """Load and split; returns the outcome. Raises only when the loaders misbehave."""
    try:
        doc = load_document(data, name=name)
    except ExplorerError as exc:
        message = str(exc)
        assert message and "\n" not in message, f"a typed error needs one line: {message!r}"
        return "error"
    chunks = split(doc, settings)
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text, f"chunk {c.index} text is not its span"
    return "loads"


def run_cases(seed: str, count: int) -> tuple[list[str], dict[str, int], float]:
    data = seed_bytes(seed)
    rng = random.Random(f"{seed}:{RUN_SEED}")
    failures: list[str] = []
    outcomes = {"loads": 0, "error": 0}
    slowest = 0.0
    for i in range(count):
        case_seed = rng.getrandbits(32)
        mutated, how = mutate(data, case_seed)
        name = seed if seed.endswith(".pdf") or i % 3 else seed[:-3] + ".txt"  # both loaders
        started = time.perf_counter()
        try:
            outcomes[check(mutated, name, SETTINGS[i % len(SETTINGS)])] += 1
        except Exception as exc:  # the failure the test is looking for
            failures.append(
                f"{seed} case {case_seed} as {name} ({how}): {type(exc).__name__}: {exc}"
            )
        slowest = max(slowest, time.perf_counter() - started)
    return failures, outcomes, slowest


@pytest.mark.parametrize("seed", SEEDS)
def test_mutated_documents_load_or_raise_a_typed_error(seed: str) -> None:
    count = EXAMPLES if seed.endswith(".md") else max(EXAMPLES // 10, 10)
    failures, outcomes, slowest = run_cases(seed, count)
    print(f"{seed}: {count} cases, {outcomes}, slowest {slowest:.2f} s")
    assert not failures, f"{len(failures)} of {count} cases failed:\n" + "\n".join(failures[:20])
    assert outcomes["loads"], "no mutated case loaded: the mutations are too destructive"


@given(
    seed=st.sampled_from([s for s in SEEDS if s.endswith(".md")]),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 64), st.binary(max_size=8))),
)
def test_edited_markdown_loads_or_raises_a_typed_error(
    seed: str, edits: list[tuple[float, int, bytes]]
) -> None:
    data = seed_bytes(seed)
    for where, cut, new in edits:  # replace `cut` bytes at a relative position with `new`
        i = int(where * len(data))
        data = data[:i] + new + data[i + cut :]
    check(data, seed, SETTINGS[0])


# --------------------------------------------------------------------------- reproduce

if __name__ == "__main__":  # pragma: no cover - a tool for reproducing a failure
    name, case = sys.argv[1], int(sys.argv[2])
    sys.stdout.buffer.write(mutate(seed_bytes(name), case)[0])
