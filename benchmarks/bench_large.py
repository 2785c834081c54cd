"""Large-document benchmark: how long a 9.9-million-character Markdown file takes to open in the
app and how long each settings change takes after it, beside another checkout (the base commit);
and the library path (load, chunk, BM25 retriever, answer) for a checkout that has the workspace.

Run ``python -m benchmarks.bench_large`` (options: ``--chars N``, ``--runs N``, ``--changes N``,
``--base DIR`` (repeatable) to put other checkouts beside this one, ``--settings
recommended|lesson``, ``--file PATH`` to time a file of your own instead, ``--no-library``).

What it does. It builds a Markdown file of ``--chars`` characters by appending the Markdown files
of ``shared/corpus/`` (sorted by name) in turn, cut at the last line break before the size. Then,
for every checkout, each run is a fresh process (so no cache of an earlier run is warm) with the
checkout first on ``sys.path``:

* app: ``AppTest`` over the checkout's ``app.py`` sets one configuration (structure splitter,
  256 tokens, BM25, fill to the budget, k 4) and the question, uploads the file and sets them
  again, since an upload may open on settings of its own (*open*: both reruns — reading, the
  first chunking, the diagnostics, the first answer and the first drawing of the page; each
  run is shown apart too: the upload's, on the settings it opens on, is the page a person
  first sees), then
  moves the chunk-size slider ``--changes`` times to sizes not seen before (*new size*:
  everything that depends on the size is made again) and back once to a size seen before
  (*seen size*: all cached);
* library (checkouts with ``explorer.workspace``): ``Workspace.load``, ``chunks`` at the
  recommended configuration, the BM25 ``retriever``, ``ask`` (the first answer reads the page
  text the evidence is matched against), ``ask`` again, and a new size's chunks and answer.

Each figure is the median over the runs (and over the changes of every run) of wall time, with
the lowest and highest in brackets. Nothing here is a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
CHARS = 9_900_000
QUESTION = "How do I take a dependency from a git repository?"
EVIDENCE = ("git repository",)
SETTINGS = {
    "recommended": {"splitter": "structure", "unit": "tokens", "size": 256, "overlap": 64,
                    "fill": True, "k": 4},
    "lesson": {"splitter": "fixed", "unit": "chars", "size": 250, "overlap": 0, "fill": False,
               "k": 2},
}  # fmt: skip
"""The app's configurations (BM25 in both): the recommended one, and the opening lesson's failing
setting, which an upload kept before issue 24 (so the base opened a file on it)."""

APP_RUN = """
import json, sys, time
from pathlib import Path
from streamlit.testing.v1 import AppTest
path, changes, question = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
at = AppTest.from_file(str(Path.cwd() / "app.py"), default_timeout=1800)
at.run()
def timed():
    t = time.perf_counter(); at.run(); ms = time.perf_counter() - t
    if at.exception:
        raise SystemExit(f"the app raised: {at.exception[0].value}")
    return ms
chosen = json.loads(sys.argv[4])
def same_settings():  # one configuration in every checkout, whatever an upload opens on
    at.selectbox(key="splitter").set_value(chosen["splitter"]).run()
    at.selectbox(key="unit").set_value(chosen["unit"]).run()
    at.slider(key="size").set_value(chosen["size"])
    at.slider(key="overlap").set_value(chosen["overlap"])
    at.selectbox(key="retriever").set_value("bm25")
    at.toggle(key="fill").set_value(chosen["fill"])
    at.slider(key="k").set_value(chosen["k"])
    next(t for t in at.text_input if t.label == "Question").set_value(question)
same_settings()
at.run()
at.file_uploader(key="upload").set_value((path.name, path.read_bytes(), "text/markdown"))
opened = timed()
same_settings()  # an upload may open on settings of its own: these again, and the question
again = timed()
out = {"open": opened + again, "upload": opened, "again": again,
       "errors": [e.value for e in at.error], "new": [], "seen": []}
for n in range(changes):
    at.slider(key="size").set_value(300 + 16 * n)
    out["new"].append(timed())
at.slider(key="size").set_value(300)
out["seen"].append(timed())
print(json.dumps(out))
"""
"""One run in a checkout (its own process, so its own modules and caches): the app's open and
settings changes, in seconds."""

LIB_RUN = """
import json, sys, time
from pathlib import Path
try:
    from explorer.workspace import Workspace
except ImportError:
    print("null"); raise SystemExit(0)
from explorer import Config
path, question, evidence = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
out = {}
def timed(label, fn):
    t = time.perf_counter(); value = fn(); out[label] = time.perf_counter() - t; return value
ws = Workspace()
doc = timed("load", lambda: ws.load(path.read_bytes(), name=path.name))
config = Config().replace(retriever="bm25")
timed("chunk", lambda: ws.chunks(doc, config))
timed("retriever", lambda: ws.retriever(doc, config))
timed("ask", lambda: ws.ask(doc, question, evidence, config=config))
timed("ask again", lambda: ws.ask(doc, question, evidence, config=config))
bigger = config.replace(size=config.chunking.size + 64)
timed("new size", lambda: ws.ask(doc, question, evidence, config=bigger))
print(json.dumps(out))
"""
"""One run of the library path in a checkout; ``null`` where it has no workspace."""

LIB_ROWS = {
    "load": "library: load",
    "chunk": "library: chunk (recommended)",
    "retriever": "library: BM25 retriever",
    "ask": "library: first answer",
    "ask again": "library: same answer again",
    "new size": "library: new size, chunk + answer",
}


def build_markdown(folder: Path, *, chars: int) -> Path:
    """A Markdown file of at most ``chars`` characters: the corpus's Markdown files in turn."""
    sources = sorted(CORPUS.glob("*.md"))
    if not sources:
        raise SystemExit(f"no Markdown files found in {CORPUS}; the benchmark needs the corpus")
    parts, total, i = [], 0, 0
    while total < chars:
        text = sources[i % len(sources)].read_text(encoding="utf-8")
        parts.append(text)
        total += len(text) + 2
        i += 1
    whole = "\n\n".join(parts)[:chars]
    path = folder / f"corpus-{len(whole)}-chars.md"
    path.write_text(whole[: whole.rfind("\n") + 1], encoding="utf-8", newline="")
    return path


def _run(script: str, checkout: Path, *args: str) -> object:
    """``script`` run with ``args`` in a fresh process, ``checkout`` first on its path."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    res = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=checkout, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if res.returncode != 0:
        raise SystemExit(f"{checkout}: the run failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _cell(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def figures(
    checkout: Path,
    path: Path,
    *,
    runs: int,
    changes: int,
    library: bool,
    settings: dict[str, object],
) -> dict[str, str]:
    """Every row's cell for one checkout."""
    opens: list[float] = []
    parts: dict[str, list[float]] = {"upload": [], "again": []}
    new: list[float] = []
    seen: list[float] = []
    lib: dict[str, list[float]] = {key: [] for key in LIB_ROWS}
    errors: set[str] = set()
    for _ in range(runs):
        app = _run(APP_RUN, checkout, str(path), str(changes), QUESTION, json.dumps(settings))
        assert isinstance(app, dict)
        opens.append(app["open"])
        for part, values in parts.items():
            if part in app:
                values.append(app[part])
        new += app["new"]
        seen += app["seen"]
        errors.update(app["errors"])
        if library:
            got = _run(LIB_RUN, checkout, str(path), QUESTION, *EVIDENCE)
            if isinstance(got, dict):
                for key in LIB_ROWS:
                    lib[key].append(got[key])
    cells = {
        "app: open (upload + first answer)": _cell(opens),
        "… the upload's run (on its own settings)": _cell(parts["upload"]),
        "… the run on the benchmark's settings": _cell(parts["again"]),
        "app: settings change, new size": _cell(new),
        "app: settings change, seen size": _cell(seen),
    }
    if library:
        cells.update({label: _cell(lib[key]) for key, label in LIB_ROWS.items()})
    cells["app: errors shown"] = "; ".join(sorted(errors))[:60] or "none"
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_large", description=__doc__)
    parser.add_argument("--chars", type=int, default=CHARS, help="size of the built file")
    parser.add_argument("--file", type=Path, help="time this file instead of the built one")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per checkout")
    parser.add_argument("--changes", type=int, default=3, help="new sizes per run")
    parser.add_argument("--base", type=Path, action="append", default=[], help="another checkout")
    parser.add_argument("--no-library", action="store_true", help="only the app's figures")
    parser.add_argument(
        "--settings", choices=sorted(SETTINGS), default="recommended", help="the app's settings"
    )
    args = parser.parse_args(argv)
    checkouts = [("this checkout", REPO)] + [(f"base {b}", b.resolve()) for b in args.base]
    with tempfile.TemporaryDirectory(prefix="bench-large-") as tmp:
        path = args.file.resolve() if args.file else build_markdown(Path(tmp), chars=args.chars)
        size = len(path.read_bytes())
        print(f"document: {path.name}, {size:,} bytes; {args.runs} runs per checkout, "
              f"{args.changes} new sizes a run; {args.settings} settings; seconds, "
              "median (min–max)")  # fmt: skip
        columns = {
            label: figures(
                root,
                path,
                runs=args.runs,
                changes=args.changes,
                library=not args.no_library,
                settings=SETTINGS[args.settings],
            )
            for label, root in checkouts
        }
    rows = list(next(iter(columns.values())))
    width = max(len(label) for label in columns) + 2
    print(f"{'':<36}" + "".join(f"{label:>{max(width, 22)}}" for label in columns))
    for row in rows:
        print(f"{row:<36}" + "".join(f"{c[row]:>{max(width, 22)}}" for c in columns.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
