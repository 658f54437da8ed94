"""Agents' verdicts in the canvas: recorded by the real CLI in another process, they appear live in the
reconcile view (apart from the lexical suggestions) and in the detail pane; a person confirms a shipped
verdict waiting for them with one key (the leaf and its parent close) or rejects it with a note, which
the agent then reads in `leafwise verify ID`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from leafwise.canvas.screens.reconcile import ReconcileScreen
from testkit import node, node_data, run_cli, write_plan
from testkit.canvas import answer_prompt, canvas, live, notices, ready, until
from testkit.repos import commit_all, write_files

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

PERSON = "Pat Person"
CODE = {"pkg/export.py": 'def export_orders_as_csv(orders):\n    """Write every order as one CSV row."""\n'
                         '    return [",".join(map(str, o)) for o in orders]\n'}
PLACE, QUOTE = "pkg/export.py:1-2", 'def export_orders_as_csv(orders): """Write every order as one CSV row."""'


@pytest.fixture(autouse=True)
def person(monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", PERSON)
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Committed code, and a plan asking a person to confirm shipped verdicts: T-2's sibling is done,
    so confirming T-2 closes its parent T-1 too."""
    root = tmp_path / "repo"
    write_files(root, CODE)
    write_plan(root, [node("T-1", "Orders", release="R1"),
                      node("T-2", "Export orders as CSV", parent="T-1"),
                      node("T-3", "List orders", status="done", parent="T-1", summary="listed"),
                      node("T-4", "Import orders from a spreadsheet", release="R1")])
    project = root / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + "settings: {reconcile: {confirm: person}}\n")
    commit_all(root)
    return root


async def agent(root: Path, *args: str) -> None:
    """The real CLI, as an agent in its own process (off the event loop: the canvas goes on running)."""
    res = await asyncio.to_thread(run_cli, *args, "--agent", "bot-1", cwd=root)
    assert res.code == 0, res.stderr


def verified(app):
    return app.screen.query_one("#verified-list")


def side_text(app) -> str:
    return str(app.screen.query_one("#reconcile-detail").render())


def verdict_file(root: Path, node_id: str) -> dict:
    return json.loads((root / ".leafwise" / "verdicts" / f"{node_id}.json").read_text())


async def open_view_with_verdict(app, pilot, root: Path) -> None:
    """The reconcile view open first, then the agent's shipped verdict: it must arrive through the watcher."""
    await live(app, pilot)
    await pilot.press("r")
    await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and app.screen.ran, what="the view")
    assert not verified(app).display, "no verdict yet: the section is hidden"
    await agent(root, "verify", "T-2", "--verdict", "shipped", "--evidence", PLACE, "--quote", QUOTE)
    await until(pilot, lambda: verified(app).display and verified(app).option_count == 1,
                what="the agent's verdict in the view", timeout=20)
    await until(pilot, lambda: any("verified T-2 shipped; it waits for you" in n for n in notices(app)),
                what="the notice of a verdict to confirm")
    assert not verified(app).has_focus, "a verdict arriving never takes the focus from the person's keys"
    await pilot.press("shift+tab")
    await until(pilot, lambda: verified(app).has_focus, what="shift+tab onto the verdicts")
    await pilot.pause()


async def test_a_verdict_recorded_by_an_agent_appears_and_one_key_confirms_it(repo: Path, tmp_path: Path):
    app = canvas(repo, tmp_path, watch=True)
    async with app.run_test(size=(170, 45)) as pilot:
        await open_view_with_verdict(app, pilot, repo)
        row = str(verified(app).get_option_at_index(0).prompt)
        assert "T-2" in row and "shipped" in row and "waiting for a person" in row and "by bot-1" in row
        assert "pkg/export.py:1-2" in row
        side = side_text(app)
        assert "Verified by an agent" in side and "by bot-1" in side and "export_orders_as_csv" in side
        assert node_data(repo, "T-2")["status"] == "draft"
        await pilot.press("a")
        await until(pilot, lambda: app.state.nodes["T-2"].status == "done", what="T-2 closed", timeout=20)
        await until(pilot, lambda: app.state.nodes["T-1"].status == "done", what="its parent closed by the cascade")
        await until(pilot, lambda: "Closed with it: T-1" in side_text(app), what="the cascade in the side panel")
        assert any("T-1" in n and "→ done" in n for n in notices(app)), notices(app)
        await until(pilot, lambda: "confirmed by Pat Person" in str(verified(app).get_option_at_index(0).prompt))
    data = node_data(repo, "T-2")
    assert data["status"] == "done" and "confirmed by Pat Person" in data["summary"]
    assert node_data(repo, "T-1")["status"] == "done"
    assert verdict_file(repo, "T-2")["state"] == "closed"
    shown = run_cli("verify", "T-2", cwd=repo)
    assert shown.code == 0 and "confirmed by Pat Person" in shown.stdout


async def test_a_rejected_verdict_stays_draft_and_its_note_reaches_the_agent(repo: Path, tmp_path: Path):
    app = canvas(repo, tmp_path, watch=True)
    async with app.run_test(size=(170, 45)) as pilot:
        await open_view_with_verdict(app, pilot, repo)
        await pilot.press("x")
        await answer_prompt(app, pilot, "the CSV has no header row yet")
        await until(pilot, lambda: "rejected by Pat Person" in str(verified(app).get_option_at_index(0).prompt),
                    what="the rejection in the row", timeout=20)
        assert app.state.nodes["T-2"].status == "draft"
    said = verdict_file(repo, "T-2")
    assert said["state"] == "rejected" and said["note"] == "the CSV has no header row yet"
    assert said["decided_by"] == PERSON
    assert node_data(repo, "T-2")["status"] == "draft"
    shown = run_cli("verify", "T-2", "--agent", "bot-1", cwd=repo)
    assert shown.code == 0 and "rejected by Pat Person: the CSV has no header row yet" in shown.stdout
    handed = run_cli("verify", "--next", "--agent", "bot-1", "--json", cwd=repo).json["result"]
    assert handed["id"] != "T-2", "a rejected verdict keeps its draft out of the loop until its code changes"
    run_cli("verify", "T-4", "--verdict", "absent", "--missing", "no spreadsheet reader", "--agent", "bot-1", cwd=repo)
    end = run_cli("verify", "--next", "--agent", "bot-1", cwd=repo)
    assert end.code == 0 and end.stdout.rstrip().splitlines()[-1] == "Done."
    assert "T-2: your shipped verdict was rejected by Pat Person: the CSV has no header row yet" in end.stdout


async def test_an_agent_verdict_cannot_be_decided_when_it_waits_for_no_one(repo: Path, tmp_path: Path):
    """A partial verdict is shown with its missing text, in the view and in the detail pane, live; a and x
    do nothing on it (there is nothing for a person to confirm)."""
    app = canvas(repo, tmp_path, watch=True)
    async with app.run_test(size=(170, 45)) as pilot:
        await live(app, pilot)
        app.open_node("T-4")
        await until(pilot, lambda: app.screen.query_one("#detail").key == "T-4", what="T-4 in the detail pane")
        await agent(repo, "verify", "T-4", "--verdict", "partial", "--evidence", PLACE, "--quote", QUOTE,
                    "--missing", "no reader for spreadsheet files")
        missing = "Missing: no reader for spreadsheet files"
        await until(pilot, lambda: missing in str(app.screen.query_one("#detail-verdict").render()),
                    what="the partial verdict's missing text in the detail pane", timeout=20)
        assert "by bot-1" in str(app.screen.query_one("#detail-verdict").render())
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and verified(app).option_count == 1)
        verified(app).focus()
        await pilot.pause()
        assert "missing: no reader for spreadsheet files" in str(verified(app).get_option_at_index(0).prompt)
        assert app.screen.check_action("accept", ()) is None and app.screen.check_action("reject", ()) is None
        await pilot.press("a")
        await pilot.pause()
    assert node_data(repo, "T-4")["status"] == "draft"
    assert verdict_file(repo, "T-4")["state"] == "recorded"


async def test_a_verdict_waiting_when_the_view_opens_has_the_focus(repo: Path, tmp_path: Path):
    await agent(repo, "verify", "T-2", "--verdict", "shipped", "--evidence", PLACE, "--quote", QUOTE)
    app = canvas(repo, tmp_path)
    async with app.run_test(size=(170, 45)) as pilot:
        await ready(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and verified(app).has_focus
                    and verified(app).option_count == 1, what="the waiting verdict focused")
        assert "waiting for a person" in side_text(app)


async def test_ctrl_z_takes_back_a_confirmation(repo: Path, tmp_path: Path):
    """Undo reopens the leaf and its parent (the completion's changes); the verdict file keeps the
    person's confirmation, and a draft its verdict closed that is open again is verified again."""
    app = canvas(repo, tmp_path, watch=True)
    async with app.run_test(size=(170, 45)) as pilot:
        await open_view_with_verdict(app, pilot, repo)
        await pilot.press("a")
        await until(pilot, lambda: app.state.nodes["T-1"].status == "done", what="confirmed", timeout=20)
        await pilot.press("ctrl+z")
        await until(pilot, lambda: app.state.nodes["T-2"].status == "draft" and app.state.nodes["T-1"].status != "done",
                    what="the confirmation taken back", timeout=20)
    assert node_data(repo, "T-2")["status"] == "draft"
    handed = run_cli("verify", "--next", "--agent", "bot-2", "--json", cwd=repo).json["result"]
    assert handed["id"] == "T-2"
