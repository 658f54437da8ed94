"""The board on the demo plan, driven with Pilot: `<` on a blocked card, the cursor after a move, g/G, and
cards cut with an ellipsis on a small terminal."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.board import BoardScreen
from testkit.canvas import canvas as make
from testkit.canvas import answer_prompt, idle, node_file, notices, open_view, ready, until

pytestmark = pytest.mark.anyio


async def board(app, pilot, column: str, card: str | None = None):
    listing = await open_view(app, pilot, "K", BoardScreen, f"board-{column}")
    listing.focus()
    await pilot.pause()
    if card is not None:
        listing.highlighted = listing.get_option_index(card)
        await pilot.pause()
    return listing


@pytest.mark.slow
async def test_back_from_blocked_is_unblock_said_once_and_the_cursor_follows_the_card(demo_plan, tmp_path,
                                                                                       monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    app = make(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await board(app, pilot, "blocked", "SHOP-52")  # blocked from draft
        before = len(app.notices)
        await pilot.press("less_than_sign")
        await answer_prompt(app, pilot, "")  # the optional note for the agent, as u asks: none
        await until(pilot, lambda: "status: draft" in node_file(demo_plan, "SHOP-52").read_text())
        await until(pilot, lambda: app.focused is not None and app.focused.id == "board-draft")
        said = notices(app)[before:]
        assert said and all("in progress" not in n for n in said), said
        assert any(n.startswith("Unblock SHOP-52:") and "→ draft" in n for n in said), said
        listing = app.screen.query_one("#board-draft")
        assert listing.highlighted_option.id == "SHOP-52"
        assert app.screen.selected().id == "SHOP-52"


async def test_g_and_G_jump_to_the_first_and_last_card(demo_plan, tmp_path):
    app = make(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        listing = await board(app, pilot, "draft")
        assert listing.option_count > 3
        await pilot.press("G")
        last = listing.highlighted
        await pilot.press("end")
        assert last == listing.highlighted and last > 0
        await pilot.press("g")
        assert listing.highlighted == 0


async def test_a_cut_card_title_ends_with_an_ellipsis_at_80_by_24(demo_plan, tmp_path):
    title = "Place order with bank transfer or cash on delivery"  # SHOP-41, in progress
    app = make(demo_plan, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        listing = await board(app, pilot, "in-progress")
        await until(pilot, lambda: listing.size.height > 0)  # laid out
        await idle(pilot)
        lines = [listing.render_line(y).text.rstrip(" ▁▂▃▄▅▆▇█") for y in range(listing.size.height)]
        at = next(i for i, line in enumerate(lines) if line.strip().startswith("SHOP-41"))
        shown = [lines[at + 1].strip(), lines[at + 2].strip()]
        assert shown[-1].endswith("…"), lines
        words = " ".join(shown)[:-1].split()
        assert words and title.startswith(" ".join(words)), shown
        assert len(" ".join(words)) < len(title)
        assert not lines[at + 3].strip() or lines[at + 3].strip().startswith("SHOP-"), lines  # two title lines


def test_cards_sort_by_priority_then_id_number(tmp_path):
    """CLK-4 before CLK-10 (ids by number, not as text); high before normal before low."""
    from leafwise.canvas.model.state import PlanState
    from leafwise.canvas.screens.board import board_cards
    from leafwise.store.paths import find_root
    from testkit import node, write_plan

    root = write_plan(tmp_path, [node("CLK-1", "Epic", release="R1"), node("CLK-10", "Ten", parent="CLK-1"),
                                 node("CLK-4", "Four", parent="CLK-1"), node("CLK-2", "Two", parent="CLK-1",
                                                                              priority="low"),
                                 node("CLK-30", "Thirty", parent="CLK-1", priority="high")], prefix="CLK")
    drafts = [n.id for n in board_cards(PlanState.load(find_root(explicit=root)), None)["draft"]]
    assert drafts == ["CLK-30", "CLK-4", "CLK-10", "CLK-2"]
