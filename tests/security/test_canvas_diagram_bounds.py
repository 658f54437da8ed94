"""The canvas shows the head of each diagram and long text field, as of each doc (`canvas/widgets/node_detail.py` `head`, `headed`).

Found in session 17's attack (h22c): the pane previewed a doc (200 lines, 12,000 characters) but put a
diagram's whole text in one widget. Four diagrams of 99,000 short lines (792 KB, within the docs'
800,000-character cap per answer) took the canvas 42 s (40.7 CPU s) and 1.75 GB, a key answered after
23 s. Generated shapes (many short lines, few very long ones, many medium ones) through the real canvas
(Pilot): the pane holds at most the preview of each, says how much is left, and a key is answered.
"""

from __future__ import annotations

import time

import pytest
from leafwise.canvas.widgets.node_detail import PREVIEW_CHARS, PREVIEW_LINES
from testkit import write_plan

SHAPES = [(99_000, 2), (3, 60_000), (4_000, 40), (250, 199), (150, 10)]  # (lines, characters a line)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.mark.parametrize(("lines", "width"), SHAPES)
async def test_the_diagram_pane_holds_each_diagrams_head_only(tmp_path, lines, width):
    from leafwise.canvas.widgets.node_detail import NodeDetail
    from testkit.canvas import canvas, ready, tree, until

    diagrams = [f"diagrams/d{i}.mmd" for i in range(4)]
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1",
                                          "diagrams": diagrams},
                                         {"id": "T-2", "title": "Other", "status": "draft", "release": "R1"}])
    (root / ".leafwise" / "diagrams").mkdir()
    text = ("x" * (width - 1) + "\n") * lines
    for rel in diagrams:
        (root / ".leafwise" / rel).write_text(text)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        tree(app).move_cursor_to("T-1")
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "T-1" and detail.query_one("#detail-diagrams").display,
                    timeout=60, what="the diagrams shown")
        shown = detail.query_one("#detail-diagrams").render().plain
        whole = len(text.rstrip("\n")) <= PREVIEW_CHARS and lines <= PREVIEW_LINES
        assert len(shown.splitlines()) <= 4 * (PREVIEW_LINES + 2), len(shown.splitlines())
        assert len(shown) <= 4 * (PREVIEW_CHARS + 200), len(shown)
        assert ("more line(s): leafwise doc T-1" in shown) == (not whole)
        started = time.monotonic()
        await pilot.press("down")
        await pilot.pause()
        assert time.monotonic() - started < 1.5
        assert app.is_running


FIELDS = {"summary": "draft", "description": "draft", "blocked_reason": "blocked", "question": "blocked"}


@pytest.mark.parametrize("field", sorted(FIELDS))
async def test_a_long_text_field_shows_its_head(tmp_path, field):
    """The same for the text fields the pane shows on lines of their own: a summary, description or
    blocked reason of 16,000 short lines each cost the canvas 1.7 CPU s and 70 MB (three: 4.8 s)."""
    from leafwise.canvas.widgets.node_detail import NodeDetail
    from testkit.canvas import canvas, ready, tree, until

    text = "a\n" * 16_000
    body = {"id": "T-1", "title": "Task", "status": FIELDS[field], "release": "R1", "blocked_reason": "r"}
    if field == "question":
        body["decision"] = {"question": text, "options": ["yes\n" * 3_000, "no"], "asked_by": "bot"}
        body["blocked_reason"] = "Decision needed: " + text
    else:
        body[field] = text
    root = write_plan(tmp_path / "plan", [body, {"id": "T-2", "title": "Other", "status": "draft",
                                                 "release": "R1"}])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        tree(app).move_cursor_to("T-1")
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "T-1", timeout=60, what="the node shown")
        await pilot.pause()
        where = "#detail-blocked" if FIELDS[field] == "blocked" else "#detail-summary"
        shown = detail.query_one(where).render().plain
        assert len(shown.splitlines()) <= 3 * (PREVIEW_LINES + 4), len(shown.splitlines())
        assert "more line(s): leafwise show T-1" in shown
        started = time.monotonic()
        await pilot.press("down")
        await pilot.pause()
        assert time.monotonic() - started < 1.5


@pytest.mark.parametrize("field", ["blocked_reason", "question"])
async def test_the_blocked_views_side_panel_shows_the_head(tmp_path, field):
    """The blocked view's side panel put the whole reason, question and options in one widget too."""
    from testkit.canvas import canvas, open_blocked, ready

    text = "a\n" * 16_000
    body = {"id": "T-1", "title": "Task", "status": "blocked", "release": "R1", "blocked_reason": text}
    if field == "question":
        body["decision"] = {"question": text, "options": ["yes\n" * 3_000, "no"], "asked_by": "bot"}
        body["blocked_reason"] = "Decision needed: " + text
    root = write_plan(tmp_path / "plan", [body, {"id": "T-2", "title": "Other", "status": "draft",
                                                 "release": "R1"}])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "T-1")
        await pilot.pause()
        shown = app.screen.query_one("#blocked-detail").render().plain
        assert len(shown.splitlines()) <= 4 * (PREVIEW_LINES + 4), len(shown.splitlines())
        assert "more line(s): leafwise show T-1" in shown
