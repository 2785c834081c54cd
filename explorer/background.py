"""The process's one queue of long preparations (embedding a corpus for an answer): each runs on
a worker thread of its own, one at a time in the order asked, so the work goes on while the
person who asked for it moves between pages, and a second session asking for the same work
(the same key) waits for the same run instead of starting another.

A job is wanted by its owners (sessions); it stops at its next step once none wants it
(:meth:`Queue.drop`), keeping what it finished — vectors reach the lasting index batch by
batch, so the next run embeds only the rest. The queue knows nothing of what the work is: it
is a callable taking the one progress callback (:data:`explorer.progress.Progress`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from explorer.progress import Progress

State = Literal["waiting", "running", "done", "failed", "stopped"]
KEPT = 64
"""Finished jobs the queue remembers (a session polling one sees how it ended)."""


class Stopped(Exception):
    """Raised inside a job's work at its next step once no owner wants it."""


@dataclass(frozen=True)
class Status:
    """Where a job is: its state, the share done and the work's last note; ``ahead`` is the
    jobs before it in the line, ``error`` what a failed job raised."""

    state: State
    fraction: float
    note: str
    ahead: int = 0
    error: BaseException | None = None

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "stopped")


class Job:
    """One preparation in the queue (see :class:`Queue`)."""

    def __init__(self, key: Hashable, work: Callable[[Progress], object]) -> None:
        self.key = key
        self.work = work
        self.owners: set[str] = set()
        self.state: State = "waiting"
        self.fraction = 0.0
        self.note = "waiting for its turn"
        self.error: BaseException | None = None
        self.changed = threading.Condition()

    @property
    def wanted(self) -> bool:
        return bool(self.owners)

    def _progress(self, fraction: float, note: str) -> None:
        if not self.wanted:
            raise Stopped(f"nobody wants {self.key!r} any more")
        with self.changed:
            self.fraction, self.note = min(max(fraction, 0.0), 1.0), note
            self.changed.notify_all()

    def _end(self, state: State, error: BaseException | None = None) -> None:
        with self.changed:
            self.state, self.error = state, error
            if state == "done":
                self.fraction = 1.0
            self.changed.notify_all()

    def wait(self, timeout: float) -> None:
        """Return after the job's next step, or its end, or ``timeout`` seconds."""
        with self.changed:
            if self.state not in ("done", "failed", "stopped"):
                self.changed.wait(timeout)


class Queue:
    """Jobs by key, run one at a time on a worker thread in the order first asked."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()
        self._line: deque[Job] = deque()
        self._worker: threading.Thread | None = None
        self.runs = 0  # jobs started (for tests and benchmarks)

    def submit(self, key: Hashable, work: Callable[[Progress], object], *, owner: str) -> Job:
        """The job of ``key``, wanted by ``owner``: the one waiting or running (``work`` is not
        used then), else a new one at the end of the line."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None or job.state in ("done", "failed", "stopped"):
                job = Job(key, work)
                self._jobs[key] = job
                self._jobs.move_to_end(key)
                self._line.append(job)
                while len(self._jobs) > KEPT:
                    oldest = next(iter(self._jobs))
                    if self._jobs[oldest].state in ("waiting", "running"):
                        break
                    del self._jobs[oldest]
                if self._worker is None or not self._worker.is_alive():
                    self._worker = threading.Thread(
                        target=self._run, name="explorer-preparing", daemon=True
                    )
                    self._worker.start()
            job.owners.add(owner)
            return job

    def job(self, key: Hashable) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def status(self, job: Job) -> Status:
        with self._lock:
            ahead = 0
            if job.state == "waiting" and job in self._line:
                ahead = self._line.index(job) + (1 if self._running() else 0)
        with job.changed:
            note = job.note
            if job.state == "waiting" and ahead:
                note = f"waiting for {ahead} other preparation{'s' if ahead > 1 else ''}"
            return Status(job.state, job.fraction, note, ahead, job.error)

    def _running(self) -> bool:
        return any(j.state == "running" for j in self._jobs.values())

    def drop(self, key: Hashable, owner: str) -> None:
        """``owner`` no longer wants the job of ``key``: without owners, a waiting job leaves
        the line and a running one stops at its next step (keeping what it finished)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                return
            job.owners.discard(owner)
            if not job.owners and job.state == "waiting":
                self._line.remove(job)
                job._end("stopped")

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._line:
                    self._worker = None
                    return
                job = self._line.popleft()
                job.state = "running"
                self.runs += 1
            try:
                job.work(job._progress)
            except Stopped:
                job._end("stopped")
            except BaseException as exc:  # the asking page shows it; the worker goes on
                job._end("failed", exc)
            else:
                job._end("done")


@lru_cache(maxsize=1)
def shared_queue() -> Queue:
    """The process's one queue, shared by every session of the app."""
    return Queue()
