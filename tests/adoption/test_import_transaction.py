"""An import writes everything or leaves the plan's bytes as they were, also when a write fails late."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.store import atomic
from testkit import run_cli, run_cli_in_process

SOURCE = Path(__file__).parent / "fixtures" / "taskmaster"


def _fresh(folder: Path) -> Path:
    folder.mkdir(parents=True)
    assert run_cli_in_process("init", "--name", "Adopt", "--prefix", "AD", cwd=folder).code == 0
    return folder


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under .leafwise/ (temp files included) but the cache and the locks."""
    base = root / ".leafwise"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and not str(p.relative_to(base)).startswith((".cache", ".locks"))}


def _written_order(tmp_path: Path) -> list[tuple[str, bool]]:
    """The nodes a fresh import of the fixture writes, in the order it puts them in place, each
    with whether it has a doc."""
    scratch = _fresh(tmp_path / "scratch")
    assert run_cli_in_process("import", "taskmaster", str(SOURCE), cwd=scratch).code == 0
    lines = (scratch / ".leafwise/journal.jsonl").read_text().splitlines()
    return [(e["node"], (scratch / ".leafwise/docs" / f"{e['node']}.md").is_file())
            for e in map(json.loads, lines) if e.get("command") == "import"]


def test_a_late_write_failure_leaves_the_plan_as_it_was_and_names_the_cause(tmp_path: Path) -> None:
    order = _written_order(tmp_path)
    root = _fresh(tmp_path / "plan")
    last = [node for node, doc in order if doc][-1]  # the last doc put in place: all but a few files are in
    assert [node for node, _ in order].index(last) >= len(order) - 3
    (root / ".leafwise/docs" / f"{last}.md").mkdir(parents=True)
    before = _snapshot(root)
    res = run_cli("import", "taskmaster", str(SOURCE), cwd=root)
    assert res.code == 1, res.stdout
    assert f".leafwise/docs/{last}.md: a folder is in its place; nothing was imported" in res.stderr
    assert res.stderr.rstrip().splitlines()[-1] == f"Fix: leafwise import taskmaster {SOURCE}"
    assert _snapshot(root) == before
    assert "0 error(s)" in run_cli_in_process("validate", cwd=root).stdout
    (root / ".leafwise/docs" / f"{last}.md").rmdir()
    again = run_cli_in_process("import", "taskmaster", str(SOURCE), "--json", cwd=root)
    assert json.loads(again.stdout)["result"]["added"] == len(order)


FAULTED = ((os, "link"), (os, "replace"), (os, "write"), (atomic, "stage"))


class _Fault:
    """The calls that put a file in place (os.link, os.replace, os.write, atomic.stage) fail once, at
    the `at`-th call of them all."""

    def __init__(self, at: int):
        self.at, self.calls = at, 0

    def wrap(self, real):
        def call(*args, **kwargs):
            self.calls += 1
            if self.calls == self.at:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(*args, **kwargs)
        return call


def _calls_of_an_import(root: Path, partial: bool) -> int:
    fault = _Fault(0)
    with pytest.MonkeyPatch.context() as mp:
        for module, name in FAULTED:
            mp.setattr(module, name, fault.wrap(getattr(module, name)))
        args = ("import", "taskmaster", str(SOURCE)) + (("--partial",) if partial else ())
        assert run_cli_in_process(*args, cwd=root).code == 0
    return fault.calls


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), partial=st.booleans())
def test_a_failure_at_any_write_of_an_import_undoes_all_of_it(tmp_path_factory, data, partial: bool) -> None:
    base = tmp_path_factory.mktemp("tx")
    template = _fresh(base / "template")
    total = _calls_of_an_import(shutil.copytree(template, base / "count"), partial)
    at = 1 + data.draw(st.integers(0, 10_000), label="failing call") % total  # the count varies with the cache
    root = shutil.copytree(template, base / "plan")
    before = _snapshot(root)
    fault = _Fault(at)
    with pytest.MonkeyPatch.context() as mp:
        for module, name in FAULTED:
            mp.setattr(module, name, fault.wrap(getattr(module, name)))
        res = run_cli_in_process("import", "taskmaster", str(SOURCE), *(["--partial"] if partial else []),
                                 "--json", cwd=root)
    env = json.loads(res.stdout) if res.stdout.strip() else None
    if res.code == 0:  # the fault hit a write outside the plan (the cache): the import is whole
        assert env["result"]["added"] > 0 and "0 error(s)" in run_cli_in_process("validate", cwd=root).stdout
        return
    assert _snapshot(root) == before
    assert env is not None and env["_next_action"]["marker"] == "fix"
    assert "No space left on device" in env["error"]["message"] or "nothing was imported" in env["error"]["message"]


def _changed_source(base: Path) -> Path:
    """A copy of the fixture with one task retitled and one added: a re-import updates and adds."""
    source = shutil.copytree(SOURCE, base / "source")
    path = source / ".taskmaster/tasks/tasks.json"
    data = json.loads(path.read_text())
    data["master"]["tasks"][2]["title"] = "Password reset by email"
    data["master"]["tasks"].append({"id": 8, "title": "Rate limits", "description": "", "status": "pending",
                                    "dependencies": [3], "subtasks": []})
    path.write_text(json.dumps(data))
    return source


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_failure_in_a_re_import_that_updates_puts_the_old_files_back(tmp_path_factory, data) -> None:
    base = tmp_path_factory.mktemp("again")
    template = _fresh(base / "template")
    assert run_cli_in_process("import", "taskmaster", str(SOURCE), cwd=template).code == 0
    source = _changed_source(base)
    fault = _Fault(0)
    counted = shutil.copytree(template, base / "count")
    with pytest.MonkeyPatch.context() as mp:
        for module, name in FAULTED:
            mp.setattr(module, name, fault.wrap(getattr(module, name)))
        assert run_cli_in_process("import", "taskmaster", str(source), cwd=counted).code == 0
    at = 1 + data.draw(st.integers(0, 10_000), label="failing call") % fault.calls
    root = shutil.copytree(template, base / "plan")
    before = _snapshot(root)
    failing = _Fault(at)
    with pytest.MonkeyPatch.context() as mp:
        for module, name in FAULTED:
            mp.setattr(module, name, failing.wrap(getattr(module, name)))
        res = run_cli_in_process("import", "taskmaster", str(source), "--json", cwd=root)
    if res.code == 0:
        return  # the fault hit the cache: the import is whole
    assert _snapshot(root) == before
    assert json.loads(res.stdout)["_next_action"]["marker"] == "fix"


def test_a_node_another_writer_changes_meanwhile_is_a_conflict_and_nothing_is_imported(tmp_path: Path) -> None:
    from leafwise.commands.adoption import transaction

    root = _fresh(tmp_path / "plan")
    assert run_cli_in_process("import", "taskmaster", str(SOURCE), cwd=root).code == 0
    source = _changed_source(tmp_path)
    nodes = {json.loads(line).get("node") for line in (root / ".leafwise/journal.jsonl").read_text().splitlines()}
    target = next(p for p in sorted((root / ".leafwise/nodes").glob("*.yaml"))
                  if "Password reset" in p.read_text() and p.stem in nodes)
    real_flush = transaction.flush

    def another_writer_meanwhile() -> None:  # between the import's reading and its renaming
        target.write_text(target.read_text() + "assignee: someone\n")
        real_flush()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(transaction, "flush", another_writer_meanwhile)
        res = run_cli_in_process("import", "taskmaster", str(source), "--json", cwd=root)
    env = json.loads(res.stdout)
    assert res.code == 3 and env["error"]["retryable"] is True, env
    assert f".leafwise/nodes/{target.name}: it changed since the import read it" in env["error"]["message"]
    assert env["_next_action"]["command"] == f"leafwise import taskmaster {source}"
    assert "assignee: someone" in target.read_text() and "Rate limits" not in "".join(
        p.read_text() for p in (root / ".leafwise/nodes").glob("*.yaml"))
    again = json.loads(run_cli_in_process("import", "taskmaster", str(source), "--json", cwd=root).stdout)
    assert (again["result"]["added"], again["result"]["updated"]) == (1, 1)
