"""The validator skips the rules that cannot fire on a node (issue 25's floor: `complete` validates the
whole plan), and answers exactly what running every rule on every node answers.

The reference below is the validator as it was before the guards: every per-node rule on every node,
the dependency rule's ancestor set rebuilt per dependency, the parent-cycle walk reading
`Node.parent`, Kahn's pass over every node. Generated plans (real files, loaded by the real loader) carry every problem the rules
know: missing and looped parents, unknown releases, foreign prefixes, repeated, missing, ancestral
and cyclic dependencies, later-release dependencies, blocked without a reason, done over open
children, half-finished cascades, missing, present and unsafe docs.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.core import validate as V
from leafwise.commands.plan_files import plan_files
from leafwise.commands.registry import command_line
from leafwise.store import load_plan
from leafwise.store.paths import PlanPaths
from testkit import write_plan

STATUSES = ["draft", "in-progress", "done", "blocked", "cancelled"]


def _reference_dependency_problems(plan, node, files, cmd):
    deps = node.depends_on
    if not deps:
        return []
    out = []
    if len(set(deps)) < len(deps):
        out.append(V._p("duplicate_dependency", "warning", "depends_on lists the same node twice",
                        cmd("edit", node.id, set=[f"depends_on=[{', '.join(dict.fromkeys(deps))}]"]), node,
                        files.line_of(node, "depends_on")))
    above = next((d for d in deps if d in {a.id for a in plan.ancestors(node.id)}), None)
    if above is not None:
        out.append(V._p("dependency_on_ancestor", "error",
                        f"depends on {above}, which contains it: neither can ever close",
                        cmd("edit", node.id, set=[V._list_value("depends_on", deps, above)]), node,
                        files.line_of(node, "depends_on")))
    missing = [d for d in deps if d not in plan.nodes and d not in V.unloaded(files)]
    if missing:
        keep = ", ".join(d for d in deps if d in plan.nodes)
        out.append(V._p("dangling_dependency", "error", f"depends on {', '.join(missing)}, which does not exist",
                        cmd("edit", node.id, set=[f"depends_on=[{keep}]"]), node, files.line_of(node, "depends_on")))
    return out


def _reference_hierarchy_cycles(plan, files, cmd):
    nodes = plan.nodes
    state: dict[str, int] = {}
    out = []
    for start in nodes:
        walk: list[str] = []
        cursor = start
        while cursor in nodes and state.get(cursor) is None:
            state[cursor] = 1
            walk.append(cursor)
            cursor = nodes[cursor].parent
        if cursor in nodes and state.get(cursor) == 1:
            loop = walk[walk.index(cursor):]
            first = min(loop)
            node = nodes[first]
            out.append(V._p("hierarchy_cycle", "error", f"parent cycle: {' → '.join(loop + [cursor])}",
                            cmd("edit", first, set=["parent=null"]), node, files.line_of(node, "parent")))
        for item in walk:
            state[item] = 2
    return out


def _reference_dependency_cycles(plan, files, cmd):
    nodes = plan.nodes
    indegree = {nid: 0 for nid in nodes}
    edges = [(n.id, d) for n in nodes.values() for d in n.depends_on if d in nodes]
    if not edges:
        return []
    out_edges: dict[str, list[str]] = {}
    for a, b in edges:
        indegree[b] += 1
        out_edges.setdefault(a, []).append(b)
    queue = [nid for nid, deg in indegree.items() if deg == 0]
    removed = 0
    while queue:
        nid = queue.pop()
        removed += 1
        for b in out_edges.get(nid, ()):
            indegree[b] -= 1
            if indegree[b] == 0:
                queue.append(b)
    if removed == len(nodes):
        return []
    import networkx as nx

    graph = nx.DiGraph(edges)
    problems = []
    for component in sorted((sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1
                             or graph.has_edge(next(iter(c)), next(iter(c)))), key=lambda c: c[0]):
        cycle = nx.find_cycle(graph.subgraph(component))
        first = min(component)
        node = nodes[first]
        path = [a for a, _b in cycle] + [cycle[0][0]]
        drop = next(b for a, b in cycle if a == first) if any(a == first for a, _ in cycle) else cycle[0][1]
        keep = ", ".join(d for d in node.depends_on if d != drop)
        problems.append(V._p("dependency_cycle", "error", f"dependency cycle: {' → '.join(path)}",
                             cmd("edit", first, set=[f"depends_on=[{keep}]"]), node,
                             files.line_of(node, "depends_on")))
    return problems


def reference(plan, files, cmd):
    problems = V._file_problems(files, cmd) + V._release_problems(plan, cmd)
    releases = plan.project.release_rank()
    links: dict = {}
    for node in plan.nodes.values():
        problems += V._placement_problems(plan, releases, node, files, cmd)
        problems += _reference_dependency_problems(plan, node, files, cmd)
        problems += V._release_order_problems(plan, releases, node, files, cmd)
        problems += V._status_problems(plan, node, files, cmd)
        problems += V._link_problems(node, links, files, cmd)
    problems += _reference_hierarchy_cycles(plan, files, cmd)
    problems += _reference_dependency_cycles(plan, files, cmd)
    problems += V._untrusted(files.commands, cmd)
    return V._in_order(problems)


def _node(draw, i: int, count: int) -> dict:
    ids = [f"T-{j}" for j in range(1, count + 3)]  # two beyond the plan: missing nodes
    data: dict = {"id": f"T-{i}" if draw(st.integers(0, 9)) else f"X-{i}", "title": f"node {i}",
                  "status": draw(st.sampled_from(STATUSES))}
    if draw(st.integers(0, 3)):
        data["parent"] = draw(st.sampled_from(ids))
    if draw(st.integers(0, 2)) == 0:
        data["release"] = draw(st.sampled_from(["R1", "R2", "R3", "R9"]))
    if draw(st.integers(0, 2)) == 0:
        data["depends_on"] = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3))
    if data["status"] == "blocked" and draw(st.booleans()):
        data["blocked_reason"] = "waits"
    if draw(st.integers(0, 3)) == 0:
        data["docs"] = draw(st.lists(st.sampled_from(["docs/a.md", "docs/missing.md", "../outside.md"]),
                                     min_size=1, max_size=2))
    if draw(st.integers(0, 6)) == 0:
        data["cascade"] = "manual"
    return data


@st.composite
def plans(draw) -> list[dict]:
    count = draw(st.integers(1, 14))
    nodes = [_node(draw, i, count) for i in range(1, count + 1)]
    seen: set[str] = set()
    return [n for n in nodes if not (n["id"] in seen or seen.add(n["id"]))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plans())
def test_the_guarded_validator_answers_what_every_rule_on_every_node_answers(tmp_path_factory, nodes) -> None:
    root = tmp_path_factory.mktemp("plan")
    write_plan(root, nodes)
    (root / ".leafwise" / "docs" / "a.md").write_text("a doc\n")
    plan = load_plan(PlanPaths(root), use_cache=False)
    files = plan_files(plan, command_line)
    assert V.plan_problems(plan, files, command_line) == reference(plan, files, command_line)


def test_the_generated_plans_reach_every_rule(tmp_path: Path) -> None:
    """The generator is not vacuous: a hand-made plan with one of each problem gives each code."""
    write_plan(tmp_path, [
        {"id": "T-1", "title": "epic", "status": "done", "release": "R9"},
        {"id": "T-2", "title": "open under done", "status": "draft", "parent": "T-1",
         "depends_on": ["T-2", "T-2", "T-1", "T-8"]},
        {"id": "X-3", "title": "foreign", "status": "blocked", "parent": "T-9", "docs": ["docs/missing.md"]},
        {"id": "T-4", "title": "a", "status": "draft", "parent": "T-5", "release": "R1", "depends_on": ["T-6"]},
        {"id": "T-5", "title": "b", "status": "draft", "parent": "T-4"},
        {"id": "T-6", "title": "later", "status": "draft", "release": "R3", "depends_on": ["T-4"]},
        {"id": "T-7", "title": "closed kids", "status": "in-progress"},
        {"id": "T-10", "title": "kid", "status": "done", "parent": "T-7"},
    ])
    plan = load_plan(PlanPaths(tmp_path), use_cache=False)
    files = plan_files(plan, command_line)
    got = V.plan_problems(plan, files, command_line)
    assert got == reference(plan, files, command_line)
    assert {p.code for p in got} >= {"unknown_release", "done_with_open_children", "duplicate_dependency",
                                     "dependency_on_ancestor", "dangling_dependency", "foreign_prefix",
                                     "orphan_parent", "blocked_without_reason", "dangling_doc", "hierarchy_cycle",
                                     "dependency_cycle", "dependency_on_later_release", "half_finished_cascade"}
