"""The Evaluate page's preset pickers (AppTest): a preset fills A's or B's settings and shows its
source and claim; an A/B of ours against a preset says whether the questions agree."""

from __future__ import annotations

from explorer.evaluation.presets import preset
from tests.test_evaluate_page import BUNDLED, assert_ok, open_page, questions


def test_the_picker_fills_a_and_b_and_shows_the_claim() -> None:
    at = open_page(query_set=questions("refund-policy.md"))
    picker = at.selectbox(key="ab_B_preset")
    assert picker.value == ""
    picker.set_value("openai-800-400").run()
    assert_ok(at)
    assert at.selectbox(key="ab_B_splitter").value == "fixed"
    assert at.selectbox(key="ab_B_unit").value == "tokens"
    assert at.number_input(key="ab_B_size_exact").value == 800
    assert at.number_input(key="ab_B_overlap_exact").value == 400
    captions = "\n".join(c.value for c in at.caption)
    assert "below\\-average recall" in captions or "below-average recall" in captions
    assert "Smith & Troynikov" in captions.replace("\\&", "&")
    at.selectbox(key="ab_A_preset").set_value("langchain-1000-200").run()
    assert_ok(at)
    assert at.selectbox(key="ab_A_splitter").value == "langchain-recursive"
    assert at.selectbox(key="ab_A_unit").value == "chars"
    assert at.number_input(key="ab_A_size_exact").value == 1000
    # a change after the pick is noted beside the claim
    at.number_input(key="ab_B_size_exact").set_value(700).run()
    assert_ok(at)
    assert "changed since" in "\n".join(c.value for c in at.caption)


def test_an_a_b_of_ours_against_a_preset_says_whether_the_questions_agree() -> None:
    at = open_page(query_set=[q for q in BUNDLED if q["doc"] == "refund-policy.md"])
    at.selectbox(key="ab_A_preset").set_value("ours").run()
    at.selectbox(key="ab_B_preset").set_value("openai-800-400").run()
    for side in ("A", "B"):  # the claim is about chunking: both sides with BM25, no model
        at.session_state[f"ab_{side}_retriever"] = "bm25"
    at.run()
    at.button(key="ab_run").click().run()
    assert_ok(at)
    said = [m.value for m in [*at.info, *at.success, *at.warning] if "published claim" in m.value]
    assert len(said) == 1
    assert any(v in said[0] for v in ("agrees", "no detectable difference", "disagrees", "mixed"))
    # judged on the measures the claim names, and it says what the verdict rests on
    assert "rests on" in said[0] or "no measure it names differs detectably" in said[0]
    readings = next(d.value for d in at.dataframe if "read at" in d.value.columns)
    assert {"precision@5", "iou@5", "recall@5"} <= set(readings["measure"])
    assert "equal k" in set(readings["read at"])
    summary = next(
        d.value
        for d in at.dataframe
        if "measure" in d.value.columns and "mrr@5" in set(d.value["measure"])
    )
    measures = list(summary["measure"])
    assert "mrr@5" in measures and "rows cut" in measures and "cohesion" in measures
    assert preset("openai-800-400").expectation is not None
