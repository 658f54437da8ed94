"""`Ctx`: what a handler gets from its surface; a plan found or loaded elsewhere is handed over publicly."""

from __future__ import annotations

from leafwise.commands.registry import Ctx
from leafwise.store import PlanPaths, find_root, load_plan
from testkit import node, write_plan


def test_a_found_plan_is_used_without_looking_again(tmp_path):
    write_plan(tmp_path / "plan", [node("T-1", "One", release="R1")])
    paths = find_root(tmp_path / "plan", None)
    ctx = Ctx(cwd=tmp_path)  # nothing to find from here
    assert ctx.found_paths is None
    ctx.use_paths(paths)
    assert ctx.found_paths is paths and ctx.paths() is paths
    assert ctx.plan().nodes["T-1"].title == "One"


def test_a_loaded_plan_is_used_until_forgotten(tmp_path):
    write_plan(tmp_path, [node("T-1", "One", release="R1")])
    paths = PlanPaths(tmp_path)
    plan = load_plan(paths)
    ctx = Ctx(cwd=tmp_path)
    assert ctx.loaded_plan is None
    ctx.use(plan)
    assert ctx.plan() is plan and ctx.loaded_plan is plan
    ctx.forget()
    assert ctx.loaded_plan is None
    assert ctx.plan() is not plan and ctx.plan().nodes.keys() == plan.nodes.keys()
    ctx.use(None)
    assert ctx.loaded_plan is None
