"""``streamlit`` as ``benchmarks/bench_load`` runs it: the same server, which also writes, to the
file ``CE_BENCH_EVENTS`` names, when each session's messages passed through it — one line per
event, tab-separated: the event, the session's id, Unix time (seconds).

* ``asked``: a rerun request (a widget's change) arrived from the browser;
* ``finished``: a run's end (``script_finished``) was handed to the websocket's sender;
* ``sent``: the sender finished writing it to the socket.

With the server's timed parts (:mod:`ui.timing`) these split what a person waits for into the
request's arrival, its wait for the script thread, the run, and the end's trip out. Only
Streamlit's own classes are wrapped (nothing of the checkout), so any checkout runs under it::

    CE_BENCH_EVENTS=/tmp/events.tsv python benchmarks/load_server.py run app.py
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time
from typing import Any

ENV = "CE_BENCH_EVENTS"
_write = threading.Lock()


def _note(path: str, event: str, session: str, when: float) -> None:
    with _write, open(path, "a", encoding="utf-8") as f:
        f.write(f"{event}\t{session}\t{when:.4f}\n")


def wrap(path: str) -> None:
    """Wrap the runtime's entry for browser messages and the websocket client's sender."""
    from streamlit.runtime.runtime import Runtime
    from streamlit.web.server.starlette.starlette_websocket import StarletteSessionClient

    sessions: dict[int, str] = {}  # id(client) -> session id
    connect, handle = Runtime.connect_session, Runtime.handle_backmsg
    write, init = StarletteSessionClient.write_forward_msg, StarletteSessionClient.__init__

    def connect_session(self: Any, client: Any, *args: Any, **kwargs: Any) -> str:
        session: str = connect(self, client, *args, **kwargs)
        sessions[id(client)] = session
        return session

    def handle_backmsg(self: Any, session_id: str, msg: Any, **kwargs: Any) -> None:
        if msg.WhichOneof("type") == "rerun_script":
            _note(path, "asked", session_id, time.time())
        handle(self, session_id, msg, **kwargs)

    def client_init(self: Any, websocket: Any) -> None:
        init(self, websocket)
        pending: collections.deque[bytes] = collections.deque()
        self._ce_pending = pending
        send = websocket.send_bytes

        async def send_bytes(payload: bytes) -> None:
            await send(payload)
            if pending and payload is pending[0]:
                pending.popleft()
                _note(path, "sent", sessions.get(id(self), "-"), time.time())

        websocket.send_bytes = send_bytes

    def write_forward_msg(self: Any, msg: Any) -> None:
        if msg.WhichOneof("type") != "script_finished":
            write(self, msg)
            return
        queue = self._send_queue
        put = queue.put_nowait

        def put_nowait(payload: bytes) -> None:  # the payload's own object, to know it sent
            self._ce_pending.append(payload)
            put(payload)

        queue.put_nowait = put_nowait
        try:
            write(self, msg)
        finally:
            del queue.put_nowait
        _note(path, "finished", sessions.get(id(self), "-"), time.time())

    Runtime.connect_session = connect_session
    Runtime.handle_backmsg = handle_backmsg
    StarletteSessionClient.__init__ = client_init
    StarletteSessionClient.write_forward_msg = write_forward_msg


def main() -> None:
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        sys.path.pop(0)  # this folder is no place to import the checkout's modules from
    path = os.environ.get(ENV)
    if path:
        wrap(path)
    from streamlit.web.cli import main as streamlit

    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit()


if __name__ == "__main__":
    main()
