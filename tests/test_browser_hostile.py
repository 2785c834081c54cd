"""Hostile text in a real browser: a link whose question and evidence carry Markdown images,
links, HTML, ``javascript:`` URLs, entities and bare addresses; a file whose name and headings do;
the same on the Corpus page. Nothing loads from another host, no script runs, no dialog opens,
and no link leads to that host or to ``javascript:`` outside the drawn document (whose own links
open in a new tab without the app as referrer). The server also refuses a connection whose Host
header names another site (DNS rebinding)."""

from __future__ import annotations

import base64
import os
import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_util import (
    ARTIFACTS,
    require_chromium,
    wait_for_app,
    wait_idle,
)
from tests.hostile import HOST, HOSTILE, NAME

pytestmark = pytest.mark.browser

require_chromium()
PAYLOAD = HOSTILE.replace("alert(", "window.__ran=(")  # a script that ran leaves a mark
DOC = (
    f"# Returns {PAYLOAD}\n\nYou may return a book within seven days. {PAYLOAD}\n\n"
    f"## Exceptions\n\nThis does not apply to downloaded materials. [docs](https://{HOST}/doc)\n"
)

LIVE = """(host) => {
    const out = [];
    for (const el of document.querySelectorAll('img[src], source[src], iframe, object, embed')) {
        const src = el.getAttribute('src') || '';
        if (src.includes(host) || src.startsWith('javascript:'))
            out.push(el.outerHTML.slice(0, 120));
    }
    for (const a of document.querySelectorAll('a[href]')) {
        const href = a.getAttribute('href') || '';
        const inDoc = a.closest('.ce-doc') !== null;
        if (href.trim().toLowerCase().startsWith('javascript:'))
            out.push(a.outerHTML.slice(0, 120));
        else if (href.includes(host) && !(inDoc && (a.rel || '').includes('noopener')))
            out.push(a.outerHTML.slice(0, 120));
    }
    for (const el of document.querySelectorAll('*')) {
        for (const at of el.getAttributeNames())
            if (at.startsWith('on') && (el.getAttribute(at) || '').includes('__ran'))
                out.push(el.outerHTML.slice(0, 120));
    }
    if (window.__ran !== undefined) out.push('a script ran');
    return out;
}"""


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1500, "height": 1000})
    p = context.new_page()
    p.requested = []  # type: ignore[attr-defined]
    p.dialogs = []  # type: ignore[attr-defined]
    p.on("request", lambda r: p.requested.append(r.url))  # type: ignore[attr-defined]
    p.on("dialog", lambda d: (p.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
    yield p
    context.close()


def assert_inert(page: Any) -> None:
    elsewhere = [
        u for u in page.requested if urllib.parse.urlsplit(u).hostname not in ("127.0.0.1", None)
    ]
    elsewhere = [u for u in elsewhere if not u.startswith(("data:", "blob:"))]
    assert not elsewhere, elsewhere
    assert not page.dialogs, page.dialogs
    assert page.evaluate(LIVE, HOST) == []


def test_a_hostile_link_loads_and_runs_nothing(page: Any, app_url: str) -> None:
    params = {"doc": "refund-policy.md", "config": "retriever=bm25", "q": PAYLOAD}
    params["e"] = f"within seven days\n{PAYLOAD}"
    page.goto(f"{app_url}/?{urllib.parse.urlencode(params)}")
    wait_for_app(page)
    assert f".{HOST} https" in page.locator('[data-testid="stMain"]').inner_text()  # as text
    page.hover('[data-testid="stAlert"] >> nth=0')
    assert_inert(page)
    page.goto(f"{app_url}/?{urllib.parse.urlencode({'doc': NAME + '.md', 'upload': '1'})}")
    wait_for_app(page)
    assert_inert(page)


def test_a_hostile_file_loads_and_runs_nothing_on_the_explore_and_corpus_pages(
    page: Any, app_url: str, tmp_path: Path
) -> None:
    path = tmp_path / (NAME.replace("/", "⁄") + ".md")
    path.write_text(DOC)
    page.goto(app_url)
    wait_for_app(page)
    page.locator('.st-key-upload input[type="file"]').set_input_files(str(path))
    page.wait_for_function(
        "(n) => document.body.innerText.includes(n)", arg="within seven days", timeout=120_000
    )
    wait_idle(page, 120_000)
    box = page.get_by_label("Question", exact=True)
    box.fill(f"Can I return it? {PAYLOAD}")
    box.press("Enter")
    wait_idle(page, 180_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "hostile-explore-1500.png")
    assert_inert(page)
    page.get_by_role("link", name="Ask a corpus").click()
    wait_idle(page, 120_000)
    page.locator('.st-key-cp_upload input[type="file"]').set_input_files(str(path))
    wait_idle(page, 180_000)
    page.get_by_label("Question", exact=True).fill(f"Can I return it? {PAYLOAD}")
    page.get_by_label("Question", exact=True).press("Enter")
    wait_idle(page, 180_000)
    for button in page.locator('[data-testid="stButton"] button:visible').all()[:6]:
        button.hover()  # tooltips are Markdown too
        page.wait_for_timeout(150)
    page.screenshot(path=ARTIFACTS / "hostile-corpus-1500.png")
    assert_inert(page)


def handshake(url: str, host: str) -> str:
    """The first line of the server's answer to a WebSocket upgrade naming ``host``."""
    port = urllib.parse.urlsplit(url).port
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: http://{host}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.encode())
        return s.recv(4096).decode(errors="replace").split("\r\n", 1)[0]


def test_the_server_answers_only_to_its_own_names(app_url: str) -> None:
    port = urllib.parse.urlsplit(app_url).port
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert " 101 " in handshake(app_url, host), host
    for host in (f"{HOST}:{port}", HOST, f"rebind.{HOST}"):
        assert " 403 " in handshake(app_url, host), host
