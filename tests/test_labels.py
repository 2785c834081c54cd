"""Words the app shows (issue 36.12): no hidden zero-width character inside a measure's name
("coverage@5") or anywhere in the pages' rendered strings, "+1 point" in the singular."""

from __future__ import annotations

from typing import Any

from streamlit.testing.v1 import AppTest

from tests.conftest import REPO
from ui.answers import signed_points
from ui.safe import md_escape, md_text
from ui.view_state import query_keys

INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}
APP = str(REPO / "app.py")


def test_a_measure_name_gets_no_hidden_character_and_an_address_still_does() -> None:
    for escape in (md_text, md_escape):
        assert not INVISIBLE & set(escape("coverage@5 and recall@10."))
        assert "\u2060" in escape("write to ann@host.example")  # kept from becoming a link


def test_points_are_singular_at_one() -> None:
    assert signed_points(1) == "+1 point"
    assert signed_points(-1.2) == "-1 point"
    assert signed_points(3) == "+3 points"
    assert signed_points(0.5, digits=1) == "+0.5 points"


def rendered(at: AppTest) -> list[str]:
    """Every string the run drew: texts, labels, help, captions, alerts, metric values."""
    out: list[str] = []

    def walk(node: Any) -> None:
        for attr in ("value", "label", "help", "body", "placeholder"):
            v = getattr(node, attr, None) if attr != "value" or hasattr(node, "proto") else None
            if isinstance(v, str):
                out.append(v)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def test_no_page_draws_a_hidden_zero_width_character() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["retriever"] = "bm25"  # the opening question answered without the model
    at.session_state[query_keys("refund-policy.md")[0]] = "How long do I have to ask for a refund?"
    at.run()
    assert not at.exception
    for page in ("app_pages/corpus.py", "app_pages/evaluate.py"):
        strings = rendered(at)
        assert len(strings) > 20
        hidden = [s for s in strings if INVISIBLE & set(s)]
        assert hidden == []
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    assert [s for s in rendered(at) if INVISIBLE & set(s)] == []
