"""Driven with Pilot: plan text in a dialog never pushes the person's controls off the screen.

A cloned plan's decision question of 60 lines drew its own numbered "options" where the dialog's real
option list should be: the list sat 60 rows below a 30-row screen, so the person pressed 1 on what the
planted text said option 1 was. A title of 40 lines did the same to the cancel dialog's reason field.
"""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import ChoicePrompt, ConfirmPrompt, PickPrompt, TextPrompt
from testkit import node, write_plan
from testkit.canvas import canvas, open_blocked, ready, until
from textual.containers import Vertical
from textual.geometry import Region
from textual.widgets import Input, OptionList, Static

pytestmark = pytest.mark.anyio

FORGED = "Which store?\n\n" + "\n".join(f" {i}  Keep the current setup (safe)" for i in (1, 2))
TALL = "\n".join(["·"] * 60)
WIDE = "Ｗ" * 300  # 600 cells on one line
SHAPES = {
    "tall": lambda text: f"{text}\n{TALL}\nend",
    "blank lines": lambda text: text + "\n" * 80 + "end",
    "wide": lambda text: f"{text} {WIDE}",
    "line separators": lambda text: text + "\u2028" * 80 + "end",
    "braille blanks": lambda text: text + "\u2800" * 3000 + " end",
    "em spaces": lambda text: text + "\u2003" * 3000 + " end",
}


def on_screen(app, widget) -> bool:
    """Drawn whole: inside the dialog's box (which clips what does not fit) and inside the screen."""
    region = widget.region
    box = app.screen.query_one(Vertical).content_region
    size = app.screen.size
    return (region.height > 0 and box.contains_region(region) and region.bottom <= size.height
            and region.right <= size.width)


def in_sight(app) -> str:
    """The words of the dialog's plan text that are drawn now (not scrolled out of its box)."""
    box = app.screen.query_one(".prompt-body")
    text = box.query_one(".prompt-question", Static)
    lines = text.render_lines(Region(0, int(box.scroll_y), text.size.width, box.size.height))
    return " ".join(" ".join(line.text for line in lines).split())


def controls(app) -> list:
    screen = app.screen
    found = list(screen.query(OptionList)) + list(screen.query(Input))
    hints = [hint for hint in screen.query(Static).filter(".prompt-hint") if hint.display]
    return found + hints[-1:]


def assert_controls_shown(app, what: str) -> None:
    shown = controls(app)
    assert shown, what
    off = [f"{type(w).__name__} at {w.region}" for w in shown if not on_screen(app, w)]
    assert not off, f"{what}: {off} on a {app.screen.size} screen"


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_a_planted_decision_or_title_never_hides_the_real_options_and_fields(tmp_path, shape, size):
    grow = SHAPES[shape]
    option = grow("Keep the current setup") + " and drop the production database"
    root = write_plan(tmp_path / "repo", [node("T-1", grow("Payments"), "blocked", release="R1",
                                               blocked_reason=grow("waiting"),
                                               decision={"question": grow(FORGED), "options": [option, "Delete backups"],
                                                         "asked_by": "claude-1"}),
                                          node("T-2", grow("Invoices"), "blocked", release="R1",
                                               blocked_reason=grow("waiting"))])
    app = canvas(root, tmp_path)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        listing = await open_blocked(app, pilot)
        for row, key, dialog in (("T-1", "a", ChoicePrompt), ("T-2", "u", ConfirmPrompt), ("T-1", "x", TextPrompt),
                                 ("T-2", "e", TextPrompt), ("T-1", "w", TextPrompt)):
            listing.highlighted = listing.get_option_index(row)
            await pilot.press(key)
            await until(pilot, lambda: isinstance(app.screen, dialog), what=f"{key}: {dialog.__name__}")
            await pilot.pause(0.1)
            assert_controls_shown(app, f"{shape}, key {key}")
            if key == "a":  # the option chosen is confirmed shown whole, the controls still there
                await pilot.press("1")
                await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt), what="the answer's confirmation")
                await pilot.pause(0.1)
                assert_controls_shown(app, f"{shape}, confirming option 1")
                seen = in_sight(app)
                assert "and drop the production database" in seen, f"{shape}: the option's end unseen"
                if shape in ("braille blanks", "em spaces", "blank lines"):
                    assert "blanks⟩" in seen, f"{shape}: {seen}"
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, (ChoicePrompt, ConfirmPrompt, TextPrompt)))


@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_every_dialog_keeps_its_controls_on_an_80_by_24_screen(tmp_path, shape):
    grow = SHAPES[shape]
    root = write_plan(tmp_path / "repo", [node("T-1", "Payments", "draft", release="R1")])
    app = canvas(root, tmp_path)
    dialogs = [TextPrompt(grow("Title"), grow("Prompt"), value="x"),
               ChoicePrompt(grow("Title"), grow("Question"), [grow("one"), grow("two"), "three"]),
               ConfirmPrompt(grow("Title"), [grow("line"), grow("line")]),
               PickPrompt(grow("Title"), [(i, grow(f"T-{i}")) for i in range(30)], prompt=grow("Prompt"))]
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        for dialog in dialogs:
            app.push_screen(dialog)
            await until(pilot, lambda: app.screen is dialog)
            await pilot.pause(0.1)
            assert_controls_shown(app, f"{shape}, {type(dialog).__name__}")
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is not dialog)
