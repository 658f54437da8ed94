"""Every JSON read holds finite numbers only (`store/reader.py` `load_json`).

`Infinity` and `NaN` were refused, but a number too large for a float (`1e999`, `-4e400`,
`0.1e310`) parses to infinity without spelling either: `leafwise bulk` stored
`summary: 1e999` as the text `inf` and `tags: [1e999]` as `Infinity`, and any planted journal line,
claim, cycle ledger or settings file could carry one to the code that reads it. Generated: overflowing
literals in every position, for every kind the reader parses; and the bulk reproduction through the
real CLI.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.store import reader
from testkit import node_data, run_cli, write_plan

KINDS = [k for k in vars(reader).values() if isinstance(k, reader.Kind)]


@st.composite
def overflowing(draw) -> str:
    sign = draw(st.sampled_from(("", "-")))
    whole = draw(st.integers(1, 9))
    fraction = draw(st.sampled_from(("", ".5", ".000001", "." + "9" * 20)))
    exponent = draw(st.integers(309, 100_000))
    e = draw(st.sampled_from(("e", "E", "e+", "E+")))
    return f"{sign}{whole}{fraction}{e}{exponent}"


@st.composite
def placed(draw) -> str:
    number = draw(overflowing())
    return draw(st.sampled_from((number, f"[{number}]", f'{{"ttl": {number}}}', f'{{"a": [1, {{"b": {number}}}]}}',
                                 f'[{{"id": "T-1", "set": {{"summary": {number}}}}}]')))


@settings(max_examples=300, deadline=None)
@given(text=placed(), kind=st.sampled_from(KINDS))
def test_a_number_too_large_to_be_finite_is_refused_by_every_kind(text, kind):
    with pytest.raises(reader.Refused) as refused:  # as not finite, or before that as too large or too deep
        reader.load_json(text, kind)
    assert refused.value.code in ("json_error", "too_large", "too_deep")


def test_finite_numbers_still_read():
    assert reader.load_json('{"a": 1.5, "b": -2e3, "c": 1e308, "d": 10, "e": 0.0}', reader.EVENT) == \
        {"a": 1.5, "b": -2000.0, "c": 1e308, "d": 10, "e": 0.0}


def test_bulk_refuses_an_overflowing_number_and_writes_nothing(tmp_path):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    before = node_data(root, "T-1")
    res = run_cli("bulk", "-", cwd=root, stdin=json.dumps([{"id": "T-1", "set": {"summary": "x"}}]).replace(
        '"x"', "1e999"))
    assert res.code != 0, res.stdout
    assert "finite" in res.stdout + res.stderr
    assert node_data(root, "T-1") == before
