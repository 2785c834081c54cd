"""The one progress callback every long step takes."""

from __future__ import annotations

from collections.abc import Callable

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
