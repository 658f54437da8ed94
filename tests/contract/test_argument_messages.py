"""One mistake in a command's arguments gives one answer on every surface: the same error code,
message and Fix from the CLI (a real subprocess), the MCP server (the SDK's client) and `bulk`,
because all of them reach the handler through `arguments.check`.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from leafwise.commands.arguments import check
from leafwise.commands.contract import CommandError
from leafwise.commands.registry import command_line, load_all
from leafwise.commands.surfaces.mcp_server import build_server, input_schema
from mcp import Client
from testkit import run_cli

# (CLI words, MCP tool and arguments, a bulk update): the same mistake three ways.
MISTAKES = {
    "missing": (("block", "SHOP-18", "--agent", "a"),
                ("block_task", {"node_id": "SHOP-18", "agent": "a"}),
                {"id": "SHOP-18", "command": "block", "agent": "a"}),
    "unknown": (("block", "SHOP-18", "--reason", "r", "--bogus", "1"),
                ("block_task", {"node_id": "SHOP-18", "reason": "r", "bogus": "1"}),
                {"id": "SHOP-18", "command": "block", "reason": "r", "bogus": "1"}),
    "not a number": (("heartbeat", "SHOP-18", "--ttl", "two", "--agent", "a"),
                     ("heartbeat_task", {"node_id": "SHOP-18", "ttl": "two", "agent": "a"}),
                     {"id": "SHOP-18", "command": "heartbeat", "ttl": "two", "agent": "a"}),
    "empty": (("block", "SHOP-18", "--reason", "", "--agent", "a"),
              ("block_task", {"node_id": "SHOP-18", "reason": "", "agent": "a"}),
              {"id": "SHOP-18", "command": "block", "reason": "", "agent": "a"}),
}


def answer(env: dict[str, Any]) -> tuple[str, str, str]:
    return env["error"]["code"], env["error"]["message"], env["_next_action"]["command"]


def over_mcp(root: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async def go():
        async with Client(build_server(cwd=root)) as client:
            return (await client.call_tool(tool, arguments)).structured_content

    return anyio.run(go)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_one_mistake_one_answer_on_every_surface(demo_plan, mistake):
    words, (tool, arguments), update = MISTAKES[mistake]
    cli = run_cli(*words, "--json", cwd=demo_plan)
    assert cli.code == 2
    mcp = over_mcp(demo_plan, tool, arguments)
    bulk = run_cli("bulk", "-", "--json", stdin=json.dumps([update]), cwd=demo_plan).json
    [failed] = (bulk["result"] or bulk["error"]["details"])["failed"]  # none applied: an error
    assert answer(cli.json) == answer(mcp) == (failed["code"], failed["reason"], failed["fix"])


def test_the_messages_say_what_is_wrong(demo_plan):
    missing = run_cli("block", "SHOP-18", "--agent", "a", "--json", cwd=demo_plan).json
    assert answer(missing) == ("missing_argument", "block: missing 'reason' (--reason): why it cannot go on",
                               'leafwise block SHOP-18 --reason "<reason>" --agent a')
    number = run_cli("decide", "SHOP-40", "--option", "two", "--json", cwd=demo_plan).json
    assert answer(number) == ("bad_argument", "decide: 'option' (--option) must be an integer, not \"two\"",
                              "leafwise decide SHOP-40 --option <option>")


def test_an_option_without_its_value_is_a_missing_argument(demo_plan):
    res = run_cli("block", "SHOP-18", "--agent", "a", "--json", "--reason", cwd=demo_plan)
    assert res.code == 2
    assert answer(res.json)[0] == "missing_argument"
    assert answer(res.json)[2] == 'leafwise block SHOP-18 --reason "<reason>" --agent a'


def test_an_extra_word_is_refused(demo_plan):
    res = run_cli("show", "SHOP-18", "SHOP-19", "--json", cwd=demo_plan)
    assert res.code == 2
    assert answer(res.json)[:2] == ("extra_argument", "show: unexpected word \"SHOP-19\"; it takes: node_id, agent")


SAMPLES: tuple[Any, ...] = ("text", "", 3, -1, 2.5, True, False, None, ["a"], [1], [], {"k": 1})


def test_the_check_agrees_with_the_tool_schema():
    """What `check` refuses from an MCP client, the JSON Schema the tools list refuses too, and the
    other way round: the schema is the check written for the client."""
    for spec in load_all().values():
        schema = Draft202012Validator(input_schema(spec))
        for p in (p for p in spec.params if not p.cli_only):
            base = {q.name: (q.choices[0] if q.choices else {str: "x", int: 1, float: 1.0, bool: True}[q.type])
                    for q in spec.params if q.required and not q.cli_only}
            for sample in SAMPLES:
                given = {**base, p.name: sample}
                if sample in (None, "", []):
                    continue  # no value: the check's rule, which a schema cannot say (see "empty" above)
                try:
                    check(spec, given, command_line, "mcp")
                    refused = False
                except CommandError:
                    refused = True
                assert refused == (not schema.is_valid(given)), (spec.name, p.name, sample)


def test_a_field_value_word_without_set_gets_the_users_words_after_set_and_the_fix_runs(demo_plan):
    """`edit T title=x` (the help says FIELD=VALUE): the Fix puts the user's own words after --set,
    every one of them and nothing else, and running it does the edit."""
    res = run_cli("edit", "SHOP-18", "priority=low", "title=Cart badge", "--json", cwd=demo_plan)
    assert res.code == 2
    code, message, way = answer(res.json)
    assert code == "extra_argument" and "--set" in message
    assert way == 'leafwise edit SHOP-18 --set priority=low --set "title=Cart badge"'
    done = run_cli(*shlex.split(way)[1:], cwd=demo_plan)
    assert done.code == 0, done.out
    shown = run_cli("show", "SHOP-18", "--json", cwd=demo_plan).json["result"]
    assert (shown["title"], shown.get("priority")) == ("Cart badge", "low")
