"""Progress numbers against hand-computed values, and the reconcile suggestion."""

from __future__ import annotations

from pathlib import Path

from testkit import node, run_cli, write_plan

PLAN = [
    node("P-1", "Epic one", "in-progress", release="R1"),
    node("P-2", "a", "done", parent="P-1"),
    node("P-3", "b", "done", parent="P-1"),
    node("P-4", "c", "in-progress", parent="P-1", assignee="x"),
    node("P-5", "d", "cancelled", parent="P-1"),          # leaves the denominator
    node("P-6", "Feature", "in-progress", parent="P-1"),
    node("P-7", "e", "blocked", parent="P-6", blocked_reason="keys"),
    node("P-8", "f", "done", parent="P-6"),
    node("P-9", "Epic two", "draft", release="R2"),
    node("P-10", "g", "draft", parent="P-9"),
    node("P-11", "h", "draft", parent="P-9"),
    node("P-12", "Loose task", "done"),                    # no release
]


def test_progress_by_release_and_epic(tmp_path: Path) -> None:
    write_plan(tmp_path, PLAN, releases=("R1", "R2"), prefix="P")
    res = run_cli("progress", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    result = res.json["result"]
    releases = {r["id"]: r for r in result["releases"]}
    # R1 leaves: P-2 done, P-3 done, P-4 in progress, P-7 blocked, P-8 done; P-5 cancelled is out.
    assert (releases["R1"]["done"], releases["R1"]["total"], releases["R1"]["percent"]) == (3, 5, 60)
    assert (releases["R1"]["in_progress"], releases["R1"]["blocked"], releases["R1"]["cancelled"]) == (1, 1, 1)
    assert (releases["R2"]["done"], releases["R2"]["total"], releases["R2"]["percent"]) == (0, 2, 0)
    assert (releases[None]["done"], releases[None]["total"]) == (1, 1)
    epics = {e["id"]: e for e in result["epics"]}
    assert (epics["P-1"]["done"], epics["P-1"]["total"]) == (3, 5)
    assert (epics["P-9"]["done"], epics["P-9"]["total"]) == (0, 2)
    assert (result["overall"]["done"], result["overall"]["total"], result["overall"]["percent"]) == (4, 8, 50)
    flight = {i["id"]: i for i in result["in_progress"]}
    assert flight["P-1"]["open_leaves_left"] == 2 and flight["P-6"]["left"] == ["P-7"]
    assert result["next"]["id"] == "P-10"
    text = run_cli("progress", cwd=tmp_path).stdout
    assert "60%" in text and "3/5" in text


def test_progress_suggests_reconcile_when_only_drafts_remain(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("P-1", "Epic", "in-progress", release="R1"), node("P-2", "a", "done", parent="P-1"),
                          node("P-3", "b", "draft", parent="P-1")], releases=("R1",), prefix="P")
    env = run_cli("progress", "--json", cwd=tmp_path).json
    assert env["result"]["reconcile_suggested"] == "R1"
    assert env["_next_action"]["command"] == "leafwise reconcile --release R1"
    assert env["_next_action"]["or"].startswith("leafwise start ")  # P-3, or the picker's `--next`
    assert env["_next_action"]["or"].endswith('--agent "<agent>"')
