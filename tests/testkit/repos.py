"""Small real repositories for reconcile tests: files written, committed with git, reconciled by the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from testkit import node, run_cli, write_plan


# A real package names more than a handful of things: enough that a title's word ("timestamp") is not
# its background. Eighty small functions over common words, for a repository's filler module.
FILLER = "".join(f"def {verb}_{w}(value):\n    return value\n\n\n" for verb in ("format", "parse", "render", "check")
                 for w in ("title", "author", "date", "footer", "header", "link", "image", "quote", "table", "price",
                           "colour", "width", "height", "margin", "border", "shadow", "font", "size", "gram", "cup"))


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit_all(root: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


def reconcile(root: Path, *args: str) -> dict[str, dict[str, Any]]:
    """`leafwise reconcile --json` through the CLI: the suggestions by node id."""
    res = run_cli("reconcile", "--json", *args, cwd=root)
    assert res.code == 0, res.stderr
    return {s["id"]: s for s in json.loads(res.stdout)["result"]["suggestions"]}


# A clone's commands as a person runs them: git's author set, this machine's system config left out,
# HOME in the repository's folder (no person's global config), no agent.
RUN_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "LEAFWISE_AGENT": "", "GIT_CONFIG_NOSYSTEM": "1"}
LEAFWISE = str(Path(sys.executable).parent / "leafwise")


def run(cwd: Path, *argv: str, code: int | None = 0) -> subprocess.CompletedProcess:
    """`argv` (git, `LEAFWISE`, sed …) in `cwd` as a process; its exit code checked unless `code` is None."""
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **RUN_ENV, "HOME": str(cwd)})
    if code is not None:
        assert done.returncode == code, f"{argv}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done


def plan_repo(root: Path, prefix: str = "P1") -> Path:
    """`root` as a git repository on main holding a new plan (`leafwise init --prefix PREFIX`), nothing
    committed yet: what a clone's author starts from."""
    root.mkdir(parents=True, exist_ok=True)
    run(root, "git", "init", "-q", "-b", "main")
    run(root, LEAFWISE, "init", "--prefix", prefix)
    return root


# git for a test's own setup: its author set, no system config, no person's HOME
SETUP_GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                 "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"],
                 "HOME": "/nonexistent"}
REAL_GIT = shutil.which("git") or "git"
SYSTEM_PATH = os.pathsep.join(sorted({os.path.dirname(REAL_GIT), "/usr/bin", "/bin"}))  # PATH with git, nothing else


def setup_git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=SETUP_GIT_ENV)


def planted_clone(base: Path, programs: dict[str, str]) -> Path:
    """A clone of a plan (P1-1 Checkout, P1-2 Cart page under it) whose author committed executable
    `programs` (repository-relative path -> script): `base/clone`, its source `base/source`."""
    source = base / "source"
    source.mkdir(parents=True)
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1")], prefix="P1")
    for rel, script in programs.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_text(script)
        (source / rel).chmod(0o755)
    setup_git(source, "init", "-q", "-b", "main")
    setup_git(source, "add", "-A")
    setup_git(source, "commit", "-q", "-m", "plan")
    clone = base / "clone"
    setup_git(base, "clone", "-q", str(source), str(clone))
    return clone
