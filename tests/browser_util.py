"""Run the app with ``streamlit run`` on a free local port and drive it with the system Chromium.

Used by ``tests/test_browser.py``, and by hand to take screenshots::

    .venv/bin/python -m tests.browser_util   # screenshots into artifacts/
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running_app(timeout: float = 60.0, root: Path = REPO) -> Iterator[str]:
    """Start ``streamlit run app.py`` (of the checkout at ``root``) on 127.0.0.1 and yield its
    URL; stop it afterwards."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    ARTIFACTS.mkdir(exist_ok=True)
    url = f"http://127.0.0.1:{port}"
    with (
        open(ARTIFACTS / f"streamlit-{port}.log", "wb") as log,
        subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT) as proc,
    ):
        try:
            _wait_healthy(proc, url, timeout)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_healthy(proc: subprocess.Popen[bytes], url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"streamlit did not answer on {url} within {timeout:.0f} s")
        time.sleep(0.3)


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    """The system Chromium, headless, through Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def require_chromium() -> None:
    """Skip the calling test module when the system Chromium is missing; under ``CI=true`` fail
    instead, so that a browser test never passes by not running."""
    import pytest

    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing; install it with: apt-get install -y chromium"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


def app_url_fixture() -> Iterator[str]:
    """The app started once for a test module (use as ``app_url = pytest.fixture(...)``)."""
    with running_app() as url:
        yield url


def chromium_fixture() -> Iterator[Any]:
    """One browser for a test module."""
    with browser() as b:
        yield b


def wait_for_app(page: Any, timeout: float = 60_000) -> None:
    """Wait until the script has finished running (no "Running..." status widget)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_selector(".st-key-ce_title", timeout=timeout)  # the Explore page is drawn
    wait_idle(page, timeout)


def wait_idle(page: Any, timeout: float = 60_000) -> None:
    """Wait for the current rerun to finish.

    Streamlit marks the app root with ``data-test-script-state`` ("running" while the script
    runs); the "Running..." status widget is not drawn in every layout, so it is not relied on;
    elements still drawn as skeletons (a busy machine's first run) are waited for too.
    """
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const run = app ? app.getAttribute('data-test-script-state') : 'running';
            return run !== 'running' && run !== 'rerunRequested'
                && !document.querySelector('[data-testid="stStatusWidget"]')
                && !document.querySelector('[data-testid="stSkeleton"]');
        }""",
        timeout=timeout,
    )
    page.wait_for_timeout(300)


def set_number(page: Any, label: str, value: int) -> None:
    """Type ``value`` into the number input labelled ``label`` and commit it with Enter."""
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_idle(page)


def choose(page: Any, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label``."""
    box = page.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.press("Control+a")
    page.keyboard.type(option)  # filters the (virtualised) list down to the option
    page.get_by_role("option", name=option, exact=False).first.click()
    wait_idle(page)


CUT_METRICS = """() => {
    const shown = [...document.querySelectorAll('[data-testid="stMetric"]')]
        .filter(m => m.offsetParent !== null);
    const cut = shown.flatMap(m => [...m.querySelectorAll(
            '[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] *, '
            + '[data-testid="stMetricValue"], [data-testid="stMetricValue"] *')]
        .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth)
        .map(e => e.textContent.trim()));
    return {shown: shown.length, cut: [...new Set(cut)]};
}"""
"""The metrics shown (st.metric) and the text of each label or value cut short in them."""


def cut_metrics(page: Any) -> tuple[int, list[str]]:
    """How many metrics the page shows, and the labels and values cut short among them (an
    element whose text is wider than its box: the ellipsis a person sees)."""
    page.wait_for_timeout(300)  # after a resize, the columns are laid out again
    got = page.evaluate(CUT_METRICS)
    return int(got["shown"]), list(got["cut"])


def screenshot(page: Any, name: str) -> Path:
    """Save the whole app (Streamlit scrolls inside its own container) as ``artifacts/name``."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    height = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll(
            '[data-testid="stMain"], [data-testid="stAppViewContainer"], section')]
            .map(e => e.scrollHeight), document.body.scrollHeight)"""
    )
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 12_000)})
    page.wait_for_timeout(1500)  # tables are canvases, redrawn after the resize
    path = ARTIFACTS / name
    page.screenshot(path=path, full_page=True)
    page.set_viewport_size(size)
    page.wait_for_timeout(200)
    return path


def toggle(page: Any, label: str) -> None:
    """Flip the toggle labelled ``label``."""
    page.get_by_text(label, exact=True).click()
    wait_idle(page)


def radio(page: Any, group: str, option: str) -> None:
    """Pick ``option`` in the radio group labelled ``group``."""
    box = page.locator('[data-testid="stRadio"]').filter(has_text=group)
    box.get_by_text(option, exact=True).click()
    wait_idle(page)


def nudge(page: Any, label: str, key: str = "ArrowRight") -> None:
    """Move the slider labelled ``label`` one step (``key``: ArrowRight, ArrowLeft, Home, End)."""
    thumb = page.locator('[data-testid="stSlider"]').filter(has_text=label).get_by_role("slider")
    thumb.focus()
    thumb.press(key)
    wait_idle(page)


def ask(page: Any, question: str, evidence: str | None = None) -> None:
    """Type a question (and evidence phrases, one per line) into the query panel."""
    box = page.get_by_label("Question", exact=True)
    box.fill(question)
    box.press("Enter")
    wait_idle(page, 120_000)
    if evidence is not None:
        area = page.get_by_label("Required evidence (one phrase per line)", exact=True)
        area.fill(evidence)
        area.press("Control+Enter")
        wait_idle(page, 120_000)


def main() -> None:  # pragma: no cover - a manual tool
    """Screenshots of every view a person uses, into artifacts/."""
    os.chdir(REPO)
    with running_app() as url, browser() as b:
        page = b.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(url)
        wait_for_app(page, 120_000)
        print(screenshot(page, "shot-1-refund-demo-incomplete.png"))
        choose(page, "Splitter", "sentence")
        print(screenshot(page, "shot-2-refund-demo-repaired.png"))
        choose(page, "Splitter", "fixed")
        radio(page, "Show on the document", "Heat")
        print(screenshot(page, "shot-3-heat.png"))
        radio(page, "Show on the document", "Query hits")
        nudge(page, "Neighbours (± chunks)")
        print(screenshot(page, "shot-4-neighbours.png"))
        radio(page, "Show on the document", "Chunks")
        toggle(page, "Raw Markdown source")
        print(screenshot(page, "shot-5-raw.png"))
        toggle(page, "Raw Markdown source")
        choose(page, "Selected chunk", "#2 ")
        toggle(page, "Prefix heading path")
        print(screenshot(page, "shot-6-selected.png"))
        choose(page, "Document", "writing-guide.md")
        set_number(page, "Exact size", 300)
        set_number(page, "Exact overlap", 60)
        choose(page, "Selected chunk", "#20 ")
        print(screenshot(page, "shot-7-guide-overlap.png"))
        choose(page, "Document", "field-manual.pdf")
        choose(page, "Splitter", "structure")
        page.wait_for_selector('[data-testid="stImage"] img', timeout=60_000)
        wait_idle(page)
        print(screenshot(page, "shot-8-pdf.png"))
        ask(
            page,
            "How long can I keep a water sample before testing it, and does freezing help?",
            "Samples must be tested within 24 hours.\nThis limit does not apply to frozen samples.",
        )
        print(screenshot(page, "shot-9-pdf-hits.png"))
        page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
        charts = page.locator('[data-testid="stHorizontalBlock"]').filter(
            has=page.locator('[data-testid="stPlotlyChart"]')
        )
        charts.first.screenshot(path=ARTIFACTS / "shot-10-charts.png")
        print(ARTIFACTS / "shot-10-charts.png")


if __name__ == "__main__":  # pragma: no cover
    main()
