"""A node file that does not load, in the canvas: the same problem and Fix whether it broke before or after it opened."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.problems import ProblemsScreen
from leafwise.store import find_root, load_plan
from testkit import node, write_plan
from testkit.canvas import canvas, node_file, notices, ready, until

pytestmark = pytest.mark.anyio

BROKEN = "id: {nid}\ntitle: [never closed\nstatus: draft\n"


def fix_lines(app) -> dict[str, str]:
    """The Fix line the problems view shows, by the node it names."""
    listing = app.screen.query_one("#problems-list")
    out = {}
    for index in range(listing.option_count):
        text = str(listing.get_option_at_index(index).prompt)
        for nid in ("T-2", "T-3"):
            if f"{nid}.yaml" in text:
                out[nid] = text.split("Fix: ", 1)[1].strip()
    return out


async def test_a_file_broken_before_and_one_broken_after_the_canvas_opened_get_the_same_fix(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1"),
                                          node("T-3", "Other", parent="T-1")])
    node_file(root, "T-2").write_text(BROKEN.format(nid="T-2"))
    app = canvas(root, tmp_path, watch=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.live)
        node_file(root, "T-3").write_text(BROKEN.format(nid="T-3"))  # read by the watcher, file by file
        await until(pilot, lambda: any(n.startswith(".leafwise/nodes/T-3.yaml does not load") for n in notices(app)))
        # What the canvas holds is what a fresh load by the store says about the same files.
        fresh = load_plan(find_root(explicit=root), use_cache=False)
        assert sorted(p.as_dict().items() for p in app.state.plan.problems) == \
            sorted(p.as_dict().items() for p in fresh.problems)
        toast = next(n for n in notices(app) if n.startswith(".leafwise/nodes/T-3.yaml"))
        fix_of = {p.node: p.fix for p in fresh.problems}
        assert toast.endswith(f"Fix: {fix_of['T-3']}")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ProblemsScreen) and len(fix_lines(app)) == 2)
        shown = fix_lines(app)
        assert shown == {"T-2": fix_of["T-2"], "T-3": fix_of["T-3"]}
        assert shown["T-2"].replace("T-2", "T-n") == shown["T-3"].replace("T-3", "T-n")
