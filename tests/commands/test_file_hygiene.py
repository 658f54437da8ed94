"""Files as the user's umask makes them; hints with list values that split as one argument; size and FIFO guards;
doctor's symlink report and one line per check."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

CLI = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]


def _run_with_umask(mask: int, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEAFWISE_AGENT": ""}
    env.pop("LEAFWISE_ROOT", None)
    return subprocess.run(CLI + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: os.umask(mask))


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_are_created_with_the_users_umask(tmp_path: Path, mask: int, mode: int) -> None:
    for args in (("init", "--name", "Bakery"), ("release", "add", "R1", "--title", "First"),
                 ("add", "Bake bread", "--release", "R1"),
                 ("write-doc", "BAKERY-1", "--content", "# Notes"),
                 ("start", "BAKERY-1", "--agent", "a1")):
        res = _run_with_umask(mask, *args, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
    plan = tmp_path / ".leafwise"
    for rel in ("project.yaml", "nodes/BAKERY-1.yaml", "docs/BAKERY-1.md", ".gitignore", "journal.jsonl"):
        assert stat.S_IMODE((plan / rel).stat().st_mode) == mode, (rel, oct((plan / rel).stat().st_mode))
    claims = list((plan / "claims").iterdir())
    assert claims and all(stat.S_IMODE(c.stat().st_mode) == mode for c in claims)


@pytest.mark.parametrize("dangling", ["docs/gone one.md", "docs/$(touch x).md"])
def test_a_list_fix_splits_as_one_argument_and_repairs_the_node(tmp_path: Path, dangling: str) -> None:
    (tmp_path / ".leafwise/docs").mkdir(parents=True)
    (tmp_path / ".leafwise/docs/kept.md").write_text("# kept\n")
    write_plan(tmp_path, [node("T-1", "A", release="R1", docs=["docs/kept.md", dangling]),
                          node("T-2", "B", release="R1"), node("T-3", "C", release="R1", depends_on=["T-2", "T-9"])])
    env = run_cli("validate", "--json", cwd=tmp_path).json
    fixes = sorted({p["fix"] for p in env["error"]["details"]["problems"]["items"] if p["code"].startswith("dangling")})
    assert len(fixes) == 2, fixes
    for line in fixes:
        words = shlex.split(line)
        assert words[:2] == ["leafwise", "edit"] and words[3] == "--set" and len(words) == 5, words
        assert run_cli(*words[1:], cwd=tmp_path).code == 0
    assert run_cli("validate", cwd=tmp_path).code == 0
    assert not (tmp_path / "x").exists()


def test_a_value_over_the_limit_is_a_usage_error_named_too_large(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    res = run_cli("add", "x" * 70_000, "--release", "R1", "--json", cwd=tmp_path)
    assert res.code == 2
    assert res.json["error"]["code"] == "too_large" and "limit" in res.json["error"]["message"]


def test_doc_never_hangs_on_a_fifo_under_docs(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1", docs=["docs/pipe.md"])])
    fifo = tmp_path / ".leafwise/docs/pipe.md"
    os.mkfifo(fifo)
    opened = threading.Event()
    try:
        res = run_cli("doc", "T-1", "--json", cwd=tmp_path, timeout=20)
    finally:
        if not opened.is_set():  # release a reader that would block, so a failure never hangs the suite
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
    assert res.code == 0, res.stderr
    assert res.json["result"]["docs"][0]["missing"] is True


def test_diagnose_and_renumber_never_read_a_node_through_a_link(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    secret = tmp_path / "secret.yaml"
    secret.write_text("id: T-2\ntitle: a secret outside the plan\nstatus: draft\n")
    (tmp_path / ".leafwise/nodes/T-2.yaml").symlink_to(secret)
    for args in (("diagnose", "T-2"), ("renumber", "T-2"), ("show", "T-2"), ("repair", "--dry-run")):
        res = run_cli(*args, "--json", cwd=tmp_path)
        assert "a secret outside the plan" not in res.stdout + res.stderr, args
        assert res.code != 1, (args, res.stdout, res.stderr)  # never an internal error
    assert secret.read_text().startswith("id: T-2\n")


def test_doctor_reports_symlinks_and_prints_one_line_per_line(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    journal = tmp_path / ".leafwise/journal.jsonl"
    journal.unlink(missing_ok=True)
    journal.symlink_to(outside)
    res = run_cli("doctor", cwd=tmp_path)
    assert "\u240a" not in res.stdout  # ␊: a newline inside one body line
    lines = res.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "journal.jsonl is a symbolic link" in line)
    assert "WARN" in lines[at] and lines[at + 1].strip() == "to fix: rm .leafwise/journal.jsonl"
    env = run_cli("doctor", "--json", cwd=tmp_path).json
    assert [c for c in env["result"]["checks"] if c["name"] == "symlinks" and c["severity"] == "warning"]
    journal.unlink()
    clean = run_cli("doctor", "--json", cwd=tmp_path).json
    assert [c["severity"] for c in clean["result"]["checks"] if c["name"] == "symlinks"] == ["ok"]
