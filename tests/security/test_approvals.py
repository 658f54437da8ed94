"""Approvals only by a person (docs/security.md, "Approvals"): a command from a plan file runs only once
the person approved its exact text, and nothing an agent reads or calls approves it.

A hostile plan (done_when commands, a planted running cycle) is run through every registry command on
the real CLI (text and --json, subprocesses) and through a real MCP server process over stdio; no answer
anywhere hands out the approving line (`trust --allow`, `trust --all`), and no marker file appears.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from leafwise.commands.registry import Command, load_all
from leafwise.commands.surfaces.tool_answers import tool_call
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from testkit import node, run_cli, write_plan

APPROVING = ("trust --allow", "trust --all")
# Run last: they take the hostile parts away (stop the planted cycle, renumber its node, close it).
LAST = ("cancel", "complete", "cycle stop", "renumber", "release remove")
# A value for each argument a command needs (by its name); the hostile node is P1-4, the planted cycle evil.
VALUES: dict[str, Any] = {
    "node_id": "P1-4", "title": "A title", "question": "Which?", "option": None, "reason": "waiting",
    "text": "a note", "summary": "it works", "agent": "bot", "content": "# Notes", "release_id": "R1",
    "kind": "until-goal", "name": "evil", "source": "-",
}
EXTRA: dict[str, list[str]] = {
    "ask": ["--option", "A: card", "--option", "B: invoice"],
    "decide": ["--option", "1"],
    "cycle start": ["--max-iterations", "2", "--token-cap", "100"],  # --verify: the marker (see cli_args)
}
MCP_ONLY: dict[str, dict[str, Any]] = {"bulk": {"updates": "[]"}}
# Commands whose body may name the approving line: their hints only are checked here (none left).
KNOWN_GAPS: set[str] = set()


def hostile_plan(root: Path, marks: Path) -> Path:
    """P1-4 and P1-5 carry done_when commands; cycle evil is a planted running cycle with verify commands."""
    marks.mkdir(parents=True, exist_ok=True)
    write_plan(root, [node("P1-1", "Checkout", release="R1"),
                      node("P1-2", "Cart page", parent="P1-1"), node("P1-3", "Pay button", parent="P1-1"),
                      node("P1-4", "Export", parent="P1-1", done_when=[{"command": f"touch {marks}/node"}]),
                      node("P1-5", "Import", parent="P1-1", status="in-progress", assignee="bot",
                           done_when=[{"command": f"touch {marks}/node2"}, {"file": "import.py"}])],
               prefix="P1")
    cycles = root / ".leafwise" / "cycles"
    cycles.mkdir()
    (cycles / "evil.yaml").write_text(f"kind: until-goal\nmax_iterations: 3\ntoken_cap: 100\nnode: P1-4\n"
                                      f"verify: ['touch {marks}/cycle', 'touch {marks}/cycle2']\nstatus: running\n")
    (cycles / "evil.count").write_text("1\n")
    return root


def ordered() -> list[Command]:
    specs = sorted(load_all().values(), key=lambda s: s.name)
    return [s for s in specs if s.name not in LAST] + [s for s in specs if s.name in LAST]


def cli_args(spec: Command, marks: Path) -> list[str]:
    """A call of `spec` on the hostile plan: its positional arguments and required flags, from VALUES."""
    words = spec.name.split()
    for p in spec.params:
        value = VALUES.get(p.name)
        if value is None or not (p.positional or p.required):
            continue
        if spec.name == "cycle start" and p.name == "name":
            value = "mine"
        words += [value] if p.positional else [p.cli_flag, value]
    words += EXTRA.get(spec.name, [])
    if spec.name == "cycle start":
        words += ["--verify", f"touch {marks}/started"]
    return words


def mcp_call(spec: Command, marks: Path) -> tuple[str, dict[str, Any]]:
    if spec.name in MCP_ONLY:
        return spec.tool, MCP_ONLY[spec.name]
    return tool_call("leafwise " + shlex.join(cli_args(spec, marks)))


def approving(text: str) -> str | None:
    return next((a for a in APPROVING if a in text), None)


def marks_made(marks: Path) -> list[str]:
    return sorted(p.name for p in marks.iterdir())


def server(root: Path, env: dict[str, str]) -> StdioServerParameters:
    """The real server process (`leafwise mcp`) in `root`, its stdin the protocol's pipe."""
    full = {k: v for k, v in os.environ.items() if k not in ("LEAFWISE_ROOT", "LEAFWISE_AGENT")}
    return StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                 cwd=str(root), env={**full, **env})


def mcp_calls(root: Path, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def go():
        async with Client(server(root, env), read_timeout_seconds=60) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]

    return anyio.run(go)


def mcp_text(result: Any) -> str:
    """Everything an MCP answer carries: the text content, the envelope and `_meta` (next_tool)."""
    return "\n".join([*(c.text for c in result.content if hasattr(c, "text")),
                      json.dumps(result.structured_content), json.dumps(result.meta or {})])


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


def trust_file(env: dict[str, str]) -> dict[str, Any]:
    path = Path(env["LEAFWISE_CONFIG_DIR"]) / "trust.json"
    return json.loads(path.read_text())["allowed"] if path.exists() else {}


# --- every command, every surface ---------------------------------------------------------------

def hints_only(text: str) -> str:
    """The marker lines of a text answer, and `_next_action` of a JSON one."""
    try:
        return json.dumps(json.loads(text)["_next_action"])
    except (ValueError, KeyError, TypeError):
        return "\n".join(line for line in text.splitlines() if line.startswith(("Next:", "Or:", "Wait:", "Fix:")))


@pytest.mark.slow  # a process for every command of the registry, in each form
@pytest.mark.parametrize("form", ["text", "json"])
def test_every_cli_answer_on_a_hostile_plan_is_free_of_approving_lines(tmp_path, env, form):
    failures = []
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / form, marks)
    for spec in ordered():
        args = cli_args(spec, marks) + (["--json"] if form == "json" else [])
        res = run_cli(*args, cwd=root, env=env, stdin="[]" if spec.name == "bulk" else None)
        answer = res.stdout + res.stderr
        if found := approving(hints_only(res.stdout) + hints_only(res.stderr) if spec.name in KNOWN_GAPS
                              else answer):
            failures.append(f"leafwise {shlex.join(args)} hands out {found!r}:\n{answer}")
        if "internal_error" in answer:
            failures.append(f"leafwise {shlex.join(args)}: internal_error\n{res.stderr}")
    assert not failures, "\n\n".join(failures)
    assert not marks_made(marks), f"commands from the plan ran: {marks_made(marks)}"
    assert trust_file(env) == {}, "an agent's call wrote an approval"


@pytest.mark.slow
def test_every_mcp_answer_on_a_hostile_plan_is_free_of_approving_lines(tmp_path, env):
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / "mcp", marks)
    calls = [mcp_call(spec, marks) for spec in ordered() if spec.tool]  # a CLI-only command has no tool
    # and the approving forms an agent might try on the tool: refused as unknown arguments
    calls += [("trust_commands", {"everything": True}), ("trust_commands", {"allow": ["0" * 16]}),
              ("trust_commands", {"yes": True, "agent": "bot"})]
    results = mcp_calls(root, env, calls)
    gaps = {load_all()[name].tool for name in KNOWN_GAPS}
    failures = [f"{tool} {arguments} hands out {found!r}:\n{mcp_text(result)}"
                for (tool, arguments), result in zip(calls, results)
                if (found := approving(mcp_text(result) if tool not in gaps else
                                       json.dumps([result.structured_content["_next_action"], result.meta or {}])))]
    assert not failures, "\n\n".join(failures)
    assert [r.structured_content["error"]["code"] for r in results[-3:]] == ["unknown_argument"] * 3
    assert not marks_made(marks), f"commands from the plan ran: {marks_made(marks)}"
    assert trust_file(env) == {}, "an MCP call wrote an approval"


@pytest.mark.slow
def test_where_approval_is_missing_the_answer_waits_for_a_person(tmp_path, env):
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / "plan", marks)
    validated = run_cli("validate", "--json", cwd=root, env=env).json["_next_action"]
    listed = run_cli("trust", "--json", cwd=root, env=env).json["_next_action"]
    verify = run_cli("cycle", "verify", "evil", cwd=root, env=env)
    for action in (validated, listed):
        assert action["marker"] == "wait" and action["command"] is None, action
        assert action["condition"].startswith("a person approves ") and action["condition"].endswith(
            "(leafwise trust)"), action
    assert "node P1-4" in validated["condition"] and "cycle evil" in validated["condition"]
    assert verify.code == 3
    assert verify.last_lines[-1] == "Wait: a person approves 2 commands from this plan's files (cycle evil) " \
                                    "(leafwise trust)", verify.stderr
    assert f"touch {marks}/cycle" in verify.stdout  # the person sees what waits
    results = mcp_calls(root, env, [("cycle_verify", {"name": "evil"}), ("validate_project", {})])
    for result in results:
        assert result.structured_content["_next_action"]["marker"] == "wait"
        assert not (result.meta or {}).get("leafwise/next_tool"), result.meta
    assert not marks_made(marks)


# --- MCP never approves ------------------------------------------------------------------------

@pytest.mark.slow
def test_an_mcp_started_cycle_runs_nothing_and_writes_no_approval(tmp_path, env):
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / "plan", marks)
    started = {"name": "loop", "kind": "until-goal", "max_iterations": 2, "token_cap": 100,
               "verify": [f"touch {marks}/mcp"], "node": "P1-2"}
    results = mcp_calls(root, env, [("cycle_start", started), ("cycle_tick", {"name": "loop"}),
                                    ("cycle_verify", {"name": "loop"}),
                                    ("cycle_start", {**started, "name": "loop2", "agent": "bot"}),
                                    ("cycle_verify", {"name": "loop2"})])
    start, tick, verify, _start2, verify2 = (r.structured_content for r in results)
    assert start["status"] == "ok" and tick["status"] == "ok", (start, tick)
    for answer in (verify, verify2):
        assert answer["error"]["code"] == "untrusted_command", answer
        assert answer["_next_action"]["marker"] == "wait"
        assert answer["_next_action"]["condition"].startswith("a person approves the verify command of cycle loop")
    assert not marks_made(marks) and trust_file(env) == {}
    # the person approves on the CLI; then the same MCP verify runs it
    key = verify["error"]["details"]["untrusted"][0]["hash"]
    assert run_cli("trust", "--allow", key, "--yes", cwd=root, env=env).code == 0
    [again] = mcp_calls(root, env, [("cycle_verify", {"name": "loop"})])
    assert again.structured_content["status"] == "ok", again.structured_content
    assert marks_made(marks) == ["mcp"]


# --- the CLI: an agent never approves; a person confirms ---------------------------------------

def test_trust_allow_without_a_terminal_refuses_unless_the_person_passes_yes(tmp_path, env):
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / "plan", marks)
    key = run_cli("trust", "--json", cwd=root, env=env).json["result"]["commands"][0]["hash"]
    for args, extra_env in ((["--allow", key], {}), (["--all"], {}), (["--all", "--agent", "bot"], {}),
                            (["--allow", key, "--yes", "--agent", "bot"], {}),
                            (["--all", "--yes"], {"LEAFWISE_AGENT": "bot"})):
        res = run_cli("trust", *args, "--json", cwd=root, env={**env, **extra_env})
        assert res.code == 3, (args, res.stdout)
        answer = res.json
        assert answer["error"]["code"] == "approval_needs_a_person", answer
        assert answer["_next_action"]["marker"] == "wait" and answer["_next_action"]["command"] is None
        assert "--yes" not in json.dumps(answer["_next_action"]) and not approving(res.stdout), answer
        assert trust_file(env) == {}, args
    text = run_cli("trust", "--allow", key, cwd=root, env=env)
    assert text.stderr.splitlines()[-2:] == [
        "Error: approving needs the person at a terminal to confirm, and this call has no terminal; "
        "nothing was approved",
        f"Wait: a person approves {text.stderr.split('Wait: a person approves ', 1)[1].splitlines()[0]}"]
    assert text.stderr.splitlines()[-1].endswith("(leafwise trust)")
    assert run_cli("trust", "--allow", key, "--yes", cwd=root, env=env).code == 0
    assert [v["command"] for v in trust_file(env).values()] == [f"touch {marks}/cycle"]
    assert not marks_made(marks)


def test_a_cycle_started_by_an_agent_on_the_cli_waits_for_the_person(tmp_path, env):
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / "plan", marks)
    for name, agent in (("mine", []), ("theirs", ["--agent", "bot"])):
        started = run_cli("cycle", "start", name, "--kind", "until-goal", "--max-iterations", "2",
                          "--token-cap", "10", "--verify", f"touch {marks}/{name}", *agent, cwd=root, env=env)
        assert started.code == 0 and "not approved yet (1)" in started.stdout, started.stdout
        verify = run_cli("cycle", "verify", name, cwd=root, env=env)
        assert verify.code == 3 and verify.last_lines[-1].startswith("Wait: a person approves"), verify.stderr
    assert not marks_made(marks) and trust_file(env) == {}


def on_a_terminal(args: list[str], cwd: Path, env: dict[str, str], answer: bytes | None) -> tuple[int, str]:
    """Run the CLI with a terminal (a pty) on stdin and stderr, as a person's shell gives it; type `answer`
    once the question is asked (None: expect none). Returns (exit code, what the terminal showed)."""
    main, other = pty.openpty()
    full = {**{k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}, "LEAFWISE_AGENT": "", **env}
    proc = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=cwd,
                            stdin=other, stdout=subprocess.PIPE, stderr=other, env=full)
    os.close(other)
    shown = b""
    deadline = time.monotonic() + 30
    while answer is not None and b"[y/N]" not in shown and time.monotonic() < deadline:
        if select.select([main], [], [], 0.2)[0]:
            shown += os.read(main, 65536)
    if answer is not None:
        os.write(main, answer)
    out, _ = proc.communicate(timeout=30)
    while select.select([main], [], [], 0.1)[0]:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    return proc.returncode, shown.decode(errors="replace") + out.decode(errors="replace")


@pytest.mark.slow
def test_trust_allow_on_a_terminal_shows_the_exact_commands_and_asks(tmp_path, env):
    marks = tmp_path / "marks"
    root = hostile_plan(tmp_path / "plan", marks)
    listing = run_cli("trust", "--json", cwd=root, env=env).json["result"]["commands"]
    key = next(c["hash"] for c in listing if c["owner"] == "P1-4")
    code, shown = on_a_terminal(["trust", "--allow", key], root, env, b"n\n")
    assert code == 0 and f"{key}  node P1-4: touch {marks}/node" in shown and "Approve? [y/N]" in shown, shown
    assert "Not approved: you answered no" in shown and trust_file(env) == {}
    code, shown = on_a_terminal(["trust", "--allow", key], root, env, b"y\n")
    assert code == 0 and [v["command"] for v in trust_file(env).values()] == [f"touch {marks}/node"], shown
    # a person who starts a cycle on their terminal typed its verify commands: approved as typed
    code, shown = on_a_terminal(["cycle", "start", "mine", "--kind", "until-goal", "--max-iterations", "2",
                                 "--token-cap", "10", "--verify", f"touch {marks}/mine"], root, env, None)
    assert code == 0 and "approved for this plan: you typed them" in shown, shown
    # the same on a terminal, naming an agent: not approved
    code, shown = on_a_terminal(["cycle", "start", "theirs", "--kind", "until-goal", "--max-iterations", "2",
                                 "--token-cap", "10", "--verify", f"touch {marks}/theirs", "--agent", "bot"],
                                root, env, None)
    assert code == 0 and "not approved yet (1)" in shown, shown
    assert sorted(v["command"] for v in trust_file(env).values()) == [f"touch {marks}/mine", f"touch {marks}/node"]
    assert not marks_made(marks)


# --- gaps in files other helpers own (see the reasons) -----------------------------------------

def test_reconcile_evidence_never_carries_the_approving_line(tmp_path, env):
    root = hostile_plan(tmp_path / "plan", tmp_path / "marks")
    res = run_cli("reconcile", "--json", cwd=root, env=env)
    assert not approving(res.stdout + res.stderr), res.stdout


def test_a_usage_error_never_echoes_the_approving_line(tmp_path, env):
    root = hostile_plan(tmp_path / "plan", tmp_path / "marks")
    res = run_cli("trust", "--allow", "0123456789abcdef", "--bogus", cwd=root, env=env)
    assert res.code == 2 and not approving(res.stdout + res.stderr), res.stderr
