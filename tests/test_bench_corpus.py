"""``benchmarks.bench_corpus --write`` replaces the scaling table and keeps what was written
around it: the reading, the comparisons and the sections after it."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bench_corpus import write_section

TABLE = "| documents | query p50 ms |\n|---:|---:|\n| 1,000 | 33 |\n"


def test_the_table_is_replaced_and_the_text_around_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(
        "# Chunking\n\n## Corpus scaling\n\nHow it was run.\n\n"
        "| documents | query p50 ms |\n|---:|---:|\n| 1,000 | 408 |\n\n"
        "![figure](f.png)\n\nWhat the figures say.\n\n### A comparison\n\n| a | b |\n|---|---|\n"
        "| 1 | 2 |\n\n# Large PDF pages\n\n## Command\n\nmore\n",
        encoding="utf-8",
    )
    write_section(TABLE, "", path)
    text = path.read_text(encoding="utf-8")
    assert "| 1,000 | 33 |" in text and "| 1,000 | 408 |" not in text
    for kept in ("How it was run.", "![figure](f.png)", "What the figures say.", "| 1 | 2 |"):
        assert kept in text
    assert text.endswith("# Large PDF pages\n\n## Command\n\nmore\n")


def test_without_the_section_one_is_appended(tmp_path: Path) -> None:
    path = tmp_path / "BENCHMARKS.md"
    path.write_text("# Chunking\n\nsome text\n", encoding="utf-8")
    write_section(TABLE, "\n![Corpus scaling](figure.png)\n", path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Chunking\n\nsome text\n\n## Corpus scaling\n")
    assert text.rstrip().endswith("![Corpus scaling](figure.png)") and "| 1,000 | 33 |" in text
