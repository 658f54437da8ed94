"""Many agents and a person on one plan.

Steps that only set the plan up run the CLI's `main()` in this process (`setup`: the same words, no
interpreter start-up); every answer a test checks comes from the real CLI in a subprocess.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from testkit import journal, node, run_cli, run_cli_in_process, write_plan


def setup(*args: str, cwd: Path) -> None:
    """A step before what the test checks: it must succeed."""
    res = run_cli_in_process(*args, cwd=cwd)
    assert res.code == 0, (args, res.stderr)


def plan(tmp_path: Path) -> Path:
    root = write_plan(tmp_path, [
        node("HX-1", "Epic", release="R1", docs=["docs/epic.md"]),
        node("HX-2", "Leaf a", parent="HX-1"), node("HX-3", "Leaf b", parent="HX-1"),
        node("HX-4", "Leaf c", parent="HX-1"), node("HX-10", "Other", release="R2"),
    ], prefix="HX")
    (root / ".leafwise/docs/epic.md").write_text("# Epic design\n")
    return root


def test_agents_following_hints_never_collide(tmp_path):
    root = plan(tmp_path)
    (root / ".leafwise/docs/epic.md").write_text("# Epic design\n")
    a = run_cli("start", "--next", "--agent", "A", "--json", cwd=root).json
    b = run_cli("start", "--next", "--agent", "B", "--json", cwd=root).json
    assert a["result"]["task"]["id"] != b["result"]["task"]["id"]
    done_a = run_cli("complete", a["result"]["task"]["id"], "--summary", "x", "--agent", "A", "--json", cwd=root).json
    done_b = run_cli("complete", b["result"]["task"]["id"], "--summary", "x", "--agent", "B", "--json", cwd=root).json
    assert done_a["_next_action"]["command"] == "leafwise start --next --agent A"
    assert done_b["_next_action"]["command"] == "leafwise start --next --agent B"


def test_a_lease_protects_and_a_person_forces_with_a_name(tmp_path):
    root = plan(tmp_path)
    assert run_cli("start", "HX-2", "--agent", "A", cwd=root).code == 0
    plain = run_cli("complete", "HX-2", "--summary", "x", cwd=root)
    assert plain.code == 3 and plain.last_lines[-2].startswith("Wait: A holds HX-2")
    assert plain.last_lines[-1] == 'Or: leafwise complete HX-2 --summary x --force'
    other = run_cli("block", "HX-2", "--reason", "mine", "--agent", "B", cwd=root)
    assert other.code == 3 and other.last_lines[-1] == "Or: leafwise start --next --agent B"
    edit = run_cli("edit", "HX-2", "--set", "status=draft", cwd=root)
    assert edit.code == 3
    forced = run_cli("complete", "HX-2", "--summary", "x", "--force", cwd=root, env={"LEAFWISE_USER": "Ada"})
    assert forced.code == 0, forced.stderr
    last = journal(root)[-1]
    assert (last["command"], last["forced_by"], last["holder"], last["actor"]) == ("complete", "Ada", "A", "Ada")


def test_a_persons_word_reaches_the_next_agent(tmp_path):
    root = plan(tmp_path)
    setup("start", "HX-2", "--agent", "A", cwd=root)
    setup("ask", "HX-2", "Keep the old API?", "--option", "A: drop", "--option", "B: keep", "--agent", "A",
          cwd=root)
    assert run_cli("decide", "hx-2", "--option", "2", "--note", "keep compat", cwd=root).code == 0
    setup("unclaim", "HX-2", "--agent", "A", cwd=root)
    setup("comment", "HX-2", "--text", "mind the $(old) clients", cwd=root)
    nxt = run_cli("next", "--agent", "B", "--json", cwd=root).json
    texts = [m["text"] for m in nxt["result"]["task"]["messages"]]
    assert texts == ["B: keep — keep compat", "mind the $(old) clients"]
    started = run_cli("start", "--next", "--agent", "B", cwd=root)
    assert "keep compat" in started.stdout and "mind the $(old) clients" in started.stdout
    context = run_cli("context", "--agent", "B", "--json", cwd=root).json
    assert context["result"]["blocked"] == []
    shown = run_cli("show", "HX-2", cwd=root).stdout
    assert "{" not in shown and "keep compat" in shown
    setup("complete", "HX-2", "--summary", "x", "--agent", "B", cwd=root)
    assert run_cli("show", "HX-2", "--json", cwd=root).json["result"]["messages"]  # kept for the record


def test_an_unblock_note_rides_along(tmp_path):
    root = plan(tmp_path)
    setup("block", "HX-2", "--reason", "needs keys", cwd=root)
    assert run_cli("unblock", "HX-2", "--note", "keys are in the vault", cwd=root).code == 0
    started = run_cli("start", "HX-2", "--agent", "A", "--json", cwd=root).json
    assert [m["text"] for m in started["result"]["task"]["messages"]] == ["keys are in the vault"]


def test_work_added_under_a_closed_parent_reopens_it(tmp_path):
    root = write_plan(tmp_path, [node("HX-1", "Epic", release="R1"), node("HX-2", "Leaf", parent="HX-1")],
                      prefix="HX")
    setup("start", "HX-2", "--agent", "A", cwd=root)
    assert run_cli("complete", "HX-2", "--summary", "x", "--agent", "A", "--json", cwd=root).json[
        "result"]["cascade"][0]["to"] == "done"
    tail = run_cli("add", "Clean up", "--tech-debt", "--follows", "HX-2", "--json", cwd=root).json
    assert tail["result"]["cascade"] == [{"id": "HX-1", "title": "Epic", "from": "done", "to": "in-progress"}]
    assert run_cli("validate", cwd=root).code == 0
    started = run_cli("start", "--next", "--agent", "A", "--json", cwd=root).json
    assert run_cli("complete", started["result"]["task"]["id"], "--summary", "y", "--agent", "A", cwd=root).code == 0
    assert run_cli_in_process("cancel", "HX-1", "--reason", "dropped", cwd=root).code == 3  # done is not cancelled
    refused = run_cli("add", "More", "--parent", "HX-1", cwd=root)
    assert refused.code in (3, 0)  # HX-1 is done (not cancelled): done work reopens
    write_plan(tmp_path, [node("HX-9", "Gone", "cancelled")], prefix="HX")
    refused = run_cli("add", "Under gone", "--parent", "HX-9", cwd=root)
    assert refused.code == 3 and refused.last_lines[-2] == 'Fix: leafwise add "Under gone"'


def test_a_broken_node_stops_only_what_it_touches(tmp_path):
    root = plan(tmp_path)
    (root / ".leafwise/nodes/HX-10.yaml").write_text("id: HX-10\ntitle: [unclosed\n")
    setup("start", "HX-2", "--agent", "A", cwd=root)
    done = run_cli("complete", "HX-2", "--summary", "x", "--agent", "A", "--json", cwd=root)
    assert done.code == 0 and done.json["result"]["warnings"]
    diag = run_cli("diagnose", "HX-10", "--json", cwd=root).json
    assert diag["_next_action"]["marker"] == "wait" and "HX-10.yaml" in diag["_next_action"]["condition"]
    assert run_cli("edit", "HX-3", "--set", "depends_on=HX-3", cwd=root).code == 2
    setup("edit", "HX-4", "--add", "depends_on=HX-3", cwd=root)
    assert run_cli("edit", "HX-3", "--add", "depends_on=HX-4", cwd=root).code == 2
    typo = run_cli("edit", "HX-3", "--set", "titel=x", cwd=root)
    assert typo.code == 2 and "did you mean title" in typo.stderr
    assert "titel" not in yaml.safe_load((root / ".leafwise/nodes/HX-3.yaml").read_text())


def test_docs_flow_down_and_a_parent_points_at_its_leaf(tmp_path):
    root = plan(tmp_path)
    (root / ".leafwise/docs/epic.md").write_text("# Epic design\n")
    leaf = run_cli("doc", "HX-2", "--json", cwd=root).json
    assert [(d["path"], d["from"]) for d in leaf["result"]["docs"]] == [("docs/epic.md", "HX-1")]
    parent = run_cli("doc", "HX-1", "--json", cwd=root).json
    assert parent["_next_action"]["command"] == "leafwise doc HX-2"
    started = run_cli("start", "HX-2", "--agent", "A", "--json", cwd=root).json
    assert started["result"]["task"]["inherited_docs"] == [{"path": "docs/epic.md", "from": "HX-1"}]
    assert started["_next_action"]["command"] == "leafwise doc HX-2 --agent A"


def test_priority_breaks_ties_after_the_release(tmp_path):
    root = plan(tmp_path)
    assert run_cli("next", "--json", cwd=root).json["result"]["task"]["id"] == "HX-2"
    setup("edit", "HX-4", "--set", "priority=high", cwd=root)
    assert run_cli("next", "--json", cwd=root).json["result"]["task"]["id"] == "HX-4"
    setup("edit", "HX-10", "--set", "priority=high", cwd=root)
    assert run_cli("next", "--json", cwd=root).json["result"]["task"]["id"] == "HX-4", "release first"


def test_cli_hygiene(tmp_path):
    root = plan(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_cli("--root", str(root), "next", cwd=elsewhere).code == 0
    assert run_cli("show", "hx-10", cwd=root).code == 0
    typo = run_cli("comlete", cwd=root)
    assert typo.code == 2 and "did you mean complete" in typo.stderr
    missing = run_cli("show", "HX-11", cwd=root)
    assert missing.code == 5 and "did you mean HX-1" in missing.stderr
    assert run_cli("release", "add", "R9", "--title", "x", "--target", "2027-13-45", cwd=root).code == 2
    version = run_cli("--version", cwd=root)
    assert version.stdout.startswith("leafwise ") and "Next:" not in version.stdout  # stdout is the version alone
    assert version.stderr.strip() == "Next: leafwise commands"
    assert run_cli("next", "-h", cwd=root).code == 0
    ttl = run_cli("start", "HX-2", "--agent", "A", "--ttl", "1e308", cwd=root)
    assert ttl.code == 2 and "ttl" in ttl.stderr
    assert not (root / ".leafwise/claims/HX-2.json").exists()


def test_init_writes_yaml_for_any_folder_name(tmp_path):
    for name in ("a$(x)", "it's: \"q\"", "x: [y]"):
        folder = tmp_path / name
        folder.mkdir()
        assert run_cli("init", cwd=folder).code == 0
        assert yaml.safe_load((folder / ".leafwise/project.yaml").read_text())["name"] == name
        assert run_cli("validate", cwd=folder).code == 0


def test_start_next_passes_over_an_own_task_whose_dependency_reopened(tmp_path):
    """Found by the simulation: the picker resumed the agent's own task, the claim refused it (an open
    dependency), and start --next retried the same task 50 times, answering lock_busy."""
    root = write_plan(tmp_path, [node("HX-1", "First", "done", release="R1"),
                                 node("HX-2", "Second", release="R1", depends_on=["HX-1"]),
                                 node("HX-3", "Third", release="R1")], prefix="HX")
    assert run_cli("start", "HX-2", "--agent", "A", cwd=root).code == 0
    path = root / ".leafwise/nodes/HX-1.yaml"
    path.write_text(path.read_text().replace('status: "done"', 'status: "draft"'))  # a person reopens it
    res = run_cli("start", "--next", "--agent", "A", "--json", cwd=root)
    assert res.code == 0, res.stderr
    assert res.json["result"]["task"]["id"] in ("HX-1", "HX-3")
