"""`list --search/--priority/--blocked/--ready/--sort` on the CLI and over MCP, `list --json` carrying
every field of a node, and `add --priority`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import pytest
import yaml
from leafwise.commands.surfaces.mcp_server import build_server
from leafwise.store.schema import KNOWN_FIELDS
from mcp import Client
from testkit import journal, node, run_cli, run_cli_in_process, write_plan


def ids(root: Path, *args: str) -> list[str]:
    res = run_cli_in_process("list", *args, "--json", cwd=root)
    assert res.code == 0, res.stderr
    return [item["id"] for item in res.json["result"]["items"]]


def mcp_calls(root: Path, calls: list[tuple[str, dict]]) -> list[dict]:
    """The structured results of `calls` (tool, arguments), in order, in one SDK client session."""
    async def go():
        async with Client(build_server(cwd=root)) as client:
            return [(await client.call_tool(tool, arguments)).structured_content for tool, arguments in calls]

    return anyio.run(go)


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    write_plan(tmp_path, [
        node("T-1", "Login form", priority="high"),
        node("T-2", "Reset flow", summary="Reset the password by email link", status="done"),
        node("T-3", "Account page", comments=[{"by": "ana", "at": "2026-11-30T10:00:00Z",
                                               "text": "Use the Google OAuth button"}]),
        node("T-4", "Payments", docs=["docs/pay.md"], priority="low"),
        node("T-5", "Checkout", depends_on=["T-4"]),
        node("T-6", "Ops keys", status="blocked", blocked_reason="waiting for ops"),
        node("T-7", "Linked doc", docs=["docs/linked.md"]),
    ])
    docs = tmp_path / ".leafwise/docs"
    (docs / "pay.md").write_text("# Payments\n\nVerify the Stripe WEBHOOK signature on every call.\n")
    outside = tmp_path / "outside.md"
    outside.write_text("secret-word lives outside the plan\n")
    os.symlink(outside, docs / "linked.md")
    return tmp_path


def test_search_finds_every_word_in_any_order_in_title_summary_comments_and_docs(plan):
    assert ids(plan, "--search", "FORM login") == ["T-1"]
    assert ids(plan, "--search", "email password") == ["T-2"]
    assert ids(plan, "--search", "google oauth") == ["T-3"]
    assert ids(plan, "--search", "signature stripe webhook") == ["T-4"]  # only in the doc
    found = run_cli_in_process("list", "--search", "payments stripe", "--json", cwd=plan).json["result"]["items"]
    assert [(i["id"], i["found_in"]) for i in found] == [("T-4", ["docs/pay.md"])]  # where the words were
    assert ids(plan, "--search", "login stripe") == []  # every word, in one node
    assert ids(plan, "--search", "secret-word") == []  # a doc that is a link is never read
    text = run_cli("list", "--search", "stripe", cwd=plan)
    assert text.code == 0 and "(found in docs/pay.md)" in text.stdout
    assert text.stdout.splitlines()[-1] == "Next: leafwise show T-4"
    empty = run_cli_in_process("list", "--search", "   ", cwd=plan)
    assert empty.code == 2 and "needs a word" in empty.stderr


def test_priority_blocked_and_sort(plan):
    assert ids(plan, "--priority", "high") == ["T-1"]
    assert ids(plan, "--priority", "normal") == ["T-2", "T-3", "T-5", "T-6", "T-7"]  # unset ranks as normal
    assert ids(plan, "--sort", "priority")[0] == "T-1" and ids(plan, "--sort", "priority")[-1] == "T-4"
    assert ids(plan, "--sort", "title") == ["T-3", "T-5", "T-7", "T-1", "T-6", "T-4", "T-2"]
    blocked = run_cli_in_process("list", "--blocked", "--json", cwd=plan).json["result"]["items"]
    assert {i["id"]: i["why"] for i in blocked} == {"T-5": "depends on T-4 (draft)",
                                                   "T-6": "blocked: waiting for ops"}
    bad = run_cli_in_process("list", "--priority", "urgent", cwd=plan)
    assert bad.code == 2 and "high, normal, low" in bad.stderr


def test_list_json_items_carry_every_field_of_the_node(plan):
    items = {i["id"]: i for i in run_cli_in_process("list", "--json", cwd=plan).json["result"]["items"]}
    for item in items.values():
        assert set(KNOWN_FIELDS) <= set(item), sorted(set(KNOWN_FIELDS) - set(item))
    file = yaml.safe_load((plan / ".leafwise/nodes/T-3.yaml").read_text())
    assert {k: items["T-3"][k] for k in file} == file  # the comments too, as written
    assert items["T-5"]["depends_on"] == ["T-4"] and items["T-4"]["priority"] == "low"
    assert items["T-4"]["docs"] == ["docs/pay.md"] and items["T-2"]["summary"].startswith("Reset the")
    assert items["T-1"]["effective_release"] is None and items["T-1"]["children"] == []
    assert items["T-1"]["tags"] == [] and items["T-1"]["summary"] is None  # unset: an empty list, or null


def test_ready_is_what_start_next_hands_out_on_the_demo_plan(demo_plan):
    ready = ids(demo_plan, "--ready")
    assert len(ready) > 3
    calls = [("list_nodes", {"ready": True, "limit": 500})]
    calls += [("start_task", {"next": True, "agent": f"agent-{i}"}) for i in range(len(ready) + 1)]
    listed, *started = mcp_calls(demo_plan, calls)
    assert [i["id"] for i in listed["result"]["items"]] == ready  # MCP and CLI agree
    handed = [s["result"]["task"]["id"] if s["result"]["task"] else None for s in started]
    assert handed == ready + [None]  # one by one, in this order, and then nothing
    assert ids(demo_plan, "--ready") == []


def test_search_and_filters_over_mcp(plan):
    found, waiting, high = mcp_calls(plan, [
        ("list_nodes", {"search": "google oauth"}),
        ("list_nodes", {"blocked": True, "sort": "id"}),
        ("list_nodes", {"priority": "high"}),
    ])
    assert [i["id"] for i in found["result"]["items"]] == ["T-3"]
    assert [i["id"] for i in waiting["result"]["items"]] == ["T-5", "T-6"]
    assert [i["id"] for i in high["result"]["items"]] == ["T-1"] and high["_next_action"]["command"] == \
        "leafwise show T-1"


def test_add_priority_writes_it_and_journals_it(plan):
    res = run_cli("add", "Refund page", "--priority", "high", "--json", cwd=plan)
    assert res.code == 0, res.stderr
    new = res.json["result"]["id"]
    assert yaml.safe_load((plan / f".leafwise/nodes/{new}.yaml").read_text())["priority"] == "high"
    assert res.json["result"]["node"]["priority"] == "high"
    assert {"id": new, "field": "priority", "from": None, "to": "high"} in res.json["mutation"]["changes"]
    assert [(e["command"], e["node"]) for e in journal(plan)][-2:] == [("add", new), ("edit", new)]
    assert ids(plan, "--priority", "high") == ["T-1", new]


def test_search_in_a_hostile_doc_stays_linear(tmp_path):
    """A doc at the size cap built to make a naive matcher quadratic, and the longest words a search takes."""
    write_plan(tmp_path, [node("T-1", "Big doc", docs=["docs/big.md"])])
    (tmp_path / ".leafwise/docs/big.md").write_text("a" * 1_000_000)
    words = " ".join("a" * (99 - i) + "b" for i in range(12))
    started = time.perf_counter()
    assert ids(tmp_path, "--search", words) == []
    assert time.perf_counter() - started < 3.0
    assert ids(tmp_path, "--search", "a" * 100) == ["T-1"]


def test_no_limit_lists_more_than_one_answer_holds(tmp_path: Path) -> None:
    """A caller's own huge limit (or none) lists at most contract.MAX_ITEMS, says it cut, and names the total:
    on the CLI, over MCP, for list and tree and release list."""
    from leafwise.commands.contract import MAX_ITEMS

    many = MAX_ITEMS + 7
    write_plan(tmp_path, [node(f"T-{i}", f"task {i}", release="R1") for i in range(1, many + 1)],
               releases=[f"R{i}" for i in range(1, many + 1)])
    for args in (("list", "--limit", "1000000"), ("list", "--limit", "0"), ("tree", "--limit", "1000000"),
                 ("release", "list")):
        res = run_cli(*args, "--json", cwd=tmp_path)
        assert res.code == 0, res.stderr
        page = res.json["result"]
        assert (len(page["items"]), page["truncated"]) == (MAX_ITEMS, True), args
        assert page["total"] >= many, args
    [answer] = mcp_calls(tmp_path, [("list_nodes", {"limit": 1000000})])
    assert len(answer["result"]["items"]) == MAX_ITEMS and answer["result"]["total"] == many
