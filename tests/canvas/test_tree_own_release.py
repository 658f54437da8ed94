"""The tree groups a node under its own release: a leaf moved to R2 (`edit --set release=R2`, another
process, the canvas watching) leaves its R1 epic and shows under R2 below a context row of that epic;
each group's rows hold the leaves its tally counts."""

from __future__ import annotations

import pytest
from leafwise.canvas.model.tree_filter import run_filter
from leafwise.canvas.model.query import Query
from leafwise.canvas.model.tree_layout import context_key, row_path
from testkit import node, run_cli, write_plan
from testkit.canvas import canvas, live, tree, until

pytestmark = pytest.mark.anyio


def plan(root):
    write_plan(root, [node("T-1", "Checkout", release="R1"), node("T-2", "Cart", parent="T-1"),
                      node("T-3", "Gift cards", parent="T-1"), node("T-4", "Later epic", release="R2"),
                      node("T-5", "Wishlist", parent="T-4")], releases=("R1", "R2"))


async def test_a_leaf_moved_to_r2_shows_under_r2(tmp_path):
    plan(tmp_path)
    app = canvas(tmp_path, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        widget = tree(app)
        widget.expand("T-1")
        await until(pilot, lambda: "T-3" in widget.visible_keys())
        assert {r.key: r.path for r in widget.rows}["T-3"] == ("@R1", "T-1", "T-3")
        res = run_cli("edit", "T-3", "--set", "release=R2", cwd=tmp_path)
        assert res.code == 0, res.stderr
        ctx = context_key("R2", "T-1")
        await until(pilot, lambda: {r.key: r.path for r in widget.rows}.get("T-3") == ("@R2", ctx, "T-3"),
                    what="T-3 under R2")
        keys = widget.visible_keys()
        assert keys == ["@R1", "T-1", "T-2", "@R2", "T-4", ctx, "T-3"], keys  # T-4 collapsed, T-3 gone from R1
        state = app.state
        assert (state.group("R1").tally.total, state.group("R2").tally.total) == (1, 2)
        assert row_path(state, "T-3") == ("@R2", ctx, "T-3")
        found = run_filter(state, Query.parse("gift"))
        assert found.exact == () and {"@R2", ctx, "T-3"} <= found.visible and "@R1" not in found.visible
        # and back: the row returns under its epic in R1, the context row goes
        assert run_cli("edit", "T-3", "--set", "release=R1", cwd=tmp_path).code == 0
        await until(pilot, lambda: {r.key: r.path for r in widget.rows}.get("T-3") == ("@R1", "T-1", "T-3"),
                    what="T-3 back under R1")
        assert ctx not in widget.visible_keys()
