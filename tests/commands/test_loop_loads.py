"""The agent loop's writing commands load the plan as few times as they can, and a load leaves the
collector nothing young to scan: the two costs that made `start --next` load 11,100 nodes twice and
then pause to scan them (issue 25's floor)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from leafwise.commands import registry
from leafwise.commands.registry import REGISTRY, Ctx, load_all
from leafwise.commands.runner import execute
from leafwise.store import PlanPaths, load_plan
from testkit import node, node_data, write_plan


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every whole-plan load a command's context makes."""
    seen: list[Path] = []
    real = registry.load_plan

    def counted(paths, *args, **kwargs):
        seen.append(paths.repo)
        return real(paths, *args, **kwargs)

    monkeypatch.setattr(registry, "load_plan", counted)
    return seen


def _plan(root: Path) -> None:
    write_plan(root, [node("T-1", "epic", release="R1"), node("T-2", "first task", parent="T-1"),
                      node("T-3", "second task", parent="T-1")])


def test_start_next_loads_the_plan_once(tmp_path: Path, loads: list[Path]) -> None:
    load_all()
    _plan(tmp_path)
    out = execute(REGISTRY["start"], Ctx(root=str(tmp_path)), {"next": True, "agent": "a"})
    assert out.exit_code == 0, out.envelope
    assert out.envelope["result"]["task"]["id"] == "T-2"
    assert node_data(tmp_path, "T-2")["status"] == "in-progress" and node_data(tmp_path, "T-1")["status"] == "in-progress"
    assert len(loads) == 1  # under the pick lock, once (it was once before the lock and once under it)


def test_start_next_still_refuses_an_unreadable_project_before_writing(tmp_path: Path, loads: list[Path]) -> None:
    load_all()
    _plan(tmp_path)
    (tmp_path / ".leafwise" / "project.yaml").write_text("id_prefix: [unclosed\n")
    out = execute(REGISTRY["start"], Ctx(root=str(tmp_path)), {"next": True, "agent": "a"})
    assert out.envelope["error"]["code"] == "project_unreadable"
    assert node_data(tmp_path, "T-2")["status"] == "draft" and not (tmp_path / ".leafwise" / "claims").exists() \
        or not list((tmp_path / ".leafwise" / "claims").iterdir())
    assert len(loads) == 1


def test_a_load_leaves_no_young_objects_to_scan(tmp_path: Path) -> None:
    write_plan(tmp_path, [node(f"T-{i}", f"task {i}") for i in range(1, 1501)])
    paths = PlanPaths(tmp_path)
    load_plan(paths)  # the cache
    gc.collect()
    plan = load_plan(paths)
    young = gc.get_count()[0]
    assert len(plan.nodes) == 1500
    assert young < 700, young  # the next allocation would otherwise scan every object the load made
    assert gc.isenabled()


def test_a_cli_process_exits_without_scanning_its_heap(tmp_path: Path) -> None:
    """The console script's process freezes its heap at exit (the interpreter's last full collection
    would scan the whole loaded plan); an exit hook registered before the command runs after that one."""
    import subprocess
    import sys

    _plan(tmp_path)
    probe = ("import atexit, gc, sys\n"
             "atexit.register(lambda: print('frozen', gc.get_freeze_count(), gc.isenabled(), file=sys.stderr))\n"
             "from leafwise.commands.surfaces.entry import main\n"
             "main(['start', '--next', '--agent', 'a'])\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "LEAFWISE_AGENT": ""})
    assert proc.returncode == 0, proc.stderr
    assert "Started T-2" in proc.stdout
    words = proc.stderr.split("frozen ", 1)[1].split()
    assert int(words[0]) > 1000 and words[1] == "True"  # frozen at exit, collecting all along


def test_start_imports_neither_the_validator_nor_git(tmp_path: Path) -> None:
    """`start --next` never validates and asks git nothing unless a refusal names changed files: the
    validator's modules and git's runner (subprocess) are imported by `complete` and a refusal only."""
    import subprocess
    import sys

    _plan(tmp_path)
    probe = ("import atexit, sys\n"
             "names = ('leafwise.commands.domain.validation', 'leafwise.commands.plan_files', "
             "'leafwise.commands.core.validate', 'leafwise.store.git', 'subprocess')\n"
             "atexit.register(lambda: print('loaded', [n for n in names if n in sys.modules], file=sys.stderr))\n"
             "from leafwise.commands.surfaces.entry import main\n"
             "main(sys.argv[1:])\n")
    env = {**__import__("os").environ, "LEAFWISE_AGENT": ""}
    run = subprocess.run([sys.executable, "-c", probe, "start", "--next", "--agent", "a"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert "loaded []" in run.stderr, run.stderr
    done = subprocess.run([sys.executable, "-c", probe, "complete", "T-2", "--summary", "s", "--agent", "a"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert "'leafwise.commands.core.validate'" in done.stderr  # complete still validates the plan
