"""ctrl+z takes back every kind of change a person makes in the canvas, through the core's commands.

Real app (Pilot), real plan files in tmp; each test acts from the keyboard, undoes, and reads the
files on disk and the journal: the undo ran the commands the CLI runs, as the person.
"""

from __future__ import annotations

import json

import pytest
from leafwise.canvas.model.undo import plan_undo, record_of
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.store import load_plan
from leafwise.store.paths import find_root
from testkit import journal, node, node_data, run_cli, write_plan
from testkit.canvas import answer_prompt, canvas, node_file, notices, open_blocked, open_view, ready, until

pytestmark = pytest.mark.anyio

SINCE = "2026-11-20T09:00:00Z"


def plan(tmp_path):
    """T-1 an epic in progress over T-2 (blocked, waiting for keys) and T-3 (done); T-4 a draft epic over T-5;
    T-6 a task waiting for a decision; T-7 an epic in progress over T-8 (its last open task)."""
    return write_plan(tmp_path / "repo", [
        node("T-1", "Checkout", "in-progress", release="R1"),
        node("T-2", "Card form", "blocked", parent="T-1", blocked_reason="waiting for the staging keys",
             blocked_from="in-progress", blocked_since=SINCE),
        node("T-3", "Cart page", "done", parent="T-1", summary="shipped"),
        node("T-4", "Search", release="R1"),
        node("T-5", "Search box", parent="T-4"),
        node("T-6", "Payment provider", "blocked", release="R1", blocked_reason="Decision needed: which provider?",
             blocked_from="draft", blocked_since=SINCE,
             decision={"question": "which provider?", "options": ["1: Stripe", "2: Adyen"], "asked_by": "claude-1",
                       "asked": SINCE}),
        node("T-7", "Emails", "in-progress", release="R2"),
        node("T-8", "Order email", "draft", parent="T-7"),
        node("T-9", "Receipt email", "done", parent="T-7", summary="sent"),
    ])


async def open_board(app, pilot, column: str, card: str):
    listing = await open_view(app, pilot, "K", BoardScreen, f"board-{column}")
    listing.focus()
    await pilot.pause()
    listing.highlighted = listing.get_option_index(card)
    return listing


async def undo(app, pilot, before: int) -> None:
    """ctrl+z, then wait until the undo has answered (a notice after the `before` ones)."""
    await until(pilot, lambda: app.undo_stack)
    await pilot.press("ctrl+z")
    await until(pilot, lambda: len(app.notices) > before and any(
        n.title.startswith(("Undone", "Undo")) for n in app.notices[before:]))
    await app.workers.wait_for_complete()


async def test_undo_a_complete_reopens_the_task_and_takes_back_its_cascade(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_board(app, pilot, "blocked", "T-2")
        await pilot.press("greater_than_sign")  # blocked → done: complete, with a summary
        await answer_prompt(app, pilot, "keys arrived, form done")
        await until(pilot, lambda: node_data(root, "T-1")["status"] == "done")  # the cascade closed the epic
        assert node_data(root, "T-2")["status"] == "done"
        events = len(journal(root))
        await undo(app, pilot, len(app.notices))
        assert app.notices[-1].title == "Undone", notices(app)[-1]
        assert "T-1 done → in progress" in app.notices[-1].message
        assert "T-2 blocked again" in app.notices[-1].message
        t2, t1 = node_data(root, "T-2"), node_data(root, "T-1")
        assert t1["status"] == "in-progress"
        assert t2["status"] == "blocked"
        assert t2["blocked_reason"] == "waiting for the staging keys"
        assert t2["blocked_from"] == "in-progress" and t2["blocked_since"] == SINCE
        assert t2.get("summary") is None
        taken_back = journal(root)[events:]
        assert [(e["command"], e["node"]) for e in taken_back] == [
            ("edit", "T-1"), ("edit", "T-2"), ("block", "T-2"), ("edit", "T-2")]
        assert {e["actor"] for e in taken_back} == {"pat"}
        assert run_cli("validate", cwd=root).code == 0


async def test_undo_a_board_move_to_in_progress_puts_the_status_back(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_board(app, pilot, "draft", "T-5")
        await pilot.press("greater_than_sign")  # draft → in progress: the person's edit, not an agent's start
        await until(pilot, lambda: node_data(root, "T-5")["status"] == "in-progress")
        assert node_data(root, "T-4")["status"] == "draft"  # the person's edit moves the card alone
        assert not (root / ".leafwise" / "claims").exists() or not any((root / ".leafwise" / "claims").iterdir())
        await undo(app, pilot, len(app.notices))
        assert app.notices[-1].title == "Undone", notices(app)[-1]
        t5 = node_data(root, "T-5")
        assert t5["status"] == "draft" and t5.get("assignee") is None
        last = journal(root)[-2:]
        assert [(e["command"], e["node"], e["actor"]) for e in last] == [("edit", "T-5", "pat"),
                                                                         ("edit", "T-5", "pat")]


async def test_undo_a_block_and_an_unblock_in_the_blocked_view(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        listing = await open_blocked(app, pilot, "T-2")
        await pilot.press("u")
        await answer_prompt(app, pilot, "")  # the optional note for the agent: none
        # nobody holds T-2, so unblocking gives it back as a draft (lifecycle.unblocked_status)
        await until(pilot, lambda: node_data(root, "T-2")["status"] == "draft")
        assert "blocked_since" not in node_data(root, "T-2")
        await undo(app, pilot, len(app.notices))  # from the blocked view itself
        assert isinstance(app.screen, BlockedScreen)
        t2 = node_data(root, "T-2")
        assert (t2["status"], t2["blocked_reason"], t2["blocked_since"], t2["blocked_from"]) == (
            "blocked", "waiting for the staging keys", SINCE, "draft")  # blocked again from where unblock left it
        # A new reason (e), then undo: the old reason again.
        await until(pilot, lambda: "T-2" in {o.id for o in listing.options})  # the list redraws after a change
        listing.highlighted = listing.get_option_index("T-2")
        await pilot.pause()
        await pilot.press("e")
        await answer_prompt(app, pilot, "keys promised for Monday")
        await until(pilot, lambda: node_data(root, "T-2")["blocked_reason"] == "keys promised for Monday")
        await undo(app, pilot, len(app.notices))
        assert node_data(root, "T-2")["blocked_reason"] == "waiting for the staging keys"
        assert node_data(root, "T-2")["blocked_since"] == SINCE
        assert journal(root)[-1]["command"] == "block" and journal(root)[-1]["actor"] == "pat"
    # Block a draft from the plan (B), then undo: unblock restores the draft and clears the block fields.
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-8")
        await pilot.pause()
        await pilot.press("B")
        await answer_prompt(app, pilot, "waiting for the copy")
        await until(pilot, lambda: node_data(root, "T-8")["status"] == "blocked")
        await undo(app, pilot, len(app.notices))
        t8 = node_data(root, "T-8")
        assert t8["status"] == "draft"
        assert not {"blocked_reason", "blocked_from", "blocked_since"} & {k for k, v in t8.items() if v is not None}
        assert journal(root)[-1]["command"] == "unblock"


async def test_undo_an_answer_reopens_the_decision(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "T-6")
        await pilot.press("2")
        await answer_prompt(app, pilot, "cheaper in the EU")
        await until(pilot, lambda: node_data(root, "T-6")["status"] == "draft")
        assert node_data(root, "T-6")["decision"]["answer"]["option"] == 2
        await undo(app, pilot, len(app.notices))
        assert "T-6's decision open again" in app.notices[-1].message
        t6 = node_data(root, "T-6")
        assert t6["status"] == "blocked" and t6["blocked_reason"] == "Decision needed: which provider?"
        assert t6["decision"] == {"question": "which provider?", "options": ["1: Stripe", "2: Adyen"],
                                  "asked_by": "claude-1", "asked": SINCE}
        assert t6["blocked_since"] == SINCE and t6["blocked_from"] == "draft"
        # The picker does not hand it out: it waits for the person again.
        picked = json.loads(run_cli("next", "--json", cwd=root).stdout)["result"]
        assert (picked.get("task") or {}).get("id") != "T-6"
        # The decision can be answered again (the core sees it open).
        assert run_cli("decide", "T-6", "--option", "1", cwd=root).code == 0


async def test_undo_a_cancel_reopens_the_task_and_its_closed_epic(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-8")
        await pilot.pause()
        await pilot.press("x")
        await answer_prompt(app, pilot, "no order emails in this release")
        await until(pilot, lambda: node_data(root, "T-7")["status"] == "done")  # its last open child: the epic closed
        assert node_data(root, "T-8")["status"] == "cancelled"
        await undo(app, pilot, len(app.notices))
        assert app.notices[-1].title == "Undone", notices(app)[-1]
        assert node_data(root, "T-8")["status"] == "draft" and node_data(root, "T-8").get("summary") is None
        assert node_data(root, "T-7")["status"] == "in-progress"
        assert [(e["command"], e["node"]) for e in journal(root)[-2:]] == [("edit", "T-7"), ("edit", "T-8")]


async def test_undo_refuses_when_an_agent_moved_the_task_since(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "T-2")
        await pilot.press("u")
        await answer_prompt(app, pilot, "")  # the optional note for the agent: none
        # nobody holds T-2, so unblocking gives it back as a draft (lifecycle.unblocked_status)
        await until(pilot, lambda: node_data(root, "T-2")["status"] == "draft")
        # An agent finishes the task meanwhile (another process, through the CLI).
        assert run_cli("complete", "T-2", "--summary", "done by the agent", "--force", cwd=root).code == 0
        await pilot.press("ctrl+r")
        await until(pilot, lambda: app.state.nodes["T-2"].status == "done")
        before = (node_file(root, "T-2").read_text(), len(journal(root)))
        await undo(app, pilot, len(app.notices))
        assert app.notices[-1].title.startswith("Undo") and "Not undone" in app.notices[-1].message
        assert "T-2 changed since" in app.notices[-1].message
        assert (node_file(root, "T-2").read_text(), len(journal(root))) == before
        assert not app.undo_stack


async def test_rename_undo_and_add_undo_through_the_core(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-5")
        await pilot.pause()
        await pilot.press("c")
        await answer_prompt(app, pilot, "Autocomplete")
        await until(pilot, lambda: any(e["command"] == "add" for e in journal(root)))
        added = next(e["node"] for e in journal(root) if e["command"] == "add")
        app.screen.reveal("T-5")
        await pilot.pause()
        await pilot.press("R")
        await answer_prompt(app, pilot, "Search field")
        await until(pilot, lambda: node_data(root, "T-5")["title"] == "Search field")
        await undo(app, pilot, len(app.notices))
        assert node_data(root, "T-5")["title"] == "Search box"
        assert "T-5 title back to “Search box”" in app.notices[-1].message
        await undo(app, pilot, len(app.notices))  # the add before it: the new node cancelled
        assert node_data(root, added)["status"] == "cancelled"
        assert "its file stays" in app.notices[-1].message
        await pilot.press("ctrl+z")
        await until(pilot, lambda: "Nothing to undo" in app.notices[-1].message)


def test_a_new_doc_cannot_be_undone_and_says_why(tmp_path):
    """A doc written from nothing: the core removes no file, so no undo is kept (the person is told)."""
    root = plan(tmp_path)
    out = run_cli("write-doc", "T-5", "--content", "# Search box", "--json", cwd=root)
    envelope = json.loads(out.stdout)
    why = record_of("write-doc", {"node_id": "T-5", "content": "# Search box"}, envelope, "Doc of T-5",
                    doc_before="")
    assert isinstance(why, str) and "removes no file" in why and "docs/T-5.md" in why
    again = run_cli("write-doc", "T-5", "--content", "# Search box, v2", "--json", cwd=root)
    action = record_of("write-doc", {"node_id": "T-5"}, json.loads(again.stdout), "Doc of T-5",
                       doc_before="# Search box\n")
    steps = plan_undo(load_plan(find_root(explicit=root)).nodes, action, "pat").steps
    assert [(s.command, s.args["content"]) for s in steps] == [("write-doc", "# Search box\n")]


def test_an_old_title_edit_cannot_write_back_is_said_at_once(tmp_path):
    """`[it's "odd"]` has no `--set` form that reads back as it was (quoted or as YAML): no undo is kept.
    A `[WIP] …` title has one (quoted), and its undo restores it through the real CLI."""
    root = write_plan(tmp_path / "repo", [node("T-1", "[WIP] Checkout"), node("T-2", "[it's \"odd\"]")])
    out = run_cli("edit", "T-2", "--set", "title=Odd", "--json", cwd=root)
    why = record_of("edit", {"node_id": "T-2"}, json.loads(out.stdout), "Rename T-2")
    assert isinstance(why, str) and "title" in why and "cannot write back" in why
    out = run_cli("edit", "T-1", "--set", "title=Checkout", "--json", cwd=root)
    action = record_of("edit", {"node_id": "T-1"}, json.loads(out.stdout), "Rename T-1")
    [step] = plan_undo(load_plan(find_root(explicit=root)).nodes, action, "pat").steps
    assert run_cli(step.command, step.args["node_id"], *(f"--set={a}" for a in step.args["set"]), cwd=root).code == 0
    assert load_plan(find_root(explicit=root)).nodes["T-1"].title == "[WIP] Checkout"


async def test_undo_an_unblock_keeps_the_age_of_a_block_with_no_recorded_start(tmp_path, monkeypatch):
    """Blocked by hand, with no `blocked_since`: it showed as blocked since its last update, and still does."""
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Old block", "blocked", blocked_reason="waiting on legal", updated="2026-10-01T08:00:00Z")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot)
        await pilot.press("u")
        await answer_prompt(app, pilot, "")
        await until(pilot, lambda: node_data(root, "T-1")["status"] == "draft")
        await undo(app, pilot, len(app.notices))
        t1 = node_data(root, "T-1")
        assert (t1["status"], t1["blocked_reason"], t1["blocked_since"]) == (
            "blocked", "waiting on legal", "2026-10-01T08:00:00Z")
        listing = app.screen.query_one("#blocked-list")
        # It read "blocked for ≥ 59d" (since its last update); now its start is recorded: "for 59d", not "just now".
        await until(pilot, lambda: "T-1" in {o.id for o in listing.options}
                    and "blocked for 59d" in listing.get_option("T-1").prompt.plain)
