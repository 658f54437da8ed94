"""Every hint carries the agent it answers, and no answer to an agent offers `--force`.

Each registry command that takes `--agent` runs as agent `a1` on the demo plan, in the states that
give its hints (success, refusals, a task another agent holds, an open dependency), on three
surfaces: the real CLI's text and its `--json`, and the real MCP client against the real server.
Every command line a hint stands for (the `Next:`/`Or:`/`Fix:` lines, `_next_action.command` and
`.or`, `_meta["leafwise/next_tool"]`) that names a command taking an agent names `a1`, but:

- a person's step (`registry.PERSON_STEPS`: decide, unblock, trust) is not given a1 (a1 is not the
  one to run it), though a usage error's Fix repeats a1's own call as given;
- a hint for a task another agent holds names that holder on purpose (`ON_PURPOSE`).

And `--force` appears nowhere in an answer to an agent (text, envelope, `_meta`): the override is a
person's (`Ctx.cmd` gives an agent `PERSON_OVERRIDE`, words that no hint slot may carry).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from leafwise.commands.registry import PERSON_OVERRIDE, PERSON_STEPS, Ctx, load_all
from leafwise.commands.runner import execute
from leafwise.commands.surfaces.mcp_server import build_server
from leafwise.commands.surfaces.tool_answers import tool_call
from leafwise.store import PlanPaths
from leafwise.store import claims as leases
from leafwise.store.writer import utc_now
from mcp import Client
from testkit import DEMO_PLAN, run_cli
from testkit.contract_cases import AgentCase as Case
from testkit.contract_cases import area_agent_cases, area_no_agent

AGENT = "a1"
# (command, the agent a hint names instead of a1): why it is right.
ON_PURPOSE = {
    ("unblock", "claude-2"): "SHOP-32 goes back in progress to claude-2, who blocked it and is at work on "
                             "SHOP-26: completing it is its holder's",
}
# Commands that take no --agent: read-only listings, and a person's answer to a decision.
NO_AGENT = {"agent-guide", "commands", "cycle status", "decide", "doctor", "list", "release list", "tree",
            "validate", *area_no_agent()}


def run_in(root: Path, command_name: str, **arguments: Any) -> None:
    outcome = execute(load_all()[command_name], Ctx(cwd=root), arguments)
    assert outcome.envelope["status"] == "ok", outcome.envelope


def a1_holds_18(root: Path) -> None:
    run_in(root, "start", node_id="SHOP-18", agent=AGENT)


def claude_2_leases_26(root: Path) -> None:
    leases.write(PlanPaths(root), "SHOP-26", "claude-2", utc_now(), 60)


def a1_works_27_out_of_order(root: Path) -> None:
    """SHOP-27 in progress for a1 while SHOP-26, which it depends on, is open."""
    run_in(root, "edit", node_id="SHOP-27", set=("status=in-progress", f"assignee={AGENT}"))


def a1_runs_a_cycle(root: Path) -> None:
    run_in(root, "cycle start", name="polish", kind="until-goal", max_iterations=3, token_cap=1000,
           verify=("true",), agent=AGENT)


def add_release_r4(root: Path) -> None:
    run_in(root, "release add", release_id="R4", title="Later")


UPDATE = '[{"id": "SHOP-18", "status": "blocked", "reason": "after the launch"}]'
MISSING_UPDATE = '[{"id": "SHOP-999", "status": "done", "summary": "deleted"}]'

CASES: dict[str, tuple[Case, ...]] = {
    "add": (Case(("add", "Loyalty points for repeat buyers", "--parent", "SHOP-4"), 0),
            Case(("add", "Delete my account (GDPR)"), 3)),
    "ask": (Case(("ask", "SHOP-18", "Card or invoice?", "--option", "A: card", "--option", "B: invoice"), 0,
                 a1_holds_18),
            Case(("ask", "SHOP-18", "Which?", "--option", "A: only"), 2)),
    "block": (Case(("block", "SHOP-18", "--reason", "waiting for legal"), 0, a1_holds_18),
              Case(("block", "SHOP-26", "--reason", "mine now"), 3, claude_2_leases_26),
              Case(("block", "SHOP-26", "--reason", "mine now"), 3)),
    "bulk": (Case(("bulk", "-"), 0, a1_holds_18, stdin=UPDATE, mcp={"updates": UPDATE}),
             Case(("bulk", "-"), 1, stdin=MISSING_UPDATE, mcp={"updates": MISSING_UPDATE})),
    "cancel": (Case(("cancel", "SHOP-18", "--reason", "out of scope"), 0),
               Case(("cancel", "SHOP-12", "--reason", "too late"), 3)),
    "comment": (Case(("comment", "SHOP-18", "--text", "keep the old export format"), 0),
                Case(("comment", "SHOP-18", "--text", " "), 2)),
    "complete": (Case(("complete", "SHOP-18", "--summary", "deleted with its orders"), 0, a1_holds_18),
                 Case(("complete", "SHOP-26", "--summary", "not mine"), 3),
                 Case(("complete", "SHOP-26", "--summary", "not mine"), 3, claude_2_leases_26),
                 Case(("complete", "SHOP-27", "--summary", "early"), 3, a1_works_27_out_of_order),
                 Case(("complete", "SHOP-18", "--summary", " "), 2, a1_holds_18)),
    "context": (Case(("context",), 0), Case(("context",), 5, where="empty")),
    "cycle start": (Case(("cycle", "start", "polish", "--kind", "until-goal", "--max-iterations", "3",
                          "--token-cap", "1000", "--verify", "true"), 0),
                    Case(("cycle", "start", "polish", "--kind", "until-goal", "--max-iterations", "3",
                          "--token-cap", "1000", "--verify", "true"), 3, a1_runs_a_cycle)),
    "cycle stop": (Case(("cycle", "stop", "polish", "--reason", "enough"), 0, a1_runs_a_cycle),
                   Case(("cycle", "stop", "nope"), 5)),
    "cycle tick": (Case(("cycle", "tick", "polish", "--tokens", "10"), 0, a1_runs_a_cycle),
                   Case(("cycle", "tick", "nope"), 5)),
    "cycle verify": (Case(("cycle", "verify", "polish"), 3, a1_runs_a_cycle),
                     Case(("cycle", "verify", "nope"), 5)),
    "diagnose": (Case(("diagnose", "SHOP-50"), 0), Case(("diagnose", "SHOP-26"), 0, claude_2_leases_26),
                 Case(("diagnose", "SHOP-18"), 0, a1_holds_18), Case(("diagnose",), 0),
                 Case(("diagnose", "SHOP-999"), 5)),
    "doc": (Case(("doc", "SHOP-18"), 0, a1_holds_18), Case(("doc", "SHOP-12"), 0), Case(("doc", "SHOP-999"), 5)),
    "edit": (Case(("edit", "SHOP-18", "--set", "title=Delete my account"), 0),
             Case(("edit", "SHOP-26", "--set", "status=draft"), 3, claude_2_leases_26),
             Case(("edit", "SHOP-18", "--set", "status=done"), 2)),
    "heartbeat": (Case(("heartbeat", "SHOP-18"), 0, a1_holds_18),
                  Case(("heartbeat", "SHOP-26"), 3, claude_2_leases_26),
                  Case(("heartbeat", "SHOP-27"), 3)),
    "init": (Case(("init", "--name", "Bakery", "--prefix", "BAK"), 0, where="empty"),
             Case(("init", "--name", "Bakery"), 3)),
    "next": (Case(("next",), 0), Case(("next",), 0, a1_holds_18), Case(("next",), 5, where="empty")),
    "progress": (Case(("progress",), 0), Case(("progress",), 5, where="empty")),
    "project set": (Case(("project", "set", "--name", "Corner shop"), 0),
                    Case(("project", "set", "--prefix", "a-b"), 2)),
    "reconcile": (Case(("reconcile",), 0), Case(("reconcile", "--node", "SHOP-999"), 5)),
    "release add": (Case(("release", "add", "R4", "--title", "Later"), 0),
                    Case(("release", "add", "R1", "--title", "Again"), 3)),
    "release edit": (Case(("release", "edit", "R2", "--title", "Card payments"), 0),
                     Case(("release", "edit", "R9", "--title", "x"), 5)),
    "release move": (Case(("release", "move", "R3", "--before", "R2"), 0),
                     Case(("release", "move", "R3", "--before", "R9"), 5)),
    "release remove": (Case(("release", "remove", "R4"), 0, add_release_r4),
                       Case(("release", "remove", "R3"), 3)),
    "renumber": (Case(("renumber", "SHOP-18"), 0), Case(("renumber", "SHOP-999"), 5)),
    "repair": (Case(("repair", "--dry-run"), 0), Case(("repair",), 5, where="empty")),
    "show": (Case(("show", "SHOP-18"), 0, a1_holds_18), Case(("show", "SHOP-26"), 0, claude_2_leases_26),
             Case(("show", "SHOP-40"), 0), Case(("show", "SHOP-999"), 5)),
    "start": (Case(("start", "SHOP-18"), 0), Case(("start", "--next"), 0),
              Case(("start", "SHOP-12"), 3), Case(("start", "SHOP-26"), 3, claude_2_leases_26),
              Case(("start", "SHOP-27"), 3)),
    "trust": (Case(("trust",), 0), Case(("trust", "--allow", "0123456789abcdef", "--bogus"), 2, mcp={"bogus": True})),
    "unblock": (Case(("unblock", "SHOP-32"), 0), Case(("unblock", "SHOP-32"), 0, claude_2_leases_26),
                Case(("unblock", "SHOP-40"), 3)),
    "unclaim": (Case(("unclaim", "SHOP-18"), 0, a1_holds_18), Case(("unclaim", "SHOP-26"), 3)),
    "write-doc": (Case(("write-doc", "SHOP-18", "--content", "# Notes"), 0),
                  Case(("write-doc", "SHOP-999", "--content", "# Notes"), 5)),
    **area_agent_cases(),
}


def _takes_agent(name: str) -> bool:
    return any(p.name == "agent" for p in load_all()[name].params)


def test_every_mutating_command_takes_an_agent_and_every_one_that_does_has_cases():
    registry = load_all()
    assert {n for n, spec in registry.items() if not _takes_agent(n)} == NO_AGENT
    assert all(not registry[n].mutating for n in NO_AGENT - {"decide"}), "a mutating command without --agent"
    assert {n for n in registry if _takes_agent(n)} == set(CASES), "cases for every command taking --agent"


# --- what a hint line may say to a1 -------------------------------------------------------------

def _command_of(words: list[str]) -> str:
    registry = load_all()
    name = " ".join(words[1:3]) if " ".join(words[1:3]) in registry else words[1]
    assert name in registry, f"no command {name!r}: {shlex.join(words)}"
    return name


def _agent_named(words: list[str]) -> str | None:
    return words[words.index("--agent") + 1] if "--agent" in words else None


def check_line(name: str, line: str) -> None:
    """A hint's command line to a1: a1's, or a person's step, or the holder on purpose; never --force."""
    assert PERSON_OVERRIDE not in line, f"{name}: a person's override in a hint slot: {line}"
    words = shlex.split(line)
    assert words[0] == "leafwise", f"{name}: not a command line: {line}"
    assert "--force" not in words, f"{name}: --force offered to an agent: {line}"
    hinted = _command_of(words)
    if not _takes_agent(hinted):
        return
    named = _agent_named(words)
    if hinted in PERSON_STEPS:  # not filled in; a usage error's Fix repeats a1's own call as given
        assert named in (None, AGENT), f"{name}: a person's step names another agent: {line}"
    elif named != AGENT:
        assert (name, named) in ON_PURPOSE, f"{name}: the hint does not carry --agent {AGENT}: {line}"


def check_meta(name: str, meta: dict[str, Any] | None) -> None:
    step = (meta or {}).get("leafwise/next_tool")
    if step is None:
        return
    hinted = next(spec for spec in load_all().values() if spec.tool == step["name"])
    if not _takes_agent(hinted.name):
        return
    named = step["arguments"].get("agent")
    assert "force" not in step["arguments"], f"{name}: next_tool forces: {step}"
    if hinted.name in PERSON_STEPS:
        assert named in (None, AGENT), f"{name}: next_tool names another agent for a person's step: {step}"
    elif named != AGENT:
        assert (name, named) in ON_PURPOSE, f"{name}: next_tool without agent {AGENT}: {step}"


def check_envelope(name: str, env: dict[str, Any]) -> None:
    action = env["_next_action"]
    for line in (action["command"], action["or"]):
        if line:
            check_line(name, line)
    assert "--force" not in json.dumps(env), f"{name}: --force in an answer to an agent"


def marker_lines(text: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith(("Next: ", "Or: ", "Fix: "))]


# --- the suite ----------------------------------------------------------------------------------

def _ids() -> list[tuple[str, int]]:
    return [(name, i) for name in sorted(CASES) for i in range(len(CASES[name]))]


def _seed(case: Case, tmp_path: Path, label: str) -> Path:
    root = tmp_path / label / "shop"
    if case.where == "plan":
        shutil.copytree(DEMO_PLAN, root)
        if case.setup:
            case.setup(root)
    else:
        root.mkdir(parents=True)
    return root


def _mcp(cwd: Path, tool: str, arguments: dict[str, Any]):
    async def go():
        async with Client(build_server(cwd=cwd)) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(go)


@pytest.mark.parametrize(("name", "index"), _ids(), ids=lambda v: str(v))
def test_a_hint_to_an_agent_carries_it_and_never_forces(name: str, index: int, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("LEAFWISE_ROOT", raising=False)
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)
    case = CASES[name][index]
    args = (*case.args, "--agent", AGENT)

    text = run_cli(*args, cwd=_seed(case, tmp_path, "text"), stdin=case.stdin)
    assert text.code == case.code, f"exit {text.code}, expected {case.code}\n{text.stdout}\n{text.stderr}"
    assert "--force" not in text.stdout + text.stderr, f"{name}: --force offered to an agent\n{text.stderr}"
    for line in marker_lines(text.stdout + text.stderr):
        check_line(name, line)

    res = run_cli(*args, "--json", cwd=_seed(case, tmp_path, "json"), stdin=case.stdin)
    assert res.code == case.code, res.stderr
    check_envelope(name, res.json)

    spec = load_all()[name]
    if spec.tool is None:
        return  # CLI only
    tool, arguments = (spec.tool, {**case.mcp, "agent": AGENT}) if case.mcp is not None else \
        tool_call("leafwise " + shlex.join(args))
    result = _mcp(_seed(case, tmp_path, "mcp"), tool, arguments)
    env = result.structured_content
    assert env["status"] == ("ok" if case.code == 0 else "error"), env
    check_envelope(name, env)
    check_meta(name, result.meta)
    assert "--force" not in result.content[0].text, f"{name}: --force in the MCP text"


def test_heartbeat_answers_with_the_agents_own_complete(tmp_path):
    """The trial's 19 forced completions: heartbeat's Next, followed, completes the agent's own task."""
    root = _seed(Case(("heartbeat",), 0, a1_holds_18), tmp_path, "beat")
    beat = run_cli("heartbeat", "SHOP-18", "--agent", AGENT, "--json", cwd=root).json
    line = beat["_next_action"]["command"]
    assert line == f'leafwise complete SHOP-18 --summary "<summary>" --agent {AGENT}'
    done = run_cli(*shlex.split(line.replace("<summary>", "deleted"))[1:], cwd=root)
    assert done.code == 0, done.stderr
    journal = [json.loads(x) for x in (root / ".leafwise/journal.jsonl").read_text().splitlines()]
    completes = [e for e in journal if e["command"] == "complete" and e["node"] == "SHOP-18"]
    assert [e["actor"] for e in completes] == [AGENT] and not completes[0].get("forced_by")
