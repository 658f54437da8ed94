"""A refused value never comes back as a different value in the Fix: every refusal of a bad date, priority,
status, cascade mode, field, list field, path or id is provoked through the real CLI, and each word of its
Fix line must be one the caller gave, a placeholder in <…>, a flag, or a node id that exists in the plan."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

IDS = {"T-1", "T-2"}
BAD = [
    ("release", "add", "R4", "--title", "x", "--target", "12/31/2027"),
    ("release", "add", "R4", "--title", "x", "--target", "tomorrow"),
    ("release", "add", "R4", "--title", "x", "--target", "31.12.2027"),
    ("release", "add", "R4", "--title", "x", "--target", "2027-13-01"),
    ("release", "edit", "R1", "--target", "2027-02-30"),
    ("release", "add", "bad id!", "--title", "x"),
    ("project", "set"),
    ("edit", "T-1", "--set", "priority=urgent"),
    ("edit", "T-1", "--set", "priority=1"),
    ("edit", "T-1", "--set", "status=bogus"),
    ("edit", "T-1", "--set", "cascade=sometimes"),
    ("edit", "T-1", "--set", "estimate=3"),
    ("edit", "T-1", "--set", "titel=Renamed"),
    ("edit", "T-1", "--set", "no equals sign"),
    ("edit", "T-1", "--add", "colour=red"),
    ("edit", "T-1", "--set", "docs=[../../outside.md]"),
    ("edit", "T-1", "--set", "depends_on=[T-99]"),
    ("edit", "T-1", "--set", "parent=T-42"),
    ("edit", "T-1", "--set", "release=R9"),
    ("edit", "T-1"),
]


def words_given(args: tuple[str, ...]) -> set[str]:
    given = set(args)
    for arg in args:
        given.update(arg.replace("=", " ").replace("[", " ").replace("]", " ").split())
    return given


def invented(line: str, args: tuple[str, ...]) -> list[str]:
    """The words of a Fix command line that are none of: given, placeholder, flag, existing node id."""
    given = words_given(args)
    out = []
    for token in shlex.split(line)[1:]:
        for part in token.split("=", 1) if not token.startswith("--") else [token]:
            part = part.strip("[]")
            if not (part in given or part in IDS or part.startswith("--") or (part.startswith("<") and part.endswith(">"))
                    or part in {"show", "list", "context", "tree", "validate", "doctor", "help"}):
                out.append(part)
    return out


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fix_values")
    return write_plan(root, [node("T-1", "Login form", release="R1"), node("T-2", "Signup form", release="R1")])


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) for a in BAD])
def test_a_fix_carries_only_values_the_caller_gave(plan: Path, args: tuple[str, ...]) -> None:
    res = run_cli(*args, "--json", cwd=plan)
    assert res.code != 0, (args, res.stdout)
    action = res.json["_next_action"]
    assert action["marker"] == "fix", action
    for line in filter(None, (action["command"], action.get("or"))):
        assert invented(line, args) == [], (args, line)


def test_the_check_itself_catches_an_invented_date() -> None:
    args = ("release", "add", "R2", "--title", "x", "--target", "tomorrow")
    assert invented("leafwise release add R2 --title x --target 2027-01-31", args) == ["2027-01-31"]
    assert invented('leafwise edit T-1 --set "priority=high"', ("edit", "T-1", "--set", "priority=urgent")) == ["high"]
