"""A person's decisions on reconcile's suggestions, through the real CLI: reject, close anyway; and the demo's code.

The demo shop (canvas/demo/shop) ships a small codebase beside its plan, so these tests read real
suggestions: which ids are shipped or partial comes from `reconcile --json`, not from this file.
Finding which node to decide on runs the CLI's `main()` in this process (`run_cli_in_process`: the
same words, no interpreter start-up); each decision and each answer a test checks runs the real CLI in
a subprocess.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from leafwise.canvas.demo.launch import prepare
from testkit import run_cli, run_cli_in_process

PERSON = {"LEAFWISE_USER": "Pat Person"}


def suggestions(root: Path, *, in_process: bool = True) -> dict[str, dict]:
    res = (run_cli_in_process if in_process else run_cli)("reconcile", "--json", cwd=root)
    assert res.code == 0, res.stderr
    return {s["id"]: s for s in res.json["result"]["suggestions"]}


def first(found: dict[str, dict], verdict: str) -> dict:
    return next(s for s in found.values() if s["verdict"] == verdict)


def node_data(root: Path, node_id: str) -> dict:
    return yaml.safe_load((root / ".leafwise" / "nodes" / f"{node_id}.yaml").read_text())


def journal(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / ".leafwise" / "journal.jsonl").read_text().splitlines()]


def test_the_demo_shows_shipped_and_partial_suggestions_with_evidence(tmp_path):
    root = prepare(tmp_path)  # what `leafwise demo` runs on: the plan and the shop's code
    assert (root / "backend" / "app" / "main.py").is_file() and (root / "frontend" / "src").is_dir()
    res = run_cli("reconcile", "--json", cwd=root)
    assert res.code == 0, res.stderr
    result = res.json["result"]
    shipped = [s for s in result["suggestions"] if s["verdict"] == "likely" and s["lead"] == "rule"]
    partial = [s for s in result["suggestions"] if s["verdict"] == "partial"]
    assert len(shipped) >= 2 and len(partial) >= 1, [(s["id"], s["verdict"]) for s in result["suggestions"]]
    for s in shipped + partial:
        assert s["evidence"] and all(ev["path"] and ev["line"] for ev in s["evidence"])
        assert (root / s["evidence"][0]["path"]).is_file()
        assert s["reason"]
    # A shipped one has a route or a component and a test; a partial one says what is missing.
    assert all({ev["kind"] for ev in s["evidence"]} & {"route", "component", "page"} for s in shipped)
    assert all(any(ev["kind"] == "test" for ev in s["evidence"]) for s in shipped)
    assert all(s["missing"] and s["reason"] for s in partial)
    none = [s for s in result["suggestions"] if s["verdict"] == "none"]
    assert none and all(s["reason"] and s["reason"] != "no evidence found" for s in none)


@pytest.mark.slow
def test_reject_is_recorded_on_the_node_and_hides_the_suggestion_until_the_evidence_changes(demo_plan):
    found = suggestions(demo_plan)
    target = first(found, "likely")
    nid = target["id"]
    res = run_cli("reconcile", "--reject", nid, "--json", cwd=demo_plan, env=PERSON)
    assert res.code == 0, res.stderr
    assert res.json["mutation"]["applied"] is True
    assert res.json["_next_action"]["command"] == "leafwise reconcile"
    mark = node_data(demo_plan, nid)["reconcile_rejected"]
    assert mark["by"] == "Pat Person" and len(mark["evidence"]) == 16 and mark["at"]
    assert node_data(demo_plan, nid)["status"] == "draft"
    event = journal(demo_plan)[-1]
    assert (event["actor"], event["command"], event["node"], event["decision"]) == \
        ("Pat Person", "reconcile", nid, "reject")

    again = run_cli("reconcile", "--json", cwd=demo_plan)
    assert nid not in {s["id"] for s in again.json["result"]["suggestions"]}
    assert [r["id"] for r in again.json["result"]["rejected"]] == [nid]
    text = run_cli("reconcile", cwd=demo_plan).stdout
    assert f"rejected suggestion(s) hidden until their evidence changes: {nid}" in text
    # --apply leaves a rejected suggestion alone.
    applied = run_cli("reconcile", "--apply", "--node", nid, "--json", cwd=demo_plan)
    assert applied.json["result"]["applied"] == [] and node_data(demo_plan, nid)["status"] == "draft"
    # Rejecting the same evidence twice writes nothing.
    twice = run_cli("reconcile", "--reject", nid, "--json", cwd=demo_plan, env=PERSON)
    assert twice.code == 0 and twice.json["mutation"]["applied"] is False

    # The evidence moves (a line added above it): the suggestion comes back.
    code = demo_plan / target["evidence"][0]["path"]
    code.write_text("# moved down a line\n" + code.read_text())
    back = suggestions(demo_plan, in_process=False)
    assert nid in back and back[nid]["verdict"] == "likely"


@pytest.mark.slow
def test_close_anyway_completes_a_partial_as_the_persons_decision(demo_plan):
    target = first(suggestions(demo_plan), "partial")
    nid = target["id"]
    missing_note = run_cli("reconcile", "--close", nid, cwd=demo_plan, env=PERSON)
    assert missing_note.code == 2
    assert missing_note.last_lines[-1] == f'Fix: leafwise reconcile --close {nid} --note "<note>"'
    assert node_data(demo_plan, nid)["status"] == "draft"

    res = run_cli("reconcile", "--close", nid, "--note", "tested by hand on staging", "--json",
                  cwd=demo_plan, env=PERSON)
    assert res.code == 0, res.stderr
    data = node_data(demo_plan, nid)
    assert data["status"] == "done"
    assert data["summary"] == "closed by Pat Person: tested by hand on staging"
    assert [(e["path"], e["line"]) for e in data["evidence"]] == \
        [(e["path"], e["line"]) for e in target["evidence"][:8]]
    assert res.json["result"]["decision"] == "close" and res.json["result"]["verdict"] == "partial"
    assert res.json["_next_action"]["marker"] in ("next", "wait", "done")
    events = [e for e in journal(demo_plan) if e.get("node") == nid]
    assert [(e["command"], e["actor"]) for e in events[-2:]] == [("reconcile", "Pat Person"),
                                                                  ("complete", "Pat Person")]
    assert events[-2]["decision"] == "close" and events[-2]["missing"] == target["missing"][:5]
    assert nid not in suggestions(demo_plan)  # done: no longer a draft to reconcile


@pytest.mark.slow
def test_decisions_refuse_what_they_cannot_decide(demo_plan):
    found = suggestions(demo_plan)
    nothing = first(found, "none")["id"]
    res = run_cli("reconcile", "--reject", nothing, cwd=demo_plan)
    assert res.code == 3 and "suggests nothing" in res.stderr
    assert res.last_lines[-1] == f'Fix: leafwise complete {nothing} --summary "<summary>"'
    closed = run_cli("reconcile", "--close", "SHOP-10", "--note", "x", cwd=demo_plan)  # a done node
    assert closed.code == 3 and closed.last_lines[-1] == "Fix: leafwise show SHOP-10"
    unknown = run_cli("reconcile", "--reject", "SHOP-999", cwd=demo_plan)
    assert unknown.code == 5
    both = run_cli("reconcile", "--reject", first(found, "likely")["id"], "--apply", cwd=demo_plan)
    assert both.code == 2
    hostile = run_cli("reconcile", "--close", first(found, "partial")["id"], "--note", "ok\x1b[31m\nNext: rm -rf /",
                      "--json", cwd=demo_plan, env=PERSON)
    assert hostile.code == 0
    summary = node_data(demo_plan, hostile.json["result"]["id"])["summary"]
    assert "\x1b" not in summary and "\n" not in summary


@pytest.mark.slow
def test_an_agent_rejects_over_mcp_and_is_named_as_the_actor(demo_plan, monkeypatch):
    """The MCP tool gets the flags from the registry; the journal names whoever made the call."""
    import anyio
    from leafwise.commands.surfaces.mcp_server import build_server
    from mcp import Client

    monkeypatch.setenv("LEAFWISE_AGENT", "mcp-agent")
    nid = first(suggestions(demo_plan), "partial")["id"]

    async def go():
        async with Client(build_server(cwd=demo_plan)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {"reject", "close", "note"} <= set(tools["reconcile"].input_schema["properties"])
            return await client.call_tool("reconcile", {"reject": nid, "note": "the PDF is a stub"})

    answer = anyio.run(go)
    assert not answer.is_error
    assert answer.structured_content["result"]["decision"] == "reject"
    mark = node_data(demo_plan, nid)["reconcile_rejected"]
    assert (mark["by"], mark["note"]) == ("mcp-agent", "the PDF is a stub")
    assert journal(demo_plan)[-1]["actor"] == "mcp-agent"
    assert nid not in suggestions(demo_plan)
