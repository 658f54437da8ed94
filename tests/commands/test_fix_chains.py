"""Fix chains never loop: from a broken plan, following only the answers' Fix:/Next: lines (as an agent
would, placeholders filled) reaches a valid plan or a step only a person can take within five steps.

Each broken plan is walked three ways: from `validate`, from `diagnose` of the broken node, and from the
command that failed on it (an agent's `complete`).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Callable

import pytest
from testkit import node, run_cli, write_plan

MAX_STEPS = 5
FILL = {"<agent>": "bot", "<summary>": "it works", "<reason>": "waiting on the vendor", "<title>": "A title",
        "<text>": "a note", "<content>": "# Notes", "<choice>": "1", "<N>": "1", "<question>": "Which?",
        "<value>": "x", "<command>": "true"}
# Reading commands do not change the plan: after one, the agent checks the plan again.
READING = {"next", "show", "list", "context", "doc", "tree", "progress", "commands", "diagnose", "doctor",
           "agent-guide", "release list"}
# Commands an agent must not run for a person: consent to run a command from a plan file is the person's.
PERSON_ONLY = {"trust"}


def _words(line: str) -> list[str]:
    words = shlex.split(line)
    return [FILL.get(w, w) for w in words]


def _name(words: list[str]) -> str:
    two = " ".join(words[1:3])
    return two if two in READING | {"release add", "release edit", "release remove", "release move",
                                    "project set", "cycle verify"} else words[1]


def _clean(root: Path) -> bool:
    checked = run_cli("validate", "--json", cwd=root)
    return checked.code == 0 and checked.json["result"]["problems"]["total"] == 0


def walk(root: Path, first: list[str]) -> list[str]:
    """Follow the hints from `first`; returns the lines run. Fails on a loop or a sixth step."""
    ran: list[str] = []
    words = first
    for _step in range(MAX_STEPS + 1):
        line = shlex.join(words)
        assert line not in ran[-1:] or _name(words) in READING, f"the same step twice in a row: {ran + [line]}"
        ran.append(line)
        res = run_cli(*words[1:], "--json", cwd=root)
        assert res.code != 1 or res.json["error"]["code"] != "internal_error", (line, res.stdout)
        env = res.json
        if _clean(root):
            return ran  # a valid plan, without warnings either
        action = env["_next_action"]
        if action["marker"] == "wait":
            assert action["condition"], env
            return ran + [f"Wait: {action['condition']}"]  # a person's step, named
        if action["marker"] == "done":  # the work is over: the plan must at least be valid (warnings may stay)
            assert run_cli("validate", cwd=root).code == 0, f"Done. while the plan is invalid: {ran}"
            return ran + ["Done."]
        command = action["command"] or ""
        if not command.startswith("leafwise "):
            return ran + [f"person: {command}"]  # e.g. edit the file at a line, resolve a merge
        nxt = _words(command)
        if nxt[1] in PERSON_ONLY:
            return ran + [f"person: {command}"]
        if _name(nxt) in READING and _name(words) in READING and nxt[1] != "diagnose":
            nxt = ["leafwise", "validate"]  # read; now check the plan again
        words = nxt
        if len(ran) > MAX_STEPS:
            break
    pytest.fail(f"no valid plan or person's step within {MAX_STEPS} steps: {ran}")


# --- the broken plans -------------------------------------------------------------------------

def bad_yaml(root: Path) -> str:
    write_plan(root, [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1"),
                      node("T-3", "Other", release="R1")])
    (root / ".leafwise/nodes/T-2.yaml").write_text("id: T-2\ntitle: [unclosed\nparent: T-1\nstatus: draft\n")
    return "T-2"


def dangling_parent(root: Path) -> str:
    write_plan(root, [node("T-1", "A", release="R1", parent="T-9"), node("T-2", "B", release="R1")])
    return "T-1"


def dangling_dependency(root: Path) -> str:
    write_plan(root, [node("T-1", "A", release="R1", depends_on=["T-2", "T-9"]), node("T-2", "B", "done",
                                                                                       release="R1")])
    return "T-1"


def blocked_without_reason(root: Path) -> str:
    write_plan(root, [node("T-1", "A", "blocked", release="R1"), node("T-2", "B", release="R1")])
    return "T-1"


def unknown_release(root: Path) -> str:
    write_plan(root, [node("T-1", "A", release="R7"), node("T-2", "B", release="R1")])
    return "T-1"


def dependency_cycle(root: Path) -> str:
    write_plan(root, [node("T-1", "A", release="R1", depends_on=["T-2"]),
                      node("T-2", "B", release="R1", depends_on=["T-1"])])
    return "T-1"


def hierarchy_cycle(root: Path) -> str:
    write_plan(root, [node("T-1", "A", release="R1", parent="T-2"), node("T-2", "B", release="R1", parent="T-1"),
                      node("T-3", "C", release="R1")])
    return "T-1"


def merge_conflict_duplicate(root: Path) -> str:
    write_plan(root, [node("T-1", "A", release="R1")])
    (root / ".leafwise/nodes/T-2.yaml").write_text(
        "<<<<<<< HEAD\nid: T-2\ntitle: Ours\nstatus: draft\nrelease: R1\n=======\n"
        "id: T-2\ntitle: Theirs\nstatus: draft\nrelease: R1\n>>>>>>> feature\n")
    return "T-2"


def half_finished_cascade(root: Path) -> str:
    write_plan(root, [node("T-1", "Epic", "in-progress", release="R1"),
                      node("T-2", "A", "done", parent="T-1", summary="x"),
                      node("T-3", "B", "done", parent="T-1", summary="y"), node("T-4", "C", release="R2")])
    return "T-1"


def untrusted_command(root: Path) -> str:
    marker = root / "ran"
    write_plan(root, [node("T-1", "A", release="R1", done_when=[{"command": f"touch {marker}"}]),
                      node("T-2", "B", release="R1")])
    return "T-1"


BROKEN: dict[str, Callable[[Path], str]] = {f.__name__: f for f in (
    bad_yaml, dangling_parent, dangling_dependency, blocked_without_reason, unknown_release, dependency_cycle,
    hierarchy_cycle, merge_conflict_duplicate, half_finished_cascade, untrusted_command)}


STARTS = ("validate", "diagnose", "complete")
# Every broken plan from one entry in the fast set (the entries taken in turn, so each is tried), from
# all three in the slow set (`-m slow`, .ci/run).
CHAINS = [pytest.param(name, start, id=f"{name}-{start}",
                       marks=() if STARTS.index(start) == i % len(STARTS) else pytest.mark.slow)
          for i, name in enumerate(sorted(BROKEN)) for start in STARTS]


@pytest.mark.parametrize("name, start", CHAINS)
def test_following_the_hints_reaches_a_valid_plan_or_a_person(tmp_path: Path, name: str, start: str) -> None:
    broken = BROKEN[name](tmp_path)
    first = {"validate": ["leafwise", "validate"], "diagnose": ["leafwise", "diagnose", broken],
             "complete": ["leafwise", "complete", broken, "--summary", "done", "--agent", "bot"]}[start]
    ran = walk(tmp_path, first)
    assert len(ran) <= MAX_STEPS + 1, ran
    assert not (tmp_path / "ran").exists(), "a command from the plan ran without the person's consent"

