"""What the Evaluate page's two runs (the A/B and the sweep) share: the run button, the one
message of a run that stopped, and percentages."""

from __future__ import annotations

import streamlit as st

from explorer.errors import ExplorerError


def run_button(label: str, key: str, *, ready: bool) -> bool:
    """The primary button that starts a run; disabled unless ``ready``. Whether it was clicked."""
    return bool(st.button(label, key=key, type="primary", disabled=not ready))


def run_failed(exc: Exception) -> str:
    """A run that stopped, in one message (a typed error's own, or a bug's type and text)."""
    if isinstance(exc, ExplorerError):
        return str(exc)
    return f"The run stopped: {type(exc).__name__}: {exc}"


def pct(x: float) -> str:
    return f"{x:.0%}"
