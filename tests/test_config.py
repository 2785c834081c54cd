"""One configuration: its default is the recommended one, it round-trips through flat JSON and
``key=value`` specs without loss, and bad values fail at construction."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.chunking.records import RECURSIVE_LEVELS, SPLITTERS, ChunkSettings
from explorer.config import CARRY, CONTEXT_HEADERS, DENSE_SOURCES, FLAT_KEYS, RETRIEVERS, Config
from explorer.errors import SettingsError


def test_the_default_is_the_recommended_configuration() -> None:
    c = Config()
    assert (c.chunking.splitter, c.chunking.unit, c.chunking.size, c.chunking.overlap) == (
        "structure", "tokens", 256, 64,
    )  # fmt: skip
    assert (c.retriever, c.dense, c.heading_prefix, c.carry) == ("hybrid", "passages", False, CARRY)
    assert (c.merge, c.table_headers, c.fill, c.neighbours, c.section) == (
        True,
        True,
        True,
        0,
        False,
    )
    assert ChunkSettings() == c.chunking  # the chunk settings' own default agrees


@st.composite
def configs(draw: st.DrawFn) -> Config:
    size = draw(st.integers(1, 2000))
    return Config().replace(
        splitter=draw(st.sampled_from([s for s in SPLITTERS if s != "semantic"])),
        unit=draw(st.sampled_from(["chars", "words", "tokens"])),
        size=size,
        overlap=draw(st.integers(0, size - 1)),
        separators=tuple(draw(st.lists(st.sampled_from(RECURSIVE_LEVELS), unique=True))),
        percentile=draw(st.integers(1, 99)),
        retriever=draw(st.sampled_from(RETRIEVERS)),
        dense=draw(st.sampled_from(DENSE_SOURCES)),
        heading_prefix=draw(st.booleans()),
        context_header=draw(st.sampled_from(CONTEXT_HEADERS)),
        carry=draw(st.floats(0, 1, allow_nan=False)),
        neighbours=draw(st.integers(0, 9)),
        section=draw(st.booleans()),
        merge=draw(st.booleans()),
        table_headers=draw(st.booleans()),
        fill=draw(st.booleans()),
    )


@given(configs())
def test_flat_json_and_specs_round_trip_without_loss(config: Config) -> None:
    flat = config.to_json()
    assert set(flat) == {*FLAT_KEYS, "splitter_version"}
    assert all(not isinstance(v, dict) for v in flat.values())  # flat
    assert Config.from_json(json.loads(json.dumps(flat))) == config
    assert Config.from_spec(config.to_spec()) == config
    assert Config.from_json(flat).carry == config.carry  # a number, not on/off


def test_an_overlap_belongs_to_its_size() -> None:
    assert Config().replace(size=100).chunking.overlap == 25
    assert Config().replace(size=100, overlap=0).chunking.overlap == 0
    assert Config().replace(carry=0.5).chunking.overlap == 64  # other settings keep it
    assert Config.from_spec("size=40").chunking.overlap == 10


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("retriever=magic", "unknown retriever 'magic'"),
        ("carry=2", "carry must be between 0 and 1"),
        ("size=10,overlap=10", "overlap (10) must be smaller than size (10)"),
        ("fill=maybe", "fill: cannot read 'maybe' (expected on or off)"),
        ("colour=red", "unknown setting 'colour'"),
        ("size", "write settings as key=value"),
        ("neighbours=-1", "neighbours must be 0 or more"),
    ],
)
def test_bad_settings_fail_with_a_message_that_says_what_to_do(spec: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Config.from_spec(spec)
