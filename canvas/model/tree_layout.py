"""Which rows the plan tree shows: the release groups, and below each open row its children.

Plain Python (no Textual): `walk()` turns the live state, the branches a person opened and the
filter's verdict into the flat list of `Row`s the tree draws. Only open branches are walked, so
an 11,000-node plan opens with a hundred rows.

A node sits under its own release (its `effective_release`, as every count has it): a leaf of an R1
epic moved to R2 (`release: R2`) shows under R2, below a context row of its epic (key
`context_key`: "~R2/SHOP-1", drawn dimmed, always open), and no longer under the epic in R1. So each
group's rows hold exactly the leaves its tally counts. A node whose release names no group (one not in
project.yaml that no top-level node names either) stays in its epic's place.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.canvas.model.state import NO_RELEASE_GROUP, UNPLACED, Group, PlanState
from leafwise.store import CLOSED

GROUP = "@"  # row keys of release groups: "@R1", "@" for nodes without a release
CONTEXT = "~"  # row keys of an epic shown as context in another release's group: "~R2/SHOP-1"


@dataclass(frozen=True, slots=True)
class Row:
    """One line on display: its key, the keys above it, and how its guides and toggle look."""

    key: str
    path: tuple[str, ...]  # keys from the top-level group down to this row, this row included
    lasts: tuple[bool, ...]  # for path[1:]: is that row the last of its siblings (guides stop there)
    expandable: bool
    expanded: bool

    @property
    def depth(self) -> int:
        return len(self.path) - 1

    @property
    def parent(self) -> str | None:
        return self.path[-2] if len(self.path) > 1 else None


@dataclass(frozen=True, slots=True)
class Shown:
    """What decides the rows beside the open branches: a filter's verdict, or hiding closed work."""

    visible: set[str] | None = None  # filter mode: matches and their ancestors (None: no filter)
    exact: tuple[str, ...] = ()  # filter mode: the path to the node whose id the filter names exactly
    hide_closed: bool = False


def group_key(group: Group) -> str:
    return GROUP + group.key


def context_key(group: str, top: str) -> str:
    return f"{CONTEXT}{group}/{top}"


def context_node(key: str) -> str | None:
    """The epic a context row shows (None: the key is not a context row's)."""
    return key.split("/", 1)[1] if key.startswith(CONTEXT) and "/" in key else None


@dataclass(frozen=True, slots=True)
class Moved:
    """The nodes shown under another release's group than their epic's, for one state version."""

    nodes: dict[str, tuple[str, str]]  # node id -> (its group, its top-level epic)
    under: dict[str, list[str]]  # context key -> the moved nodes below it, in plan order
    contexts: dict[str, list[str]]  # group key -> its context keys, in plan order


_MOVED: list[tuple[object, Moved]] = []  # the last state version's answer: walk() asks once per row


def moved(state: PlanState) -> Moved:
    """The nodes whose own release differs from their parent's, and where they show."""
    if _MOVED and _MOVED[0][0] is state.version:
        return _MOVED[0][1]
    nodes = state.nodes
    groups = {g.key for g in state.groups}
    found: dict[str, tuple[str, str]] = {}
    for nid, node in nodes.items():
        parent = nodes.get(node.parent) if node.parent else None
        home = node.effective_release or NO_RELEASE_GROUP
        if parent is None or not node.release or home == (parent.effective_release or NO_RELEASE_GROUP) \
                or home not in groups or state.group_of(nid) == UNPLACED:
            continue
        found[nid] = (home, state.plan.ancestors(nid)[-1].id)
    key = state.plan.sort_key()
    under: dict[str, list[str]] = {}
    for nid in sorted(found, key=lambda n: key(nodes[n])):
        under.setdefault(context_key(*found[nid]), []).append(nid)
    contexts: dict[str, list[str]] = {}
    for ctx in sorted(under, key=lambda k: key(nodes[context_node(k) or ""])):
        contexts.setdefault(GROUP + ctx[1:].split("/", 1)[0], []).append(ctx)
    answer = Moved(found, under, contexts)
    _MOVED[:] = [(state.version, answer)]
    return answer


def row_path(state: PlanState, node_id: str) -> tuple[str, ...]:
    """The keys of the rows from the node's group down to its own row."""
    chain = [node_id, *(a.id for a in state.plan.ancestors(node_id))]
    shift = moved(state).nodes
    for index, nid in enumerate(chain):
        if nid in shift:  # the nearest moved node: the path goes through its context row
            home, top = shift[nid]
            return (GROUP + home, context_key(home, top), *reversed(chain[:index + 1]))
    return (GROUP + state.group_of(node_id), *reversed(chain))


def group_key_of(state: PlanState, node_id: str) -> str:
    """The key of the group row a node sits under."""
    return row_path(state, node_id)[0]


def child_keys(state: PlanState, key: str | None, shown: Shown) -> list[str]:
    """The child keys a row should have now (None: the top level), filter and hide-closed applied."""
    shift = moved(state)
    if key is None:
        keys = [group_key(g) for g in state.groups]
    elif key.startswith(GROUP):
        group = state.group(key[1:])
        keys = list(group.tops) + shift.contexts.get(key, []) if group else []
    elif key.startswith(CONTEXT):
        keys = list(shift.under.get(key, ()))
    else:
        node = state.nodes.get(key)
        keys = [c for c in node.children if c not in shift.nodes] if node else []
    if shown.visible is not None:
        kept = [k for k in keys if k in shown.visible]
        if shown.exact:  # the branch holding the exact id match comes first, so that match is the first row
            lead = [k for k in kept if k in shown.exact]
            kept = lead + [k for k in kept if k not in shown.exact] if lead else kept
        return kept
    if shown.hide_closed and key is not None:
        keys = [k for k in keys if k.startswith(CONTEXT) or state.nodes[k].status not in CLOSED]
        if key.startswith(GROUP):  # a context row with nothing open below it goes too
            keys = [k for k in keys if not k.startswith(CONTEXT)
                    or any(state.nodes[n].status not in CLOSED for n in shift.under.get(k, ()))]
    return keys


def walk(state: PlanState, expanded: set[str], shown: Shown) -> list[Row]:
    """The rows on display: every group, and below each row its children when it is open (a filter
    opens every row on the way to a match)."""
    filtering = shown.visible is not None
    rows: list[Row] = []
    # A stack of (key, path, lasts), pushed in reverse so rows come out in order.
    tops = child_keys(state, None, shown)
    stack = [(key, (key,), ()) for key in reversed(tops)]
    while stack:
        key, path, lasts = stack.pop()
        children = child_keys(state, key, shown)
        is_group = key.startswith(GROUP)
        is_context = key.startswith(CONTEXT)  # always open: it is there only for the rows below it
        expandable = is_group or is_context or bool(children)
        is_open = expandable and (filtering or is_context or key in expanded)
        rows.append(Row(key, path, lasts, expandable, is_open))
        if is_open:
            count = len(children)
            for index in range(count - 1, -1, -1):
                child = children[index]
                if child not in path:  # a parent cycle never loops the walk
                    stack.append((child, path + (child,), lasts + (index == count - 1,)))
    return rows
