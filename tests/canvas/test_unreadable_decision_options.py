"""A cloned plan's blocked node whose decision holds `options: 5` (or text, or a mapping) crashed the canvas
when a person opened the blocked view (`b`, TypeError: 'int' object is not iterable; h22h). The canvas reads
options through the one rule `decide` uses (`schema.decision_options`): nothing to choose, nothing crashes.
The real app, driven by Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import write_plan
from testkit.canvas import canvas, idle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("options", ["5", "abc", "{a: 1, b: 2}", "[[1, 2], {x: 1}]"])
async def test_the_blocked_view_and_triage_take_unreadable_options(tmp_path: Path, options: str) -> None:
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    path.write_text(path.read_text().replace("status: draft", "status: blocked\nblocked_reason: asked")
                    + f"decision:\n  question: Which?\n  options: {options}\n")
    app = canvas(root, tmp_path)
    async with app.run_test() as pilot:
        await idle(pilot)
        for key in ("down", "down", "b", "t"):
            await pilot.press(key)
            await idle(pilot)
        assert app.is_running and app.return_code is None
