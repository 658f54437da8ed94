"""A lax field's planted value of any kind is shown or ignored, never an internal error.

Found in session 17's attack (h22c): the loader keeps a lax field's value whatever its kind (`priority:
urgent` ranks as normal, by design), but `store/schema.py` `marked_priority` looked the value up in a
dict: a committed `priority: [high]` or `priority: {a: 1}` made `leafwise list` and `export markdown`
answer internal_error (TypeError: unhashable type) for the whole plan. Generated over the YAML kinds a
value can take, for each lax field, through the commands that list and export every node.
"""

from __future__ import annotations

import itertools

import pytest
from leafwise.store.schema import FIELDS, marked_priority
from testkit import run_cli, run_cli_in_process, write_plan

VALUES = ("[high]", "[]", "{a: 1}", "{}", "[[1]]", "[{a: b}]", "5", "-1", "1.5", ".nan", "true", "null", "''",
          "high", "HIGH", "'low'")
LAX = [f.name for f in FIELDS if not f.strict and f.name not in ("created", "updated", "blocked_since")]
COMMANDS = (("list",), ("list", "--json"), ("export", "markdown"), ("export", "csv"), ("export", "json"),
            ("tree",), ("next",), ("show", "T-1"), ("context",), ("progress",))


@pytest.mark.parametrize(("field", "value"), list(itertools.product(LAX, VALUES)))
def test_a_lax_field_of_any_kind_never_breaks_a_listing(tmp_path, field, value):
    root = write_plan(tmp_path / "plan", {
        "T-1": f"id: T-1\ntitle: Task\nstatus: draft\nrelease: R1\n{field}: {value}\n",
        "T-2": "id: T-2\ntitle: Other\nstatus: draft\nrelease: R1\n"})
    for args in COMMANDS:
        res = run_cli_in_process(*args, cwd=root)
        assert "internal_error" not in res.stdout + res.stderr and "Traceback" not in res.stdout + res.stderr, \
            (args, (res.stdout + res.stderr)[-600:])


@pytest.mark.parametrize("value", [["high"], {"a": 1}, set(), 5, None, float("nan"), "high", "normal", "low"])
def test_marked_priority_takes_any_value(value):
    assert marked_priority(value) == (value if value in ("high", "low") else None)


def test_the_clone_reproduction_through_the_cli(tmp_path):
    root = write_plan(tmp_path / "plan", {"T-1": "id: T-1\ntitle: Task\nstatus: draft\nrelease: R1\npriority: [high]\n"})
    for args in (("list",), ("export", "markdown")):
        res = run_cli(*args, cwd=root)
        assert res.code == 0 and "T-1" in res.stdout, res.stdout + res.stderr
