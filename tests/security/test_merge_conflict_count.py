"""A clone that commits thousands of node files holding git conflict markers whose sides each parse
(2,000 files: `validate`, `doctor` and `repair --dry-run` 7 s each, 30,000: near two minutes): each file
cost one `git ls-files -u` to learn whether its entry had a base. Now one call answers for every file,
and a real unresolved merge still tells two edits of one node from two nodes that took one id."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from testkit import run_cli
from testkit.gitserver import git

NODE = "id: {id}\n{title}status: draft\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"


def counting_git(where: Path) -> tuple[dict[str, str], Path]:
    """A `git` first on PATH that logs each start and runs the real one."""
    bin_dir, log = where / "bin", where / "git-starts"
    bin_dir.mkdir()
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True).stdout.strip()
    (bin_dir / "git").write_text(f"#!/bin/sh\necho x >> '{log}'\nexec '{real}' \"$@\"\n")
    (bin_dir / "git").chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, log


def test_thousands_of_conflicted_node_files_cost_one_git_call(tmp_path):
    work = tmp_path / "plan"
    work.mkdir()
    assert run_cli("init", "--name", "M", "--prefix", "T", cwd=work).code == 0
    nodes = work / ".leafwise" / "nodes"
    for i in range(1, 1201):
        title = f"<<<<<<< HEAD\ntitle: task {i}\n=======\ntitle: task {i} b\n>>>>>>> other\n"
        (nodes / f"T-{i}.yaml").write_text(NODE.format(id=f"T-{i}", title=title))
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "planted")
    env, log = counting_git(tmp_path)
    for args in (("validate", "--json"), ("doctor",), ("repair", "--dry-run")):
        log.unlink(missing_ok=True)
        done = run_cli(*args, cwd=work, env=env, timeout=120, fresh=True)
        assert "internal_error" not in done.stdout, done.stdout
        starts = len(log.read_text().splitlines()) if log.exists() else 0
        assert starts < 20, (args, starts)
    shown = run_cli("validate", "--json", cwd=work, timeout=120)
    codes = {p["code"] for p in shown.json["problems"]} if "problems" in shown.json else set()
    assert "duplicate_id" in codes or "duplicate_id" in shown.stdout, shown.stdout[:400]


def test_an_unresolved_merge_still_names_two_edits_of_one_node(tmp_path):
    work = tmp_path / "plan"
    work.mkdir()
    assert run_cli("init", "--name", "M", "--prefix", "T", cwd=work).code == 0
    nodes = work / ".leafwise" / "nodes"
    for i in (1, 2):
        (nodes / f"T-{i}.yaml").write_text(NODE.format(id=f"T-{i}", title=f"title: task {i}\n"))
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "base")
    git(work, "checkout", "-q", "-b", "other")
    for i in (1, 2):
        (nodes / f"T-{i}.yaml").write_text(NODE.format(id=f"T-{i}", title=f"title: theirs {i}\n"))
    git(work, "commit", "-qam", "theirs")
    git(work, "checkout", "-q", "main")
    for i in (1, 2):
        (nodes / f"T-{i}.yaml").write_text(NODE.format(id=f"T-{i}", title=f"title: ours {i}\n"))
    git(work, "commit", "-qam", "ours")
    merged = subprocess.run(["git", "merge", "-q", "other"], cwd=work, capture_output=True, text=True)
    assert merged.returncode != 0 and "<<<<<<<" in (nodes / "T-1.yaml").read_text()
    shown = run_cli("validate", cwd=work, timeout=120)
    assert shown.stdout.count("merge_conflict") >= 2 and "duplicate_id" not in shown.stdout, shown.stdout
