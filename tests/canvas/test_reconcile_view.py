"""The reconcile view: drafts the code suggests have shipped, with their evidence, to accept or reject."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.plan import PlanScreen
from testkit import run_cli
from testkit.canvas import canvas, node_file, ready, until

pytestmark = pytest.mark.anyio


WISHLIST_CODE = {
    "src/wishlist.py": "def add_to_wishlist(user, product):\n    return {'user': user, 'product': product}\n\n\n"
                       "class Wishlist:\n    pass\n",
    "src/routes.py": "from flask import Flask\napp = Flask(__name__)\n\n\n@app.route('/wishlist')\n"
                     "def wishlist_page():\n    return 'wishlist'\n",
    "web/components/Wishlist.tsx": "export function Wishlist() { return <ul>saved products</ul>; }\n",
    "tests/test_wishlist.py": "from src.wishlist import add_to_wishlist\n\n\ndef test_wishlist():\n"
                              "    assert add_to_wishlist(1, 2)\n",
}


async def test_reconcile_view_lists_evidence_and_applies_one(demo_plan, tmp_path):
    for rel, text in WISHLIST_CODE.items():
        (demo_plan / rel).parent.mkdir(parents=True, exist_ok=True)
        (demo_plan / rel).write_text(text)
    expected = run_cli("reconcile", "--json", cwd=demo_plan).json["result"]["suggestions"]
    shipped = [s["id"] for s in expected if s["verdict"] == "shipped"]
    assert shipped == ["SHOP-73"]
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: app.screen.query("#reconcile-list")
                    and app.screen.query_one("#reconcile-list").option_count == len(expected))
        listing = app.screen.query_one("#reconcile-list")
        assert {o.id for o in listing.options} == {s["id"] for s in expected}
        assert listing.highlighted_option.id == "SHOP-73"  # shipped first
        side = str(app.screen.query_one("#reconcile-detail").render())
        assert "web/components/Wishlist.tsx" in side and "route" in side
        await pilot.press("a")
        await until(pilot, lambda: "status: done" in node_file(demo_plan, "SHOP-73").read_text())
        assert "evidence" in node_file(demo_plan, "SHOP-73").read_text()
        await until(pilot, lambda: "applied" in str(listing.get_option("SHOP-73").prompt))
        await pilot.press("escape")
        assert isinstance(app.screen, PlanScreen)
