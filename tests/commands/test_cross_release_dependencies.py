"""An R1 task waiting on an R2 task: validate warns (file, line, a Fix from the plan's own values), R1's
forecast counts the blocker, and the picker hands it out with R1, before R2's own work."""

from __future__ import annotations

from pathlib import Path

from testkit import node, run_cli, write_plan


def plan(root: Path) -> None:
    write_plan(root, [
        node("T-1", "Epic one", release="R1"),
        node("T-2", "ship checkout", parent="T-1", depends_on=["T-4"]),
        node("T-3", "Epic two", release="R2"),
        node("T-4", "zeta payment API", parent="T-3", depends_on=["T-7"]),  # R1 waits on it
        node("T-5", "alpha polish", parent="T-3"),  # R2's own work, first by title
        node("T-6", "Epic three", release="R3"),
        node("T-7", "schema", parent="T-6"),  # R1 waits on it through T-4
        node("T-8", "another R3 task", parent="T-6"),
    ], releases=("R1", "R2", "R3"))


def test_validate_warns_with_file_line_and_fix(tmp_path: Path) -> None:
    plan(tmp_path)
    res = run_cli("validate", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    found = [p for p in res.json["result"]["problems"]["items"] if p["code"] == "dependency_on_later_release"]
    by_node = {p["node"]: p for p in found}
    assert set(by_node) == {"T-2", "T-4"}, found  # each direct dependency on a later release
    warn = by_node["T-2"]
    assert warn["severity"] == "warning"
    assert warn["file"] == ".leafwise/nodes/T-2.yaml"
    assert (tmp_path / warn["file"]).read_text().splitlines()[warn["line"] - 1].startswith("depends_on:")
    assert warn["fix"] == "leafwise edit T-4 --set release=R1"
    assert "T-4 in release R2" in warn["message"] and 'depends_on=[]' in warn["message"]
    # the Fix works: following it clears the warning on T-2
    assert run_cli(*warn["fix"].split()[1:], cwd=tmp_path).code == 0
    after = run_cli("validate", "--json", cwd=tmp_path).json["result"]["problems"]["items"]
    assert not [p for p in after if p["code"] == "dependency_on_later_release" and p["node"] == "T-2"]


def test_no_warning_once_the_blocker_is_done(tmp_path: Path) -> None:
    plan(tmp_path)
    for task in ("T-7", "T-4"):
        assert run_cli("start", task, "--agent", "a", cwd=tmp_path).code == 0
        assert run_cli("complete", task, "--summary", "s", "--agent", "a", cwd=tmp_path).code == 0
    problems = run_cli("validate", "--json", cwd=tmp_path).json["result"]["problems"]["items"]
    assert not [p for p in problems if p["code"] == "dependency_on_later_release"]


def test_the_forecast_of_r1_counts_what_it_waits_on(tmp_path: Path) -> None:
    plan(tmp_path)
    res = run_cli("progress", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    r1, r2, r3 = res.json["result"]["forecast"]
    assert r1["release"] == "R1" and r1["total"] == 3 and r1["remaining"] == 3  # T-2, and T-4, T-7 it waits on
    assert r1["waits_on"] == ["T-4", "T-7"]
    assert (r2["total"], r2["waits_on"]) == (3, ["T-7"])  # R2 waits on T-7 too (T-4)
    assert (r3["total"], r3["waits_on"]) == (2, [])
    text = run_cli("progress", cwd=tmp_path).stdout
    assert "3 left (incl. 2 of a later release it waits on: T-4, T-7)" in text


def test_the_picker_hands_out_the_blocker_first(tmp_path: Path) -> None:
    plan(tmp_path)
    first = run_cli("next", "--json", cwd=tmp_path).json["result"]
    # T-7 (R3) is the only ready task R1 waits on: it goes before R2's "alpha polish"
    assert first["task"]["id"] == "T-7", first
    assert "needed by release R1" in first["reason"], first
    assert run_cli("start", "--next", "--agent", "a", cwd=tmp_path).code == 0
    assert run_cli("complete", "T-7", "--summary", "s", "--agent", "a", cwd=tmp_path).code == 0
    second = run_cli("start", "--next", "--agent", "a", "--json", cwd=tmp_path).json["result"]
    assert second["task"]["id"] == "T-4", second


def test_without_the_dependency_the_blocker_keeps_its_own_place(tmp_path: Path) -> None:
    plan(tmp_path)
    assert run_cli("edit", "T-2", "--set", "depends_on=[]", cwd=tmp_path).code == 0
    assert run_cli("start", "T-2", "--agent", "a", cwd=tmp_path).code == 0
    assert run_cli("complete", "T-2", "--summary", "s", "--agent", "a", cwd=tmp_path).code == 0
    # nothing of R1 waits now: T-7 (R3, waited on by R2's T-4) goes among R2's work, by title
    chosen = run_cli("next", "--json", cwd=tmp_path).json["result"]
    assert chosen["task"]["id"] == "T-5" and chosen["reason"].startswith("earliest release (R2)"), chosen
