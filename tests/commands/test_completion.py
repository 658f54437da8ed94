"""Shell completion through click's `_LEAFWISE_COMPLETE`: command names, node ids, release names and
choices, for bash, zsh and fish, and none of it on the path of `leafwise next`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]


def complete(line: str, cwd: Path, shell: str = "bash") -> list[str]:
    """What the shell's completion script would receive for the last word of `line`."""
    words = line.split(" ")
    env = {**os.environ, "_LEAFWISE_COMPLETE": f"{shell}_complete", "COMP_WORDS": line,
           "COMP_CWORD": str(len(words) - 1)}
    env.pop("LEAFWISE_ROOT", None)
    proc = subprocess.run(CLI, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if shell == "bash":  # "kind,value" per line
        return [row.split(",", 1)[1] for row in proc.stdout.splitlines() if row]
    return proc.stdout.splitlines()


def test_node_ids_complete_from_the_plan_folder(demo_plan):
    assert complete("leafwise show SHOP-7", demo_plan) == ["SHOP-7", "SHOP-70", "SHOP-71", "SHOP-72", "SHOP-73",
                                                            "SHOP-74", "SHOP-75", "SHOP-76", "SHOP-77"]
    assert complete("leafwise add x --parent shop-6", demo_plan)[:2] == ["SHOP-6", "SHOP-60"]
    elsewhere = demo_plan.parent / "elsewhere"
    elsewhere.mkdir()
    assert complete(f"leafwise --root {demo_plan} complete SHOP-4", elsewhere)[0] == "SHOP-4"
    assert complete("leafwise show SHOP-", elsewhere) == []  # no plan here: nothing, and no error


def test_release_names_and_choices_complete(demo_plan):
    assert complete("leafwise add x --release ", demo_plan) == ["R1", "R2", "R3"]
    zsh = complete("leafwise list --release R", demo_plan, "zsh")
    assert zsh[:3] == ["plain", "R1", "MVP"]  # zsh and fish show the release's title beside it
    assert complete("leafwise setup c", demo_plan) == ["claude-code", "cursor", "codex"]
    assert complete("leafwise list --sort p", demo_plan) == ["pick", "priority"]
    assert "setup" in complete("leafwise se", demo_plan)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_gets_its_script(shell, tmp_path: Path):
    env = {**os.environ, "_LEAFWISE_COMPLETE": f"{shell}_source"}
    proc = subprocess.run(CLI, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "_LEAFWISE_COMPLETE" in proc.stdout


def test_next_never_imports_the_completion_lookups(demo_plan):
    code = ("import sys, os; from leafwise.commands.surfaces.cli import main\n"
            "try:\n    main(['next'])\nexcept SystemExit: pass\n"
            "print('leafwise.commands.surfaces.completion' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=demo_plan, capture_output=True, text=True, timeout=60)
    assert proc.stderr.strip().splitlines()[-1] == "False"
