"""While reconcile scans the code (its child process is slow), the person's keys work: Esc leaves the
view and q quits the canvas long before the scan could end, and quitting stops the scan's process."""

from __future__ import annotations

import time

import pytest
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from leafwise.commands.reconcile import worker
from testkit import node, process_gone, wait_until, write_plan
from testkit.canvas import canvas, ready, reconcile_list, until
from testkit.repos import commit_all, write_files

pytestmark = pytest.mark.anyio

KEY_BUDGET = 10.0  # seconds from a key to its effect: a loaded machine is slow, a key waiting for the 120 s scan slower


@pytest.fixture
def slow_scan(tmp_path, monkeypatch):
    """A plan whose reconcile scan sleeps 120 s in its child (the hook is read in the child only)."""
    monkeypatch.setenv(worker.DELAY_ENV, "120")
    monkeypatch.setenv("LEAFWISE_USER", "Pat Person")
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)
    root = tmp_path / "repo"
    write_files(root, {"pkg/export.py": "def export_orders_as_csv(orders):\n    return orders\n"})
    write_plan(root, [node("T-1", "Export orders as CSV", release="R1")])
    commit_all(root)
    return root


async def test_esc_and_q_work_while_reconcile_scans(slow_scan, tmp_path):
    app = canvas(slow_scan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and reconcile_list(app).loading
                    and worker.running(), what="the reconcile view scanning", timeout=30)
        pid = worker.running()[0]
        started = time.monotonic()
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen), timeout=KEY_BUDGET, what="Esc")
        assert time.monotonic() - started < KEY_BUDGET
        assert worker.running() == [pid], "leaving the view keeps the scan (its answer waits for the person)"
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen), timeout=KEY_BUDGET, what="r again")
        started = time.monotonic()
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, timeout=KEY_BUDGET, what="q")
        assert time.monotonic() - started < KEY_BUDGET
    wait_until(lambda: process_gone(pid), timeout=5, what="the scan's child ended with the canvas")
    assert worker.running() == []
