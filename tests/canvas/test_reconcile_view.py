"""The reconcile view: drafts the code suggests have shipped, with their evidence, to accept or reject.

It runs on a copy of the demo shop, whose code (canvas/demo/shop/backend, frontend) makes some drafts
likely (the words match: a lead) and some partial; which ones comes from `reconcile --json`, as the CLI
says it. Only a passing declared `done_when` check or a commit that says it closes a node is shipped,
so a test that needs a shipped row declares one (`declare`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from testkit.code_samples import LIBRARY
from leafwise.canvas.screens.dialogs import TextPrompt
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from leafwise.commands.domain.reconciling import DEFAULT_MIN_CONFIDENCE
from testkit import node, run_cli, write_plan
from testkit.canvas import (READ_CODE_TIMEOUT, answer_prompt, canvas, idle, node_file, open_reconcile,
                            reconcile_list, until)
from testkit.repos import write_files

pytestmark = pytest.mark.anyio

PERSON = "Pat Person"
# The demo's wishlist route: a `done_when` check on SHOP-73 (Wishlist) that passes.
SHIPPED, WISHLIST_ROUTE = "SHOP-73", "GET /api/wishlist"
LABELS = {"shipped": "✓ shipped", "likely": "≈ likely", "partial": "◑ partial", "none": "· none"}
CANNOT_APPLY = {"partial": "the evidence is partial", "likely": "the words match, but nothing proves it shipped"}
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin:/usr/local/bin"}


@pytest.fixture(autouse=True)
def person(monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", PERSON)
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)


def cli_suggestions(root) -> list[dict]:
    return run_cli("reconcile", "--json", cwd=root).json["result"]["suggestions"]


def first(found: list[dict], verdict: str) -> dict:
    return next(s for s in found if s["verdict"] == verdict)


def declare(root: Path, node_id: str = SHIPPED, route: str = WISHLIST_ROUTE) -> None:
    """Give the node the author's definition of done, a route check: passing, it makes the node shipped."""
    path = node_file(root, node_id)
    path.write_text(path.read_text().rstrip("\n") + f'\ndone_when:\n  - {{route: "{route}"}}\n')


def row(app, node_id: str) -> str:
    return str(reconcile_list(app).get_option(node_id).prompt)


async def highlight(app, pilot, node_id: str) -> None:
    reconcile_list(app).highlighted = reconcile_list(app).get_option_index(node_id)
    await pilot.pause()


def last_events(root, node_id: str) -> list[dict]:
    lines = (root / ".leafwise" / "journal.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("node") == node_id]


@pytest.mark.slow
async def test_each_row_shows_the_reason_the_cli_gives(demo_plan, tmp_path):
    declare(demo_plan)
    expected = cli_suggestions(demo_plan)
    by_id = {s["id"]: s for s in expected}
    assert {s["verdict"] for s in expected} == set(LABELS)  # one row of each band to order
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot, len(expected))
        assert {o.id for o in reconcile_list(app).options} == set(by_id)
        assert reconcile_list(app).highlighted_option.id == SHIPPED  # shipped first
        shown = [by_id[o.id]["verdict"] for o in reconcile_list(app).options]
        assert shown == sorted(shown, key=list(LABELS).index)  # then likely, partial, none
        for s in expected:
            text = row(app, s["id"])
            assert text.startswith(LABELS[s["verdict"]]), (s["id"], text)
            assert s["reason"] in text, (s["id"], s["reason"], text)
            assert "no evidence found" not in text
        assert all(s["reason"].startswith("a lead to verify") for s in expected if s["verdict"] == "likely")
        assert all(s["verdict"] == "shipped" or s["reason"] for s in expected)  # a partial or none says why


@pytest.mark.slow
async def test_a_on_a_shipped_suggestion_applies_it(demo_plan, tmp_path):
    declare(demo_plan)
    shipped = first(cli_suggestions(demo_plan), "shipped")
    nid = shipped["id"]
    assert nid == SHIPPED and shipped["evidence"][0]["kind"] == "declared"
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        await highlight(app, pilot, nid)
        side = str(app.screen.query_one("#reconcile-detail").render())
        assert shipped["evidence"][0]["path"] in side
        await pilot.press("a")
        await until(pilot, lambda: "status: done" in node_file(demo_plan, nid).read_text(),
                    timeout=READ_CODE_TIMEOUT)
        assert "evidence" in node_file(demo_plan, nid).read_text()
        await until(pilot, lambda: "applied" in row(app, nid), timeout=READ_CODE_TIMEOUT)
        assert [e["actor"] for e in last_events(demo_plan, nid)[-2:]] == [PERSON, PERSON]
        await pilot.press("escape")
        assert isinstance(app.screen, PlanScreen)


@pytest.mark.slow
async def test_a_applies_a_shipped_suggestion_below_the_unattended_threshold(tmp_path):
    # A commit that says it closes the node is shipped at its measured 0.85: a stricter unattended
    # threshold (`reconcile --apply --min-confidence 0.9`) leaves it to a person, and the person's `a`
    # is that confirmation, whatever the threshold.
    project = tmp_path / "project"
    write_files(project, LIBRARY)
    write_plan(project, [node("T-1", "Throttle calls to a rate per second", release="R1")])
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "Throttle calls, closes T-1"]):
        subprocess.run(["git", *args], cwd=project, check=True, env=GIT_ENV, capture_output=True)
    [found] = cli_suggestions(project)
    strict = 0.9
    assert found["verdict"] == "shipped" and DEFAULT_MIN_CONFIDENCE <= found["confidence"] < strict
    assert found["evidence"][0]["kind"] == "commit"
    refused = run_cli("reconcile", "--json", "--apply", "--min-confidence", str(strict), cwd=project).json["result"]
    assert refused["applied"] == [] and [r["id"] for r in refused["refused"]] == ["T-1"]
    assert yaml.safe_load(node_file(project, "T-1").read_text())["status"] == "draft"
    app = canvas(project, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot, 1)
        side = str(app.screen.query_one("#reconcile-detail").render())
        assert "commit" in side and found["evidence"][0]["path"] in side
        await pilot.press("a")
        await until(pilot, lambda: yaml.safe_load(node_file(project, "T-1").read_text())["status"] == "done",
                    timeout=READ_CODE_TIMEOUT)
        await until(pilot, lambda: "applied" in row(app, "T-1"), timeout=READ_CODE_TIMEOUT)
        assert last_events(project, "T-1")[-1]["actor"] == PERSON


@pytest.mark.parametrize("verdict", ["partial", "likely"])
@pytest.mark.slow
async def test_a_on_a_partial_or_a_lead_says_why_and_closes_it_with_a_note(demo_plan, tmp_path, verdict):
    # Neither is applied by `a`: a likely is a lead (the words match), a partial lacks evidence; the
    # person may close either as their own decision, with a note.
    partial = first(cli_suggestions(demo_plan), verdict)
    nid = partial["id"]
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        await highlight(app, pilot, nid)
        assert "a: close it anyway with a note" in str(app.screen.query_one("#reconcile-detail").render())
        assert app.screen.check_action("accept", ()) is True
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        said = str(app.screen.query_one(".prompt-question").render())
        assert f"can't be applied: {CANNOT_APPLY[verdict]}" in said
        assert all(m in said for m in partial["missing"][:1])
        assert f"found: {partial['evidence'][0]['path']}" in said
        await pilot.press("enter")  # an empty note is refused: the dialog stays
        await pilot.pause()
        assert isinstance(app.screen, TextPrompt)
        assert "draft" in node_file(demo_plan, nid).read_text()
        await pilot.press(*"checked by hand")
        await pilot.press("enter")
        await until(pilot, lambda: "status: done" in node_file(demo_plan, nid).read_text(),
                    timeout=READ_CODE_TIMEOUT)
        text = node_file(demo_plan, nid).read_text()
        assert f"closed by {PERSON}: checked by hand" in text and "evidence:" in text
        # the journal line follows the node write: wait for it rather than race it
        await until(pilot, lambda: [e["command"] for e in last_events(demo_plan, nid)][-1:] == ["complete"])
        events = last_events(demo_plan, nid)
        assert [(e["command"], e["actor"]) for e in events[-2:]] == [("reconcile", PERSON), ("complete", PERSON)]
        assert events[-2]["decision"] == "close"
        assert isinstance(app.screen, ReconcileScreen)
        await until(pilot, lambda: "closed with a note" in row(app, nid), timeout=READ_CODE_TIMEOUT)
        assert app.screen.check_action("accept", ()) is None  # settled: nothing more to accept


@pytest.mark.slow
async def test_a_on_a_partial_can_be_called_off(demo_plan, tmp_path):
    nid = first(cli_suggestions(demo_plan), "partial")["id"]
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        await highlight(app, pilot, nid)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ReconcileScreen))
        await idle(pilot)  # a write the dialog started would be done by now
        assert "status: draft" in node_file(demo_plan, nid).read_text()


@pytest.mark.slow
async def test_a_rejection_persists_across_a_rerun_and_a_new_canvas_until_the_evidence_changes(demo_plan, tmp_path):
    target = first(cli_suggestions(demo_plan), "likely")  # a lead a person finds wrong
    nid = target["id"]
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        count = reconcile_list(app).option_count
        await highlight(app, pilot, nid)
        await pilot.press("x")
        await answer_prompt(app, pilot, "")  # why it is wrong: optional
        await until(pilot, lambda: "reconcile_rejected" in node_file(demo_plan, nid).read_text(),
                    timeout=READ_CODE_TIMEOUT)
        await until(pilot, lambda: reconcile_list(app).option_count == count - 1, timeout=READ_CODE_TIMEOUT)
        assert nid not in {o.id for o in reconcile_list(app).options}
        assert last_events(demo_plan, nid)[-1]["actor"] == PERSON
        assert "status: draft" in node_file(demo_plan, nid).read_text()
        await pilot.press("R")  # run again: still hidden, and said so
        await idle(pilot)  # the run's worker is done
        await until(pilot, lambda: not reconcile_list(app).loading and reconcile_list(app).option_count == count - 1,
                    timeout=READ_CODE_TIMEOUT)
        assert nid not in {o.id for o in reconcile_list(app).options}
        assert "1 rejected, hidden" in str(app.screen.query_one("#reconcile-summary").render())

    fresh = canvas(demo_plan, tmp_path)
    async with fresh.run_test(size=(160, 45)) as pilot:
        await open_reconcile(fresh, pilot, count - 1)
        assert nid not in {o.id for o in reconcile_list(fresh).options}

    code = demo_plan / target["evidence"][0]["path"]
    code.write_text("# one line more\n" + code.read_text())  # the evidence moves: a different hash
    again = canvas(demo_plan, tmp_path)
    async with again.run_test(size=(160, 45)) as pilot:
        await open_reconcile(again, pilot, count)
        assert nid in {o.id for o in reconcile_list(again).options}


@pytest.mark.slow
async def test_plan_text_is_shown_inertly(demo_plan, tmp_path):
    nid = first(cli_suggestions(demo_plan), "none")["id"]
    path = node_file(demo_plan, nid)
    text = path.read_text()
    title = next(line for line in text.splitlines() if line.startswith("title:"))
    path.write_text(text.replace(title, 'title: "Delete [bold red]loud[/] \\x1b[2J\\u202e now"'))
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        await highlight(app, pilot, nid)
        shown = row(app, nid)
        assert "[bold red]loud[/]" in shown  # not parsed as markup
        assert "\u241b[2J" in shown and "\u202e" not in shown  # ESC as its control picture; no bidi override
        side = str(app.screen.query_one("#reconcile-detail").render())
        assert "[bold red]loud[/]" in side and "\x1b" not in side and "\u202e" not in side


@pytest.mark.slow
async def test_ctrl_z_takes_back_an_applied_suggestion_and_a_rejection(demo_plan, tmp_path):
    declare(demo_plan)
    found = cli_suggestions(demo_plan)
    shipped = first(found, "shipped")["id"]
    other = next(s["id"] for s in found if s["verdict"] != "none" and s["id"] != shipped)
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        await highlight(app, pilot, shipped)
        await pilot.press("a")
        await until(pilot, lambda: "applied" in row(app, shipped), timeout=READ_CODE_TIMEOUT)
        assert "status: done" in node_file(demo_plan, shipped).read_text()
        events = len(last_events(demo_plan, shipped))
        await pilot.press("ctrl+z")
        await until(pilot, lambda: "status: draft" in node_file(demo_plan, shipped).read_text())
        await until(pilot, lambda: "applied" not in row(app, shipped))  # the row is open again
        data = run_cli("show", shipped, "--json", cwd=demo_plan).json["result"]
        assert data["status"] == "draft" and not data.get("summary") and not data.get("evidence")
        taken_back = last_events(demo_plan, shipped)[events:]
        assert [(e["command"], e["actor"]) for e in taken_back] == [("edit", PERSON)]
        assert "title" not in taken_back[0]["changes"]
        # A rejection hides the row; undoing it clears the mark and shows the row again.
        await highlight(app, pilot, other)
        await pilot.press("x")
        await answer_prompt(app, pilot, "")  # why it is wrong: optional
        await until(pilot, lambda: other not in {o.id for o in reconcile_list(app).options})
        assert "reconcile_rejected" in node_file(demo_plan, other).read_text()
        await pilot.press("ctrl+z")
        await until(pilot, lambda: other in {o.id for o in reconcile_list(app).options})
        assert run_cli("show", other, "--json", cwd=demo_plan).json["result"].get("reconcile_rejected") is None
