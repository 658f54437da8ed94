"""A person confirms the verdict they read (h22g, issue 22). The reconcile view reads verdicts again on a
`verify` journal line; a verdict file a pull replaced writes none, so the view kept showing the old
one, and `a` confirmed the new one unseen: the leaf was completed with evidence the person never read
(here another agent's, quoting other lines that hold too). `a` now reads the file first: a verdict that
changed since it was shown is shown again, and nothing is decided.

The canvas through Pilot with its real watcher; the verdicts recorded by the real CLI as agents."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from leafwise.canvas.screens.reconcile import ReconcileScreen
from testkit import node, node_data, run_cli, write_plan
from testkit.canvas import canvas, live, notices, until
from testkit.repos import commit_all, write_files

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CODE = {"pkg/export.py": 'def export_orders_as_csv(orders):\n    """Write every order as one CSV row."""\n'
                         '    return [",".join(map(str, o)) for o in orders]\n'}


@pytest.fixture(autouse=True)
def person(monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "Pat Person")
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)


async def test_a_verdict_replaced_since_it_was_shown_is_not_confirmed_unseen(tmp_path: Path):
    root = tmp_path / "repo"
    write_files(root, CODE)
    write_plan(root, [node("T-1", "Orders", release="R1"), node("T-2", "Export orders as CSV", parent="T-1")])
    project = root / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + "settings: {reconcile: {confirm: person}}\n")
    commit_all(root)
    res = run_cli("verify", "T-2", "--verdict", "shipped", "--evidence", "pkg/export.py:1-2", "--quote",
                  'def export_orders_as_csv(orders): """Write every order as one CSV row."""', "--agent", "bot-1",
                  cwd=root)
    assert res.code == 0, res.stderr
    app = canvas(root, tmp_path, watch=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await live(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and app.screen.ran, what="the view")
        listing = app.screen.query_one("#verified-list")
        await until(pilot, lambda: listing.display and listing.option_count == 1, what="the verdict", timeout=20)
        await until(pilot, lambda: listing.has_focus, what="the focus on the verdict waiting")
        # a pull brings another agent's verdict on T-2: other lines, which hold too; no journal line here
        path = root / ".leafwise" / "verdicts" / "T-2.json"
        replaced = json.loads(path.read_text())
        replaced["agent"] = "mallory"
        replaced["quotes"][0].update(start=3, end=3, text='return [",".join(map(str, o)) for o in orders]')
        await asyncio.to_thread(path.write_text, json.dumps(replaced))
        await pilot.press("a")
        await until(pilot, lambda: any("changed since it was shown" in n for n in notices(app)),
                    what="the view to say the verdict changed", timeout=10)
        await pilot.pause(1)
        assert node_data(root, "T-2")["status"] == "draft"
        await until(pilot, lambda: "mallory" in str(listing.get_option_at_index(0).prompt), what="shown again")
        await pilot.press("a")  # the person read it: now it is theirs to confirm
        await until(pilot, lambda: node_data(root, "T-2")["status"] == "done", what="confirmed", timeout=20)
