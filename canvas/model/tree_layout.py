"""Which rows the plan tree shows: the release groups, and below each open row its children.

Plain Python (no Textual): `walk()` turns the live state, the branches a person opened and the
filter's verdict into the flat list of `Row`s the tree draws. Only open branches are walked, so
an 11,000-node plan opens with a hundred rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.canvas.model.state import Group, PlanState
from leafwise.store import CLOSED

GROUP = "@"  # row keys of release groups: "@R1", "@" for nodes without a release


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


def group_key_of(state: PlanState, node_id: str) -> str:
    """The key of the group row a node sits under."""
    return GROUP + state.group_of(node_id)


def child_keys(state: PlanState, key: str | None, shown: Shown) -> list[str]:
    """The child keys a row should have now (None: the top level), filter and hide-closed applied."""
    if key is None:
        keys = [group_key(g) for g in state.groups]
    elif key.startswith(GROUP):
        group = state.group(key[1:])
        keys = list(group.tops) if group else []
    else:
        node = state.nodes.get(key)
        keys = list(node.children) if node else []
    if shown.visible is not None:
        kept = [k for k in keys if k in shown.visible]
        if shown.exact:  # the branch holding the exact id match comes first, so that match is the first row
            lead = [k for k in kept if k in shown.exact]
            kept = lead + [k for k in kept if k not in shown.exact] if lead else kept
        return kept
    if shown.hide_closed and key is not None:
        keys = [k for k in keys if state.nodes[k].status not in CLOSED]
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
        expandable = is_group or bool(children)
        is_open = expandable and (filtering or key in expanded)
        rows.append(Row(key, path, lasts, expandable, is_open))
        if is_open:
            count = len(children)
            for index in range(count - 1, -1, -1):
                child = children[index]
                if child not in path:  # a parent cycle never loops the walk
                    stack.append((child, path + (child,), lasts + (index == count - 1,)))
    return rows
