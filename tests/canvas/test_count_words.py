"""Driven with Pilot: counts, verdicts and hints read as words (one draft, no target, three priorities)."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import PickPrompt
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from testkit import node, write_plan
from testkit.canvas import canvas, ready, until

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_reconcile_header_counts_one_draft_in_the_singular(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Checkout", release="R1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and app.screen.ran
                    and app.screen.query_one("#reconcile-list").option_count == 1, timeout=60)
        summary = str(app.screen.query_one("#reconcile-summary").render())
        assert "1 draft checked" in summary, summary
        assert "(s)" not in summary


@pytest.mark.slow
async def test_a_forecast_with_no_target_says_its_finish_date_once(demo_plan, tmp_path):
    project = demo_plan / ".leafwise" / "project.yaml"
    project.write_text(project.read_text().replace(", target: 2027-01-15", ""))  # R1 moves, with no target
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen)
                    and any((o.id or "").startswith("forecast:") for o in app.screen.query_one("#progress-list").options))
        rows = {o.id: o.prompt.plain for o in app.screen.query_one("#progress-list").options
                if (o.id or "").startswith("forecast:")}
        row = rows["forecast:R1"]
        assert "finish ~" in row, rows
        date = row.split("finish ~", 1)[1].split()[0]
        assert row.count(date) == 1, row
        assert row.rstrip().endswith("no target"), row


@pytest.mark.slow
async def test_the_priority_picker_names_its_three_choices_not_ids(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("SHOP-44")
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, PickPrompt))
        hint = app.screen.query_one("#prompt-input").placeholder
        assert "id" not in hint.split(), hint
        assert all(p in hint for p in ("high", "normal", "low")), hint
        await pilot.press("escape")
        app.screen.reveal("SHOP-4")
        await pilot.press("m")  # a node picker keeps its own hint
        await until(pilot, lambda: isinstance(app.screen, PickPrompt))
        assert app.screen.query_one("#prompt-input").placeholder == "type to narrow: id or words"
