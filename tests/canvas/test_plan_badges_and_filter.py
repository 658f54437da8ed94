"""Driven with Pilot on real plans: the "invalid plan" badge, a notice when a node file
disappears, the exact id first in the filter, focus after the filter, history wording, the epic board, and
a block by the person on someone else's task journaled as the person."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.problems import ProblemsScreen
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.canvas.widgets.node_detail import NodeDetail, describe_event
from leafwise.canvas.widgets.plan_header import PlanHeader
from leafwise.commands.events import Event
from testkit import journal, node, run_cli, write_plan
from testkit.canvas import answer_prompt, canvas, idle, node_file, notices, ready, tree, until

pytestmark = pytest.mark.anyio

HOSTILE = "[bold]B[/bold] \x1b[31mred \u202eRTL\u2066 " + "long " * 60


def header_text(app) -> str:
    return app.screen.query_one(PlanHeader).render().plain


async def test_invalid_plan_badge_counts_problems_opens_the_view_and_goes_when_fixed(tmp_path):
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1", depends_on=["T-99"]),
                      node("T-3", "Other", parent="T-1", depends_on=["T-98"])])
    app = canvas(root, tmp_path, watch=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: "invalid plan: 2 problems (v)" in header_text(app))
        text = header_text(app)
        await pilot.click(PlanHeader, offset=(text.index("invalid plan") + 2, 0))  # the badge is a link
        await until(pilot, lambda: isinstance(app.screen, ProblemsScreen))
        assert "invalid plan: 2 problems" in header_text(app)  # every view's header carries it
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen))
        # Fixing the files by hand (as an editor would) takes the badge away, live.
        for nid, title in (("T-2", "Leaf"), ("T-3", "Other")):
            text = node_file(root, nid).read_text()
            node_file(root, nid).write_text("\n".join(line for line in text.splitlines()
                                                      if not line.startswith("depends_on")) + "\n")
        await until(pilot, lambda: "invalid plan" not in header_text(app) and "problem" not in header_text(app))


async def test_a_valid_plan_has_no_badge(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.plan_check is not None)
        assert app.plan_check.errors == 0 and "problem" not in header_text(app)


async def test_a_deleted_node_file_is_announced(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path, watch=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.live)
        node_file(demo_plan, "SHOP-19").unlink()  # as `rm` or a `git checkout` of another branch would
        await until(pilot, lambda: "SHOP-19" not in app.state.nodes)
        await until(pilot, lambda: any("SHOP-19 left the plan" in n for n in notices(app)))
        message = next(n for n in notices(app) if "SHOP-19 left the plan" in n)
        assert "Sign in with Google" in message and "deleted" in message
        # Many at once: the first few by name and one notice counting them all, per batch the watcher
        # delivers (all four in one on a quiet machine; a loaded one may split them): each one named.
        gone = ("SHOP-16", "SHOP-17", "SHOP-18", "SHOP-44")
        for nid in gone:
            node_file(demo_plan, nid).unlink()
        await until(pilot, lambda: not set(gone) & set(app.state.nodes))
        await until(pilot, lambda: all(any(nid in n for n in notices(app)) for nid in gone))
        assert any("node files were deleted" in n for n in notices(app)) or \
            all(any(f"{nid} left the plan" in n for n in notices(app)) for nid in gone)


async def test_an_exact_id_ranks_first_in_the_filter(tmp_path):
    root = tmp_path / "repo"
    # T-10…T-19 come first in plan order (release R1); the exact T-1 is in R2.
    write_plan(root, [node(f"T-{i}", f"Task {i}", release="R1") for i in range(10, 20)]
               + [node("T-1", "The one", release="R2")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("slash", *"t-1")
        await until(pilot, lambda: tree(app).query_text == "t-1")
        t = tree(app)
        matched = [k for k in t.visible_keys() if not k.startswith("@")]
        assert matched[0] == "T-1" and t.cursor_key == "T-1", matched
        assert len(matched) == 11
        await pilot.press("0")  # "t-10" is exact too: T-10 first, the cursor on it
        await until(pilot, lambda: tree(app).cursor_key == "T-10")
        await pilot.press("backspace", "backspace")  # "t-": no exact id, plan order again
        await until(pilot, lambda: tree(app).query_text == "t-")
        assert [k for k in tree(app).visible_keys() if not k.startswith("@")][0] == "T-10"


@pytest.mark.slow
async def test_keys_keep_working_after_filter_ctrl_u_and_escape(demo_plan, tmp_path):
    """The tree keeps the keys after a filter, ctrl+u and escape, three times in a row."""
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        for _ in range(3):
            await pilot.press("slash", *"pay")
            await until(pilot, lambda: tree(app).query_text == "pay")
            await pilot.press("ctrl+u", *"ship")
            await until(pilot, lambda: tree(app).query_text == "ship")
            await pilot.press("escape")
            await until(pilot, lambda: not tree(app).query_text and not app.screen.query_one("#filter-bar").display)
            await idle(pilot)
            t = tree(app)
            assert app.focused is t
            before = t.cursor_line
            await pilot.press("j", "j")
            assert t.cursor_line == before + 2
            await pilot.press("k")
            assert t.cursor_line == before + 1
            await pilot.press("n")
            await until(pilot, lambda: t.cursor_key == "SHOP-18")  # the demo's next task
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, ProgressScreen))
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, PlanScreen) and app.focused is tree(app))


def test_history_events_are_worded_by_kind():
    said = {
        "add": ({"command": "add", "node": "T-9", "changes": {"status": [None, "draft"]}, "title": "x",
                 "parent": "T-1"}, "added under T-1"),
        "complete": ({"command": "complete", "node": "T-9", "changes": {"status": ["in-progress", "done"]},
                      "summary": "done by the book"}, "completed — done by the book"),
        "start": ({"command": "start", "node": "T-9", "changes": {"status": ["draft", "in-progress"]},
                   "cascade": [{"id": "T-1", "from": "draft", "to": "in-progress"}]}, "started ⇡ T-1 in progress"),
        "block": ({"command": "block", "node": "T-9", "changes": {"status": ["draft", "blocked"]},
                   "reason": "keys"}, "blocked: keys"),
        "unblock": ({"command": "unblock", "node": "T-9", "changes": {"status": ["blocked", "draft"]}},
                    "unblocked"),
        "edit": ({"command": "edit", "node": "T-9", "changes": {"title": ["a", "b"], "priority": [None, "high"]}},
                 "edited: renamed to “b”, priority high"),
        "decide": ({"command": "decide", "node": "T-9", "changes": {}, "choice": "A: yes"}, "decided: A: yes"),
    }
    for kind, (event, expected) in said.items():
        assert describe_event(Event.read(event), "T-9").plain == expected, kind
    # An event on another node that moved this one by a cascade.
    assert describe_event(Event.read(said["start"][0]), "T-1").plain == "T-9 started → this in progress  (cascade)"
    hostile = describe_event(Event.read({"command": "block", "node": "T-9", "changes": {}, "reason": HOSTILE}), "T-9").plain
    assert "\x1b" not in hostile and "\u202e" not in hostile and len(hostile) < 140


@pytest.mark.slow
async def test_history_in_the_detail_pane_reads_as_sentences(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Epic", release="R1")])
    for args in (("add", "Write the thing", "--parent", "T-1"), ("start", "T-2", "--agent", "claude-1"),
                 ("complete", "T-2", "--summary", "Wrote it", "--agent", "claude-1")):
        assert run_cli(*args, cwd=root).code == 0, args
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-2")
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "T-2" and detail.query_one("#detail-history").display)
        history = detail.query_one("#detail-history").render().plain
        assert "added under T-1" in history and "started" in history and "completed — Wrote it" in history
        assert "None" not in history and "done done" not in history and "→ draft" not in history
        assert tree(app).reveal("T-1")
        await until(pilot, lambda: detail.key == "T-1" and detail.query_one("#detail-history").display)
        epic = detail.query_one("#detail-history").render().plain
        assert "T-2 started → this in progress" in epic and "T-2 completed → this done" in epic


@pytest.mark.slow
async def test_no_age_reads_now_ago(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        # A fresh heartbeat, a second old by the display clock, on the held task.
        assert run_cli("start", "SHOP-18", "--agent", "claude-9", cwd=demo_plan).code == 0
        await app.absorb(__import__("leafwise.store.watch", fromlist=["PlanChanges"]).PlanChanges(
            nodes={"SHOP-18"}, journal=True, claims=True))
        assert tree(app).reveal("SHOP-18")
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "SHOP-18" and "held by" in detail.query_one("#detail-fields")
                    .render().plain)
        fields = detail.query_one("#detail-fields").render().plain
        assert "now ago" not in fields
        await pilot.press("A")
        await until(pilot, lambda: app.screen.query("#agents-list") and
                    app.screen.query_one("#agents-list").option_count > 0)
        lanes = " ".join(str(app.screen.query_one("#agents-list").get_option_at_index(i).prompt)
                         for i in range(app.screen.query_one("#agents-list").option_count)
                         if app.screen.query_one("#agents-list").get_option_at_index(i) is not None)
        assert "now ago" not in lanes and "since now" not in lanes


@pytest.mark.slow
async def test_epic_board_from_the_tree_and_back_to_the_whole_plan(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("SHOP-26")  # a leaf under SHOP-2 Product catalog
        await pilot.press("ctrl+k")
        await until(pilot, lambda: isinstance(app.screen, BoardScreen) and app.screen.scope == "SHOP-2")
        board = app.screen
        in_epic = {n.id for n in app.state.plan.descendants("SHOP-2")}
        shown = {o.id for status in ("draft", "in-progress", "blocked", "done")
                 for o in board.query_one(f"#board-{status}").options if o.id and not o.id.startswith("+")}
        assert shown and shown <= in_epic
        assert "SHOP-2" in board.query_one("#board-summary").render().plain
        await pilot.press("e")  # from an epic back to the whole plan
        await until(pilot, lambda: board.scope is None)
        await pilot.press("l")  # in progress: SHOP-26 is there; e scopes to its epic
        listing = board.query_one("#board-in-progress")
        listing.highlighted = listing.get_option_index("SHOP-26")
        await pilot.press("e")
        await until(pilot, lambda: board.scope == "SHOP-2")


async def test_a_block_by_the_person_on_bobs_task_is_journaled_as_the_person(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Epic", release="R1"),
                      node("T-2", "Bob's task", "in-progress", parent="T-1", assignee="bob")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-2")
        await pilot.press("B")
        await answer_prompt(app, pilot, "Waiting for the API keys")
        await until(pilot, lambda: app.state.nodes["T-2"].status == "blocked")
    blocks = [e for e in journal(root) if e["command"] == "block"]
    assert len(blocks) == 1 and blocks[0]["actor"] == "pat" and blocks[0]["node"] == "T-2"
    assert blocks[0]["holder"] == "bob"  # the dialog said it takes bob's hold; the journal says so too
    assert 'assignee: "bob"' in node_file(root, "T-2").read_text()  # the task stays bob's


def test_an_agent_blocking_rings_the_terminal_and_raises_a_desktop_notification(tmp_path):
    """The real canvas in a real terminal (a pty): an agent's block reaches it as the bell, OSC 9 and OSC 777,
    written through the driver Textual started (the app learns it from `get_driver_class`)."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import subprocess
    import sys
    import termios
    import time

    root = write_plan(tmp_path / "repo", [node("T-1", "Pick a database")])
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    env = {**os.environ, "LEAFWISE_SETTINGS": str(tmp_path / "settings.json"), "LEAFWISE_USER": "ana",
           "TERM": "xterm-256color"}
    env.pop("LEAFWISE_ROOT", None)
    proc = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"], cwd=root, env=env,
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    seen = b""

    def read_until(predicate, timeout: float) -> bool:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(seen):
                return True
            ready_fds, _, _ = select.select([master], [], [], 0.1)
            if ready_fds:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    return predicate(seen)
        return predicate(seen)

    try:
        assert read_until(lambda out: b"Pick a database" in out, 30), seen[-2000:]
        # the header's live mark: the watcher runs (it starts after the first frames)
        assert read_until(lambda out: "● live".encode() in out, 30), seen[-2000:]
        assert run_cli("block", "T-1", "--reason", "which database?", "--agent", "claude-1", cwd=root).code == 0
        title = b"Leafwise: an agent needs you"
        assert read_until(lambda out: b"\x1b]9;" + title + b"\x07" in out, 20), seen[-2000:]
        assert b"\x1b]777;notify;Leafwise;" + title in seen and b"\x07" in seen
    finally:
        os.write(master, b"q")
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
