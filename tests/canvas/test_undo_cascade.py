"""Undo and the cascade agree: what `cascade.would_close` predicts is what the core's complete or cancel
closes, and the undo of that command reopens exactly those ancestors.

Generated small trees (hypothesis), real plan files in a tmp folder, the real CLI's `main()`, the undo
planned from the envelope it answered.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.canvas.model.undo import plan_undo, record_of
from leafwise.commands.core.cascade import closing_status, would_close
from leafwise.store import Status, load_plan
from leafwise.store.paths import find_root
from testkit import node, run_cli_in_process, write_plan

LEAF_STATUSES = st.sampled_from(["draft", "in-progress", "done", "cancelled"])
# A tree as nested lists: a leaf is its status, a parent the list of its children (two levels under the epic).
SUBTREE = st.one_of(LEAF_STATUSES, st.lists(LEAF_STATUSES, min_size=1, max_size=3))
TREE = st.lists(SUBTREE, min_size=1, max_size=3)


def build(tree: list, manual: bool) -> tuple[list[dict], list[str]]:
    """The node files of T-1 over `tree` (each parent's status by the rule, so the plan is valid) and the
    ids of its open leaves."""
    nodes: list[dict] = []
    open_leaves: list[str] = []
    counter = iter(range(2, 100))

    def add(item, parent: str) -> str:
        nid = f"T-{next(counter)}"
        if isinstance(item, str):
            nodes.append(node(nid, f"Leaf {nid}", item, parent=parent))
            if item in ("draft", "in-progress"):
                open_leaves.append(nid)
            return item
        at = len(nodes)
        nodes.append({})
        statuses = [add(child, nid) for child in item]
        status = str(closing_status(statuses) or "in-progress")
        nodes[at] = node(nid, f"Feature {nid}", status, parent=parent)
        return status

    statuses = [add(item, "T-1") for item in tree]
    top = str(closing_status(statuses) or "in-progress")
    nodes.insert(0, node("T-1", "Epic", top, release="R1", **({"cascade": "manual"} if manual else {})))
    return nodes, open_leaves


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=TREE, pick=st.integers(0, 20), finish=st.booleans(), manual=st.booleans())
def test_undo_reopens_what_the_cascade_closed(tree, pick, finish, manual):
    nodes, open_leaves = build(tree, manual)
    if not open_leaves:
        return
    leaf = open_leaves[pick % len(open_leaves)]
    with tempfile.TemporaryDirectory() as tmp:
        root = write_plan(Path(tmp) / "repo", nodes)
        before = load_plan(find_root(explicit=root)).nodes
        target = Status.DONE if finish else Status.CANCELLED
        predicted = [(a.id, str(status)) for a, status in would_close(before, leaf, target)]
        command, args = (("complete", {"node_id": leaf, "summary": "shipped"}) if finish
                         else ("cancel", {"node_id": leaf, "reason": "not needed"}))
        words = [command, leaf, "--summary" if finish else "--reason", next(v for k, v in args.items() if k != "node_id")]
        answer = run_cli_in_process(*words, "--json", cwd=root, env={"LEAFWISE_USER": "pat"})
        assert answer.code == 0, answer.stderr
        envelope = json.loads(answer.stdout)
        closed = [(m["id"], m["to"]) for m in envelope["result"].get("cascade") or []]
        assert closed == predicted, (tree, leaf, command)

        action = record_of(command, args, envelope, f"{command} {leaf}")
        assert not isinstance(action, str) and action is not None, action
        undo = plan_undo(load_plan(find_root(explicit=root)).nodes, action, "pat")
        assert undo.refused is None, undo.refused
        assert set(undo.touched) - {leaf} == {nid for nid, _ in predicted}, (tree, leaf, undo.touched)
