"""A documentation team's site, end to end (issue 37): ``python -m benchmarks.bench_site``.

The site: stylelint's rule pages (``lib/rules/*/README.md`` of the npm package stylelint 13.13.1,
the last release that ships them: 212 pages, fetched once with ``npm pack`` into
``--site-cache``) plus generated near-identical pages up to 262 (a rule's page under a plugin's
prefix, its wording kept: the crowding a real site has). Every figure is measured in a fresh
process for this checkout and, with ``--base DIR``, for another one (a worktree of the base
commit), side by side:

* **upload → first BM25 answer**: the bytes of every page read into documents, chunked under
  the recommended configuration with BM25, and one corpus answer (k 5, 1,024 tokens) — what the
  Corpus page does between the upload and the first answer on the screen; the diagnoses the
  overview draws are timed apart;
* **hybrid-ready, cold**: an empty lasting index, the model loaded, every page's dense texts
  embedded (``Workspace.prepare`` under the recommended hybrid configuration): the texts, the
  seconds, and the worst error of the time left the bar showed after the first 5% of the work
  (the estimate recomputed from each progress step as the bar's :class:`Rate` makes it);
* **50 questions, corpus scope, warm**: a second process on a copy of the embedded index (the
  same for every checkout and run: the questions are never in it), the model loaded, then
  :func:`explorer.evaluation.coverage.evaluate` of 50 questions about the site (generated: a
  rule's purpose asked in other words, its description line the evidence) in corpus scope, the
  time split into embedding the 50 questions and answering them; ``--runs N`` runs it N times
  per checkout, A B A B, and reports the medians;
* **overview, 10,000 pages**: the Corpus page's overview panel drawn by AppTest for 10,000
  documents already read and chunked (its first run in a new session: the figures, the table,
  the chart).

``--write`` puts the table into BENCHMARKS.md's "A documentation site" section.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "stylelint@13.13.1"
PAGES = 262
QUESTIONS = 50
OVERVIEW_PAGES = 10_000
TARGETS = {
    "answer_bm25": 5.0,
    "hybrid_ready": 150.0,
    "eval_50": 30.0,
    "overview_10k": 2.0,
}
LABELS = {
    "answer_bm25": "upload → first BM25 corpus answer (s)",
    "diagnoses": "… the overview's diagnoses, apart (s)",
    "hybrid_ready": "hybrid-ready, cold: model + embedding (s)",
    "embedded": "… texts embedded",
    "embedding": "… embedding alone (s)",
    "estimate_error": "… worst error of the time left after 5% (2 s or more left)",
    "eval_50": "50 questions, corpus scope, warm (s)",
    "eval_answering": "… answering alone, without embedding the questions (s)",
    "overview_10k": "overview first paint, 10,000 pages (s)",
}


# --------------------------------------------------------------------------- the site


def rule_pages(cache: Path) -> list[tuple[str, str]]:
    """(relative name, text) of stylelint's rule pages, fetched once with npm."""
    folder = cache / PACKAGE.replace("@", "-")
    if not folder.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(
            ["npm", "pack", PACKAGE, "--silent"],
            cwd=cache,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        with tarfile.open(cache / out) as tar:
            tar.extractall(folder, filter="data")
    readmes = sorted((folder / "package" / "lib" / "rules").glob("*/README.md"))
    return [(f"rules/{p.parent.name}.md", p.read_text(encoding="utf-8")) for p in readmes]


def site(cache: Path) -> list[tuple[str, str]]:
    """The 262 pages: the rule pages, then plugin pages made from them (same wording, another
    name) until there are :data:`PAGES`."""
    pages = rule_pages(cache)
    made = []
    for name, text in pages[: PAGES - len(pages)]:
        rule = name.removeprefix("rules/").removesuffix(".md")
        made.append(
            (f"plugin/{rule}.md", text.replace(f"# {rule}", f"# plugin/{rule}", 1)),
        )
    return pages + made


def questions(pages: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """:data:`QUESTIONS` questions about the rule pages: what the rule is for, in other words,
    its description line (the first line after the title) as the evidence."""
    out: list[dict[str, Any]] = []
    for name, text in pages:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if len(lines) < 2 or not lines[0].startswith("# "):
            continue
        desc = lines[1]
        if desc.startswith(("<", "`", "```", "-", "*")) or len(desc.split()) < 3:
            continue
        rule = lines[0][2:].strip()
        words = rule.replace("-", " ")
        out.append(
            {
                "id": f"site-{len(out) + 1:02d}",
                "doc": name,
                "query": f"Which rule is about {words}, and what does it do?",
                "evidence": [desc.rstrip(".")],
            }
        )
        if len(out) == QUESTIONS:
            break
    return out


# --------------------------------------------------------------------------- the measures


def _workspace(pages: list[tuple[str, str]]) -> tuple[Any, dict[str, Any]]:
    from explorer.workspace import Workspace

    ws = Workspace(None, {})
    docs = {name: ws.load(text.encode("utf-8"), name=name) for name, text in pages}
    return ws.view(documents=docs), docs


def measure_answer(pages: list[tuple[str, str]]) -> dict[str, float]:
    from explorer.config import Config

    config = Config(retriever="bm25")
    started = time.perf_counter()
    ws, docs = _workspace(pages)
    for name in docs:
        ws.chunks(name, config)
    answer = ws.answer(
        "Which rule disallows invalid hex colors?",
        ["Disallow invalid hex colors"],
        config=config,
        names=list(docs),
        k=5,
        budget=1024,
    )
    answered = time.perf_counter() - started
    assert answer.hits, "the BM25 answer has hits"
    t = time.perf_counter()
    for name in docs:
        ws.diagnosis(name, config)
    return {"answer_bm25": answered, "diagnoses": time.perf_counter() - t}


def measure_hybrid(pages: list[tuple[str, str]]) -> dict[str, float]:
    from explorer.config import Config

    config = Config()
    started = time.perf_counter()
    ws, docs = _workspace(pages)
    names = list(docs)
    todo = ws.pending(names, config).texts
    steps: list[tuple[float, float, str]] = []
    ws.prepare(names, config, lambda f, m: steps.append((time.perf_counter(), f, m)))
    ready = time.perf_counter() - started
    # the embedding's steps (their notes start so)
    embedding = [(t, m) for t, f, m in steps if m.startswith("embedding")]
    error, at = estimate_error(ws, names, config, embedding)
    return {
        "hybrid_ready": ready,
        "embedded": float(todo),
        "embedding": embedding[-1][0] - embedding[0][0] if embedding else 0.0,
        "estimate_error": error,
        "estimate_worst_at": at,
    }


LEFT_FLOOR = 2.0
"""The time left is judged while this many seconds or more are really left: in the bar's last
second a tenth of a second is a large share, and it shows "0 s" or "1 s" either way."""


def estimate_error(
    ws: Any, names: list[str], config: Any, steps: list[tuple[float, str]]
) -> tuple[float, float]:
    """The worst error of the time left the bar showed after the first 5% of the work (while
    :data:`LEFT_FLOOR` seconds or more are left), against
    the time really left to the last text embedded: the bar's own estimate, remade on the run's
    clock from its steps (each note's "N of M" with its time) by a :class:`Rate` built as the
    run built it (:func:`explorer.preparing.embedding_rate`, on a cold index every text). The
    old version of this checkout (no ``embedding_rate``) is read from its bar's fraction at the
    pace so far. Returns the error and the share of the work done where it was worst."""
    import re

    counts = [(t, re.search(r"([\d,]+) of ([\d,]+)", m)) for t, m in steps]
    counted = [(t, int(g[1].replace(",", ""))) for t, g in counts if g]
    if len(counted) < 3:
        return float("nan"), float("nan")
    end = counted[-1][0]  # the last text embedded: what the time left is the time to
    clock = [counted[0][0]]
    rate: Any = None
    try:
        from explorer.preparing import embedding_rate
    except ImportError:  # a checkout before the weighted estimate: the bar's fraction
        pass
    else:
        texts = [t for n in names for t in ws.retriever(n, config).dense_texts]

        class Cold:  # what the run saw: no text in memory yet
            model = None

            def cached(self, _text: str) -> bool:
                return False

        ordered, rate = embedding_rate(Cold(), texts, clock=lambda: clock[0])  # type: ignore[arg-type]
        assert len(ordered) == counted[-1][1], (len(ordered), counted[-1])
    worst, at = 0.0, float("nan")
    for t, done in counted[1:-1]:
        clock[0] = t
        if rate is not None:
            share, left = rate.work_fraction(done), rate.left(done)
        else:
            share = done / counted[-1][1]
            left = (t - counted[0][0]) * (1 - share) / share if share else None
        if share < 0.05 or left is None or end - t < LEFT_FLOOR:
            continue
        error = abs(left - (end - t)) / (end - t)
        print(f"time left at {share:6.1%}: shown {left:7.1f} s, truth {end - t:7.1f} s, "
              f"error {error:4.0%}", file=sys.stderr)  # fmt: skip
        if error > worst:
            worst, at = error, share
    return worst, at


def measure_eval(pages: list[tuple[str, str]], queries_file: Path) -> dict[str, float]:
    from explorer.config import Config
    from explorer.evaluation.coverage import evaluate
    from explorer.evaluation.queries import load_queries

    config = Config()
    ws, docs = _workspace(pages)
    ws.prepare(list(docs), config)  # warm: read from the lasting index
    ws.embedder(config.model).model  # noqa: B018 - the app's server has it loaded
    queries = load_queries(queries_file)
    started = time.perf_counter()
    report = evaluate(queries, ws, config, ks=(5,), budgets=(512,), scope="corpus")
    seconds = time.perf_counter() - started
    return {
        "eval_50": seconds,
        "eval_answering": sum(report.timing.query_ms) / 1000,
        "coverage_at_5": report.coverage_at_k[5],
        "coverage_at_512": report.coverage_at_budget[512],
    }


def _overview_script() -> None:
    import sys

    from ui.corpus import overview

    docs, chunks, diagnoses = sys.modules["bench_site_data"].DATA
    overview.draw(docs, chunks, diagnoses)


def measure_overview(pages: list[tuple[str, str]]) -> dict[str, float]:
    import types

    from streamlit.testing.v1 import AppTest

    from explorer.config import Config

    config = Config(retriever="bm25")
    many = [
        (f"v{i // len(pages)}/{name}", text[:1_500])
        for i, (name, text) in enumerate(pages * (OVERVIEW_PAGES // len(pages) + 1))
    ][:OVERVIEW_PAGES]
    ws, docs = _workspace(many)
    chunks = {n: ws.chunks(n, config) for n in docs}
    diagnoses = {n: ws.diagnosis(n, config) for n in docs}
    data = sys.modules.setdefault("bench_site_data", types.ModuleType("bench_site_data"))
    data.DATA = (docs, chunks, diagnoses)  # type: ignore[attr-defined]
    AppTest.from_function(_overview_script, default_timeout=600).run()  # imports, warm
    started = time.perf_counter()
    at = AppTest.from_function(_overview_script, default_timeout=600).run()
    seconds = time.perf_counter() - started
    assert not at.exception, [e.value for e in at.exception]
    return {"overview_10k": seconds}


# --------------------------------------------------------------------------- running


def worker(args: argparse.Namespace) -> None:
    pages = site(Path(args.site_cache))
    if args.measure == "answer":
        out = measure_answer(pages)
    elif args.measure == "hybrid":
        out = measure_hybrid(pages)
    elif args.measure == "eval":
        out = measure_eval(pages, Path(args.queries))
    else:
        out = measure_overview(pages)
    print("RESULT " + json.dumps(out), flush=True)


def run(code: Path, measure: str, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        measure,
        "--site-cache",
        args.site_cache,
        "--queries",
        args.queries,
    ]
    full = {**os.environ, **env, "PYTHONPATH": f"{code}:{ROOT}"}
    done = subprocess.run(cmd, env=full, capture_output=True, text=True, cwd=code)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            got: dict[str, Any] = json.loads(line[len("RESULT ") :])
            return got
    raise RuntimeError(f"{measure} in {code} failed:\n{done.stderr[-3000:]}")


def table(results: dict[str, dict[str, Any]]) -> str:
    names = list(results)
    lines = [
        "| measure | target | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for key, label in LABELS.items():
        cells = []
        for n in names:
            v = results[n].get(key)
            if v is None or v != v:
                cells.append("—")
            elif key == "embedded":
                cells.append(f"{v:,.0f}")
            elif key == "estimate_error":
                cells.append(f"{v:.0%}")
            else:
                cells.append(f"{v:,.2f}")
        target = TARGETS.get(key)
        shown = f"≤ {target:g}" if target else ("≤ 25%" if key == "estimate_error" else "")
        lines.append(f"| {label} | {shown} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=["answer", "hybrid", "eval", "overview"])
    parser.add_argument("--base", help="another checkout to measure beside this one")
    parser.add_argument(
        "--only", nargs="*", default=["answer", "hybrid", "eval", "overview"], help="measures"
    )
    parser.add_argument(
        "--site-cache", default=str(Path.home() / ".cache" / "chunk-explorer-bench" / "site")
    )
    parser.add_argument("--queries", default="")
    parser.add_argument(
        "--runs", type=int, default=1, help="runs of the eval measure per checkout (A B A B)"
    )
    parser.add_argument("--write", action="store_true", help="into BENCHMARKS.md")
    args = parser.parse_args()
    if args.worker:
        args.measure = args.worker
        worker(args)
        return
    pages = site(Path(args.site_cache))
    tmp = Path(tempfile.mkdtemp(prefix="bench-site-"))
    if not args.queries:
        args.queries = str(tmp / "site-questions.json")
        Path(args.queries).write_text(json.dumps(questions(pages), indent=1), encoding="utf-8")
    print(f"{len(pages)} pages; {len(questions(pages))} questions; {tmp}", flush=True)
    checkouts = {"this checkout": ROOT}
    if args.base:
        checkouts[f"base ({Path(args.base).name})"] = Path(args.base).resolve()
    results: dict[str, dict[str, Any]] = {n: {} for n in checkouts}
    for measure in args.only:
        if measure == "eval":
            measure_evals(checkouts, results, tmp, args)
            continue
        for label, code in checkouts.items():
            env = {"CHUNK_EXPLORER_CACHE": str(tmp / f"index-{code.name}")}
            got = run(code, measure, env, args)
            print(f"{label:>24} {measure}: {got}", flush=True)
            results[label].update(got)
    print(table(results))
    if args.write:
        write(table(results), results)


def measure_evals(
    checkouts: dict[str, Path],
    results: dict[str, dict[str, Any]],
    tmp: Path,
    args: argparse.Namespace,
) -> None:
    """The eval measure ``--runs`` times per checkout, A B A B, each run on a fresh copy of one
    embedded index (the first checkout's after ``hybrid``, else embedded now as ``hybrid``
    does): every run starts from the same data with no question in it (a run stores its
    questions' vectors, so a second run on the same index would not embed them)."""
    first = next(iter(checkouts.values()))
    seed = tmp / f"index-{first.name}"
    if not (seed / "embeddings.sqlite3").is_file():
        run(first, "hybrid", {"CHUNK_EXPLORER_CACHE": str(seed)}, args)  # the site, no question
    pristine = tmp / "index-eval-seed"
    if not pristine.is_dir():
        shutil.copytree(seed, pristine)
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in checkouts}
    for i in range(max(args.runs, 1)):
        for label, code in checkouts.items():
            index = tmp / f"index-eval-{code.name}-{i}"
            shutil.rmtree(index, ignore_errors=True)
            shutil.copytree(pristine, index)
            got = run(code, "eval", {"CHUNK_EXPLORER_CACHE": str(index)}, args)
            print(f"{label:>24} eval run {i + 1}: {got}", flush=True)
            runs[label].append(got)
    for label, got_all in runs.items():
        results[label].update(
            {key: statistics.median(g[key] for g in got_all) for key in got_all[0]}
        )
        results[label]["eval_runs"] = len(got_all)


def write(text: str, results: dict[str, dict[str, Any]]) -> None:
    path = ROOT / "BENCHMARKS.md"
    body = path.read_text(encoding="utf-8")
    head = "## A documentation site (issue 37)"
    section = f"{head}\n\n`python -m benchmarks.bench_site --base ../base-eaacff5`\n\n{text}\n"
    if head in body:
        start = body.index(head)
        end = body.find("\n## ", start + len(head))
        body = body[:start] + section + (body[end:] if end != -1 else "")
    else:
        body = body.rstrip("\n") + "\n\n" + section
    path.write_text(body, encoding="utf-8")


if __name__ == "__main__":
    main()
