"""Driven with Pilot: a toast ends at the screen's edge, so no line behind it shows a stray "…" beside it,
and text a notice cuts short is cut after a whole word, with one "…"."""

from __future__ import annotations

import pytest
from testkit import node, node_data, write_plan
from testkit.canvas import answer_prompt, canvas, idle, ready, until

pytestmark = pytest.mark.anyio
# Textual exports no Toast class: its widgets are found by their type name, a public selector.
TOAST = "Toast"


async def test_a_wrapped_toast_leaves_nothing_of_the_feed_showing_at_its_right(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        await ready(app, pilot)
        app.notify("Delete my account (GDPR) → done, Customer profile → done, Accounts and sign-in → done",
                   title="Cascade")
        await until(pilot, lambda: app.screen.query(TOAST) and app.screen.query_one(TOAST).region.height > 0)
        await idle(pilot)
        toast = app.screen.query_one(TOAST)
        assert toast.region.height >= 4  # the title and two wrapped lines, at least
        assert toast.region.right == app.size.width, toast.region
        for y in range(toast.region.y, toast.region.bottom):
            widget, _ = app.screen.get_widget_at(app.size.width - 1, y)
            assert widget is toast, (y, widget)


LONG = "Let customers save any product to a wishlist from its page and see their saved products later"


async def test_a_long_title_in_an_undo_notice_is_cut_after_a_whole_word(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-1", LONG, release="R1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-1")
        await pilot.pause()
        await pilot.press("R")
        await answer_prompt(app, pilot, "Wishlist")
        await until(pilot, lambda: node_data(root, "T-1")["title"] == "Wishlist")
        await until(pilot, lambda: app.undo_stack)
        await pilot.press("ctrl+z")
        await until(pilot, lambda: any(n.title == "Undone" for n in app.notices))
        said = next(n.message for n in app.notices if n.title == "Undone")
        quoted = said.split("title back to “", 1)[1].split("”", 1)[0]
        assert quoted.endswith("…") and quoted.count("…") == 1, said
        assert LONG.startswith(quoted[:-1]) and LONG[len(quoted) - 1] == " ", said  # a whole word before "…"
