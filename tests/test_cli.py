"""The command line, end to end in a subprocess: output format and exit codes."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import main
from tests.conftest import SAMPLES, corpus_files, load_cached

FIELDS = {
    "id", "index", "start", "end", "text", "size", "unit", "page_start", "page_end",
    "heading_path", "overlap", "flags",
}  # fmt: skip


def run_cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args], capture_output=True, timeout=300, check=False
    )


@pytest.mark.parametrize("path", corpus_files(".md", ".pdf"), ids=lambda p: p.name)
def test_text_and_chunk_on_every_corpus_document(path: Path) -> None:
    text = run_cli("text", str(path))
    assert text.returncode == 0, text.stderr
    doc_text = text.stdout.decode("utf-8")
    assert doc_text == load_cached(path).text
    res = run_cli(
        "chunk", str(path), "--splitter", "structure", "--unit", "tokens", "--size", "200",
        "--overlap", "20",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = res.stdout.decode("utf-8").splitlines()
    assert lines
    for line in lines:
        rec = json.loads(line)
        assert rec.keys() >= FIELDS
        assert doc_text[rec["start"] : rec["end"]] == rec["text"]
        assert rec["unit"] == "tokens"


def test_chunk_options_reach_the_splitter(tmp_path: Path) -> None:
    src = tmp_path / "r.md"
    src.write_text("Refunds are available within seven days. This does not apply.\n")
    res = run_cli(
        "chunk", str(src), "--splitter", "fixed", "--unit", "chars", "--size", "20",
        "--overlap", "0",
    )  # fmt: skip
    recs = [json.loads(x) for x in res.stdout.decode().splitlines()]
    assert [r["text"] for r in recs][:2] == ["Refunds are availabl", "e within seven days."]


def make_bad_inputs(tmp: Path) -> dict[str, tuple[Path, str]]:
    import pymupdf

    good = pymupdf.open()
    good.new_page().insert_text((72, 72), "Hello world")
    good_bytes = good.tobytes()
    enc = pymupdf.open()
    enc.new_page().insert_text((72, 72), "Secret")
    enc_bytes = enc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    scan = pymupdf.open()
    page = scan.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 50, 50), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    cases = {
        "empty": (b"", "empty"),
        "truncated": (good_bytes[: len(good_bytes) // 3], "PDF"),
        "notpdf": (b"just some text, not a pdf at all", "not a PDF"),
        "encrypted": (enc_bytes, "encrypted"),
        "scanned": (scan.tobytes(), "OCR"),
    }
    out: dict[str, tuple[Path, str]] = {}
    for name, (data, message) in cases.items():
        p = tmp / f"{name}.pdf"
        p.write_bytes(data)
        out[name] = (p, message)
    for name, data, message in [
        ("binary", b"\x00\xff\x00garbage" * 10, "binary"),
        ("utf16", "naïve café".encode("utf-16-le"), "UTF-16 without a byte-order mark"),
    ]:
        p = tmp / f"{name}.md"
        p.write_bytes(data)
        out[name] = (p, message)
    return out


def test_bad_input_exits_2_with_one_clear_line(tmp_path: Path) -> None:
    for name, (path, message) in make_bad_inputs(tmp_path).items():
        for cmd in ("text", "chunk"):
            res = run_cli(cmd, str(path))
            err = res.stderr.decode()
            assert res.returncode == 2, (name, err)
            assert err.count("\n") == 1 and "Traceback" not in err, (name, err)
            assert message.lower() in err.lower(), (name, err)
            assert res.stdout == b""


def test_a_guessed_encoding_is_one_warning_line_and_the_command_goes_on(tmp_path: Path) -> None:
    src = tmp_path / "latin1.md"
    src.write_bytes("# Café\n\nnaïve café".encode("latin-1"))
    for cmd in ("text", "chunk"):
        res = run_cli(cmd, str(src))
        assert res.returncode == 0, res.stderr
        [warning] = res.stderr.decode().splitlines()
        assert warning.startswith("warning: latin1.md: not valid UTF-8 (byte 0xe9 at offset 5)")
        assert "decoded as Windows-1252" in warning
    assert run_cli("text", str(src)).stdout.decode() == "# Café\n\nnaïve café"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--encoding", "nope"], "unknown tiktoken encoding"),
        (["--encoding", "cl100k_base"], "would be downloaded on first use"),
        (["--encoding", "gpt2"], "would be downloaded on first use"),
        (["--size", "10", "--overlap", "10"], "must be smaller than size"),
        (["--size", "0"], "size must be"),
        (["--splitter", "magic"], "invalid choice"),
    ],
)
def test_bad_settings_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    src = tmp_path / "a.md"
    src.write_text("# A\n\nText.\n")
    res = run_cli("chunk", str(src), *args)
    err = res.stderr.decode()
    assert res.returncode == 2 and message in err and err.count("\n") == 1, err


def test_every_splitter_works_with_its_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    """Ours and every library's: the settings construct in each unit the splitter measures, a
    left-out overlap is a quarter of the size, or 0 for a splitter that takes none (an overlap
    asked of one is still refused), and ``chunk --splitter NAME FILE`` exits 0."""
    from explorer import cli
    from explorer.chunking.adapters import ADAPTERS
    from explorer.chunking.measures import UNITS
    from explorer.chunking.records import SPLITTERS, ChunkSettings
    from explorer.errors import SettingsError
    from tests.conftest import SAMPLES

    path = SAMPLES / "refund-policy.md"
    doc_text = load_cached(path).text
    assert len(ADAPTERS) == 12
    for name in (*SPLITTERS, *ADAPTERS):
        spec = ADAPTERS.get(name)
        takes_overlap = spec is None or spec.overlap
        units = UNITS if spec is None else spec.units
        for settings in (
            ChunkSettings(splitter=name),
            *(ChunkSettings(splitter=name, unit=u) for u in units),
        ):
            default_share = takes_overlap and name != "page"  # pages share no text by default
            assert settings.overlap == (settings.size // 4 if default_share else 0), name
        for u in set(UNITS) - set(units):
            with pytest.raises(SettingsError, match="measures size in"):
                ChunkSettings(splitter=name, unit=u)
        if not takes_overlap:
            with pytest.raises(SettingsError, match="has no overlap parameter; set overlap to 0"):
                ChunkSettings(splitter=name, overlap=8)
        assert cli.main(["chunk", "--splitter", name, str(path)]) == 0, name
        out = capsys.readouterr().out.splitlines()
        assert out, name
        for line in out:
            rec = json.loads(line)
            if rec["start"] is not None:  # a library chunk not found in the text has no span
                assert doc_text[rec["start"] : rec["end"]] == rec["text"], name


@pytest.mark.parametrize(
    "command",
    [
        *("", "text", "chunk", "audit", "query", "eval", "sweep", "ab", "diff", "map"),
        *("cache", "lessons", "convert", "index", "presets"),
    ],
)
def test_every_help_text_prints(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` of the program and of each command prints and exits 0 (a ``%`` in a help
    text once made argparse raise a TypeError instead)."""
    with pytest.raises(SystemExit) as done:
        main([*([command] if command else []), "--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["../policy.md", "/ABSOLUTE/policy.md", "sub/../../policy.md"])
def test_a_query_set_cannot_reach_outside_docs(tmp_path: Path, name: str) -> None:
    """A query set's document names stay inside ``--docs``: one line, exit 2, nothing read."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "policy.md").write_bytes((SAMPLES / "refund-policy.md").read_bytes())
    name = name.replace("/ABSOLUTE", str(tmp_path))
    item = {"id": "a", "doc": name, "query": "Refund?", "evidence": ["within seven days"]}
    queries = tmp_path / "set.json"
    queries.write_text(json.dumps([item]))
    res = run_cli("eval", "--queries", str(queries), "--docs", str(tmp_path / "docs"))
    err = res.stderr.decode()
    assert res.returncode == 2 and "is outside the documents folder" in err, err
    assert err.count("\n") == 1 and not res.stdout, err


def test_eval_json_reports_timing_and_a_warm_lasting_index_embeds_nothing(tmp_path: Path) -> None:
    """``eval --json`` gives ``timing``: p50 and p95 query milliseconds (embedding excluded)
    and the texts embedded; a second run on the same lasting index embeds none."""
    import os

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "policy.md").write_bytes((SAMPLES / "refund-policy.md").read_bytes())
    items = [
        {"id": "a", "doc": "policy.md", "query": "Refund window?", "evidence": ["seven days"]},
        {"id": "b", "doc": "policy.md", "query": "Downloads refunded?", "evidence": ["downloaded"]},
    ]
    queries = tmp_path / "set.json"
    queries.write_text(json.dumps(items))
    env = {**os.environ, "CHUNK_EXPLORER_CACHE": str(tmp_path / "cache")}
    args = ["eval", "--queries", str(queries), "--docs", str(docs), "--json"]
    runs = []
    for _ in range(2):
        res = subprocess.run(
            [sys.executable, "-m", "explorer", *args],
            capture_output=True,
            timeout=300,
            check=False,
            env=env,
        )
        assert res.returncode == 0, res.stderr.decode()
        runs.append(json.loads(res.stdout))
    for out in runs:
        timing = out["timing"]
        for key in ("query_ms_p50", "query_ms_p95", "embedded"):
            assert isinstance(timing[key], int | float) and not isinstance(timing[key], bool)
        assert 0 < timing["query_ms_p50"] <= timing["query_ms_p95"]
    assert runs[0]["timing"]["embedded"] > 0
    assert runs[1]["timing"]["embedded"] == 0
    assert runs[0]["coverage_at_k"] == runs[1]["coverage_at_k"]


def test_the_wheel_lists_every_package_of_the_library() -> None:
    """setuptools ships only the packages pyproject.toml lists (one left out, such as
    ``explorer.cli``, goes in as bare data with a warning, or not at all): every folder of
    ``explorer/`` with an ``__init__.py`` is listed."""
    import tomllib

    from tests.conftest import REPO

    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "explorer").rglob("__init__.py")
        if "_data" not in p.parts
    }
    assert "explorer.cli" in found and found <= listed, sorted(found - listed)


@pytest.mark.parametrize(
    "command", [["chunk", str(SAMPLES / "refund-policy.md")], ["cache", "--stats"]]
)
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_cache_dir_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], value: str
) -> None:
    """``--cache-dir ""`` would be the working folder: one line, exit 2, no file made there."""
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as done,
    ):
        main([*command, "--cache-dir", value])
    assert done.value.code == 2
    assert err.getvalue().count("\n") == 1 and "an empty folder name would put the cache in the " \
        "working folder; give a folder" in err.getvalue()  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_json_lines_stay_one_line_a_record_under_splitlines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """U+2028, U+2029 and U+0085 are line breaks to ``str.splitlines()`` that JSON may keep raw:
    ``chunk`` and the export (:func:`explorer.export.to_jsonl`, the app's download) write them
    as escapes, so one record is one line to every reader, and reads back as the same text."""
    from explorer.chunking.records import ChunkSettings
    from explorer.chunking.splitters import split
    from explorer.config import Config
    from explorer.documents.load import load_path
    from explorer.export import records, to_jsonl

    src = tmp_path / "breaks.md"
    text = "# Breaks\n\n" + "One\u2028two\u2029three. " * 40 + "A next line\x85mark.\n"
    src.write_text(text, encoding="utf-8")
    args = ["chunk", str(src), "--splitter", "fixed", "--unit", "chars", "--size", "200"]
    assert main([*args, "--overlap", "0", "--no-cache"]) == 0
    printed = capsys.readouterr().out
    doc = load_path(src)
    lines = printed.splitlines()
    assert len(lines) == printed.count("\n") > 1
    for line in lines:
        record = json.loads(line)
        assert doc.text[record["start"] : record["end"]] == record["text"]
    assert "".join(json.loads(line)["text"] for line in lines).count("\u2028") == 40
    assert any("\x85" in json.loads(line)["text"] for line in lines)
    config = Config.from_spec("splitter=fixed,unit=chars,size=200,overlap=0")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=200, overlap=0))
    exported = to_jsonl(records(doc, config, chunks))
    assert len(exported.splitlines()) == len(chunks) == exported.count("\n")
    assert [json.loads(x)["text"] for x in exported.splitlines()] == [c.text for c in chunks]
