"""The canvas's live model without Textual: counts, incremental updates, the filter, the watcher's map."""

from __future__ import annotations

import os
from pathlib import Path

from leafwise.canvas.model.query import Query
from leafwise.canvas.model.state import NO_RELEASE_GROUP, UNPLACED, PlanState, leaf_counts
from leafwise.commands.core.progress import compute, leaf_progress
from leafwise.store import PlanPaths, load_plan
from leafwise.store.watch import classify, relevant
from testkit import node, run_cli, write_plan


def state_of(root: Path) -> PlanState:
    return PlanState.load(PlanPaths(root))


def rewrite(root: Path, node_id: str, old: str, new: str) -> None:
    path = root / ".leafwise" / "nodes" / f"{node_id}.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_leaf_counts_count_done_leaves_under_each_node_and_leave_cancelled_ones_out(tmp_path):
    write_plan(tmp_path, [
        node("T-1", "Epic", release="R1"), node("T-2", "Done leaf", "done", parent="T-1"),
        node("T-3", "Cancelled leaf", "cancelled", parent="T-1"), node("T-4", "Inner epic", parent="T-1"),
        node("T-5", "Draft leaf", parent="T-4"), node("T-6", "Done leaf", "done", parent="T-4"),
        node("T-7", "Epic of cancelled only", release="R2"), node("T-8", "Gone", "cancelled", parent="T-7"),
        node("T-9", "Lone done leaf", "done"),
    ])
    plan = load_plan(PlanPaths(tmp_path))
    assert leaf_counts(plan) == {"T-1": (2, 3), "T-2": (1, 1), "T-3": (0, 0), "T-4": (1, 2), "T-5": (0, 1),
                                 "T-6": (1, 1), "T-7": (0, 0), "T-8": (0, 0), "T-9": (1, 1)}
    assert leaf_progress(plan, plan.nodes["T-1"]) == (2, 3)


def test_release_groups_follow_progress_compute_and_end_with_no_release(tmp_path):
    write_plan(tmp_path, [
        node("T-1", "Epic one", release="R2"), node("T-2", "Leaf", "done", parent="T-1"),
        node("T-3", "Loose idea"), node("T-4", "First epic", release="R1"),
        node("T-5", "Leaf two", parent="T-4"),
    ])
    state = state_of(tmp_path)
    assert [g.key for g in state.groups] == ["R1", "R2", "R3", NO_RELEASE_GROUP]
    assert state.group("R2").tops == ["T-1"] and state.group(NO_RELEASE_GROUP).tops == ["T-3"]
    report = compute(state.plan)
    for tally in report.releases:
        group = state.group(tally.id or NO_RELEASE_GROUP)
        assert (group.tally.done, group.tally.total) == (tally.done, tally.total)


def test_a_parent_cycle_is_shown_apart_not_lost(tmp_path):
    write_plan(tmp_path, [node("T-1", "A", parent="T-2"), node("T-2", "B", parent="T-1"), node("T-3", "C")])
    state = state_of(tmp_path)
    (top,) = state.group(UNPLACED).tops  # the cycle's cut, the other below it: every node still shown
    other = ({"T-1", "T-2"} - {top}).pop()
    assert state.nodes[top].children == [other] and state.group_of(other) == UNPLACED
    assert [t for g in state.groups if g.key != UNPLACED for t in g.tops] == ["T-3"]


def test_apply_recounts_only_the_changed_chain(demo_plan):
    state = state_of(demo_plan)
    before = dict(state.counts)
    rewrite(demo_plan, "SHOP-18", "status: draft", "status: done")
    delta = state.apply(state.read({"SHOP-18"}))
    assert delta.changed == {"SHOP-18"} and not delta.structural
    assert ("SHOP-18", "draft", "done") in delta.transitions
    assert delta.recounted == {"SHOP-18", "SHOP-15", "SHOP-1"}
    assert state.counts["SHOP-15"] == (before["SHOP-15"][0] + 1, before["SHOP-15"][1])
    assert state.counts == leaf_counts(load_plan(PlanPaths(demo_plan), use_cache=False))
    assert state.group("R1").tally.done == compute(state.plan).releases[0].done
    assert state.apply(state.read({"SHOP-18"})).changed == set()  # same bytes: nothing to do


def test_apply_moves_a_node_and_regroups(demo_plan):
    state = state_of(demo_plan)
    rewrite(demo_plan, "SHOP-18", "parent: SHOP-15", "parent: SHOP-8")
    delta = state.apply(state.read({"SHOP-18"}))
    assert delta.structural
    assert "SHOP-18" in state.nodes["SHOP-8"].children
    assert "SHOP-18" not in state.nodes["SHOP-15"].children
    assert state.nodes["SHOP-18"].effective_release == "R3"
    assert {"SHOP-15", "SHOP-8"} <= delta.recounted


def test_apply_turns_a_broken_file_into_a_problem_and_back(demo_plan):
    state = state_of(demo_plan)
    path = demo_plan / ".leafwise" / "nodes" / "SHOP-18.yaml"
    good = path.read_text()
    path.write_text("id: SHOP-18\ntitle: [unclosed\n")
    delta = state.apply(state.read({"SHOP-18"}))
    assert "SHOP-18" in delta.removed and delta.problems_changed
    assert [p.node for p in state.plan.problems] == ["SHOP-18"]
    path.write_text(good)
    delta = state.apply(state.read({"SHOP-18"}))
    assert "SHOP-18" in delta.added and state.plan.problems == []


def test_new_and_removed_files(demo_plan):
    state = state_of(demo_plan)
    res = run_cli("add", "Export orders as CSV", "--parent", "SHOP-5", cwd=demo_plan)
    assert res.code == 0, res.stderr
    new_id = run_cli("list", "--parent", "SHOP-5", "--json", cwd=demo_plan).json["result"]["items"]
    added = {i["id"] for i in new_id} - set(state.nodes)
    delta = state.apply(state.read(added))
    assert delta.added == added
    assert added <= set(state.nodes["SHOP-5"].children)
    (demo_plan / ".leafwise" / "nodes" / f"{next(iter(added))}.yaml").unlink()
    delta = state.apply(state.read(added))
    assert delta.removed == added and not (added & set(state.nodes))


def test_reload_reports_what_differs(demo_plan):
    state = state_of(demo_plan)
    rewrite(demo_plan, "SHOP-27", "title: Search autocomplete", "title: Search-as-you-type")
    delta = state.reload()
    assert delta.changed == {"SHOP-27"}
    assert state.nodes["SHOP-27"].title == "Search-as-you-type"


def test_query_fields(demo_plan):
    state = state_of(demo_plan)

    def found(text: str) -> set[str]:
        query = Query.parse(text)
        return {nid for nid, n in state.nodes.items() if query.matches(n, state.search[nid])}

    assert found("status:blocked") == {"SHOP-32", "SHOP-40", "SHOP-52", "SHOP-62"}
    assert found("login") >= {"SHOP-11", "SHOP-14"}
    assert found("@claude-3") == {n for n, x in state.nodes.items() if x.assignee == "claude-3"}
    assert found("#tech-debt") == {n for n, x in state.nodes.items() if "tech-debt" in x.tags}
    assert found("release:r2 is:blocked") == {"SHOP-52", "SHOP-62"}
    assert found("shop-40") == {"SHOP-40"}
    assert found("nothing-matches-this") == set()


def test_watch_map_ignores_noise(tmp_path):
    paths = PlanPaths(tmp_path)
    base = paths.dir
    changed = [base / "nodes" / "T-1.yaml", base / "nodes" / ".lw-123.tmp", base / ".cache" / "nodes.pickle",
               base / ".locks" / "T-1.lock", base / "journal.jsonl", base / "project.yaml",
               base / "claims" / "T-2.json", base / "docs" / "auth.md", base / "nodes" / "notes.txt",
               base / "cycles" / "loop.count", base / "nodes" / "T-3.yaml~"]
    changes = classify(paths, [os.fspath(p) for p in changed])
    assert changes.nodes == {"T-1"}
    assert changes.journal and changes.project and changes.claims and changes.cycles
    assert changes.docs == {"docs/auth.md"}
    assert not relevant(base, os.fspath(base / ".cache" / "x"))
    assert not classify(paths, [os.fspath(base / ".locks" / "journal.lock")])


def test_a_new_title_resorts_its_siblings_without_a_reindex(demo_plan):
    state = state_of(demo_plan)
    assert state.nodes["SHOP-15"].children == ["SHOP-18", "SHOP-16", "SHOP-17"]
    rewrite(demo_plan, "SHOP-18", "title: Delete my account (GDPR)", "title: Zap my account (GDPR)")
    delta = state.apply(state.read({"SHOP-18"}))
    assert delta.structural and not delta.added and not delta.removed
    assert state.nodes["SHOP-15"].children == ["SHOP-16", "SHOP-17", "SHOP-18"]
    assert state.nodes["SHOP-18"].depth == 2 and state.nodes["SHOP-18"].effective_release == "R1"


def test_typing_on_narrows_only_when_it_is_safe():
    assert Query.parse("payment").narrows(Query.parse("pay"))
    assert Query.parse("pay x").narrows(Query.parse("pay"))
    assert Query.parse("status:blo").narrows(Query.parse("status:b"))
    assert not Query.parse("@c").narrows(Query.parse("@"))  # "@" alone was a plain word
    assert not Query.parse("release:r22").narrows(Query.parse("release:r2"))  # equality
    assert not Query.parse("pa").narrows(Query.parse("pay"))


def test_the_watch_map_is_headless():
    import subprocess
    import sys

    code = ("import sys, leafwise.store.watch; "
            "print(sorted(m for m in ('textual', 'watchfiles') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"  # textual never, watchfiles only once watching starts
