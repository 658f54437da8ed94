"""A closing commit at a shallow clone's boundary is not read as a root commit: git shows it without parents,
so everything it holds looked added by it. Before, in `git clone --depth 1`, a commit "Fix typo, closes P1-3"
that only touched README.md made P1-3 `shipped` (0.85, `--apply` would close it); the full clone says
`likely` (0.67). A real root commit that adds the code still counts. Real git, the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

CODE = "".join(f"def helper_{i}(x):\n    value = compute_something(x)\n    return value * {i}\n" for i in range(3))


def _bands(repo: Path) -> dict[str, str]:
    found = json.loads(run(repo, LEAFWISE, "reconcile", "--json").stdout)["result"]["suggestions"]
    return {s["id"]: s["verdict"] for s in found}


def _plan(src: Path) -> None:
    plan_repo(src)
    run(src, LEAFWISE, "add", "Export orders as CSV")
    run(src, LEAFWISE, "add", "Password reset email")


@pytest.mark.parametrize("depth", ["1", "2"])
def test_a_shallow_boundary_commit_is_not_read_as_adding_everything(tmp_path: Path, depth: str) -> None:
    src = tmp_path / "src"
    _plan(src)
    (src / "app").mkdir()
    (src / "app" / "helpers.py").write_text(CODE)
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "helpers")
    if depth == "2":
        (src / "app" / "more.py").write_text(CODE.replace("helper_", "more_"))
        run(src, "git", "add", "-A")
        run(src, "git", "commit", "-q", "-m", "Fix typo, closes P1-2")
    (src / "README.md").write_text("typo\n")
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "Fix typo, closes P1-2")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", depth, f"file://{src}", str(clone)], check=True,
                   capture_output=True)
    assert run(clone, "git", "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    assert _bands(clone).get("P1-2") != "shipped"


def test_a_real_root_commit_that_adds_the_code_still_counts(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _plan(src)
    (src / "app").mkdir()
    (src / "app" / "reset.py").write_text("def send_password_reset_email(user):\n    mailer.send(user.email, "
                                          "reset_link(user))\n    return True\n")
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "Password reset email, closes P1-2")
    assert _bands(src).get("P1-2") == "shipped"
