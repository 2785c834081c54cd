"""First paint of the overview at 10,000 documents in Chromium, for this checkout and others:
``python -m benchmarks.site.paint [--base DIR]``. Each checkout's app is started, warmed once
(the documents read and chunked), then a new browser page is timed from navigation until the
overview's chart and table are drawn. Screenshots at 1280x800 and 1500x1000 go to artifacts/."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.browser_util import CHROMIUM, CHROMIUM_ARGS, _wait_healthy, free_port  # noqa: E402

APP = Path(__file__).resolve().parent / "overview_app.py"


def paint(code: Path, tag: str) -> float:
    from playwright.sync_api import sync_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(code)}
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
           "--server.headless", "true", "--browser.gatherUsageStats", "false"]  # fmt: skip
    with subprocess.Popen(cmd, cwd=code, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as proc:  # fmt: skip
        try:
            _wait_healthy(proc, url, 60)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                warm = browser.new_page()
                warm.goto(url)
                warm.get_by_text("painted").wait_for(timeout=900_000)
                warm.close()
                best = []
                for size in ((1280, 800), (1500, 1000)):
                    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
                    started = time.perf_counter()
                    page.goto(url)
                    page.locator(".js-plotly-plot .bars path").first.wait_for(timeout=120_000)
                    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=120_000)
                    best.append(time.perf_counter() - started)
                    page.wait_for_timeout(500)
                    out = ROOT / "artifacts" / f"overview-10k-{tag}-{size[0]}x{size[1]}.png"
                    out.parent.mkdir(exist_ok=True)
                    page.screenshot(path=str(out))
                    page.close()
                browser.close()
            return min(best)
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base")
    args = parser.parse_args()
    runs = {"this checkout": ROOT}
    if args.base:
        runs["base"] = Path(args.base).resolve()
    for label, code in runs.items():
        seconds = paint(code, label.split()[0])
        print(f"{label}: overview first paint at 10,000 documents {seconds:.2f} s", flush=True)


if __name__ == "__main__":
    main()
