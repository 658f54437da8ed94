"""The canvas when the kernel gives no inotify watch (the user's instances all in use): it follows the
files on watchfiles' polling watcher instead of saying "Live updates stopped". The refusal is stood in
for in this process only (exhausting the user's real instances would blind every other test's watcher)."""

from __future__ import annotations

import pytest
import watchfiles.main
from testkit import run_cli
from testkit.canvas import canvas, live, tree, until

pytestmark = pytest.mark.anyio


def refused(*_args):
    raise RuntimeError("Error creating recommended watcher: Too many open files (os error 24)")


async def test_a_node_added_by_another_process_appears_without_inotify(demo_plan, tmp_path, monkeypatch):
    monkeypatch.setattr(watchfiles.main, "RustNotify", refused)
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        res = run_cli("add", "Export my data as JSON (GDPR)", "--parent", "SHOP-15", "--json", cwd=demo_plan)
        assert res.code == 0, res.stderr
        new_id = res.json["result"]["id"]
        widget = tree(app)
        widget.reveal("SHOP-15")
        await until(pilot, lambda: new_id in app.state.nodes, what="the polled add", timeout=15)
        assert app.live, "the canvas still says it follows the files"
