"""Driven with Pilot: a refused board move's fix reads as the person would act on it, in the canvas: no
`--root` the canvas added, no agent's `start --next --agent` line."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.board import BoardScreen
from testkit import node, write_plan
from testkit.canvas import canvas, notices, open_view, ready, until

pytestmark = pytest.mark.anyio


async def test_a_refused_move_to_in_progress_suggests_no_root_and_gives_the_persons_step(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo with space", [node("T-1", "Keys", release="R1"),
                                                     node("T-2", "Pay", release="R1", depends_on=["T-1"])])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        listing = await open_view(app, pilot, "K", BoardScreen, "board-draft")
        listing.focus()
        listing.highlighted = listing.get_option_index("T-2")
        await pilot.pause()
        await pilot.press("greater_than_sign")
        await until(pilot, lambda: any("not moved" in n for n in notices(app)))
        said = next(n for n in notices(app) if "not moved" in n)
        assert "T-2 waits on T-1" in said, said
        assert "--root" not in said and str(root) not in said, said
        assert "--agent" not in said and "start --next" not in said and "finish T-1 first" in said, said
