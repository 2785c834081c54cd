"""The one progress callback every long step takes, and the one estimate of the time left."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

Progress = Callable[[float, str], None]
"""Called as ``progress(fraction_done, message)`` while a long step runs (0.0 to 1.0)."""


def quiet(fraction: float, message: str) -> None:
    """A progress callback that shows nothing."""


def scaled(progress: Progress, start: float, end: float, prefix: str = "") -> Progress:
    """``progress`` for a part of a longer run: fractions map into ``[start, end]``."""

    def inner(fraction: float, message: str) -> None:
        share = start + (end - start) * min(max(fraction, 0.0), 1.0)
        progress(share, f"{prefix}{message}")

    return inner


def duration(seconds: float) -> str:
    """A time span as a person reads it: ``"40 s"``, ``"12 min"``, ``"1.4 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


PRIOR_BATCHES = 8
"""How many batches' weight a :class:`Rate`'s ``batch_cost`` has against the run's own steps
(tests/test_embedding_estimate.py's two simulated machines pull it opposite ways: an idle one
with long texts wants it heavy, at its first steps; a loaded one, whose batches cost far more
than the prior says, light; both hold at 8, with little to spare)."""


class Rate:
    """Counts of a run of ``total`` items with the rate so far and an estimate of the time left
    (from the items done since the run started; none before the first is done)::

        rate = Rate(1200)
        ...
        progress(rate.fraction(done), f"embedding: {rate.note(done, 'passages')}")
        # "embedding: 300 of 1,200 passages · 70 a second · about 13 s left"

    With ``work`` (one cost per item, in the order the items are done), the time left is the
    work still to do at the work done a second so far: a run whose first items cost more than
    its last (the embedder's first batch is its longest) is not read as a slow run.

    With ``batch`` too (the items are done ``batch`` at a time, and each batch costs something
    whatever its items), the time left is learnt from the run's own batches: each step the
    seconds of the steps so far are fitted as ``a × work + b × batches`` (least squares, ``b``
    drawn towards ``batch_cost × a`` with the weight of :data:`PRIOR_BATCHES` batches), so a run
    whose batches cost the same however short their items (busy cores) and one whose cost is
    all in the items (a quiet machine) are both read right. Each call of :meth:`left` with a
    new count of items done is a step.
    """

    def __init__(
        self,
        total: int,
        *,
        work: Sequence[float] | None = None,
        batch: int | None = None,
        batch_cost: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = max(int(total), 0)
        self.clock = clock
        self.started = clock()
        self._work: list[float] | None = None
        if work is not None:
            if len(work) != self.total:
                raise ValueError(f"{len(work)} costs for {self.total} items")
            self._work = list(itertools.accumulate(max(float(w), 0.0) for w in work))
        if batch is not None and (batch < 1 or self._work is None):
            raise ValueError("batch needs work and must be at least 1")
        self.batch = batch
        self.batch_cost = max(float(batch_cost), 0.0)
        self._steps: list[tuple[int, float]] = [(0, self.started)]

    def elapsed(self) -> float:
        return max(self.clock() - self.started, 0.0)

    def per_second(self, done: int) -> float:
        """Items a second so far (0.0 before any is done)."""
        return done / max(self.elapsed(), 1e-6) if done > 0 else 0.0

    def work_fraction(self, done: int) -> float:
        """The share of the run's work the first ``done`` items were (their share of the
        items without ``work``)."""
        if self._work is None or not self._work or self._work[-1] <= 0:
            return self.fraction(done)
        if done <= 0:
            return 0.0
        whole = self._work_of(self.total) + self.batch_cost * self._batches(self.total)
        return (self._work_of(done) + self.batch_cost * self._batches(done)) / whole

    def _work_of(self, done: int) -> float:
        assert self._work is not None
        return self._work[min(done, self.total) - 1] if done > 0 else 0.0

    def _batches(self, done: int) -> int:
        return -(-min(done, self.total) // self.batch) if self.batch else 0

    def left(self, done: int) -> float | None:
        """Seconds still to go at the rate so far (None before the first item, or when done)."""
        if done <= 0 or done >= self.total or self.elapsed() <= 0:
            return None
        if self.batch is not None:
            return self._fitted_left(done)
        share = self.work_fraction(done)
        if share <= 0:
            return None
        return self.elapsed() * (1.0 - share) / share

    def _fitted_left(self, done: int) -> float:
        """The time left from ``seconds ≈ a × work + b × batches`` fitted over the steps so far
        (see the class)."""
        if done > self._steps[-1][0]:
            self._steps.append((done, self.clock()))
        ww = wb = bb = wt = bt = 0.0  # sums of products: work, batches, seconds
        for (d0, t0), (d1, t1) in itertools.pairwise(self._steps):
            w = self._work_of(d1) - self._work_of(d0)
            b = float(self._batches(d1) - self._batches(d0))
            ww, wb, bb = ww + w * w, wb + w * b, bb + b * b
            wt, bt = wt + w * (t1 - t0), bt + b * (t1 - t0)
        # the prior, PRIOR_BATCHES rows of (b - batch_cost × a)² = 0
        c, k = self.batch_cost, PRIOR_BATCHES
        a11, a12, a22 = ww + k * c * c, wb - k * c, bb + k
        det = a11 * a22 - a12 * a12
        a = (wt * a22 - a12 * bt) / det if det > 0 else 0.0
        b = (a11 * bt - a12 * wt) / det if det > 0 else 0.0
        if b < 0:  # all in the items
            a, b = (wt / ww if ww > 0 else 0.0), 0.0
        if a < 0:  # all in the batches
            a, b = 0.0, (bt / bb if bb > 0 else 0.0)
        work_left = self._work_of(self.total) - self._work_of(done)
        return a * work_left + b * (self._batches(self.total) - self._batches(done))

    def fraction(self, done: int) -> float:
        return min(done / self.total, 1.0) if self.total else 1.0

    def note(self, done: int, what: str = "") -> str:
        """``"300 of 1,200 passages · 70 a second · about 13 s left"`` (the rate and the time
        left once one item is done and while some are still to do)."""
        text = f"{done:,} of {self.total:,}" + (f" {what}" if what else "")
        left = self.left(done)
        if left is not None:
            rate = self.per_second(done)
            shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:,.1f}"
            text += f" · {shown} a second · about {duration(left)} left"
        return text


def time_left(fraction: float, elapsed: float) -> float | None:
    """Seconds still to go when ``fraction`` of a run took ``elapsed`` seconds, at the same pace
    (None at the very start, when the pace says nothing yet, and at the end)."""
    if fraction <= 0.02 or fraction >= 1.0 or elapsed < 1.0:
        return None
    return elapsed * (1.0 - fraction) / fraction


def timed(progress: Progress, *, clock: Callable[[], float] = time.monotonic) -> Progress:
    """``progress`` with the time left (:func:`time_left`) added to each message that does not
    give its own: the bar of an A/B, a sweep or a query set says how long it has to go."""
    started = clock()

    def inner(fraction: float, message: str) -> None:
        left = time_left(fraction, clock() - started)
        if left is not None and not message.endswith(" left"):
            message = f"{message} · about {duration(left)} left"
        progress(fraction, message)

    return inner
