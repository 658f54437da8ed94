"""The canvas with its watcher on, while other processes (the real CLI) change the plan."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from leafwise.canvas.widgets.activity_feed import ActivityFeed
from leafwise.canvas.widgets.next_task import NextTaskBar
from leafwise.store import PlanPaths, load_plan
from testkit import run_cli
from testkit.canvas import canvas, live, node_file, notices, row_text, tree, until

pytestmark = pytest.mark.anyio


async def test_a_node_added_by_another_process_appears_and_flashes(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        widget = tree(app)
        assert widget.reveal("SHOP-18")  # opens SHOP-1 › SHOP-15
        await until(pilot, lambda: widget.cursor_key == "SHOP-18")
        res = run_cli("add", "Export my data as JSON (GDPR)", "--parent", "SHOP-15", "--json", cwd=demo_plan)
        assert res.code == 0, res.stderr
        new_id = res.json["result"]["id"]
        await until(pilot, lambda: new_id in widget.visible_keys())
        assert new_id in widget.flashing
        assert widget.cursor_key == "SHOP-18"  # the cursor stayed where the person left it
        assert "Export my data" in row_text(app, new_id)
        assert "1/4" not in row_text(app, "SHOP-15") and "50%" in row_text(app, "SHOP-15")


async def test_an_external_complete_announces_the_cascade(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        widget = tree(app)
        expanded_before = set(widget.expanded)
        res = run_cli("complete", "SHOP-18", "--summary", "Accounts are deleted after a 14-day grace period.",
                      cwd=demo_plan)
        assert res.code == 0, res.stderr
        await until(pilot, lambda: any(n.startswith("Cascade") for n in notices(app)))
        message = next(n for n in notices(app) if n.startswith("Cascade"))
        assert message == ("Cascade: Delete my account (GDPR) → done, Customer profile → done, "
                           "Accounts and sign-in → done")
        await until(pilot, lambda: "100%" in row_text(app, "SHOP-1"))
        assert app.state.nodes["SHOP-1"].status == "done"
        assert expanded_before <= widget.expanded
        feed = app.screen.query_one(ActivityFeed)
        await until(pilot, lambda: any(e.node == "SHOP-18" and e.command == "complete"
                                       for e in feed.events))


async def test_the_next_task_line_follows_the_agents(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        bar = app.screen.query_one(NextTaskBar)
        first = bar.next_id
        assert first == "SHOP-18"
        assert run_cli("start", first, "--agent", "claude-9", cwd=demo_plan).code == 0
        await until(pilot, lambda: bar.next_id not in (None, first))
        expected = run_cli("next", "--json", cwd=demo_plan).json["result"]["task"]["id"]
        assert bar.next_id == expected
        shown = str(bar.render())
        assert "@claude-9" in shown and first in shown  # who holds what


async def test_a_new_release_in_project_yaml_adds_its_group(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        assert run_cli("release", "add", "R4", "--title", "Marketplace", cwd=demo_plan).code == 0
        await until(pilot, lambda: "@R4" in tree(app).visible_keys())
        assert tree(app).visible_keys().index("@R4") > tree(app).visible_keys().index("@R3")


async def test_a_broken_file_is_reported_not_hidden(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        node_file(demo_plan, "SHOP-73").write_text("id: SHOP-73\ntitle: [broken\n")
        await until(pilot, lambda: any(p.node == "SHOP-73" for p in app.state.plan.problems))
        assert "SHOP-73" not in app.state.nodes
        assert any("SHOP-73.yaml does not load" in n for n in notices(app))
        await until(pilot, lambda: "invalid plan: 1 problem (v)" in str(app.screen.query_one("#header").render()))


BURST = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    nodes = Path(sys.argv[1]) / ".leafwise" / "nodes"
    ids = sys.argv[2].split(",")
    for round_ in range(int(sys.argv[3])):
        for nid in ids:
            path = nodes / f"{nid}.yaml"
            lines = [l for l in path.read_text().splitlines() if not l.startswith("title:")]
            lines.insert(1, f"title: Burst {round_} of {nid}")
            tmp = nodes / f".lw-burst-{nid}.tmp"
            tmp.write_text("\\n".join(lines) + "\\n")
            os.replace(tmp, path)
""")


async def test_a_burst_of_writes_ends_with_the_files_on_screen(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        ids = sorted(app.state.nodes)[:30]
        proc = subprocess.Popen([sys.executable, "-c", BURST, str(demo_plan), ",".join(ids), "10"])
        moved = 0
        while proc.poll() is None:  # the screen keeps answering keys during the burst
            await pilot.press("j")
            moved += 1
            await pilot.pause(0.01)
        assert proc.returncode == 0
        on_disk = load_plan(PlanPaths(demo_plan), use_cache=False)
        await until(pilot, lambda: all(app.state.nodes[i].title == on_disk.nodes[i].title for i in ids))
        assert all(app.state.nodes[i].title == f"Burst 9 of {i}" for i in ids)
        for key in tree(app).visible_keys():
            if key in on_disk.nodes:
                assert on_disk.nodes[key].title[:20] in row_text(app, key)
