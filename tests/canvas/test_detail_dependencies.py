"""The detail pane counts open dependencies by the readiness rule (`commands.core.readiness`), as `next` does."""

from __future__ import annotations

import pytest
from leafwise.canvas.widgets.node_detail import NodeDetail
from testkit import node, run_cli, write_plan
from testkit.canvas import canvas, ready, tree, until

pytestmark = pytest.mark.anyio


async def test_a_dependency_on_a_missing_node_counts_as_open_as_start_refuses_it(tmp_path):
    root = write_plan(tmp_path / "repo", [node("D-1", "Epic", release="R1"), node("D-2", "Done", "done", parent="D-1"),
                                          node("D-3", "Waits", parent="D-1", depends_on=["D-2", "D-9"])], prefix="D")
    assert run_cli("start", "D-3", "--agent", "a", cwd=root).code != 0  # the CLI: D-9 is not closed
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        detail = app.screen.query_one(NodeDetail)
        assert tree(app).reveal("D-3")
        await until(pilot, lambda: detail.key == "D-3")
        rows = [option.prompt.plain for option in detail.query_one("#detail-links").options]
        assert "Depends on (1 open)" in rows  # D-2 is done; D-9, missing, is not met
        assert any(r.startswith("D-9") and "missing" in r for r in rows)
