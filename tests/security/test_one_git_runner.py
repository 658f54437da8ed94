"""Every git process goes through the one runner, `store/git.py` (docs/security.md, "the git runner").

Read from the source (AST): outside `store/git.py` no module in store/, commands/ or canvas/ starts a
process, except the short list below, each with the reason it may — and none of those runs git.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from testkit import parsed, source_files

REPO = Path(__file__).resolve().parents[2]
LAYERS = ("store", "commands", "canvas")
RUNNER = "store/git.py"
# The modules that start a process that is not git, and why each may.
NOT_GIT = {
    "commands/domain/cycle_runs.py": "a cycle's verify commands, run only when the person approved them (store/trust.py)",
    "commands/reconcile/checks.py": "a done_when command check, run only when the person approved it (store/trust.py)",
    "canvas/screens/editing.py": "the person's own $EDITOR on a scratch copy of the text they edit",
    "canvas/demo/launch.py": "the demo's scripted agent: this Python running leafwise.canvas.demo.agent",
    "canvas/demo/agent.py": "the demo agent's steps: this Python running the leafwise CLI",
    "commands/reconcile/worker.py": "reconcile's scan: this Python running leafwise.commands.reconcile.worker in "
                                    "its own session, its group killed at the deadline",
    "commands/surfaces/loop_client.py": "the loop server: this Python running leafwise.commands.surfaces.loop_server "
                                        "in its own session, in the caller's folder and environment",
}
PROCESS_MODULES = frozenset({"subprocess", "pty", "asyncio.subprocess"})
# Calls that start a program, by module.
STARTERS = {
    "os": ("system", "popen", "exec", "spawn", "posix_spawn", "startfile"),
    "asyncio": ("create_subprocess_exec", "create_subprocess_shell"),
    "subprocess": ("",),  # anything it has
    "pty": ("spawn", "fork"),
}
LOOP_STARTERS = frozenset({"subprocess_exec", "subprocess_shell"})  # an event loop's methods
COMMAND_TAKERS = frozenset({"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput",
                            "system", "popen", "create_subprocess_shell", "create_subprocess_exec", *LOOP_STARTERS})


def sources() -> dict[str, str]:
    out = {}
    for layer in LAYERS:
        for path in source_files(REPO / layer):
            out[path.relative_to(REPO).as_posix()] = path.read_text(encoding="utf-8")
    return out


def _module_names(tree: ast.AST) -> tuple[dict[str, str], dict[str, str]]:
    """Names bound to the process modules (`import subprocess as sp`) and to their functions
    (`from os import system`), each with what it stands for."""
    modules: dict[str, str] = {}
    functions: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in STARTERS or alias.name in PROCESS_MODULES:
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if node.module in STARTERS or node.module in PROCESS_MODULES:
                    functions[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif f"{node.module}.{alias.name}" in PROCESS_MODULES:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return modules, functions


def _starts_a_process(qualified: str) -> bool:
    module, _, name = qualified.rpartition(".")
    if module in PROCESS_MODULES:
        return True
    return any(name.startswith(prefix) for prefix in STARTERS.get(module, ()) if prefix)


def _starter_calls(tree: ast.AST) -> list[tuple[ast.Call, str]]:
    """Each call in `tree` that starts a program, with what it calls."""
    modules, functions = _module_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in functions and _starts_a_process(functions[func.id]):
            found.append((node, functions[func.id]))
        elif isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in modules:
                qualified = f"{modules[func.value.id]}.{func.attr}"
                if _starts_a_process(qualified):
                    found.append((node, qualified))
            elif func.attr in LOOP_STARTERS:
                found.append((node, f"loop.{func.attr}"))
    return found


def process_calls(source: str) -> list[tuple[int, str]]:
    """(line, what) of each place in `source` that starts a program, or imports a module for it."""
    tree = parsed(source)
    found = [(node.lineno, f"import {alias.name}") for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name in PROCESS_MODULES]
    found += [(node.lineno, f"from {node.module} import ...") for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module in PROCESS_MODULES]
    found += [(node.lineno, what) for node, what in _starter_calls(tree)]
    return sorted(set(found))


def git_mentions(source: str) -> list[tuple[int, str]]:
    """Where `source` names git as a program: the word "git" alone (an argv element), or a command
    line starting "git " given to a process starter or to anything named like one."""
    tree = parsed(source)
    found = [(node.lineno, repr(node.value)) for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() == "git"]
    calls = [node for node, _ in _starter_calls(tree)]
    calls += [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _runs_a_command(node.func)]
    for call in calls:
        for arg in call.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.lstrip().startswith("git "):
                found.append((call.lineno, f"{ast.unparse(call.func)}({arg.value!r})"))
    return sorted(set(found))


def _runs_a_command(func: ast.expr) -> bool:
    """A callee whose name is one of a process starter's, whatever module it comes from."""
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in COMMAND_TAKERS or name.startswith(("exec", "spawn", "posix_spawn"))


def test_the_checks_see_every_way_to_start_git():
    planted = """
import subprocess as sp, os
from subprocess import check_output as co
from os import execvp
import asyncio
sp.run(["git", "status"])
co("git log", shell=True)
os.system("git status")
execvp("git", ["git"])
asyncio.create_subprocess_exec("git")
loop.subprocess_shell(factory, "git status")
"""
    assert [line for line, _ in process_calls(planted)] == [2, 3, 6, 7, 8, 9, 10, 11]
    assert {line for line, _ in git_mentions(planted)} == {6, 7, 8, 9, 10, 11}, "git as a program, in any form"
    assert git_mentions("cycle_runs.run('git status', cwd, 5)\n"), "a command line naming git, passed on"
    assert not process_calls("import os\nos.path.join('a')\nos.environ.get('X')\nimport multiprocessing\n")


def test_no_module_but_the_runner_and_the_named_ones_starts_a_process():
    seen = {}
    for rel, source in sources().items():
        calls = process_calls(source)
        if calls and rel != RUNNER:
            seen[rel] = calls
    unexpected = {rel: calls for rel, calls in seen.items() if rel not in NOT_GIT}
    assert not unexpected, f"start git through store/git.py run_git, or list the module with its reason: {unexpected}"
    stale = sorted(set(NOT_GIT) - set(seen))
    assert not stale, f"these no longer start a process; take them off NOT_GIT: {stale}"


def test_no_module_but_the_runner_runs_git():
    mentions = {rel: found for rel, source in sources().items() if rel != RUNNER and (found := git_mentions(source))}
    assert not mentions, f"git runs only through store/git.py run_git: {mentions}"
    assert git_mentions((REPO / RUNNER).read_text(encoding="utf-8")), "the runner itself names git"


@pytest.mark.parametrize("rel", sorted(NOT_GIT))
def test_each_named_module_starts_its_process_from_a_variable_never_from_git(rel):
    """What the listed modules run is the person's approved command, their editor or this Python:
    the program is never a literal naming git (checked above) and never a literal command line."""
    tree = parsed((REPO / rel).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "run", "Popen", "check_output", "call", "check_call") and node.args:
            first = node.args[0]
            literal = first.elts[0] if isinstance(first, (ast.List, ast.Tuple)) and first.elts else first
            assert not (isinstance(literal, ast.Constant) and isinstance(literal.value, str)), \
                f"{rel}:{node.lineno} starts the literal program {literal.value!r}"
