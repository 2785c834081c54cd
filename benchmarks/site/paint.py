"""First paint of the Corpus page at 10,000 pages in Chromium, for this checkout and others:
``python -m benchmarks.site.paint [--base DIR ...] [--runs 3]``.

What a person sees: a folder of 10,000 generated documentation pages is served
(``CHUNK_EXPLORER_DOCS`` and ``--docs``), each checkout's real app (``app.py``) is started and
its Corpus page opened once to warm it (the pages read and chunked, as a team's next visit finds
them), then a new browser page is timed ``--runs`` times from navigation until *Ask the corpus*
is drawn, and until the overview's table and bars are: the first paint. Beside each run: the
bytes the server sent over the websocket, the page's elements and the server's own time for the
run (``ui.timing``'s ``rerun``). A second row times the overview alone (``overview_app.py``: the
same pages, no frame, no sidebar). Medians are printed; screenshots of the last runs at 1280x800
and 1500x1000 go to ``artifacts/``."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.browser_util import CHROMIUM, CHROMIUM_ARGS, _wait_healthy, free_port  # noqa: E402

OVERVIEW_APP = Path(__file__).resolve().parent / "overview_app.py"
FLOOR_APP = Path(__file__).resolve().parent / "floor_app.py"
SIZES = ((1280, 800), (1500, 1000))
WARM_TIMEOUT_MS = 3_600_000  # reading and chunking 10,000 pages on a busy 2-core machine
RUN_TIMEOUT_MS = 600_000


def write_site(folder: Path, pages: int) -> Path:
    """``pages`` Markdown pages of a documentation site (rules, one in seven with a table),
    named by path as a site keeps them; written once per folder."""
    if len(list(folder.rglob("README.md"))) == pages:
        return folder
    for i in range(pages):
        text = (
            f"# Rule {i}\n\nRule {i} disallows one thing.\n\n"
            + (f"| option | value |\n|---|---|\n| a{i} | b |\n\n" if i % 7 == 0 else "")
            + "".join(
                f"Paragraph {p} of page {i}: what it checks and why.\n\n" for p in range(i % 5)
            )
        )
        path = folder / f"reference/rules/section-{i // 100:03d}/rule-number-{i:05d}/README.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


@dataclass(frozen=True)
class Run:
    ask: float
    """Seconds from navigation until *Ask the corpus* is drawn."""
    table: float
    """… until the overview's table is drawn."""
    painted: float
    """… until the overview's table and bars are drawn (the first paint)."""
    sent: int
    """Bytes the server sent over the websocket."""
    elements: int
    """Elements on the page."""


def bars_of(code: Path) -> str:
    """Where a checkout draws the overview's bars, as a selector: a plotly chart below the table
    (checkouts before the bars moved into the table), or the table's own canvas."""
    overview = code / "ui" / "corpus" / "overview.py"
    charted = overview.is_file() and "st.plotly_chart" in overview.read_text(encoding="utf-8")
    return ".js-plotly-plot .bars path" if charted else "[data-testid='stDataFrame'] canvas"


def timed_page(
    browser: object, url: str, size: tuple[int, int], *, ask: bool, shot: Path, bars: str
) -> Run:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})  # type: ignore[attr-defined]
    sent: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: sent.append(len(data))))
    started = time.perf_counter()
    page.goto(url)
    asked = 0.0
    if ask:
        page.get_by_text("Ask the corpus").first.wait_for(timeout=RUN_TIMEOUT_MS)
        asked = time.perf_counter() - started
    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=RUN_TIMEOUT_MS)
    table = time.perf_counter() - started
    page.locator(bars).first.wait_for(timeout=RUN_TIMEOUT_MS)
    painted = time.perf_counter() - started
    page.wait_for_timeout(1500)  # what comes after the paint (the run's end) is counted too
    elements = page.locator("[data-testid='stElementContainer']").count()
    shot.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(shot))
    page.close()
    return Run(asked, table, painted, sum(sent), elements)


def measure(
    code: Path, tag: str, site: Path, *, real: bool, runs: int, script: Path = OVERVIEW_APP
) -> tuple[list[Run], list[float]]:
    """``runs`` first paints of the real Corpus page (``real``) or of ``script`` (the overview
    alone, or the floor), with the server's rerun times (ms) when the checkout writes them."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    timings = Path(tempfile.mkdtemp()) / "timings.tsv"
    env = {
        **os.environ,
        "PYTHONPATH": str(code),
        "CHUNK_EXPLORER_DOCS": str(site),
        "CHUNK_EXPLORER_TIMINGS": str(timings),
        "OVERVIEW_SITE": str(site),
    }
    bars = bars_of(code) if script != FLOOR_APP else "[data-testid='stDataFrame'] canvas"
    floor = script == FLOOR_APP
    script = Path("app.py") if real else script
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
           "--server.headless", "true", "--browser.gatherUsageStats", "false",
           *(["--", "--docs", str(site)] if real else [])]  # fmt: skip
    page_url = f"{url}/corpus" if real else url
    kind = "page" if real else "floor" if floor else "overview"
    with subprocess.Popen(cmd, cwd=code, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as proc:  # fmt: skip
        try:
            _wait_healthy(proc, url, 120)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                warm = browser.new_page()
                warm.goto(page_url)
                warm.locator("[data-testid='stDataFrame']").first.wait_for(timeout=WARM_TIMEOUT_MS)
                warm.locator(bars).first.wait_for(timeout=RUN_TIMEOUT_MS)
                warm.wait_for_timeout(2000)
                warm.close()
                done = len(_reruns(timings))
                got = []
                for n in range(runs):
                    size = SIZES[n % len(SIZES)]
                    shot = ROOT / "artifacts" / f"{kind}-10k-{tag}-{size[0]}x{size[1]}.png"
                    got.append(
                        timed_page(browser, page_url, size, ask=real or floor, shot=shot, bars=bars)
                    )
                browser.close()
            return got, _reruns(timings)[done:]
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _reruns(path: Path) -> list[float]:
    """The server's whole-run times (ms) in ``path``, in order."""
    if not path.exists():
        return []
    lines = [line.split("\t") for line in path.read_text().splitlines()]
    return [float(f[1]) for f in lines if f[0] == "rerun" and f[3] == "0"]


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}" if values else "—"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", action="append", default=[], help="another checkout")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--site", help="where the generated pages are kept (default: a temp dir)")
    parser.add_argument("--overview", action="store_true", help="the overview alone too")
    parser.add_argument(
        "--floor", action="store_true", help="a bare Streamlit page of one table too (the floor)"
    )
    parser.add_argument("--no-this", action="store_true", help="only the --base checkouts")
    args = parser.parse_args()
    site = (
        Path(args.site) if args.site else Path(tempfile.gettempdir()) / f"paint-site-{args.pages}"
    )
    write_site(site, args.pages)
    checkouts = {} if args.no_this else {"this checkout": ROOT}
    checkouts.update({Path(b).name: Path(b).resolve() for b in args.base})
    print(f"{args.pages:,} pages; load average {os.getloadavg()[0]:.1f}", flush=True)
    kinds = [("Corpus page", True, OVERVIEW_APP)]
    kinds += [("overview alone", False, OVERVIEW_APP)] if args.overview else []
    kinds += [("floor: one table, no document", False, FLOOR_APP)] if args.floor else []
    for what, real, script in kinds:
        for label, code in checkouts.items() if script != FLOOR_APP else [("-", ROOT)]:
            tag = "this" if code == ROOT else label
            runs, reruns = measure(code, tag, site, real=real, runs=args.runs, script=script)
            each = ", ".join(f"{r.painted:.2f}" for r in runs)
            asked = _median([r.ask for r in runs]) if runs[0].ask else "—"
            print(
                f"{what}, {label}: first paint median {_median([r.painted for r in runs])} s "
                f"({each}); Ask the corpus {asked} s; "
                f"table {_median([r.table for r in runs])} s; "
                f"server run {_median([ms / 1000 for ms in reruns])} s; "
                f"websocket {statistics.median([r.sent for r in runs]):,.0f} bytes; "
                f"{statistics.median([r.elements for r in runs]):.0f} elements; "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
