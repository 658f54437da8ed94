"""Kill an import with SIGKILL at random moments and look at what it leaves.

    python bench/import_kill.py FORMAT PATH [--trials N] [--seed S]

For each trial: a fresh `leafwise init` plan, `leafwise import FORMAT PATH` in a child, SIGKILL after a
random delay within the import's measured wall time, then `leafwise validate` and a comparison of
`.leafwise/` with the plan before (unchanged), with a whole import (complete: every node and every
journal line), or neither (partial). Temp files the killed writer left (`.lw-*.tmp`, which readers
skip and `repair` sweeps) are counted apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "leafwise.commands.surfaces.cli"]


def leafwise(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, check=False)


def files(root: Path) -> dict[str, bytes]:
    base = root / ".leafwise"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()
            and not str(p.relative_to(base)).startswith((".cache", ".locks")) and not p.name.startswith(".lw-")}


def temps(root: Path) -> int:
    return sum(1 for p in (root / ".leafwise").rglob(".lw-*.tmp"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("format")
    ap.add_argument("path")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="import-kill-"))
    template = work / "template"
    template.mkdir()
    leafwise("init", "--name", "Trial", "--prefix", "TR", cwd=template)
    whole = shutil.copytree(template, work / "whole")
    start = time.monotonic()
    done = leafwise("import", args.format, args.path, "--json", cwd=whole)
    wall = time.monotonic() - start
    summary = json.loads(done.stdout)["result"]
    complete = files(whole)
    print(f"whole import: {wall:.2f} s, {summary['added']} added, {len(complete)} files")
    tally: dict[str, int] = {}
    for trial in range(args.trials):
        root = shutil.copytree(template, work / f"t{trial}")
        before = files(root)
        delay = rng.uniform(0, wall * 1.05)
        child = subprocess.Popen([*CLI, "import", args.format, args.path], cwd=root,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        after = files(root)
        nodes = sum(1 for k in after if k.startswith("nodes/"))
        state = "unchanged" if after == before else \
            "complete" if set(after) == set(complete) and nodes == sum(1 for k in complete if k.startswith("nodes/")) \
            else "partial"
        check = leafwise("validate", "--json", cwd=root)
        errors = json.loads(check.stdout)["result"].get("errors") if check.stdout.strip() else None
        left = temps(root)
        again = json.loads(leafwise("import", args.format, args.path, "--json", cwd=root).stdout)["result"]
        tally[state] = tally.get(state, 0) + 1
        print(f"trial {trial}: killed at {delay:5.2f} s (exit {child.returncode}): {state}, {nodes} node files, "
              f"validate errors {errors}, {left} temp files left; import again: {again['added']} added, "
              f"{again['unchanged']} unchanged")
    print("states:", tally)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
