"""Load in browsers: several headless Chromium sessions using one server at once, for a fixed
time. Prints, per action (size change, splitter change, question, page turn), p50 / p95 / max of
what the person waits and of the server's own time for the reruns the action caused; beside
one idle session's figures taken first in the same run, and beside another checkout
(``--base DIR``) run the same way.

Run ``python -m benchmarks.bench_load`` (``--sessions 8``, ``--seconds 240``; ``--short`` is 3
sessions for 30 s; ``--base DIR``; ``--profile FILE``: py-spy's view of the server under load,
where ``py-spy`` is on the PATH). The AppTest load (uploads while others embed, on threads of
one process) is ``benchmarks/bench_load_threads``.

What it does. The server (``streamlit run app.py`` of the checkout, a fresh embedding cache) is
pinned to core 0 with ``taskset -c 0``; this driver, Playwright and every Chromium process it
starts to core 1 (``os.sched_setaffinity``, which children inherit), so the browsers' work does
not land on the server's core. With ``CHUNK_EXPLORER_TIMINGS`` set the server writes each
rerun's time (:mod:`ui.timing`: the whole script's, ``rerun``, and a fragment's, ``document
panel``) with its session and its end; a rerun is counted to the action whose wait it ended in.

* idle: one session on ``field-manual.pdf`` alone, each action ``--idle`` times;
* load: ``--sessions`` sessions start 1 s apart, even ones on ``field-manual.pdf`` (the same
  document: a chunking one session made is another's to reuse), odd ones each on a Markdown
  sample of its own; each repeats size change (the Exact size box), splitter change, question
  and, on the PDF, page turn (▶), pausing 0.5-2 s between actions (seeded), until
  ``--seconds`` have passed.

A wait is from the action (Enter, the option clicked, the button clicked) until the app's root
says the script is no longer running, after it was seen running. The load average is printed
before each checkout's run. Nothing here is a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_util import CHROMIUM, CHROMIUM_ARGS, free_port  # noqa: E402

SERVER_CORE, BROWSER_CORE = 0, 1
PDF = "field-manual.pdf"
MARKDOWN = ["writing-guide.md", "office-handbook.md", "sync-network.md", "support-plans.md"]
SIZES = [128, 160, 192, 224, 288, 320, 384, 448, 512]
SPLITTERS = ["recursive", "sentence", "structure", "fixed"]
QUESTIONS = [
    "What does this say about errors?",
    "How do I configure it?",
    "Which options are required?",
    "What happens when it fails?",
    "Who is responsible for this?",
    "What are the limits?",
    "How long is it kept?",
    "What must be checked first?",
]
ACTIONS = ("size change", "splitter change", "question", "page turn")
IDLE_STATE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const run = app ? app.getAttribute('data-test-script-state') : 'running';
    return run !== 'running' && run !== 'rerunRequested'
        && !document.querySelector('[data-testid="stStatusWidget"]')
        && !document.querySelector('[data-testid="stSkeleton"]');
}"""
WATCH = """() => {
    window.__ceRan = false;
    const app = document.querySelector('[data-testid="stApp"]');
    if (window.__ceWatch) window.__ceWatch.disconnect();
    window.__ceWatch = new MutationObserver(() => {
        const run = app.getAttribute('data-test-script-state');
        if ((run === 'running' || run === 'rerunRequested') && !window.__ceRan) {
            window.__ceRan = true;
            window.__ceStarted = Date.now();
        }
    });
    window.__ceWatch.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
DONE = "() => window.__ceRan && (" + IDLE_STATE + ")()"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --------------------------------------------------------------------------- the server


def start_server(root: Path, timings: Path, cache: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ, CHUNK_EXPLORER_TIMINGS=str(timings), CHUNK_EXPLORER_CACHE=str(cache))
    env["PYTHONPATH"] = str(root)
    cmd = [
        *("taskset", "-c", str(SERVER_CORE), sys.executable, "-m", "streamlit", "run", "app.py"),
        *("--server.port", str(port), "--server.address", "127.0.0.1"),
        *("--server.headless", "true", "--browser.gatherUsageStats", "false"),
    ]
    log = open(timings.with_suffix(".log"), "wb")  # noqa: SIM115 - open while the server runs
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    import urllib.request

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: see {timings.with_suffix('.log')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"the server did not answer within 120 s: see {timings.with_suffix('.log')}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def read_timings(path: Path) -> list[tuple[str, float, str, int, float]]:
    """The server's timed parts: (part, ms, session, depth, end)."""
    out: list[tuple[str, float, str, int, float]] = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) == 5:
            out.append((cells[0], float(cells[1]), cells[2], int(cells[3]), float(cells[4])))
    return out


# --------------------------------------------------------------------------- one browser session


class Session:
    """One person in one browser context: the actions they take, each timed from the action
    until the app is idle again."""

    def __init__(self, name: str, page: Any, doc: str, seed: int) -> None:
        self.name, self.page, self.doc = name, page, doc
        self.rnd = random.Random(seed)
        self.size, self.splitter = 256, "structure"
        self.waits: list[tuple[str, float, float, float]] = []  # action, began, ended, seconds
        self.began = 0.0
        self.starts: list[tuple[str, float]] = []  # action, seconds until the run started
        self.errors: list[str] = []

    async def idle(self, timeout: float = 300_000) -> None:
        """Idle, and still idle a moment later (a run that ends in ``st.rerun()`` is idle for
        a moment between its two runs)."""
        for _ in range(2):
            await self.page.wait_for_function(IDLE_STATE, timeout=timeout)
            await asyncio.sleep(0.5)
        await self.page.wait_for_function(IDLE_STATE, timeout=timeout)

    async def timed(self, action: str, do: Any) -> None:
        page = self.page
        await page.evaluate(WATCH)
        self.began = time.time()
        try:
            await do()  # sets self.began just before the event that commits the change
            await page.wait_for_function(DONE, timeout=300_000, polling=50)
        except Exception as exc:  # a wait that broke off is a finding, not a crash
            self.errors.append(f"{self.name} {action}: {type(exc).__name__}: {str(exc)[:160]}")
            return
        ended, began = time.time(), self.began
        self.waits.append((action, began, ended, ended - began))
        started = await page.evaluate("window.__ceStarted") / 1000
        self.starts.append((action, max(0.0, started - began)))
        if await page.locator('[data-testid="stException"]').count():
            self.errors.append(f"{self.name} {action}: the page shows a traceback")

    async def open(self, url: str) -> None:
        await self.page.goto(url, wait_until="commit", timeout=300_000)
        await self.page.wait_for_selector(".st-key-ce_title", timeout=300_000)
        await self.idle()
        await self.pick("Document", self.doc)
        await self.idle()

    async def pick(self, label: str, option: str) -> None:
        box = self.page.get_by_role("combobox", name=label, exact=True)
        await box.click()
        await box.press("Control+a")
        await self.page.keyboard.type(option)
        choice = self.page.get_by_role("option", name=option, exact=False).first
        await choice.wait_for()
        self.began = time.time()
        await choice.click()

    async def act(self, action: str) -> None:
        page = self.page
        if action == "size change":
            self.size = self.rnd.choice([s for s in SIZES if s != self.size])
            box = page.get_by_label("Exact size", exact=True)

            async def do() -> None:
                await box.fill(str(self.size))
                self.began = time.time()
                await box.press("Enter")

        elif action == "splitter change":
            self.splitter = self.rnd.choice([s for s in SPLITTERS if s != self.splitter])

            async def do() -> None:
                await self.pick("Splitter", self.splitter)

        elif action == "question":
            question = f"{self.rnd.choice(QUESTIONS)} ({self.name}, {len(self.waits)})"
            box = page.get_by_label("Question", exact=True)

            async def do() -> None:
                await box.fill(question)
                self.began = time.time()
                await box.press("Enter")

        else:
            button = page.get_by_role("button", name="▶", exact=True)

            async def do() -> None:
                await button.wait_for()
                self.began = time.time()
                await button.click()

        await self.idle()
        await self.timed(action, do)

    def actions(self) -> tuple[str, ...]:
        return ACTIONS if self.doc.endswith(".pdf") else ACTIONS[:3]


async def run_sessions(url: str, sessions: int, seconds: float, idle_each: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)

        async def new(name: str, doc: str, seed: int) -> Session:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            return Session(name, await context.new_page(), doc, seed)

        # one idle session first, alone on the server
        alone = await new("idle", PDF, 1000)
        await alone.open(url)
        idle_began = time.time()
        for _ in range(idle_each):
            for action in ACTIONS:
                await alone.act(action)
                await asyncio.sleep(1.0)
        idle_ended = time.time()
        await alone.page.context.close()

        people = [
            await new(f"s{n}", PDF if n % 2 == 0 else MARKDOWN[(n // 2) % len(MARKDOWN)], n)
            for n in range(sessions)
        ]
        load_began = time.time()

        async def person(n: int, s: Session) -> None:
            await asyncio.sleep(n * 1.0)
            try:
                await s.open(url)
            except Exception as exc:
                s.errors.append(f"{s.name} open: {type(exc).__name__}: {str(exc)[:160]}")
                return
            cycle = s.actions()
            i, stop_at = 0, time.time() + seconds
            while time.time() < stop_at:
                await s.act(cycle[i % len(cycle)])
                i += 1
                await asyncio.sleep(s.rnd.uniform(0.5, 2.0))

        await asyncio.gather(*(person(n, s) for n, s in enumerate(people)))
        load_ended = time.time()
        await browser.close()
    return {
        "idle": {
            "waits": alone.waits,
            "starts": alone.starts,
            "errors": alone.errors,
            "window": (idle_began, idle_ended),
        },
        "load": {
            "waits": [w for s in people for w in s.waits],
            "starts": [w for s in people for w in s.starts],
            "by_session": {s.name: s.waits for s in people},
            "errors": [e for s in people for e in s.errors],
            "window": (load_began, load_ended),
        },
    }


# --------------------------------------------------------------------------- the server's time


def server_time(
    waits_by_person: dict[str, list[tuple[str, float, float, float]]],
    timings: list[tuple[str, float, str, int, float]],
) -> dict[str, list[float]]:
    """The server's time for each action: the outermost timed parts (a whole rerun, a fragment's
    rerun) of the server session matched to the person, that ended during the action's wait.
    A server session is matched to the person most of whose waits hold its reruns' ends."""
    reruns = defaultdict(list)
    for part, ms, session, depth, end in timings:
        if depth == 0 and part in ("rerun", "document panel"):
            reruns[session].append((end, ms))
    owner: dict[str, str] = {}
    for session, ends in reruns.items():
        votes: Counter[str] = Counter()
        for end, _ in ends:
            for person, waits in waits_by_person.items():
                if any(b <= end <= e for _, b, e, _ in waits):
                    votes[person] += 1
        if votes:
            owner[session] = votes.most_common(1)[0][0]
    out: dict[str, list[float]] = defaultdict(list)
    for session, person in owner.items():
        for action, began, ended, _ in waits_by_person[person]:
            took = [m for end, m in reruns[session] if began <= end <= ended + 0.05]
            if took:
                out[action].append(sum(took) / 1000)
    return out


def one_run(
    root: Path, sessions: int, seconds: float, idle_each: int, profile: Path | None
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="bench-load-"))
    timings, cache = folder / "timings.tsv", folder / "cache"
    cache.mkdir()
    load = load_average()
    proc, url = start_server(root, timings, cache)
    spy = None
    try:
        if profile is not None and shutil.which("py-spy"):
            spy = subprocess.Popen(
                [
                    *("py-spy", "record", "--pid", str(proc.pid), "--idle", "--gil"),
                    *("--format", "raw", "--output", str(profile), "--rate", "50"),
                    *("--duration", str(int(seconds) + 60)),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        result = asyncio.run(run_sessions(url, sessions, seconds, idle_each))
    finally:
        if spy is not None:  # py-spy writes what it saw on SIGINT (SIGTERM loses it)
            spy.send_signal(signal.SIGINT)
            spy.wait()
        stop_server(proc)
    parts = read_timings(timings)
    result["load_average"] = load
    result["load_average_after"] = load_average()
    result["idle"]["server"] = server_time({"idle": result["idle"]["waits"]}, parts)
    result["load"]["server"] = server_time(result["load"]["by_session"], parts)
    result["folder"] = str(folder)
    return result


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def cell(xs: list[float]) -> str:
    if not xs:
        return f"{'-':>22}"
    return f"{statistics.median(xs):5.2f} {quantile(xs, 0.95):5.2f} {max(xs):5.2f} n={len(xs):<3}"


def table(label: str, result: dict[str, Any]) -> list[str]:
    rows = [
        f"{label}: load average {result['load_average']} before, "
        f"{result['load_average_after']} after",
        f"  {'seconds: p50 p95 max n':<18}"
        + "".join(
            f"{h:>24}"
            for h in (
                "idle: waits",
                "idle: server",
                "load: waits",
                "load: server",
                "load: to start",
            )
        ),
    ]
    for action in ACTIONS:
        cells = []
        for phase in ("idle", "load"):
            waits = [w for a, _, _, w in result[phase]["waits"] if a == action]
            cells += [cell(waits), cell(result[phase]["server"].get(action, []))]
        cells.append(cell([w for a, w in result["load"]["starts"] if a == action]))
        rows.append(f"  {action:<18}" + "".join(f"{c:>24}" for c in cells))
    errors = result["idle"]["errors"] + result["load"]["errors"]
    rows += [f"  ! {e}" for e in errors[:12]]
    if len(errors) > 12:
        rows.append(f"  ! … {len(errors) - 12} more")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--idle", type=int, default=5, help="each action's count, idle")
    parser.add_argument("--short", action="store_true", help="3 sessions for 30 s, idle 2")
    parser.add_argument("--base", type=Path, help="another checkout to run the same way")
    parser.add_argument("--profile", type=Path, help="py-spy's raw output for this checkout")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.short:
        args.sessions, args.seconds, args.idle = 3, 30.0, 2
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing; install it with: apt-get install -y chromium")
    if shutil.which("taskset") is None or (os.cpu_count() or 1) < 2:
        raise SystemExit("this needs taskset and two cores (the server's and the browsers')")
    os.sched_setaffinity(0, {BROWSER_CORE})  # Playwright and Chromium inherit it
    print(
        f"{args.sessions} sessions for {args.seconds:.0f} s; server on core {SERVER_CORE}, "
        f"browsers on core {BROWSER_CORE}; {os.cpu_count()} cores"
    )
    results = {}
    for label, root in [("this checkout", ROOT), *([("base", args.base)] if args.base else [])]:
        profile = args.profile if label == "this checkout" else None
        result = one_run(root.resolve(), args.sessions, args.seconds, args.idle, profile)
        results[label] = result
        print("\n".join(table(f"{label} ({root})", result)), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main()
