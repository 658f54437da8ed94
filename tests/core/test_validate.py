"""One test per validator problem, each on a small plan in a temp dir, through the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from testkit import node, run_cli, write_plan

PROBLEMS = {
    "yaml_error": ({"T-1": "id: T-1\ntitle: [unclosed\nstatus: draft\n"}, "T-1", 3),
    "schema_error": ({"T-1": "id: T-1\ntitle: A\nstatus: finished\n"}, "T-1", 3),
    "orphan_parent": ([node("T-1", "A", parent="T-9")], "T-1", 4),
    "hierarchy_cycle": ([node("T-1", "A", parent="T-2"), node("T-2", "B", parent="T-1")], "T-1", 4),
    "unknown_release": ([node("T-1", "A", release="R9")], "T-1", 4),
    "dangling_dependency": ([node("T-1", "A", depends_on=["T-7"])], "T-1", 4),
    "dependency_cycle": ([node("T-1", "A", depends_on=["T-2"]), node("T-2", "B", depends_on=["T-1"])], "T-1", 4),
    "blocked_without_reason": ([node("T-1", "A", "blocked")], "T-1", 3),
    "done_with_open_children": ([node("T-1", "A", "done"), node("T-2", "B", parent="T-1")], "T-1", 3),
    "dangling_doc": ([node("T-1", "A", docs=["docs/missing.md"])], "T-1", 4),
    "dangling_diagram": ([node("T-1", "A", diagrams=["diagrams/flow.mmd"])], "T-1", 4),
    "unsafe_path": ([node("T-1", "A", docs=["../../etc/passwd"])], "T-1", 4),
}


@pytest.mark.parametrize("code", sorted(PROBLEMS))
def test_each_problem_is_reported_with_file_line_and_fix(tmp_path: Path, code: str) -> None:
    nodes, node_id, line = PROBLEMS[code]
    write_plan(tmp_path, nodes)
    res = run_cli("validate", "--json", cwd=tmp_path)
    assert res.code == 4, res.stdout
    env = res.json
    assert env["status"] == "error" and env["error"]["exit_code"] == 4
    problems = env["error"]["details"]["problems"]["items"]
    found = [p for p in problems if p["code"] == code]
    assert found, problems
    problem = found[0]
    assert problem["severity"] == "error"
    assert problem["node"] == node_id
    assert problem["file"] == f".leafwise/nodes/{node_id}.yaml"
    assert problem["line"] == line
    assert problem["message"] and problem["fix"]
    assert env["_next_action"]["marker"] == "fix"
    # text: the problem lines on stdout, Error:/Fix: on stderr
    text = run_cli("validate", cwd=tmp_path)
    assert code in text.stdout
    assert text.stderr.splitlines()[0].startswith("Error: ")
    assert text.stderr.splitlines()[1].startswith("Fix: ")


def test_fix_commands_repair_the_plan(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", parent="T-9"), node("T-2", "B", "blocked"),
                          node("T-3", "C", depends_on=["T-2", "T-8"])])
    for _ in range(5):
        res = run_cli("validate", "--json", cwd=tmp_path)
        if res.code == 0:
            break
        fix_cmd = res.json["_next_action"]["command"]
        assert fix_cmd.startswith("leafwise ")
        args = __import__("shlex").split(fix_cmd)[1:]
        args = [a if a != "<reason>" else "waiting for keys" for a in args]
        assert run_cli(*args, cwd=tmp_path).code == 0
    assert res.code == 0, res.stdout


def test_broken_file_does_not_stop_the_rest(tmp_path: Path) -> None:
    write_plan(tmp_path, {"T-1": "id: T-1\ntitle: ok\nstatus: draft\nrelease: R1\n",
                          "T-2": "id: T-2\n  title: : bad\n"})
    res = run_cli("next", "--json", cwd=tmp_path)
    assert res.code == 0
    assert res.json["result"]["task"]["id"] == "T-1"
    shown = run_cli("show", "T-2", cwd=tmp_path)
    assert shown.code == 5 and "cannot be read" in shown.stderr


def test_complete_refuses_while_the_plan_has_errors_that_touch_the_task(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1", depends_on=["T-2"]), node("T-2", "B", "blocked")])
    res = run_cli("complete", "T-1", "--summary", "done", "--json", cwd=tmp_path)
    assert res.code == 4
    assert res.json["_next_action"]["command"] == 'leafwise block T-2 --reason "<reason>"'
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["status"] == "draft"
