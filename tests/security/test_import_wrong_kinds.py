"""Import files whose values are of the wrong kind (`labels: 5`, `dependencies: 5`, `metadata: "x"`,
`priority: []`, `assignees: 1.5`): before, each ended the import with `internal_error` (TypeError or
AttributeError out of the format's mapping). Now an item's such value is that item's problem (refused
with its place, or skipped with why under --partial) and a file-level one is the file's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import run_cli, run_cli_in_process

ODD = (5, 1.5, True, -1, 10**30, "x", [1, 2], {"a": 1}, [[[]]])
BEADS = {"id": "bd-1", "title": "a", "status": "open", "priority": 2, "issue_type": "task"}
GITHUB = {"number": 1, "title": "a", "body": "b", "state": "OPEN", "labels": [], "milestone": None,
          "assignees": [], "createdAt": "2026-01-01T00:00:00Z", "closedAt": None}
TASK = {"id": 1, "title": "a", "status": "pending", "dependencies": [], "subtasks": []}


def files(value) -> dict[str, tuple[str, str]]:
    """label -> (format, file text) with `value` in one field of the first item; the second item is sound."""
    out = {}
    for key in ("labels", "priority", "dependencies", "title", "status", "assignee"):
        out[f"beads-{key}"] = ("beads", json.dumps({**BEADS, key: value}) + "\n"
                               + json.dumps({"id": "bd-2", "title": "b"}) + "\n")
    for key in ("labels", "assignees", "milestone", "state", "body"):
        out[f"github-{key}"] = ("github", json.dumps([{**GITHUB, key: value}, {**GITHUB, "number": 2}]))
    for key in ("dependencies", "subtasks", "title", "priority", "status"):
        out[f"taskmaster-{key}"] = ("taskmaster", json.dumps({"master": {"tasks": [{**TASK, key: value},
                                                                                   {**TASK, "id": 2}]}}))
    out["taskmaster-metadata"] = ("taskmaster", json.dumps({"master": {"tasks": [TASK], "metadata": value},
                                                            "next": {"tasks": [TASK], "metadata": value}}))
    return out


@pytest.fixture(scope="module")
def plan(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("import-kinds")
    assert run_cli_in_process("init", "--name", "I", "--prefix", "T", cwd=root).code == 0
    return root


@pytest.mark.parametrize("value", ODD, ids=repr)
def test_a_value_of_the_wrong_kind_is_the_items_problem_never_an_internal_error(plan, value):
    for label, (fmt, body) in files(value).items():
        source = plan / f"{label}.in"
        source.write_text(body)
        for extra in ((), ("--partial",)):
            done = run_cli_in_process("import", fmt, str(source), "--dry-run", "--json", *extra, cwd=plan)
            assert "internal_error" not in done.stdout and "Traceback" not in done.stdout + done.stderr, (label, done.stdout[:600])
            assert done.code in (0, 2, 3, 4), (label, done.code, done.stdout[:300])


def test_partial_imports_the_sound_items_and_names_the_other(plan):
    source = plan / "issues.jsonl"
    source.write_text(json.dumps({**BEADS, "labels": 5}) + "\n" + json.dumps({"id": "bd-2", "title": "sound"}) + "\n")
    refused = run_cli("import", "beads", str(source), cwd=plan)
    assert refused.code != 0 and "wrong kind" in refused.stderr + refused.stdout and "line 1" in refused.stderr + refused.stdout
    done = run_cli("import", "beads", str(source), "--partial", "--json", cwd=plan)
    assert done.code == 0, done.stdout + done.stderr
    assert "wrong kind" in done.stdout and "internal_error" not in done.stdout
    listed = run_cli_in_process("list", "--json", cwd=plan)
    titles = [n["title"] for n in listed.json["result"]["nodes"]] if "nodes" in listed.json["result"] else listed.stdout
    assert "sound" in str(titles) and "“a”" not in str(titles)
