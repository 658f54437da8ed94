"""Every text box prefilled from plan text shows it inert, and confirming it unchanged writes nothing.

A title, a blocked reason, a description or an assignee may hold ESC sequences, bidi overrides and
zero-width characters (plan files are untrusted). Textual's `Input` draws its value as it is, so the
canvas must hand it the inert text: the test reads the box's value and the line it draws, then
confirms it as shown (the file must not change) and then changes it (what was typed is saved).
"""

from __future__ import annotations

import pytest
from leafwise.store import load_plan
from leafwise.store.paths import find_root
from testkit import journal, node, write_plan
from testkit.canvas import canvas, idle, ready, until
from textual.widgets import Input

pytestmark = pytest.mark.anyio

HOSTILE = "esc \x1b[2J clear \x1b[31mred \u202eevil\u202c zw\u200bx"
RAW = ("\x1b", "\u202e", "\u202c", "\u200b")


def data(root, node_id) -> dict:
    return load_plan(find_root(explicit=root)).nodes[node_id].data


def hostile_plan(tmp_path):
    return write_plan(tmp_path / "repo", [
        node("T-1", HOSTILE, "blocked", blocked_reason=HOSTILE, blocked_from="draft",
             blocked_since="2026-11-20T09:00:00Z", description=HOSTILE, assignee=HOSTILE),
    ])


async def open_box(app, pilot, key: str) -> Input:
    app.screen.reveal("T-1")
    await pilot.pause()
    await pilot.press(key)
    await until(pilot, lambda: app.screen.query("#prompt-input"))
    await pilot.pause()
    return app.screen.query_one("#prompt-input", Input)


@pytest.mark.parametrize("key,field", [("R", "title"), ("e", "blocked_reason"), ("D", "description"),
                                       ("w", "assignee")])
async def test_a_prefilled_box_shows_plan_text_inert_and_an_unchanged_confirm_writes_nothing(
        tmp_path, monkeypatch, key, field):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = hostile_plan(tmp_path)
    file = root / ".leafwise" / "nodes" / "T-1.yaml"
    before = file.read_text()
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        box = await open_box(app, pilot, key)
        assert not any(c in box.value for c in RAW), repr(box.value)
        assert "␛[2J" in box.value and "<U+202E>" in box.value and "<U+200B>" in box.value
        drawn = "".join(box.render_line(y).text for y in range(box.size.height))
        assert not any(c in drawn for c in RAW), repr(drawn)
        assert "␛[2J" in drawn
        await pilot.press("enter")  # confirmed as shown
        await until(pilot, lambda: not app.screen.query("#prompt-input"))
        await idle(pilot)  # a write the confirm started would be done by now
        assert file.read_text() == before
        assert journal(root) == []

        box = await open_box(app, pilot, key)
        await pilot.press("end", *"!")  # changed: what was typed is saved, stand-ins and all
        typed = box.value
        await pilot.press("enter")
        await until(pilot, lambda: data(root, "T-1").get(field) == typed.strip())
