"""Load: several sessions using the app at once, each uploading documents of its own and
changing settings while the others embed. Prints p50 / p95 / max per action and memory over
time, beside another checkout (``--base DIR``) run the same way.

Run ``python -m benchmarks.bench_load`` (``--sessions 8``, ``--rounds 3``, ``--base DIR``).

What it does. The sessions are Streamlit ``AppTest`` runs of ``app.py`` on threads of one
process — as the server runs every browser session's script on a thread of its own, over one
process's caches and one model. Each session opens the app, then ``--rounds`` times: uploads a
Markdown file of its own (about 20,000 characters cut from the shared corpus and Chroma's
documents at paragraph breaks, a different one each time, so each needs embedding), moves the
chunk size twice, changes the splitter, and asks two questions, pausing 0.5–2 s between actions
(seeded). Sessions start 2 s apart. Each action's time is the wall time of its rerun. An upload
counts as *dropped* when its rerun shows neither the file's name nor an error. One more session,
the *reader*, stays on the bundled sample (embedded before the others start) and asks a new
question and moves the size every second or two until the others are done: what a person
whose document is ready waits for while others embed. The embedding
cache is a fresh temporary folder for each run, so every upload is embedded. Memory: the
process's resident set size every 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SIZES = [192, 224, 288, 320, 352, 384]
SPLITTERS = ["recursive", "sentence", "structure"]
QUESTIONS = [
    "What does this page say about errors?",
    "How do I configure it?",
    "Which options are required?",
    "What happens when it fails?",
    "Who is responsible for this?",
    "What are the limits?",
]


def pieces(n: int, size: int = 20_000) -> list[str]:
    """``n`` distinct Markdown texts of about ``size`` characters, cut at paragraph breaks."""
    sources = sorted((SHARED / "corpus").glob("*.md")) + sorted(
        (SHARED / "benchmarks" / "chroma-chunking-eval" / "docs").glob("*.md")
    )
    text = "\n\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sources)
    paras = [p for p in text.split("\n\n") if p.strip()]
    out, cur = [], []
    for para in paras:
        cur.append(para)
        if sum(map(len, cur)) >= size:
            out.append("\n\n".join(cur))
            cur = []
        if len(out) == n:
            break
    if len(out) < n:
        raise SystemExit(f"only {len(out)} texts of {size:,} characters in {SHARED}")
    return out


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def session(
    n: int,
    app: str,
    texts: list[str],
    rounds: int,
    times: dict[str, list[float]],
    log: list[str],
    tests: dict[int, Any],
) -> None:
    from streamlit.testing.v1 import AppTest

    rnd = random.Random(n)
    at = AppTest.from_file(app, default_timeout=900)
    tests[n] = at
    lock = threading.Lock()

    def timed(action: str, step: Any) -> None:
        start = time.perf_counter()
        step()
        at.run()
        took = time.perf_counter() - start
        with lock:
            times.setdefault(action, []).append(took)
        if at.exception:
            log.append(f"session {n} {action}: exception {at.exception[0].value[:200]}")
        time.sleep(rnd.uniform(0.5, 2.0))

    at.run()
    for r in range(rounds):
        name = f"s{n}-r{r}.md"
        data = texts[n * rounds + r].encode()

        def upload(name: str = name, data: bytes = data) -> None:
            at.file_uploader(key="upload").set_value((name, data, "text/markdown"))

        timed("upload", upload)
        texts_shown = [*at.markdown, *at.caption, *at.header, *at.subheader, *at.title]
        shown = " ".join(str(m.value) for m in texts_shown).replace("\\", "")
        opened = at.session_state["source"] if "source" in at.session_state else None  # noqa: SIM401 - no .get here
        if name not in shown and opened != name and not at.error:
            log.append(f"session {n}: upload {name} dropped (no document, no message)")
            with lock:
                times.setdefault("dropped", []).append(1.0)
        for action in ("size", "splitter", "size", "question", "question"):
            if action == "size":
                timed("size change", lambda: at.slider(key="size").set_value(rnd.choice(SIZES)))
            elif action == "splitter":
                box = at.selectbox(key="splitter")
                choice = rnd.choice([s for s in SPLITTERS if s != box.value])
                timed("splitter change", lambda choice=choice, box=box: box.set_value(choice))
            else:
                box = next(t for t in at.text_input if t.label == "Question")
                q = rnd.choice(QUESTIONS)
                timed("question", lambda box=box, q=q: box.set_value(q))


def shown(at: Any) -> str:
    """What a session's last rerun drew, when it broke off: to tell the app's fault from the
    harness's (AppTest sessions on threads of one process sometimes come back with no elements)."""
    if at is None:
        return "no session"
    try:
        parts = [f"{len(list(at.main))} main elements", f"{len(at.text_input)} text inputs"]
        parts += [f"exception: {e.value[:120]}" for e in at.exception]
        parts += [f"error: {str(e.value)[:120]}" for e in at.error]
        return "; ".join(parts)
    except Exception as exc:  # the tree itself may be half-built
        return f"unreadable ({type(exc).__name__})"


def reader(app: str, times: dict[str, list[float]], log: list[str], done: threading.Event) -> None:
    """One more session that reads the bundled sample, already embedded: it asks a new question
    (its one text to embed) and moves the size, again and again, while the others embed."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(app, default_timeout=900)
    at.run()  # the opening question: the sample's passages are embedded here, before the others
    rnd = random.Random(99)
    n = 0
    while not done.is_set():
        n += 1
        question = f"{rnd.choice(QUESTIONS)} (reader {n})"
        for action in ("reader: question", "reader: size"):
            start = time.perf_counter()
            if action == "reader: question":
                next(t for t in at.text_input if t.label == "Question").set_value(question)
            else:
                at.slider(key="size").set_value(rnd.choice(SIZES))
            at.run()
            times.setdefault(action, []).append(time.perf_counter() - start)
            if at.exception:
                log.append(f"reader {action}: exception {at.exception[0].value[:200]}")
            time.sleep(rnd.uniform(0.5, 1.5))


def run(app: str, sessions: int, rounds: int) -> dict[str, Any]:
    texts = pieces(sessions * rounds)
    times: dict[str, list[float]] = {}
    log: list[str] = []
    memory: list[tuple[float, float]] = []
    stop = threading.Event()
    began = time.perf_counter()

    def watch() -> None:
        while not stop.wait(2.0):
            memory.append((time.perf_counter() - began, rss_mb()))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    others_done = threading.Event()
    reading = threading.Thread(target=reader, args=(app, times, log, others_done))
    reading.start()
    time.sleep(5.0)  # the reader has its sample embedded before the others begin
    threads = []
    tests: dict[int, Any] = {}

    def guarded(n: int) -> None:
        try:
            session(n, app, texts, rounds, times, log, tests)
        except Exception as exc:  # a session that broke off is a finding, not a crash
            log.append(f"session {n} stopped: {type(exc).__name__}: {str(exc)[:200]}")
            log.append(f"  its page then: {shown(tests.get(n))}")

    for n in range(sessions):
        t = threading.Thread(target=guarded, args=(n,))
        t.start()
        threads.append(t)
        time.sleep(2.0)
    for t in threads:
        t.join()
    others_done.set()
    reading.join()
    stop.set()
    return {
        "times": times,
        "log": log,
        "memory": memory,
        "wall": time.perf_counter() - began,
    }


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def table(label: str, result: dict[str, Any]) -> list[str]:
    rows = [f"{label}: {result['wall']:.0f} s in all"]
    every = [t for k, v in result["times"].items() if k != "dropped" for t in v]
    for action, xs in [*sorted(result["times"].items()), ("every action", every)]:
        if action == "dropped":
            rows.append(f"  {'uploads dropped':<16} {len(xs)}")
            continue
        rows.append(
            f"  {action:<16} n={len(xs):>3}  p50 {statistics.median(xs):6.2f} s  "
            f"p95 {quantile(xs, 0.95):6.2f} s  max {max(xs):6.2f} s"
        )
    mem = result["memory"]
    if mem:
        marks = [mem[0], mem[len(mem) // 2], max(mem, key=lambda m: m[1]), mem[-1]]
        rows.append(
            "  memory (RSS)     "
            + ", ".join(f"{m:,.0f} MB at {t:.0f} s" for t, m in marks[:1] + marks[1:])
            + " (start, middle, peak, end)"
        )
    rows += [f"  ! {line}" for line in result["log"][:10]]
    return rows


def child(root: Path, sessions: int, rounds: int) -> dict[str, Any]:
    """One run in a fresh process whose working folder is ``root``'s checkout."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, CHUNK_EXPLORER_CACHE=cache, PYTHONPATH=str(root))
        out = subprocess.run(
            [
                *(sys.executable, str(Path(__file__).resolve()), "--child", str(root)),
                *("--sessions", str(sessions), "--rounds", str(rounds)),
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base", type=Path, help="another checkout to run the same way")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = run(str(args.child / "app.py"), args.sessions, args.rounds)
        print(json.dumps(result))
        return
    print(f"{args.sessions} sessions × {args.rounds} rounds; {os.cpu_count()} cores")
    for label, root in [("this checkout", ROOT), *([("base", args.base)] if args.base else [])]:
        result = child(root.resolve(), args.sessions, args.rounds)
        print("\n".join(table(f"{label} ({root})", result)))


if __name__ == "__main__":
    main()
