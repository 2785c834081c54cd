"""Load in browsers: several headless Chromium sessions using one server at once, for a fixed
time. Prints, per action (opening a document, size change, splitter change, question, page
turn), p50 / p95 of what the person waits and of what that wait is made of; beside one idle
session's figures taken first in the same run, and beside another checkout (``--base DIR``)
run the same way, in turns (``--repeat N``).

Run ``python -m benchmarks.bench_load`` (``--sessions 8``, ``--seconds 240``; ``--short`` is 3
sessions for 45 s with 2 idle rounds, about 2 minutes on a quiet machine; ``--timeout S``
before an action breaks off; ``--base DIR``; ``--repeat N``; ``--profile FILE``: py-spy's
view of the server during the load, where ``py-spy`` is on the PATH, summarised at the end).
The AppTest load (uploads while others embed, on threads of one process) is
``benchmarks/bench_load_threads``.

What it does. The server (``streamlit run app.py`` of the checkout under
:mod:`benchmarks.load_server`, a fresh embedding cache) is pinned to core 0 with ``taskset -c
0``; this driver, Playwright and every Chromium process it starts to core 1
(``os.sched_setaffinity``, which children inherit), so the browsers' work does not land on the
server's core. With ``CHUNK_EXPLORER_TIMINGS`` set the server writes each rerun's time and its
thread's processor time (:mod:`ui.timing`: the whole script's, ``rerun``, and a fragment's,
``document panel``) with its session and its end; :mod:`benchmarks.load_server` writes when
each rerun request arrived and when each run's end was written to the socket.

* idle: one session on ``field-manual.pdf`` alone, each action ``--idle`` times;
* load: ``--sessions`` sessions start 1 s apart, even ones on ``field-manual.pdf`` (the same
  document: a chunking one session made is another's to reuse), odd ones each on a Markdown
  sample of its own; each repeats size change (the Exact size box), splitter change, question
  and, on the PDF, page turn (▶), pausing 0.5-2 s between actions (seeded), until
  ``--seconds`` have passed.

A wait is from the action (Enter, the option clicked, the button clicked) until the page has
received the end of the last run the action caused and is idle again. Runs are read from the
messages the page receives (a script in the page reads each websocket message's top-level
fields: ``new_session`` starts a run, ``script_finished`` ends one): the page's own "running"
mark is not enough, as a fast run (a page turn's fragment) can start and end between two of its
renders. The columns (see :data:`FIGURES`) split the wait into the request's way in, the wait
for the script thread, the run (and its processor time), the end's way out to the socket, to
the page's script, and the drawing. The load average is printed before each run. Nothing here
is a test: it prints numbers.
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
ACTION_TIMEOUT = 180.0
"""Seconds an action (or a session's first page) may take before it is counted as broken off
and the session goes on with its next action."""
TAP = """(() => {
    // Each message the server sends, as the page receives it: a run's start (new_session,
    // field 4 of ForwardMsg) and its end (script_finished, field 6, with its status: 0 done,
    // 1 compile error, 2 stopped for a rerun, 3 a fragment's run done). Read from the
    // message's top-level protobuf fields, before the app handles it.
    window.__ceMsgs = [];
    const Native = window.WebSocket;
    function varint(b, at) {
        let v = 0, mul = 1;
        for (;;) {
            const x = b[at.i++];
            v += (x & 127) * mul;
            if (x < 128) return v;
            mul *= 128;
        }
    }
    function note(data) {
        if (!(data instanceof ArrayBuffer)) return;
        const b = new Uint8Array(data), at = {i: 0}, now = Date.now();
        while (at.i < b.length) {
            const tag = varint(b, at), field = Math.floor(tag / 8), wire = tag & 7;
            if (wire === 0) {
                const v = varint(b, at);
                if (field === 6) { window.__ceMsgs.push(['f', now, v]); return; }
            } else if (wire === 2) {
                const n = varint(b, at);
                if (field === 4) { window.__ceMsgs.push(['s', now, 0]); return; }
                at.i += n;
            } else if (wire === 1) { at.i += 8; } else if (wire === 5) { at.i += 4; }
            else return;
        }
    }
    class Tapped extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', (e) => note(e.data));
        }
    }
    window.WebSocket = Tapped;
})();"""
IDLE_STATE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const run = app ? app.getAttribute('data-test-script-state') : 'running';
    return run !== 'running' && run !== 'rerunRequested'
        && !document.querySelector('[data-testid="stStatusWidget"]')
        && !document.querySelector('[data-testid="stSkeleton"]');
}"""
DONE = (
    """(mark) => {
    // done: the server said the last run the action caused ended (a run stopped for a rerun
    // is followed by another), no run started after it, and the page is drawn and idle
    const msgs = window.__ceMsgs;
    let start = null, end = null, runs = 0;
    for (let i = mark; i < msgs.length; i++) {
        const [kind, at, status] = msgs[i];
        if (kind === 's') { runs += 1; if (start === null) start = at; end = null; }
        else if (status !== 2) end = at;
    }
    if (end === null || !("""
    + IDLE_STATE
    + """)()) return false;
    return {start: start, end: end, idle: Date.now(), runs: runs};
}"""
)


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --------------------------------------------------------------------------- the server


def start_server(root: Path, timings: Path, cache: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``root``'s app under :mod:`benchmarks.load_server` (this checkout's, whatever ``root``
    is), writing its timed parts to ``timings`` and its messages' events beside it."""
    port = free_port()
    env = dict(os.environ, CHUNK_EXPLORER_TIMINGS=str(timings), CHUNK_EXPLORER_CACHE=str(cache))
    env["CE_BENCH_EVENTS"] = str(timings.with_suffix(".events"))
    env["PYTHONPATH"] = str(root)
    launcher = str(Path(__file__).resolve().parent / "load_server.py")
    cmd = [
        *("taskset", "-c", str(SERVER_CORE), sys.executable, launcher, "run", "app.py"),
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


Part = tuple[str, float, str, int, float, float | None]
"""A timed part of the server (:mod:`ui.timing`): name, ms, session, depth, end (Unix seconds),
its thread's processor ms (``None`` from a checkout that does not write it)."""


def read_timings(path: Path) -> list[Part]:
    """The server's timed parts."""
    out: list[Part] = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) in (5, 6):
            cpu = float(cells[5]) if len(cells) == 6 else None
            out.append((cells[0], float(cells[1]), cells[2], int(cells[3]), float(cells[4]), cpu))
    return out


def read_events(path: Path) -> dict[str, dict[str, list[float]]]:
    """What :mod:`benchmarks.load_server` saw of each session's messages: event -> session ->
    times (``asked``, ``finished``, ``sent``)."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            if len(cells) == 3:
                out[cells[0]][cells[1]].append(float(cells[2]))
    return out


# --------------------------------------------------------------------------- one browser session

Wait = dict[str, Any]
"""One action's wait: ``person``, ``action``, and in Unix seconds ``began`` (the event that
commits it), ``start`` and ``end`` (the page received the first run's start, the last run's
end), ``idle`` (the page drawn and idle again); ``runs``: how many runs it caused."""


class Session:
    """One person in one browser context: the actions they take, each timed from the action
    until the app is idle again."""

    def __init__(self, name: str, page: Any, doc: str, seed: int, clock: float) -> None:
        self.name, self.page, self.doc, self.clock = name, page, doc, clock
        self.rnd = random.Random(seed)
        self.size, self.splitter = 256, "structure"
        self.waits: list[Wait] = []
        self.began = 0.0
        self.errors: list[str] = []

    def log(self, what: str) -> None:
        print(f"  {time.time() - self.clock:7.1f} s  {self.name:<5} {what}", file=sys.stderr)

    async def idle(self) -> None:
        """Idle, and still idle a moment later (a run that ends in ``st.rerun()`` is idle for
        a moment between its two runs)."""
        timeout = ACTION_TIMEOUT
        for _ in range(2):
            await self.page.wait_for_function(IDLE_STATE, timeout=timeout * 1000)
            await asyncio.sleep(0.5)
        await self.page.wait_for_function(IDLE_STATE, timeout=timeout * 1000)

    async def timed(self, action: str, do: Any) -> None:
        """Time ``do`` (which sets :attr:`began` just before the event that commits the
        change); a wait that breaks off is written down and the session goes on."""
        page = self.page
        try:
            await self.idle()
            mark = await page.evaluate("window.__ceMsgs.length")
            self.began = time.time()
            await do()
            done = await page.wait_for_function(
                DONE, arg=mark, timeout=ACTION_TIMEOUT * 1000, polling=50
            )
            got = await done.json_value()
        except Exception as exc:  # a wait that broke off is a finding, not a crash
            self.errors.append(f"{self.name} {action}: {type(exc).__name__}: {str(exc)[:160]}")
            self.log(f"{action}: broke off ({type(exc).__name__})")
            return
        wait: Wait = {"person": self.name, "action": action, "began": self.began}
        wait.update(
            start=got["start"] / 1000 if got["start"] is not None else None,
            end=got["end"] / 1000,
            idle=got["idle"] / 1000,
            runs=got["runs"],
        )
        self.waits.append(wait)
        self.log(f"{action}: {wait['idle'] - wait['began']:.2f} s")
        if await page.locator('[data-testid="stException"]').count():
            self.errors.append(f"{self.name} {action}: the page shows a traceback")

    async def open(self, url: str) -> None:
        await self.page.goto(url, wait_until="commit", timeout=ACTION_TIMEOUT * 1000)
        await self.page.wait_for_selector(".st-key-ce_title", timeout=ACTION_TIMEOUT * 1000)
        await self.timed("open", lambda: self.pick("Document", self.doc))

    async def pick(self, label: str, option: str) -> None:
        box = self.page.get_by_role("combobox", name=label, exact=True)
        await box.click()
        await box.press("Control+a")
        await self.page.keyboard.type(option)
        choice = self.page.get_by_role("option", name=option, exact=False).first
        await choice.wait_for(timeout=ACTION_TIMEOUT * 1000)
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
                await button.wait_for(timeout=ACTION_TIMEOUT * 1000)
                self.began = time.time()
                await button.click()

        await self.timed(action, do)

    def actions(self) -> tuple[str, ...]:
        return ACTIONS if self.doc.endswith(".pdf") else ACTIONS[:3]


async def run_sessions(
    url: str, sessions: int, seconds: float, idle_each: int, on_load: Any = None
) -> dict[str, Any]:
    """The idle session alone, then ``sessions`` at once for ``seconds``; ``on_load(True)`` as
    the load begins and ``on_load(False)`` as it ends (the profiler's window)."""
    from playwright.async_api import async_playwright

    clock = time.time()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)

        async def new(name: str, doc: str, seed: int) -> Session:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            await context.add_init_script(TAP)
            return Session(name, await context.new_page(), doc, seed, clock)

        # one idle session first, alone on the server
        alone = await new("idle", PDF, 1000)
        idle_began = time.time()
        try:
            await alone.open(url)
            for _ in range(idle_each):
                for action in ACTIONS:
                    await alone.act(action)
                    await asyncio.sleep(1.0)
        except Exception as exc:
            alone.errors.append(f"idle: {type(exc).__name__}: {str(exc)[:160]}")
        idle_ended = time.time()
        await alone.page.context.close()

        people = [
            await new(f"s{n}", PDF if n % 2 == 0 else MARKDOWN[(n // 2) % len(MARKDOWN)], n)
            for n in range(sessions)
        ]
        if on_load is not None:
            on_load(True)
        load_began = time.time()

        async def person(n: int, s: Session) -> None:
            await asyncio.sleep(n * 1.0)
            try:
                await s.open(url)
            except Exception as exc:
                s.errors.append(f"{s.name} open: {type(exc).__name__}: {str(exc)[:160]}")
                s.log("open: broke off")
                return
            cycle = s.actions()
            i, stop_at = 0, time.time() + seconds
            while time.time() < stop_at:
                try:
                    await s.act(cycle[i % len(cycle)])
                except Exception as exc:  # a locator that broke: the next action
                    s.errors.append(f"{s.name}: {type(exc).__name__}: {str(exc)[:160]}")
                i += 1
                await asyncio.sleep(s.rnd.uniform(0.5, 2.0))

        await asyncio.gather(*(person(n, s) for n, s in enumerate(people)))
        load_ended = time.time()
        if on_load is not None:
            on_load(False)
        await browser.close()
    return {
        "idle": {"waits": alone.waits, "errors": alone.errors, "window": (idle_began, idle_ended)},
        "load": {
            "waits": [w for s in people for w in s.waits],
            "errors": [e for s in people for e in s.errors],
            "window": (load_began, load_ended),
        },
    }


# --------------------------------------------------------------------------- the server's time


def attribute(
    waits: list[Wait], parts: list[Part], events: dict[str, dict[str, list[float]]]
) -> list[Wait]:
    """Each wait with the server's share of it: the outermost timed parts (a whole rerun, a
    fragment's rerun) of the server session matched to the person, that ended between the
    action and the page receiving the last run's end. A server session is matched to the person
    most of whose waits hold its reruns' ends. Adds ``server`` and ``cpu`` (seconds: the runs'
    time and their thread's processor time), ``run_start`` and ``run_end`` (the first run's
    start, the last run's end, by the server's clock), and from ``events`` ``asked`` (the
    request's arrival) and ``sent`` (the last run's end written to the socket)."""
    reruns: dict[str, list[tuple[float, float, float | None]]] = defaultdict(list)
    for part, ms, session, depth, end, cpu in parts:
        if depth == 0 and part in ("rerun", "document panel"):
            reruns[session].append((end, ms, cpu))
    by_person: dict[str, list[Wait]] = defaultdict(list)
    for w in waits:
        by_person[w["person"]].append(w)
    owner: dict[str, str] = {}
    for session, ends in reruns.items():
        votes: Counter[str] = Counter()
        for end, _, _ in ends:
            for person, theirs in by_person.items():
                if any(w["began"] <= end <= w["idle"] for w in theirs):
                    votes[person] += 1
        if votes:
            owner[session] = votes.most_common(1)[0][0]
    out = []
    for w in waits:
        w = dict(w)
        sessions = [s for s, p in owner.items() if p == w["person"]]
        took = [
            (end, ms, cpu)
            for s in sessions
            for end, ms, cpu in reruns[s]
            if w["began"] <= end <= w["end"] + 0.05
        ]
        if took:
            w["server"] = sum(ms for _, ms, _ in took) / 1000
            cpus = [c for _, _, c in took]
            w["cpu"] = None if None in cpus else sum(c or 0.0 for c in cpus) / 1000
            w["run_start"] = min(end - ms / 1000 for end, ms, _ in took)
            w["run_end"] = max(end for end, _, _ in took)
            asked = [t for s in sessions for t in events["asked"].get(s, [])]
            sent = [t for s in sessions for t in events["sent"].get(s, [])]
            asked = [t for t in asked if w["began"] - 0.05 <= t <= w["run_start"] + 0.05]
            sent = [t for t in sent if w["run_end"] - 0.05 <= t <= w["end"] + 0.05]
            if asked and sent:
                w["asked"], w["sent"] = min(asked), max(sent)
        out.append(w)
    return out


FIGURES = ("wait", "server", "cpu", "arrive", "to script", "send", "to page", "drawing")
"""What each action's wait is made of (seconds): ``wait`` from the action until the page is
idle again; ``server`` the server's own time for the runs it caused (``cpu``: the processor
time of their thread; the rest of ``server`` the thread waited for the interpreter's lock or
the processor). Before the run: ``arrive`` from the action until the request reached the
server, ``to script`` from then until the script started. After it: ``send`` from the last
run's end until it was written to the socket, ``to page`` from then until the page's script
received it, ``drawing`` from then until the page was drawn and idle. Without the server's
events (``load_server``) ``arrive`` holds the whole time before the run, ``send`` the whole
trip out."""


def figures(w: Wait) -> dict[str, float]:
    out = {"wait": w["idle"] - w["began"], "drawing": w["idle"] - w["end"]}
    if "server" in w:
        out["server"] = w["server"]
        if w.get("cpu") is not None:
            out["cpu"] = w["cpu"]
        if "asked" in w:
            out["arrive"] = max(0.0, w["asked"] - w["began"])
            out["to script"] = max(0.0, w["run_start"] - w["asked"])
            out["send"] = max(0.0, w["sent"] - w["run_end"])
            out["to page"] = max(0.0, w["end"] - w["sent"])
        else:
            out["arrive"] = max(0.0, w["run_start"] - w["began"])
            out["send"] = max(0.0, w["end"] - w["run_end"])
    return out


def one_run(
    root: Path, sessions: int, seconds: float, idle_each: int, profile: Path | None
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="bench-load-"))
    timings, cache = folder / "timings.tsv", folder / "cache"
    cache.mkdir()
    load = load_average()
    proc, url = start_server(root, timings, cache)
    spy: list[subprocess.Popen[bytes]] = []

    def on_load(begins: bool) -> None:
        if begins and profile is not None and shutil.which("py-spy"):
            spy.append(
                subprocess.Popen(
                    [
                        *("py-spy", "record", "--pid", str(proc.pid), "--gil", "--nonblocking"),
                        *("--format", "raw", "--output", str(profile), "--rate", "25"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        elif not begins and spy:  # py-spy writes what it saw on SIGINT (SIGTERM loses it)
            spy[0].send_signal(signal.SIGINT)
            spy[0].wait(timeout=60)

    try:
        result = asyncio.run(run_sessions(url, sessions, seconds, idle_each, on_load))
    finally:
        if spy and spy[0].poll() is None:
            spy[0].kill()
        stop_server(proc)
    parts, events = read_timings(timings), read_events(timings.with_suffix(".events"))
    result["load_average"] = load
    result["load_average_after"] = load_average()
    for phase in ("idle", "load"):
        result[phase]["waits"] = attribute(result[phase]["waits"], parts, events)
    result["folder"] = str(folder)
    return result


# --------------------------------------------------------------------------- the tables


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def cell(xs: list[float]) -> str:
    if not xs:
        return "-"
    return f"{statistics.median(xs):.2f}/{quantile(xs, 0.95):.2f}"


def table(label: str, runs: list[dict[str, Any]]) -> list[str]:
    """p50 / p95 of each figure per action, idle and under load, over ``runs``."""
    rows = [f"{label}: {len(runs)} run(s); load average before / after each:"]
    rows += [f"  {r['load_average']} / {r['load_average_after']}" for r in runs]
    for phase in ("idle", "load"):
        waits = [w for r in runs for w in r[phase]["waits"]]
        rows.append(f"  {phase + ', s p50/p95':<18}{'n':>4}" + "".join(f"{f:>12}" for f in FIGURES))
        for action in ("open", *ACTIONS):
            mine = [figures(w) for w in waits if w["action"] == action]
            cells = [cell([f[name] for f in mine if name in f]) for name in FIGURES]
            rows.append(f"  {action:<18}{len(mine):>4}" + "".join(f"{c:>12}" for c in cells))
    errors = [e for r in runs for phase in ("idle", "load") for e in r[phase]["errors"]]
    rows.append(f"  broken off or failed: {len(errors)}")
    rows += [f"  ! {e}" for e in errors[:12]]
    if len(errors) > 12:
        rows.append(f"  ! … {len(errors) - 12} more")
    return rows


def profile_summary(path: Path, top: int = 15) -> list[str]:
    """Where the server's interpreter lock went during the load (py-spy's raw samples, taken
    only while a thread held it): by thread (the sessions' scripts, the event loop that sends
    and receives messages, the rest), then by the innermost frame of this project's code (or of
    Streamlit's, for the event loop)."""
    if not path.exists():
        return [f"no profile at {path}"]
    ours = ("app.py", "explorer/", "ui/", "app_pages/")
    threads: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    total = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        calls = stack.split(";")
        if any("_run_script_thread" in c for c in calls):
            kind = "a session's script"
        elif any("asyncio" in c or "tornado" in c for c in calls):
            kind = "the event loop (messages in and out)"
        else:
            kind = "other threads"
        threads[kind] += n
        mine = [c for c in calls if any(f"({o}" in c or f"/{o}" in c for o in ours)]
        frames[mine[-1] if mine else f"[{kind}] {calls[-1]}"] += n
    if not total:
        return ["the profile holds no samples"]
    rows = [f"the server's interpreter lock during the load ({total} samples):"]
    rows += [f"  {n / total:6.1%}  {k}" for k, n in threads.most_common()]
    rows.append("  innermost frame of the project (else the thread's own):")
    rows += [f"  {n / total:6.1%}  {k}" for k, n in frames.most_common(top)]
    return rows


def main() -> None:
    global ACTION_TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--idle", type=int, default=5, help="each action's count, idle")
    parser.add_argument(
        "--short", action="store_true", help="3 sessions for 45 s, idle 2: about 2 minutes"
    )
    parser.add_argument(
        "--timeout", type=float, default=ACTION_TIMEOUT, help="seconds before an action breaks off"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each checkout, in turns")
    parser.add_argument("--base", type=Path, help="another checkout to run the same way")
    parser.add_argument("--profile", type=Path, help="py-spy's raw output for this checkout")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.short:
        args.sessions, args.seconds, args.idle = 3, 45.0, 2
    ACTION_TIMEOUT = args.timeout
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing; install it with: apt-get install -y chromium")
    if shutil.which("taskset") is None or (os.cpu_count() or 1) < 2:
        raise SystemExit("this needs taskset and two cores (the server's and the browsers')")
    os.sched_setaffinity(0, {BROWSER_CORE})  # Playwright and Chromium inherit it
    print(
        f"{args.sessions} sessions for {args.seconds:.0f} s, {args.repeat} run(s) each; server "
        f"on core {SERVER_CORE}, browsers on core {BROWSER_CORE}; {os.cpu_count()} cores"
    )
    checkouts = [("this checkout", ROOT), *([("base", args.base)] if args.base else [])]
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in checkouts}
    for n in range(args.repeat):  # in turns, so a busy moment of the machine hits each
        for label, root in checkouts:
            profile = args.profile if label == "this checkout" and n == 0 else None
            print(f"{label} ({root}), run {n + 1}: load average {load_average()}", flush=True)
            results[label].append(
                one_run(root.resolve(), args.sessions, args.seconds, args.idle, profile)
            )
    for label, root in checkouts:
        print("\n".join(table(f"{label} ({root})", results[label])), flush=True)
    if args.profile is not None:
        print("\n".join(profile_summary(args.profile)))
    if args.json:
        args.json.write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main()
