"""The views built in the background after opening, the board's columns listed page by page, and the
footer that rebuilds only when its keys change: real app, real plan files."""

from __future__ import annotations

import pytest
from leafwise.canvas.app import PREBUILD_DELAY, PREBUILT_VIEWS
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.board import CARDS_SHOWN, BoardScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.canvas.widgets.footer import KeysFooter
from testkit import node, run_cli, write_plan
from testkit.canvas import canvas, idle, open_view, ready, until

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_views_built_in_the_background_show_the_plan_as_it_is_when_visited(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True, prebuild=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.prebuilt >= set(PREBUILT_VIEWS))
        assert isinstance(app.screen, PlanScreen)  # built unseen: the person still sees the tree
        # An agent blocks a draft after the views were built: the visit shows it.
        draft = next(n.id for n in app.state.nodes.values() if n.status == "draft" and not n.children)
        assert run_cli("block", draft, "--reason", "waiting for ops", cwd=demo_plan).code == 0
        await until(pilot, lambda: app.state.nodes[draft].status == "blocked")
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BlockedScreen))
        listing = app.screen.query_one("#blocked-list")
        await until(pilot, lambda: draft in {o.id for o in listing.options})
        await pilot.press("escape", "K")
        await until(pilot, lambda: isinstance(app.screen, BoardScreen))
        await until(pilot, lambda: draft in {o.id for o in app.screen.query_one("#board-blocked").options})
        assert draft not in {o.id for o in app.screen.query_one("#board-draft").options}
        await pilot.press("escape", "p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen) and app.screen.forecasts)


async def test_no_background_build_when_turned_off(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await pilot.pause(PREBUILD_DELAY + 0.2)  # nothing to wait for: past the moment a build would begin
        await idle(pilot)
        assert not app.prebuilt
        await open_view(app, pilot, "K", BoardScreen, "board-draft")


@pytest.mark.slow
async def test_a_long_column_lists_the_next_cards_as_the_cursor_reaches_its_end(tmp_path):
    count = CARDS_SHOWN * 2 + 5
    root = write_plan(tmp_path / "repo", [node(f"T-{i}", f"Task {i:03}") for i in range(1, count + 1)])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        column = await open_view(app, pilot, "K", BoardScreen, "board-draft")
        assert column.option_count == CARDS_SHOWN + 1  # and "+N more"
        assert f"+{count - CARDS_SHOWN} more" in str(column.get_option_at_index(CARDS_SHOWN).prompt)
        await pilot.press("end")  # the last listed card: the next ones are listed
        await until(pilot, lambda: column.option_count == 2 * CARDS_SHOWN + 1)
        assert f"+{count - 2 * CARDS_SHOWN} more" in str(column.get_option_at_index(2 * CARDS_SHOWN).prompt)
        for _ in range(CARDS_SHOWN):
            await pilot.press("j")
        await until(pilot, lambda: column.option_count == count)  # all listed: no "+N more" left
        assert column.highlighted == 2 * CARDS_SHOWN - 1
        await pilot.press("end")
        assert column.highlighted_option.id == app.screen.cards("draft")[-1].id


async def test_the_footer_is_rebuilt_only_when_its_keys_change(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_view(app, pilot, "b", BlockedScreen, "blocked-list", more_than=2)
        await idle(pilot)
        footer = app.screen.query_one(KeysFooter)
        assert any(getattr(k, "description", "") == "Unblock" for k in footer.children)
        listing = app.screen.query_one("#blocked-list")
        plain = next(o.id for o in listing.options if o.id and not app.state.nodes[o.id].data.get("decision"))
        listing.highlighted = listing.get_option_index(plain)
        await idle(pilot)
        same = list(footer.children)
        # Two rows whose keys are the same: the footer kept its widgets (no rebuild).
        others = [o.id for o in listing.options if o.id and o.id != plain
                  and not app.state.nodes[o.id].data.get("decision")]
        assert others, "the demo has more than one plainly blocked task"
        listing.highlighted = listing.get_option_index(others[0])
        await idle(pilot)  # a rebuild would be done by now (the decision row's below is, at once)
        assert list(footer.children) == same
        # A row with other keys (an open decision: no unblock) rebuilds it.
        decision = next(o.id for o in listing.options if o.id and app.state.nodes[o.id].open_decision)
        listing.highlighted = listing.get_option_index(decision)
        await idle(pilot)
        assert list(footer.children) != same
