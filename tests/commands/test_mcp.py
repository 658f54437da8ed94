"""The MCP server through the SDK's own client: in-process, and once over stdio as `leafwise mcp`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from leafwise.commands.domain.doctor import envelope_schema
from leafwise.commands.registry import load_all
from leafwise.commands.surfaces.mcp_server import INSTRUCTIONS, build_server
from leafwise.commands.surfaces.tool_answers import tool_call
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from testkit import run_cli, write_plan

VALIDATOR = Draft202012Validator(envelope_schema())
TOKEN_BUDGET = 8000


def session(root: Path, steps):
    """Run `steps(client)` in one client session against a fresh in-process server."""
    async def go():
        async with Client(build_server(cwd=root)) as client:
            return await steps(client)

    return anyio.run(go)


def call(root: Path, tool: str, arguments: dict[str, Any] | None = None):
    return session(root, lambda client: client.call_tool(tool, arguments or {}))


def tool_list(root: Path):
    return session(root, lambda client: client.list_tools()).tools


def test_one_tool_per_registry_command_with_honest_annotations(demo_plan):
    tools = {t.name: t for t in tool_list(demo_plan)}
    registry = load_all()
    on_mcp = [spec for spec in registry.values() if spec.tool]
    assert sorted(tools) == sorted(spec.tool for spec in on_mcp)
    assert len(tools) == len(on_mcp), "two commands share a tool name"
    for spec in registry.values():
        if spec.tool is None:  # a person's own command (setup, import): CLI only
            continue
        tool = tools[spec.tool]
        assert f"[{spec.full}" in tool.description
        offered = {p.name for p in spec.params if not p.cli_only}
        assert set(tool.input_schema["properties"]) == offered
        assert set(tool.input_schema.get("required", [])) == {p.name for p in spec.params
                                                               if p.required and not p.cli_only}
        hints = tool.annotations
        assert hints.read_only_hint is (not spec.mutating), spec.name
        assert hints.open_world_hint is False
        if spec.mutating:
            assert (hints.destructive_hint, hints.idempotent_hint) == (spec.destructive, spec.idempotent), spec.name
    by_command = {spec.name: tools[spec.tool] for spec in on_mcp}
    for discovery in ("context", "show", "list", "tree", "validate", "progress", "diagnose", "doctor"):
        assert by_command[discovery].annotations.read_only_hint is True
    assert by_command["cancel"].annotations.destructive_hint is True
    assert {"get_project_context", "get_next_task", "start_task", "complete_task", "block_task",
            "validate_project", "get_progress", "get_node", "get_doc", "update_doc"} <= set(tools)
    assert "write" not in tools["get_doc"].input_schema["properties"], "a CLI-only file argument leaked"
    assert "updates" in tools["bulk_update"].input_schema["properties"], "an MCP-only argument is missing"


def test_the_tool_list_stays_under_8000_tokens(demo_plan):
    """The measure DESIGN.md fixes: the compact JSON of tools/list at 4 characters per token."""
    tools = tool_list(demo_plan)
    wire = json.dumps({"tools": [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]},
                      separators=(",", ":"))
    tokens = len(wire) / 4
    assert tokens < TOKEN_BUDGET, f"tools/list is ~{tokens:.0f} tokens ({len(wire)} chars for {len(tools)} tools)"


def test_instructions_explain_the_loop_and_the_next_action(demo_plan):
    async def read(client):
        return client.instructions

    instructions = session(demo_plan, read)
    assert instructions == INSTRUCTIONS
    for phrase in ("_next_action", "get_project_context", "complete_task", "block_task", "done"):
        assert phrase in instructions


def test_a_success_is_the_envelope_as_structured_content(demo_plan):
    result = call(demo_plan, "get_next_task")
    env = result.structured_content
    assert result.is_error is False and VALIDATOR.is_valid(env)
    assert env == run_cli("next", "--json", cwd=demo_plan).json
    assert result.content[0].text.rstrip().splitlines()[-1] == 'Next: leafwise start --next --agent "<agent>"'
    assert result.meta["leafwise/next_tool"] == {"name": "start_task",
                                                 "arguments": {"next": True, "agent": "<agent>"}}


def test_a_domain_error_is_an_is_error_result_carrying_the_envelope(demo_plan):
    result = call(demo_plan, "complete_task", {"node_id": "SHOP-1", "summary": "all of it"})
    env = result.structured_content
    assert result.is_error is True and VALIDATOR.is_valid(env)
    assert env["error"]["exit_code"] == 3 and env["root_cause"]["category"] == "conflict"
    text = result.content[0].text.splitlines()
    assert text[0].startswith("Error: SHOP-1 has") and text[1] == f"Fix: {env['_next_action']['command']}"


@pytest.mark.parametrize(("arguments", "message", "fix_line"), [
    ({"node_id": "SHOP-18", "agent": "a", "bogus": 1}, "unknown argument 'bogus'", "leafwise start SHOP-18 --agent a"),
    ({"node_id": "SHOP-18"}, "missing 'agent'", 'leafwise start SHOP-18 --agent "<agent>"'),
    ({"node_id": "SHOP-18", "agent": "a", "ttl": "soon"}, "'ttl' (--ttl) must be a number",
     "leafwise start SHOP-18 --agent a --ttl <ttl>"),
    ({"node_id": 18, "agent": "a"}, "'node_id' must be a string", 'leafwise start "<node_id>" --agent a'),
])
def test_bad_arguments_are_usage_errors_whose_fix_is_the_call_again(demo_plan, arguments, message, fix_line):
    result = call(demo_plan, "start_task", arguments)
    env = result.structured_content
    assert result.is_error is True and VALIDATOR.is_valid(env)
    assert env["error"]["exit_code"] == 2 and env["root_cause"]["category"] == "usage"
    assert message in env["error"]["message"]
    assert env["_next_action"]["command"] == fix_line
    assert run_cli("show", "SHOP-18", "--json", cwd=demo_plan).json["result"]["status"] == "draft"


def test_a_missing_reason_is_answered_with_a_tool_call_the_agent_can_make(demo_plan):
    for arguments in ({"node_id": "SHOP-18", "agent": "a"}, {"node_id": "SHOP-18", "reason": "", "agent": "a"}):
        result = call(demo_plan, "block_task", arguments)
        assert result.structured_content["_next_action"]["command"] == 'leafwise block SHOP-18 --reason "<reason>" --agent a'
        assert result.meta["leafwise/next_tool"] == {"name": "block_task",
                                                     "arguments": {"node_id": "SHOP-18", "reason": "<reason>", "agent": "a"}}


def test_choices_and_lists_are_checked(demo_plan):
    env = call(demo_plan, "list_nodes", {"status": "finished"}).structured_content
    assert env["status"] == "error" and "one of" in env["error"]["message"]
    env = call(demo_plan, "list_nodes", {"status": "blocked", "limit": 2}).structured_content
    assert env["status"] == "ok" and len(env["result"]["items"]) == 2
    env = call(demo_plan, "add_node", {"title": "Loyalty points", "tag": ["growth", "r3"]}).structured_content
    assert env["status"] == "ok" and env["result"]["node"]["tags"] == ["growth", "r3"]


def test_resources_serve_the_context_and_node_docs(demo_plan):
    async def steps(client):
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        context = (await client.read_resource("leafwise://context")).contents[0].text
        docs = (await client.read_resource("leafwise://nodes/SHOP-12/docs")).contents[0].text
        schema = (await client.read_resource("leafwise://schema/envelope")).contents[0].text
        return listed, templates, context, docs, schema

    listed, templates, context, docs, schema = session(demo_plan, steps)
    assert {"leafwise://context", "leafwise://agent-guide", "leafwise://schema/envelope"} <= listed
    assert templates == {"leafwise://nodes/{node_id}/docs"}
    env = json.loads(context)
    assert env["command"] == "leafwise context" and env["result"]["project"]["pid"] == "shop"
    assert docs.startswith('<untrusted-plan-text source="SHOP-12 doc docs/SHOP-12.md">\n# SHOP-12')
    assert json.loads(schema) == envelope_schema()


def test_the_docs_resource_shows_hidden_characters_as_the_get_doc_tool_does(demo_plan):
    doc = demo_plan / ".leafwise/docs/SHOP-12.md"
    doc.write_text("# Title\n\tclear \x1b[2J, clipboard \x1b]52;c;ZXZpbA==\x07, \u202eevil\n")

    async def steps(client):
        return (await client.read_resource("leafwise://nodes/SHOP-12/docs")).contents[0].text

    text = session(demo_plan, steps)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\n\tclear ␛[2J" in text and "<U+202E>evil" in text


def test_a_long_session_sees_what_other_processes_write(demo_plan):
    """The server keeps no stale plan: a change made by another agent shows in the next call."""
    async def steps(client):
        first = (await client.call_tool("get_next_task", {})).structured_content
        await anyio.to_thread.run_sync(lambda: run_cli("start", "SHOP-18", "--agent", "other", cwd=demo_plan))
        second = (await client.call_tool("get_next_task", {})).structured_content
        started = (await client.call_tool("start_task", {"node_id": "SHOP-18", "agent": "me"})).structured_content
        return first, second, started

    first, second, started = session(demo_plan, steps)
    assert first["result"]["task"]["id"] == "SHOP-18"
    assert second["result"]["task"]["id"] != "SHOP-18"
    assert started["status"] == "error" and started["root_cause"]["category"] == "held_by_other_agent"


def test_a_server_started_with_root_serves_that_plan_from_anywhere(demo_plan, tmp_path):
    async def steps(client):
        return await client.call_tool("get_next_task", {})

    async def go():
        async with Client(build_server(str(demo_plan), cwd=tmp_path)) as client:
            return await steps(client)

    result = anyio.run(go)
    assert result.structured_content["_next_action"]["command"] == \
        f'leafwise start --next --agent "<agent>" --root {demo_plan}'
    assert result.meta["leafwise/next_tool"]["arguments"] == {"next": True, "agent": "<agent>"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the change flag uses inotify")
def test_the_warm_plan_is_reused_until_anything_writes(demo_plan, monkeypatch):
    import shutil

    from leafwise.commands import registry

    loads: list[int] = []
    real = registry.load_plan
    monkeypatch.setattr(registry, "load_plan", lambda paths, **kw: loads.append(1) or real(paths, **kw))
    node_file = demo_plan / ".leafwise/nodes/SHOP-18.yaml"
    spare = demo_plan.parent / "spare"
    shutil.copytree(demo_plan / ".leafwise", spare)

    async def steps(client):
        async def title() -> str:
            return (await client.call_tool("get_node", {"node_id": "SHOP-18"})).structured_content["result"]["title"]

        seen = [await title(), await title(), await title(), len(loads)]
        with open(node_file, "r+b") as fh:  # a person's editor writing in place, same size
            text = fh.read().replace(b"Delete my account", b"Delete my profile")
            fh.seek(0)
            fh.write(text)
        seen += [await title(), len(loads)]
        await client.call_tool("block_task", {"node_id": "SHOP-18", "reason": "legal first"})
        seen.append((await client.call_tool("get_node", {"node_id": "SHOP-18"})).structured_content["result"]["status"])
        shutil.rmtree(demo_plan / ".leafwise")  # the whole plan swapped under the server
        shutil.copytree(spare, demo_plan / ".leafwise")
        seen.append(await title())
        node_file.write_text(node_file.read_text().replace("Delete my account", "Close my account"))
        seen.append(await title())
        return seen

    seen = session(demo_plan, steps)
    assert seen[:4] == ["Delete my account (GDPR)"] * 3 + [1], "three reads, one load"
    assert seen[4:6] == ["Delete my profile (GDPR)", 2]
    assert seen[6] == "blocked"
    assert seen[7:] == ["Delete my account (GDPR)", "Close my account (GDPR)"]


@pytest.mark.parametrize(("line", "expected"), [
    ("leafwise start SHOP-18 --agent bot", ("start_task", {"node_id": "SHOP-18", "agent": "bot"})),
    ('leafwise complete SHOP-1 --summary "a b"', ("complete_task", {"node_id": "SHOP-1", "summary": "a b"})),
    ("leafwise release add R4 --title Later", ("add_release", {"release_id": "R4", "title": "Later"})),
    ("leafwise repair --dry-run --root /x", ("repair_plan", {"dry_run": True})),
    ("leafwise add T --tag a --tag b", ("add_node", {"title": "T", "tag": ["a", "b"]})),
])
def test_a_hint_line_maps_to_one_tool_call(line, expected):
    assert tool_call(line) == expected


@pytest.mark.parametrize("line", ["git status", "leafwise frobnicate", "leafwise start SHOP-1 --nope x",
                                  "leafwise doc SHOP-1 --write -", "leafwise decide SHOP-1 --option <N>",
                                  "leafwise decide SHOP-40 --option 2"])
def test_a_line_no_tool_can_run_is_refused(line):
    with pytest.raises(ValueError):
        tool_call(line)


# --- a whole agent session, driven only by _next_action ---------------------------

AGENT = "mcp-agent"
VALUES = {"<agent>": AGENT, "<summary>": "Implemented; tests/test_shop.py passes", "<reason>": "unused"}


def small_plan(root: Path) -> Path:
    write_plan(root, [
        {"id": "T-1", "title": "Checkout", "status": "draft", "release": "R1"},
        {"id": "T-2", "title": "Cart page", "status": "draft", "parent": "T-1", "docs": ["docs/cart.md"]},
        {"id": "T-3", "title": "Pay by card", "status": "draft", "parent": "T-1", "depends_on": ["T-2"]},
        {"id": "T-4", "title": "Receipt email", "status": "draft", "release": "R2"},
    ])
    (root / ".leafwise/docs/cart.md").write_text("# Cart\nLines, totals, a checkout button.\n")
    return root


def test_a_client_runs_the_whole_loop_from_context_to_done(tmp_path):
    root = small_plan(tmp_path)

    async def steps(client):
        transcript: list[tuple[str, dict[str, Any], str]] = []
        tool, arguments = "get_project_context", {}
        for _step in range(30):
            result = await client.call_tool(tool, arguments)
            env = result.structured_content
            assert VALIDATOR.is_valid(env) and not result.is_error, env
            action = env["_next_action"]
            transcript.append((tool, arguments, action["marker"]))
            if action["marker"] == "done":
                return transcript
            assert action["marker"] == "next", action
            assert result.meta["leafwise/next_tool"] == dict(zip(("name", "arguments"), tool_call(action["command"])))
            line = action["command"]
            for placeholder, value in VALUES.items():
                line = line.replace(placeholder, value)
            tool, arguments = tool_call(line)
        raise AssertionError(f"no Done. after 30 steps: {transcript}")

    transcript = session(root, steps)
    assert [(t, a.get("node_id")) for t, a, _m in transcript] == [
        ("get_project_context", None),
        ("start_task", None), ("get_doc", "T-2"), ("complete_task", "T-2"),  # start_task with next=true
        ("start_task", None), ("complete_task", "T-3"),  # completes the epic T-1 by cascade
        ("start_task", None), ("complete_task", "T-4"),
    ]
    assert transcript[-1][2] == "done"
    statuses = run_cli("list", "--json", cwd=root).json["result"]["items"]
    assert {i["id"]: i["status"] for i in statuses} == {"T-1": "done", "T-2": "done", "T-3": "done", "T-4": "done"}
    journal = [json.loads(line) for line in (root / ".leafwise/journal.jsonl").read_text().splitlines()]
    assert [e["node"] for e in journal if e["command"] == "complete"] == ["T-2", "T-3", "T-4"]
    assert any(c["id"] == "T-1" for e in journal for c in e.get("cascade") or [])


# --- over stdio, as a client launches it --------------------------------------------

def test_leafwise_mcp_over_stdio(demo_plan):
    env = {k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(demo_plan), env=env)

    async def go():
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            ok = await client.call_tool("get_next_task", {"agent": "stdio-agent"})
            bad = await client.call_tool("get_node", {"node_id": "SHOP-999"})
            return client.instructions, tools, ok, bad

    instructions, tools, ok, bad = anyio.run(go)
    assert instructions == INSTRUCTIONS
    assert len(tools) == len([spec for spec in load_all().values() if spec.tool])
    expected = run_cli("next", "--agent", "stdio-agent", "--json", cwd=demo_plan).json
    assert ok.structured_content == expected and not ok.is_error
    assert bad.is_error and bad.structured_content["error"]["exit_code"] == 5
    assert VALIDATOR.is_valid(bad.structured_content)
