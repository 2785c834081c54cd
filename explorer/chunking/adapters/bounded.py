"""Running a library split in a child process under a time limit.

Python's :mod:`re` holds the interpreter lock while it backtracks, so a regular expression
like ``(.*)*Q`` on a page of text stops every thread of the process (a server's health check,
its other sessions, its signal handlers) for minutes or more; no thread can interrupt it. A
pattern of the user's therefore runs in a child process that is killed when it takes longer
than the limit: :func:`run_within` calls a function there and returns its result, re-raises
its :class:`~explorer.errors.ExplorerError`, or raises the error it is given when the time is
up. The parent only waits on a pipe, which lets its other threads run.

Where the platform can fork (Linux, macOS), the child is a fork: it starts at once with every
module already imported (a library like LlamaIndex takes seconds to import) and the arguments
are not copied; only the result comes back, pickled. Elsewhere it is a spawned interpreter.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.context import ForkContext, SpawnContext
from typing import Any, TypeVar

from explorer.errors import ExplorerError, LibraryError

TIME_LIMIT = 10.0
"""Seconds a split with a regular expression of the user's may take (see :func:`run_within`)."""

START_LIMIT = 120.0
"""Seconds a child may take to be ready (a spawned one imports the library first)."""
_READY = "ready"

T = TypeVar("T")


def _context() -> ForkContext | SpawnContext:
    """Fork where the platform can (the child starts with everything imported), else spawn."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _child(
    send: Connection,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    prepare: Callable[[], object] | None,
) -> None:
    """Call ``prepare()``, say so, then call ``fn(*args)`` and send ``(True, result)`` or
    ``(False, error)``; nothing escapes (a child's traceback would reach the user's terminal)."""
    try:
        if prepare is not None:
            prepare()
        send.send(_READY)
        outcome: tuple[bool, Any] = (True, fn(*args))
    except ExplorerError as exc:
        outcome = (False, exc)
    except BaseException as exc:  # a bug or an interrupt: one line, as a library failure
        outcome = (False, LibraryError(f"the split failed: {type(exc).__name__}: {exc}"))
    try:
        send.send(outcome)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError) as exc:
        send.send((False, LibraryError(f"the split's result could not be returned ({exc})")))
    finally:
        send.close()


def run_within(
    fn: Callable[..., T],
    *args: Any,
    limit: float,
    error: ExplorerError,
    prepare: Callable[[], object] | None = None,
) -> T:
    """``fn(*args)``, run in a child process that is killed after ``limit`` seconds.

    Returns what ``fn`` returned, re-raises the :class:`~explorer.errors.ExplorerError` it
    raised (anything else it raised becomes a :class:`~explorer.errors.LibraryError`), and raises
    ``error`` when it is not done within ``limit`` seconds. The limit starts once the child has
    called ``prepare`` (imports that a spawned child makes again: up to :data:`START_LIMIT`).
    ``fn``, its arguments and ``prepare`` must pickle where the child is spawned; the result
    always must.
    """
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, fn, args, prepare), daemon=True)
    child.start()
    send.close()  # the child holds its own end: its exit ends the pipe
    answered = False
    try:
        try:
            if not receive.poll(START_LIMIT):
                raise LibraryError(
                    f"the split's process did not start within {START_LIMIT:g} s; the machine "
                    "may be overloaded"
                )
            message = receive.recv()
            if message == _READY:
                if not receive.poll(limit):
                    raise error
                message = receive.recv()
            ok, value = message
            answered = True
        except (EOFError, OSError):
            child.join(1)
            raise LibraryError(
                f"the split's process ended without a result (exit code {child.exitcode}); "
                "it may have run out of memory"
            ) from None
    finally:
        if child.is_alive():
            child.kill()
        if not answered:  # a child that answered is reaped later (the next start, or the exit):
            child.join()  # waiting for a large process to tear down costs tens of ms
        receive.close()
    if ok:
        return value  # type: ignore[no-any-return]
    raise value
