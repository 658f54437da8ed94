"""Every value from the plan in a hint is shell-quoted: split with shlex, a hint line gives exactly
the intended arguments, whatever the agent name, title, tag, summary or reason."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.commands.contract import clean
from leafwise.commands.core.hints import node_hint, pick_hint
from leafwise.commands.core.picker import Pick
from leafwise.commands.domain.planning import add_line
from leafwise.commands.registry import command_line
from leafwise.commands.surfaces.tool_answers import tool_call
from leafwise.store import PlanPaths, load_plan
from leafwise.store.claims import Claim
from testkit import node, write_plan



@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    root = write_plan(tmp_path_factory.mktemp("quoting"),
                      [node("T-1", "Epic", "in-progress", release="R1"),
                       node("T-2", "Leaf", "in-progress", parent="T-1", assignee="someone")])
    return load_plan(PlanPaths(root))

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60).filter(lambda t: clean(t))


def words(line: str) -> list[str]:
    return shlex.split(line)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_an_agent_name_is_one_argument(plan, agent):
    leaf = plan.nodes["T-2"]
    resumed = pick_hint(command_line, Pick(leaf, "yours", resumed=True), agent)
    assert words(resumed.command)[-2:] == ["--agent", clean(agent, 200)]
    assert words(resumed.or_)[-2:] == ["--agent", clean(agent, 200)]
    fresh = pick_hint(command_line, Pick(leaf, "ready"), agent)
    assert words(fresh.command) == ["leafwise", "start", "--next", "--agent", clean(agent, 200)]
    held = node_hint(command_line, plan, leaf, {"T-2": Claim("T-2", agent, "", "", "")}, agent, None)
    assert words(held.command)[-2:] == ["--agent", clean(agent, 200)]


@settings(max_examples=300, deadline=None)
@given(TEXT, st.lists(TEXT, max_size=3), st.one_of(st.none(), TEXT))
def test_an_add_line_keeps_title_tags_and_trigger_whole(title, tags, trigger):
    line = add_line(command_line, title, parent="T-1", release="R1", depends_on=("T-2",), tags=tags, trigger=trigger)
    args = words(line)
    if clean(title).startswith("-"):  # a title that reads as an option comes last, after `--`
        assert args[-2:] == ["--", clean(title)] and args[:2] == ["leafwise", "add"]
        args = args[:-2]
    else:
        assert args[:3] == ["leafwise", "add", clean(title)]
        args = [args[0], args[1], "<title>", *args[3:]]
    assert [args[i + 1] for i, a in enumerate(args) if a == "--tag"] == [clean(t) for t in tags]
    if trigger:
        assert args[args.index("--trigger") + 1] == clean(trigger)
    assert tool_call(line)[1]["title"] == clean(title)

