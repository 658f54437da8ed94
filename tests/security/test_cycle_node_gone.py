"""A cycle whose node is gone stops at its next step (`commands/domain/cycles.py` `require_node`,
`cycle_gates.scope_ids`).

Found in session 19's attack (h22h), on a cloned plan through the real CLI: a running for-each cycle
scoped to `node: P1-99`, a node no longer in the plan (removed, or renamed by hand or by a merge),
walked the whole backlog: `cycle tick` handed out P1-3, outside anything it was started on, and `cycle
status` listed every open leaf of the plan as left. An until-goal cycle on a gone node ticked with no
task and answered `Next: leafwise cycle verify` for a cycle with nothing to verify. Now a tick and a
verify refuse (exit 3, nothing counted), the report lists nothing left, and the hint is `cycle stop`.
"""

from __future__ import annotations

import anyio
import pytest
from leafwise.store import PlanPaths
from leafwise.store import cycles as ledger
from testkit import run_cli, run_cli_in_process, write_plan

KINDS = {"for-each-work-item": "", "until-goal": "verify: ['true']\n", "review": ""}


def plan(root, kind: str):
    root = write_plan(root, [{"id": "T-1", "title": "Epic", "status": "draft", "release": "R1"},
                             {"id": "T-2", "title": "Leaf", "status": "draft", "parent": "T-1"},
                             {"id": "T-3", "title": "Other", "status": "draft", "release": "R1"}])
    folder = root / ".leafwise" / "cycles"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "c.yaml").write_text(f"kind: {kind}\nnode: T-1\nmax_iterations: 5\ntoken_cap: 1000\n"
                                   f"status: running\n{KINDS[kind]}")
    (folder / "c.count").write_text("0\n")
    return root


def validate_problems(root) -> list[dict]:
    answer = run_cli_in_process("validate", "--json", cwd=root).json
    return (answer["result"] or answer["error"]["details"])["problems"]["items"]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("how", ["removed", "renamed by hand"])
def test_a_step_of_a_cycle_whose_node_is_gone_is_refused(tmp_path, kind, how):
    root = plan(tmp_path / "plan", kind)
    nodes = root / ".leafwise" / "nodes"
    if how == "removed":
        (nodes / "T-1.yaml").unlink()
        (nodes / "T-2.yaml").write_text((nodes / "T-2.yaml").read_text().replace("parent: T-1", "release: R1"))
    else:
        (nodes / "T-9.yaml").write_text((nodes / "T-1.yaml").read_text().replace("id: T-1", "id: T-9"))
        (nodes / "T-1.yaml").unlink()
        (nodes / "T-2.yaml").write_text((nodes / "T-2.yaml").read_text().replace("parent: T-1", "parent: T-9"))
    for args in (("cycle", "tick", "c"), ("cycle", "tick", "c", "--tokens", "5")):
        res = run_cli("cycle", *args[1:], "--json", cwd=root)
        assert res.code == 3 and res.json["error"]["code"] == "cycle_node_gone", res.stdout
    if KINDS[kind]:
        res = run_cli_in_process("cycle", "verify", "c", "--json", cwd=root)
        assert res.json["error"]["code"] == "cycle_node_gone", res.stdout
    assert ledger.read_count(PlanPaths(root), "c") == 0
    assert ledger.read(PlanPaths(root), "c").tokens_used == 0
    problems = validate_problems(root)
    assert [(p["code"], p["severity"], p["file"], p["fix"]) for p in problems if p["code"] == "cycle_node_gone"] == \
        [("cycle_node_gone", "warning", ".leafwise/cycles/c.yaml", "leafwise cycle stop c")], "validate warns of it"
    status = run_cli_in_process("cycle", "status", "c", "--json", cwd=root).json
    assert status["result"]["items"][0]["report"]["left"]["total"] == 0, status
    assert status["_next_action"]["command"] == "leafwise cycle stop c"
    assert run_cli_in_process("cycle", "stop", "c", cwd=root).code == 0
    problems = validate_problems(root)
    assert "cycle_node_gone" not in {p["code"] for p in problems}, "a stopped cycle is no warning"
    assert run_cli_in_process("complete", "T-3", "--summary", "outside any cycle", cwd=root).code == 0


def test_mcp_cycle_tick_refuses_too(tmp_path):
    from testkit.mcp_stdio import mcp_session

    root = plan(tmp_path / "plan", "for-each-work-item")
    (root / ".leafwise" / "nodes" / "T-1.yaml").unlink()

    async def go():
        async with mcp_session(root) as session:
            return await session.call_tool("cycle_tick", {"name": "c"})

    ticked = anyio.run(go)
    assert ticked.is_error and "which is no node of this plan" in ticked.content[0].text
    assert ledger.read_count(PlanPaths(root), "c") == 0
