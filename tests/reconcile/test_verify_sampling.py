"""`verify_leaf` with `sample=true`: the server asks the client's model for a verdict, and the answer still goes
through the quote check. A real `leafwise mcp` process over stdio, the SDK's client with a scripted
model as its sampling callback: a true quote closes the leaf, a false one records nothing, and a
client without sampling is told to use the plain loop."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CreateMessageResult, TextContent
from testkit import node, node_data, run_cli, write_plan
from testkit.repos import commit_all, write_files

pytestmark = pytest.mark.slow

CODE = {"pkg/export.py": 'import csv\n\n\ndef export_orders_as_csv(orders, out):\n'
                         '    """Write every order as one CSV row."""\n    writer = csv.writer(out)\n'
                         '    for order in orders:\n        writer.writerow([order.id, order.total])\n'}
TRUE = {"place": "pkg/export.py:4-5", "quote": 'def export_orders_as_csv(orders, out): """Write every order as one CSV row."""'}
FALSE = {"place": "pkg/export.py:4-5", "quote": 'def export_orders_as_csv(orders, out): """Write every order as one JSON row."""'}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_files(root, CODE)
    write_plan(root, [node("T-1", "Orders", release="R1"), node("T-2", "Export orders as CSV", parent="T-1"),
                      node("T-3", "Import orders from a spreadsheet", release="R2")])
    commit_all(root)
    return root


def scripted(answer: dict[str, Any], asked: list[str]):
    """A model that records what it was asked and answers `answer` as JSON, wrapped in a sentence."""

    async def sample(_context, params) -> CreateMessageResult:
        asked.append(params.messages[0].content.text)
        text = f"Here is my verdict:\n```json\n{json.dumps(answer)}\n```"
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="scripted-1")

    return sample


def call(root: Path, arguments: dict[str, Any], sampling=None):
    env = {k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}
    env["LEAFWISE_AGENT"] = ""
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(root), env=env)

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, sampling_callback=sampling) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert tools["verify_leaf"].input_schema["properties"]["sample"]["type"] == "boolean"
                return await session.call_tool("verify_leaf", {"sample": True, **arguments})

    return anyio.run(go)


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def test_a_true_quote_from_the_clients_model_closes_the_leaf(repo: Path):
    asked: list[str] = []
    result = call(repo, {"node_id": "T-2", "agent": "mcp-1"}, scripted({"verdict": "shipped", "evidence": [TRUE]}, asked))
    assert not result.is_error, text_of(result)
    assert "    4| def export_orders_as_csv(orders, out):" in asked[0], "the place's committed lines are sent"
    assert "Export orders as CSV" in asked[0]
    env = result.structured_content
    assert env["result"]["completed"] is True and env["result"]["verdict"]["agent"] == "mcp-1"
    assert "scripted-1" in text_of(result) and "answered shipped with 1 quote(s)" in text_of(result)
    assert result.meta["leafwise/sampled"] == {"model": "scripted-1", "verdict": "shipped", "quotes": 1}
    assert node_data(repo, "T-2")["status"] == "done" and node_data(repo, "T-1")["status"] == "done"
    verdict = json.loads((repo / ".leafwise/verdicts/T-2.json").read_text())
    assert verdict["quotes"][0]["path"] == "pkg/export.py" and verdict["state"] == "closed"


def test_a_false_quote_from_the_clients_model_records_nothing(repo: Path):
    asked: list[str] = []
    result = call(repo, {"next": True, "agent": "mcp-1"}, scripted({"verdict": "shipped", "evidence": [FALSE]}, asked))
    assert result.is_error
    env = result.structured_content
    assert env["error"]["code"] == "evidence_quote_not_found"
    assert env["_next_action"]["marker"] == "fix" and env["_next_action"]["command"].startswith("leafwise verify T-2")
    assert "and refused the verdict" in text_of(result)
    assert node_data(repo, "T-2")["status"] == "draft"
    assert not (repo / ".leafwise/verdicts/T-2.json").exists()
    # the draft came from --next: it stays leased to the agent, whose own reading goes on from the packet
    again = run_cli("verify", "--next", "--agent", "mcp-1", "--json", cwd=repo).json["result"]
    assert again["id"] == "T-2"


def test_an_answer_that_is_no_verdict_records_nothing_and_says_why(repo: Path):
    result = call(repo, {"node_id": "T-2", "agent": "mcp-1"}, scripted({"verdict": "probably"}, []))
    assert result.is_error and result.structured_content["error"]["code"] == "sampling_unusable"
    assert "verdict must be one of shipped, partial, absent" in result.structured_content["error"]["message"]
    assert result.structured_content["_next_action"]["command"] == "leafwise verify T-2 --agent mcp-1"
    assert not (repo / ".leafwise/verdicts/T-2.json").exists()


def test_a_client_without_sampling_is_sent_to_the_plain_loop(repo: Path):
    result = call(repo, {"node_id": "T-2", "agent": "mcp-1"})
    assert not result.is_error
    env = result.structured_content
    assert env["result"]["sampling"] is False
    assert env["_next_action"]["marker"] == "next"
    assert env["_next_action"]["command"] == "leafwise verify T-2 --agent mcp-1"
    assert text_of(result).rstrip().splitlines()[-1].startswith("Next: leafwise verify T-2 --agent mcp-1")
    assert "this one does not" in text_of(result)
    assert result.meta["leafwise/next_tool"] == {"name": "verify_leaf", "arguments": {"node_id": "T-2", "agent": "mcp-1"}}
    assert not (repo / ".leafwise/verdicts/T-2.json").exists()


def test_verify_sample_on_the_cli_says_no_model_can_be_asked_and_hands_out_the_plain_loop(repo: Path):
    res = run_cli("verify", "--next", "--sample", "--agent", "cli-1", cwd=repo)
    assert res.code == 0 and "No verdict asked of a model" in res.stdout
    assert res.stdout.rstrip().splitlines()[-1].startswith("Next: leafwise verify --next --agent cli-1")
    refused = run_cli("verify", "T-2", "--sample", "--verdict", "absent", "--agent", "cli-1", cwd=repo)
    assert refused.code == 2 and "give no --verdict with it" in refused.stderr
    assert not (repo / ".leafwise/verdicts").exists()
