"""Every JSON answer is JSON a strict parser takes (`commands/text.py` `json_text`, `finite`).

Found in session 17's attack (h22c): the loader keeps a node file's `.nan` / `.inf` in the fields
that take any single value (summary, assignee, trigger, blocked_reason), in the lax ones (priority,
created) and in unknown or nested keys, and `json.dumps` wrote them as `NaN` and `Infinity`: `show
--json`, `list --json`, `next --json` and the MCP context resource were no JSON to JavaScript's
`JSON.parse`, jq or serde_json, so one planted value made the answer unreadable to the agent that
asked (MCP tool answers already carried null: the SDK's writer). Generated: every YAML spelling of a
non-finite number × every kind of field.
"""

from __future__ import annotations

import itertools
import json

import pytest
from leafwise.commands.text import finite, json_text
from testkit import run_cli, run_cli_in_process, write_plan

SPELLINGS = (".inf", "-.inf", "+.inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN", "1.0e+999", "-1.5e+400")
FIELDS = ("summary", "assignee", "trigger", "blocked_reason", "priority", "created", "updated",
          "description", "x_custom", "evidence", "decision", "comments")


def strict(text: str):
    def refuse(constant):
        raise ValueError(f"{constant} is no JSON")

    return json.loads(text, parse_constant=refuse)


def line(field: str, spelling: str) -> str:
    if field == "evidence":
        return f"evidence: [{{note: {spelling}, iteration: {spelling}}}]"
    if field == "decision":
        return f"decision: {{question: q, options: [{spelling}], answer: {spelling}}}"
    if field == "comments":
        return f"comments: [{{text: {spelling}, by: a, at: {spelling}}}]"
    return f"{field}: {spelling}"


def plan(root, field: str, spelling: str):
    return write_plan(root, {"T-1": f"id: T-1\ntitle: Task\nstatus: draft\nrelease: R1\n{line(field, spelling)}\n",
                             "T-2": "id: T-2\ntitle: Other\nstatus: draft\nrelease: R1\n"})


@pytest.mark.parametrize(("field", "spelling"), list(itertools.product(FIELDS, SPELLINGS)))
def test_a_planted_non_finite_number_leaves_every_json_answer_strict_json(tmp_path, field, spelling):
    root = plan(tmp_path / "plan", field, spelling)
    for args in (("show", "T-1", "--json"), ("list", "--json"), ("context", "--json"), ("next", "--json"),
                 ("list", "--jsonl")):
        res = run_cli_in_process(*args, cwd=root)
        assert "internal_error" not in res.stdout, (args, res.stdout[-600:])
        for text in (res.stdout.splitlines() if "--jsonl" in args else [res.stdout]):
            strict(text)  # raises on NaN / Infinity


def test_json_text_writes_non_finite_numbers_as_null_and_the_rest_exactly():
    value = {"a": float("nan"), "b": [float("inf"), -float("inf"), 1.5, 10**30], "c": {"d": (float("nan"),)},
             "e": "NaN", "f": True, "g": None}
    assert strict(json_text(value)) == {"a": None, "b": [None, None, 1.5, 10**30], "c": {"d": [None]},
                                        "e": "NaN", "f": True, "g": None}
    assert finite(value["b"]) == [None, None, 1.5, 10**30]
    assert json_text({"x": 1.0}) == '{"x": 1.0}'


def test_the_real_cli_and_the_mcp_context_resource(tmp_path):
    import anyio
    from testkit.mcp_stdio import mcp_session

    root = plan(tmp_path / "plan", "summary", ".nan")
    strict(run_cli("show", "T-1", "--json", cwd=root).stdout)

    async def go():
        async with mcp_session(root) as session:
            return await session.read_resource("leafwise://context")

    listed = anyio.run(go)
    strict(listed.contents[0].text)
