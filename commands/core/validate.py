"""The validator: every problem with a code, severity, node, file, line, message and fix.

Pure rules over the plan in memory: what it needs from the disk (the lines of a node file, whether
a linked doc is there, the commands the plan's files would run, git's merge conflicts) its caller
reads and passes in a `PlanFiles` (`commands/plan_files.py` does, for every command and the canvas).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Any

from leafwise.commands.contract import CommandLine, placeholder
from leafwise.commands.core.cascade import cascades, closing_status
from leafwise.commands.core.readiness import PROJECT_FILE, open_children
from leafwise.commands.core.release_needs import later_dependencies
from leafwise.commands.text import counted_blanks
from leafwise.store import Node, Plan, Problem, Status
from leafwise.store.ids import is_node_id
from leafwise.store.paths import UnsafePath

SEVERITY_ORDER = {"error": 0, "warning": 1}
OWN_FIX = frozenset({"duplicate_id", "merge_conflict", "cycle_node_gone"})  # load problems whose fix is no diagnose


@dataclass(frozen=True, slots=True)
class PlanCommand:
    """A shell command a plan file asks Leafwise to run: a `done_when` check or a cycle's verify."""

    command: str
    source: str  # "node" | "cycle"
    owner: str  # the node id or the cycle name
    file: str
    hash: str  # sha256 of (plan real path, command): the key `leafwise trust` stores
    trusted: bool

    @property
    def short(self) -> str:
        return self.hash[:16]

    @property
    def shown(self) -> str:
        """The command as a person reads it before approving it: whole, never cut, long runs of blanks
        counted (`text.counted_blanks`). Every surface shows this (then `inert`)."""
        return counted_blanks(self.command)

    def as_dict(self) -> dict[str, Any]:
        return {"command": self.command, "source": self.source, "owner": self.owner, "file": self.file,
                "hash": self.short, "trusted": self.trusted}


@dataclass(frozen=True, slots=True)
class PlanFiles:
    """What the validator needs from the disk, read by its caller."""

    load_problems: Sequence[Problem]  # the loader's problems, git's merge conflicts told apart
    line_of: Callable[[Node, str], int | None]  # the line of a key in a node's file (asked for problems only)
    link: Callable[[str], bool | UnsafePath]  # a docs/diagrams path: whether the file is there, or why unsafe
    commands: Sequence[PlanCommand] = ()  # every command the plan's files would have Leafwise run



def _p(code: str, severity: str, message: str, fix_cmd: str, node=None, line: int | None = None) -> Problem:
    return Problem(code, severity, message, fix_cmd, node=node.id if node else None,
                   file=node.file if node else None, line=line)



def key_line(lines: Sequence[str], key: str) -> int | None:
    """The line number of `key:` among a node file's lines."""
    return next((i for i, text in enumerate(lines, 1) if text.startswith(f"{key}:")), None)


PROJECT_ECHOES = {"unknown_release", "foreign_prefix"}


def plan_problems(plan: Plan, files: PlanFiles, cmd: CommandLine) -> list[Problem]:
    """All problems of the plan, errors first, then by file and line: deterministic."""
    problems = _file_problems(files, cmd) + _release_problems(plan, cmd)
    releases = plan.project.release_rank()
    links: dict[str, bool | UnsafePath] = {}  # many nodes share a doc: ask for each path once
    nodes = plan.nodes
    prefixes = (plan.project.id_prefix, *plan.project.former_prefixes)
    blocked = Status.BLOCKED
    for node in nodes.values():
        # Each rule runs where it can find something (most nodes: none). The guards are the rules' own
        # first conditions, so a node skipped by one gives what the rule gives it: nothing.
        data = node.data
        parent, release = data.get("parent"), data.get("release")
        if (parent and parent not in nodes) or (release and release not in releases) \
                or node.id.rsplit("-", 1)[0] not in prefixes:
            problems += _placement_problems(plan, releases, node, files, cmd)
        if data.get("depends_on"):
            problems += _dependency_problems(plan, node, files, cmd)
            problems += _release_order_problems(plan, releases, node, files, cmd)
        if node.children or node.status == blocked:
            problems += _status_problems(plan, node, files, cmd)
        if data.get("docs") or data.get("diagrams"):
            problems += _link_problems(node, links, files, cmd)
    problems += _hierarchy_cycles(plan, files, cmd)
    problems += _dependency_cycles(plan, files, cmd)
    problems += _untrusted(files.commands, cmd)
    return _in_order(problems)


def _in_order(problems: list[Problem]) -> list[Problem]:
    """Errors first, project.yaml's first among them, then by file, line and code."""
    if any(p.file == PROJECT_FILE and p.severity == "error" for p in problems):
        # Releases and the id prefix come from project.yaml: with it unreadable, "unknown release" on
        # every node and "foreign prefix" are echoes of the one problem, which must come first.
        problems = [p for p in problems if p.code not in PROJECT_ECHOES]
    return sorted(problems, key=lambda p: (SEVERITY_ORDER.get(p.severity, 2), p.file != PROJECT_FILE,
                                           p.file or "", p.line or 0, p.code))


def _file_problems(files: PlanFiles, cmd: CommandLine) -> list[Problem]:
    """The loader's problems: a broken file needs a text edit; `diagnose` shows its file, line and cause.
    Git merge conflicts keep their own fixes (renumber one side of a duplicate id, or a merge tool), and
    a cycle on a gone node its `cycle stop`."""
    return [p if p.code in OWN_FIX else
            Problem(p.code, p.severity, p.message, cmd("diagnose", p.node) if is_node_id(p.node) else cmd("diagnose"),
                    node=p.node, file=p.file, line=p.line)
            for p in files.load_problems]


def unloaded(files: PlanFiles) -> set[str]:
    """The ids whose node file is there but does not load (a merge's conflict markers, a typo): a
    reference to one is not dangling, and its own problem names the fix (never `parent=null`, which
    would undo the tree)."""
    return {p.node for p in files.load_problems if p.node and is_node_id(p.node)}


def _release_problems(plan: Plan, cmd: CommandLine) -> list[Problem]:
    """A release listed twice in project.yaml."""
    seen: set[str] = set()
    out = []
    for rel in plan.project.releases:
        if rel.id in seen:
            out.append(Problem("duplicate_release", "error", f"release {rel.id} is listed twice",
                               cmd("diagnose"), file=PROJECT_FILE))
        seen.add(rel.id)
    return out


def _placement_problems(plan: Plan, releases: Container[str], node: Node, files: PlanFiles,
                        cmd: CommandLine) -> list[Problem]:
    """Where the node sits: its parent, its release and its id's prefix must be the plan's own."""
    out = []
    if node.parent and node.parent not in plan.nodes and node.parent not in unloaded(files):
        out.append(_p("orphan_parent", "error", f"parent {node.parent} does not exist",
                      cmd("edit", node.id, set=["parent=null"]), node, files.line_of(node, "parent")))
    if node.release and node.release not in releases:
        out.append(_p("unknown_release", "error", f"release {node.release} is not in project.yaml",
                      cmd("release add", node.release, title=placeholder("title")), node,
                      files.line_of(node, "release")))
    if node.id.rsplit("-", 1)[0] not in (plan.project.id_prefix, *plan.project.former_prefixes):
        out.append(_p("foreign_prefix", "warning", f"id does not use the project prefix {plan.project.id_prefix}",
                      cmd("renumber", node.id), node, 1))
    return out


def _dependency_problems(plan: Plan, node: Node, files: PlanFiles, cmd: CommandLine) -> list[Problem]:
    """The node's depends_on: no repeats, no ancestor of its own, no missing node."""
    deps = node.depends_on
    if not deps:
        return []
    out = []
    if len(set(deps)) < len(deps):
        out.append(_p("duplicate_dependency", "warning", "depends_on lists the same node twice",
                      cmd("edit", node.id, set=[f"depends_on=[{', '.join(dict.fromkeys(deps))}]"]), node,
                      files.line_of(node, "depends_on")))
    ancestors = {a.id for a in plan.ancestors(node.id)}
    above = next((d for d in deps if d in ancestors), None)
    if above is not None:  # the ancestor closes only after this node, which starts only after it: stuck
        out.append(_p("dependency_on_ancestor", "error",
                      f"depends on {above}, which contains it: neither can ever close",
                      cmd("edit", node.id, set=[_list_value("depends_on", deps, above)]), node,
                      files.line_of(node, "depends_on")))
    missing = [d for d in deps if d not in plan.nodes and d not in unloaded(files)]
    if missing:
        keep = ", ".join(d for d in deps if d in plan.nodes)
        out.append(_p("dangling_dependency", "error", f"depends on {', '.join(missing)}, which does not exist",
                      cmd("edit", node.id, set=[f"depends_on=[{keep}]"]), node, files.line_of(node, "depends_on")))
    return out


def _release_order_problems(plan: Plan, releases: dict[str, int], node: Node, files: PlanFiles,
                            cmd: CommandLine) -> list[Problem]:
    """An open task waiting on open work of a later release (or of none): its release cannot finish
    first. The fix moves the blocker to the waiting release; the message names the other way (drop the
    dependency), both with the plan's own values."""
    out = []
    for dep in later_dependencies(plan, node, releases):
        where = f"release {dep.effective_release}" if dep.effective_release else "no release"
        out.append(_p("dependency_on_later_release", "warning",
                      f"in release {node.effective_release}, but depends on {dep.id} in {where}: "
                      f"{node.effective_release} cannot finish before it (or drop the dependency: "
                      f"{cmd('edit', node.id, set=[_list_value('depends_on', node.depends_on, dep.id)])})",
                      cmd("edit", dep.id, set=[f"release={node.effective_release}"]), node,
                      files.line_of(node, "depends_on")))
    return out


def _status_problems(plan: Plan, node: Node, files: PlanFiles, cmd: CommandLine) -> list[Problem]:
    """A status its own fields or its children contradict."""
    out = []
    if node.status == Status.BLOCKED and not node.blocked_reason:
        out.append(_p("blocked_without_reason", "error", "blocked, but no blocked_reason says why",
                      cmd("block", node.id, reason=placeholder("reason")), node, files.line_of(node, "status")))
    if node.status == Status.DONE and node.children and (open_kids := open_children(plan, node)):
        out.append(_p("done_with_open_children", "error",
                      f"done, but {len(open_kids)} child node(s) are open (e.g. {open_kids[0]})",
                      cmd("edit", node.id, set=["status=in-progress"]), node, files.line_of(node, "status")))
    if node.children and cascades(node) and node.status != Status.BLOCKED:
        closing = closing_status(plan.nodes[c].status for c in node.children if c in plan.nodes)
        if closing is not None:  # a cascade cut short (a killed `complete`): repair finishes it
            out.append(_p("half_finished_cascade", "warning",
                          f"every child is closed but the node is still {node.status}; "
                          f"the cascade should have made it {closing}",
                          cmd("repair"), node, files.line_of(node, "status")))
    return out


def _link_problems(node: Node, links: dict[str, bool | UnsafePath], files: PlanFiles,
                   cmd: CommandLine) -> list[Problem]:
    """Each docs/diagrams path of the node must be safe and there; `links` remembers the answers."""
    out = []
    for key in ("docs", "diagrams"):
        for rel in node.data.get(key) or []:
            if rel not in links:
                links[rel] = files.link(rel)
            state = links[rel]
            if isinstance(state, UnsafePath):
                code, message = "unsafe_path", f"{key}: {state}"
            elif not state:
                code, message = f"dangling_{key[:-1]}", f"{key[:-1]} {rel} does not exist"
            else:
                continue
            out.append(_p(code, "error", message, cmd("edit", node.id, set=[_list_value(key, node.data.get(key), rel)]),
                          node, files.line_of(node, key)))
    return out



def _untrusted(commands: Sequence[PlanCommand], cmd) -> list[Problem]:
    """A warning per command from a plan file that would not run: nobody approved it here."""
    out = []
    for item in commands:
        if item.trusted:
            continue
        what = "a done_when check" if item.source == "node" else f"a verify command of cycle {item.owner}"
        out.append(Problem("untrusted_command", "warning",
                           f"{what} runs {_cut(item.shown)} (hash {item.short}), which the person has not "
                           "approved for this plan; it is not run until a person does",
                           cmd("trust"),  # the listing: approving is the person's, never a hint (security.md)
                           node=item.owner if item.source == "node" else None, file=item.file,
                           line=None))
    return out


def _cut(shown: str, most: int = 200) -> str:
    """A command in a one-line message: quoted, and when cut, saying so (its whole text is in `trust`)."""
    if len(shown) <= most:
        return repr(shown)
    return f"{shown[:most]!r}… ({len(shown) - most} more characters: leafwise trust shows it whole)"


def _without(values: Any, drop: str) -> str:
    return ", ".join(v for v in values or [] if v != drop)


def _list_value(key: str, values: Any, drop: str) -> str:
    """`key=[a, b]` without `drop` (the hint builder quotes it as one shell word)."""
    return f"{key}=[{_without(values, drop)}]"



def _hierarchy_cycles(plan: Plan, files: PlanFiles, cmd) -> list[Problem]:
    nodes = plan.nodes
    parent_of = {nid: n.data.get("parent") or None for nid, n in nodes.items()}  # Node.parent, read once
    state: dict[str, int] = {}  # 1 = on the current walk, 2 = known acyclic
    out: list[Problem] = []
    for start in nodes:
        if start in state:
            continue  # walked already: the loop below would stop at once
        walk: list[str] = []
        cursor: str | None = start
        while cursor in nodes and state.get(cursor) is None:
            state[cursor] = 1
            walk.append(cursor)
            cursor = parent_of[cursor]
        if cursor in nodes and state.get(cursor) == 1:
            loop = walk[walk.index(cursor):]
            first = min(loop)
            node = nodes[first]
            out.append(_p("hierarchy_cycle", "error", f"parent cycle: {' → '.join(loop + [cursor])}",
                          cmd("edit", first, set=["parent=null"]), node, files.line_of(node, "parent")))
        for item in walk:
            state[item] = 2
    return out



def _dependency_cycles(plan: Plan, files: PlanFiles, cmd) -> list[Problem]:
    """Kahn's pass finds whether a cycle exists; networkx names them (error path only)."""
    nodes = plan.nodes
    edges = [(n.id, d) for n in nodes.values() if n.data.get("depends_on") for d in n.depends_on if d in nodes]
    if not edges:
        return []
    # over the nodes that have an edge: one with none is on no cycle (Kahn's pass would just remove it)
    indegree: dict[str, int] = {}
    out_edges: dict[str, list[str]] = {}
    for a, b in edges:
        indegree.setdefault(a, 0)
        indegree[b] = indegree.get(b, 0) + 1
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
    if removed == len(indegree):
        return []
    import networkx as nx  # only when a cycle exists

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
        problems.append(_p("dependency_cycle", "error", f"dependency cycle: {' → '.join(path)}",
                           cmd("edit", first, set=[f"depends_on=[{keep}]"]), node,
                           files.line_of(node, "depends_on")))
    return problems


