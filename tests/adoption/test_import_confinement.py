"""Every file an import reads lies inside the folder the person named: a committed link anywhere on
the way (`backlog/tasks`, `backlog/archive`, `.beads`, `.taskmaster/tasks`) is never followed, and
the answer names it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from testkit import run_cli_in_process

SECRET = "secret-XYZ"


def _leaked(root: Path) -> list[str]:
    return [str(p) for p in (root / ".leafwise").rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def _outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "task-1 - Stolen.md").write_text(f"---\nid: task-1\ntitle: Stolen\nstatus: To Do\n---\n\n{SECRET}\n")
    (out / "issues.jsonl").write_text(json.dumps({"id": "bd-1", "title": "Stolen", "description": SECRET}) + "\n")
    (out / "tasks.json").write_text(json.dumps({"master": {"tasks": [
        {"id": 1, "title": "Stolen", "description": SECRET, "status": "pending", "subtasks": []}]}}))
    return out


@pytest.mark.parametrize("linked", ["tasks", "archive"])
def test_backlog_folder_behind_a_link_is_skipped_and_named(plan_root: Path, kit, tmp_path: Path, linked: str) -> None:
    folder = tmp_path / "src/backlog"
    shutil.copytree(kit.fixtures / "backlog", folder)
    out = _outside(tmp_path)
    if linked == "archive":  # a link in a parent folder of the files read: archive/tasks/*.md
        (out / "tasks").mkdir()
        shutil.copy(out / "task-1 - Stolen.md", out / "tasks/task-1 - Stolen.md")
    shutil.rmtree(folder / linked)
    (folder / linked).symlink_to(out)
    res = run_cli_in_process("import", "backlog", str(folder), "--json", cwd=plan_root)
    assert res.code == 0, res.stdout + res.stderr
    skips = json.loads(res.stdout)["result"]["skips"]
    assert {"key": None, "where": f"{folder}/{linked}", "why": "a symbolic link: never followed (put the real "
            "file there)"}.items() <= next(s for s in skips if s["where"].endswith(linked)).items()
    assert _leaked(plan_root) == []


def test_backlog_folder_itself_a_link_refuses_the_import(plan_root: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    out = _outside(tmp_path)
    (out / "tasks").mkdir()
    (src / "backlog").symlink_to(out)
    res = run_cli_in_process("import", "backlog", str(src), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and error["details"]["file"] == f"{src}/backlog" and "symbolic link" in error["message"]
    assert _leaked(plan_root) == []


@pytest.mark.parametrize(("fmt", "link", "target"), [("beads", ".beads", "."), ("taskmaster", ".taskmaster/tasks", "."),
                                                     ("taskmaster", ".taskmaster", "up")])
def test_tracker_file_behind_a_linked_folder_refuses_the_import(plan_root: Path, tmp_path: Path, fmt: str,
                                                                 link: str, target: str) -> None:
    src = tmp_path / "src"
    out = _outside(tmp_path)
    if target == "up":  # .taskmaster → a folder whose tasks/tasks.json is outside
        (out / "tasks").mkdir()
        shutil.copy(out / "tasks.json", out / "tasks/tasks.json")
    (src / link).parent.mkdir(parents=True, exist_ok=True)
    (src / link).symlink_to(out)
    res = run_cli_in_process("import", fmt, str(src), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2, res.stdout
    assert error["details"]["file"] == f"{src}/{link}" and "symbolic link" in error["message"]
    assert _leaked(plan_root) == []
