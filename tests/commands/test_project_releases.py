"""Plan management through the real CLI: project set, release list/edit/move/remove, init on an existing plan."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from testkit import node, run_cli, write_plan


def _project(root: Path) -> dict:
    return yaml.safe_load((root / ".leafwise/project.yaml").read_text())


def _journal(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / ".leafwise/journal.jsonl").read_text().splitlines() if line]


def test_init_on_an_existing_plan_refuses_name_and_prefix_and_points_at_project_set(tmp_path: Path) -> None:
    assert run_cli("init", "--name", "Bakery", "--prefix", "BAK", cwd=tmp_path).code == 0
    before = (tmp_path / ".leafwise/project.yaml").read_bytes()
    res = run_cli("init", "--name", "Corner bakery", "--prefix", "CB", cwd=tmp_path)
    assert res.code == 3
    assert res.stderr.strip().splitlines()[-1] == 'Fix: leafwise project set --name "Corner bakery" --prefix CB'
    assert (tmp_path / ".leafwise/project.yaml").read_bytes() == before
    again = run_cli("init", cwd=tmp_path)  # a bare init on a plan stays a harmless no-op
    assert again.code == 0 and "already exists" in again.stdout
    follow = run_cli("project", "set", "--name", "Corner bakery", "--prefix", "CB", cwd=tmp_path)
    assert follow.code == 0, follow.stderr
    assert _project(tmp_path)["name"] == "Corner bakery" and _project(tmp_path)["id_prefix"] == "CB"


def test_init_ignores_claims_so_a_merge_never_plants_a_lease(tmp_path: Path) -> None:
    run_cli("init", cwd=tmp_path)
    assert "claims/" in (tmp_path / ".leafwise/.gitignore").read_text().splitlines()


def test_a_new_prefix_applies_to_new_ids_and_old_ids_stay_valid(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Old work", release="R1")])
    res = run_cli("project", "set", "--prefix", "shop2", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    assert res.json["result"]["id_prefix"] == "SHOP2"
    added = run_cli("add", "New work", "--release", "R1", "--json", cwd=tmp_path)
    assert added.json["result"]["id"] == "SHOP2-1"
    checked = run_cli("validate", "--json", cwd=tmp_path)
    assert checked.code == 0 and checked.json["result"]["problems"]["total"] == 0, checked.stdout
    assert [e["changes"] for e in _journal(tmp_path) if e["command"] == "project set"] == \
        [{"id_prefix": ["T", "SHOP2"]}]
    same = run_cli("project", "set", "--prefix", "SHOP2", "--json", cwd=tmp_path)
    assert same.code == 0 and same.json["mutation"]["applied"] is False


def test_a_prefix_is_letters_and_digits_only(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    for bad in ("a-b", "../x", "1AB", "A B", "SHOP\n"):
        res = run_cli("project", "set", "--prefix", bad, cwd=tmp_path)
        assert res.code == 2, (bad, res.stderr)
        assert res.stderr.strip().splitlines()[-1].startswith("Fix: leafwise project set --prefix ")
    assert _project(tmp_path)["id_prefix"] == "T"


def test_project_set_keeps_the_persons_comments(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    path = tmp_path / ".leafwise/project.yaml"
    path.write_text("# our plan\n" + path.read_text().replace("name: Test", "name: Test  # the name"))
    assert run_cli("project", "set", "--name", "Renamed", cwd=tmp_path).code == 0
    text = path.read_text()
    assert text.startswith("# our plan\n") and "name: Renamed" in text and "# the name" in text


def test_release_list_edit_move(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R2"), node("T-2", "B", "done", release="R2")])
    listed = run_cli("release", "list", "--json", cwd=tmp_path).json["result"]["items"]
    assert [(r["id"], r["nodes"], r["open"]) for r in listed] == [("R1", 0, 0), ("R2", 2, 1), ("R3", 0, 0)]
    assert run_cli("release", "edit", "R2", "--title", "Payments", "--target", "2027-03-01", cwd=tmp_path).code == 0
    assert _project(tmp_path)["releases"][1] == {"id": "R2", "title": "Payments",
                                                 "target": __import__("datetime").date(2027, 3, 1)}
    bad = run_cli("release", "edit", "R2", "--target", "2027-13-45", cwd=tmp_path)
    assert bad.code == 2 and "YYYY-MM-DD" in bad.stderr
    assert run_cli("release", "edit", "R2", "--clear-target", cwd=tmp_path).code == 0
    assert "target" not in _project(tmp_path)["releases"][1]
    moved = run_cli("release", "move", "R2", "--before", "R1", "--json", cwd=tmp_path)
    assert moved.json["result"]["order"] == ["R2", "R1", "R3"]
    assert run_cli("next", "--json", cwd=tmp_path).json["result"]["task"]["id"] == "T-1"  # the picker follows the order
    run_cli("release", "move", "R1", "--after", "R3", cwd=tmp_path)
    assert [r["id"] for r in _project(tmp_path)["releases"]] == ["R2", "R3", "R1"]
    unknown = run_cli("release", "edit", "R22", "--title", "x", cwd=tmp_path)
    assert unknown.code == 5 and "did you mean R2" in unknown.stderr


def test_release_remove_refuses_while_nodes_use_it_and_the_fix_gets_there(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R3"), node("T-2", "B", "done", release="R3")])
    for _step in range(3):
        res = run_cli("release", "remove", "R3", cwd=tmp_path)
        if res.code == 0:
            break
        assert res.code == 3, res.stderr
        fix_line = res.stderr.strip().splitlines()[-2]
        assert fix_line.startswith("Fix: leafwise edit T-"), res.stderr
        import shlex

        assert run_cli(*shlex.split(fix_line[len("Fix: leafwise "):]), cwd=tmp_path).code == 0
    assert res.code == 0, res.stderr
    assert [r["id"] for r in _project(tmp_path)["releases"]] == ["R1", "R2"]
    assert run_cli("validate", cwd=tmp_path).code == 0
    assert any(e["command"] == "release remove" and e["release"] == "R3" for e in _journal(tmp_path))
