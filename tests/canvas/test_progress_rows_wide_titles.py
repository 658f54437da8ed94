"""Driven with Pilot: a title in the progress view takes its column's cells, never its row's counts.

A cloned plan's epic titled in 30 fullwidth letters (60 cells in a 32-character column) pushed its
row's own counts ('0/2 done  1 blocked') off a 100-column screen, the title free to say '2/2 done'.
"""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.progress import ProgressScreen
from testkit import node, write_plan
from testkit.canvas import canvas, open_view, ready

pytestmark = pytest.mark.anyio

TITLES = {"fullwidth": "Ｐａｙｍｅｎｔｓ" * 4, "cjk": "支払い機能の実装と検証" * 3, "ascii": "Payments " * 6}


@pytest.mark.parametrize("title", sorted(TITLES))
async def test_every_epic_and_release_row_keeps_its_counts_in_view(tmp_path, title):
    text = TITLES[title]
    root = write_plan(tmp_path / "repo", [node("T-1", text + " 2/2 done", "draft", release="R1"),
                                           node("T-2", "Leaf", "blocked", parent="T-1", blocked_reason="x"),
                                           node("T-3", "Leaf", "draft", parent="T-1")])
    project = root / ".leafwise" / "project.yaml"
    project.write_text(project.read_text().replace("Release R1", text), encoding="utf-8")
    app = canvas(root, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(app, pilot)
        listing = await open_view(app, pilot, "p", ProgressScreen, "progress-list", more_than=3)
        await pilot.pause(0.3)
        rows = [line.text for line in listing.render_lines(listing.region.reset_offset)]
        epic = next(r for r in rows if "T-1" in r)
        release = next(r for r in rows if " R1 " in f" {r} " or r.lstrip().startswith("R1"))
        for row in (epic, release):
            assert "0/2 done" in row and "1 blocked" in row, row
