"""A context row (an epic shown above its tasks that sit in another release's group) reads as its
epic, dimmed with the epic's own release, and stands for that epic in the detail pane.

The demo plan has one: SHOP-28 (`release: R3`) under SHOP-25 in SHOP-2 "Product catalog" (R1).
"""

from __future__ import annotations

import pytest
from leafwise.canvas.model.tree_layout import context_key
from leafwise.canvas.widgets.node_detail import NodeDetail
from testkit.canvas import canvas, ready, row_text, tree, until

pytestmark = pytest.mark.anyio


async def test_the_context_row_reads_as_its_epic_and_shows_it(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        ctx = context_key("R3", "SHOP-2")
        widget = tree(app)
        assert widget.visible_keys()[-2:] == [ctx, "SHOP-28"]
        text = row_text(app, ctx)
        assert text.split() == ["▾", "Product", "catalog", "(epic", "in", "R1)", "SHOP-2"], text  # no raw key
        assert widget.move_cursor_to(ctx)
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "SHOP-2", what="the detail pane on the epic")
        assert widget.cursor_key == ctx  # the cursor stays on the context row, not on the epic's own
        await pilot.press("j")
        await until(pilot, lambda: detail.key == "SHOP-28", what="the detail pane on the moved leaf")
