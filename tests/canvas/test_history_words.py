"""Driven with Pilot: a doc written in the canvas or the CLI reads as one short sentence in the history."""

from __future__ import annotations

import pytest
from leafwise.canvas.widgets.node_detail import NodeDetail
from testkit import node, run_cli, write_plan
from testkit.canvas import canvas, ready, tree, until

pytestmark = pytest.mark.anyio


async def test_a_doc_reads_linked_then_wrote_with_its_path(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "reviewer")
    root = write_plan(tmp_path / "repo", [node("T-9", "Docs page", release="R1")])
    assert run_cli("write-doc", "T-9", "--content", "# First", cwd=root).code == 0
    assert run_cli("write-doc", "T-9", "--content", "# Second", cwd=root).code == 0
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-9")
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "T-9" and detail.query_one("#detail-history").display)
        history = detail.query_one("#detail-history").render().plain
        assert "reviewer linked docs/T-9.md" in history, history
        assert "reviewer wrote docs/T-9.md" in history, history
        assert "changed docs" not in history and "a doc" not in history, history
