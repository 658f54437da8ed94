"""Kill an import with SIGKILL at random moments and look at what it leaves.

    python bench/import_kill.py FORMAT PATH [--partial] [--trials N] [--seed S]

For each trial: a fresh `leafwise init` plan, `leafwise import FORMAT PATH` in a child, SIGKILL after a
random delay within the import's measured wall time (`--in-writes`: within its writing, from
its first staged file to its exit), then `leafwise validate` and a comparison of
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

CLI = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]


def leafwise(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, check=False)


def files(root: Path) -> dict[str, bytes]:
    base = root / ".leafwise"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()
            and not str(p.relative_to(base)).startswith((".cache", ".locks")) and not p.name.startswith(".lw-")}


def journaled(snapshot: dict[str, bytes]) -> int:
    """The import's lines in a snapshot's journal."""
    return snapshot.get("journal.jsonl", b"").count(b'"command":"import"')


def temps(root: Path) -> int:
    return sum(1 for p in (root / ".leafwise").rglob(".lw-*.tmp"))


def writing(root: Path) -> bool:
    """Whether the import has begun to write (a staged temp file or a new node file is there)."""
    for folder in (root / ".leafwise/nodes", root / ".leafwise/docs", root / ".leafwise"):
        try:
            if any(e.name.startswith(".lw-") or folder.name == "nodes" for e in os.scandir(folder)):
                return True
        except FileNotFoundError:
            continue
    return False


def start(words: list[str], root: Path, in_writes: bool) -> tuple[subprocess.Popen[bytes], float]:
    """The import in a child, and the moment the clock of its kill starts (its writing, or its start)."""
    child = subprocess.Popen([*CLI, *words], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    begun = time.monotonic()
    while in_writes and child.poll() is None and not writing(root):
        time.sleep(0.0005)  # a poll of the folder: the writes start at a moment no timer knows
    return child, (time.monotonic() if in_writes else begun)


def prepare(args: argparse.Namespace, prefix: str) -> tuple[list[str], random.Random, Path, Path]:
    """The import's words, the run's random source, its work folder and the empty plan every trial copies."""
    words = ["import", args.format, args.path] + (["--partial"] if args.partial else [])
    work = Path(tempfile.mkdtemp(prefix=prefix))
    template = work / "template"
    template.mkdir()
    leafwise("init", "--name", "Trial", "--prefix", "TR", cwd=template)
    return words, random.Random(args.seed), work, template


def validate_errors(check: subprocess.CompletedProcess) -> object:
    """validate's error count, or what it said instead when it printed no envelope (a crash, a refusal
    on stderr): never a bare None in the trial line."""
    try:
        return json.loads(check.stdout)["result"]["errors"]
    except (ValueError, KeyError, TypeError):
        said = (check.stderr or check.stdout or "").strip().splitlines()[-1:] or ["nothing"]
        return f"no answer (exit {check.returncode}: {said[0][:200]})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("format")
    ap.add_argument("path")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--partial", action="store_true", help="pass --partial to the import")
    ap.add_argument("--in-writes", action="store_true", help="kill within the import's writing only")
    args = ap.parse_args()
    words, rng, work, template = prepare(args, "import-kill-")
    whole = shutil.copytree(template, work / "whole")
    child, begun = start(words, whole, args.in_writes)
    child.wait()
    wall = time.monotonic() - begun
    summary = json.loads(leafwise(*words, "--json", cwd=whole).stdout)["result"]
    complete = files(whole)
    print(f"whole import: {wall:.2f} s {'writing' if args.in_writes else 'in all'}, "
          f"{summary['unchanged']} nodes, {len(complete)} files")
    tally: dict[str, int] = {}
    for trial in range(args.trials):
        root = shutil.copytree(template, work / f"t{trial}")
        before = files(root)
        delay = rng.uniform(0, wall * 1.05)
        child, begun = start(words, root, args.in_writes)
        try:
            child.wait(timeout=max(0.0, delay - (time.monotonic() - begun)))
        except subprocess.TimeoutExpired:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        after = files(root)
        nodes = sum(1 for k in after if k.startswith("nodes/"))
        state = "unchanged" if after == before else \
            "complete" if set(after) == set(complete) and journaled(after) == journaled(complete) else "partial"
        check = leafwise("validate", "--json", cwd=root)
        errors = validate_errors(check)
        left = temps(root)
        leafwise("repair", cwd=root)
        swept = left - temps(root)
        again = json.loads(leafwise(*words, "--json", cwd=root).stdout)["result"]
        tally[state] = tally.get(state, 0) + 1
        print(f"trial {trial}: killed at {delay:5.2f} s (exit {child.returncode}): {state}, {nodes} node files, "
              f"validate errors {errors}, {left} temp files left ({swept} swept by repair); import again: {again['added']} added, "
              f"{again['unchanged']} unchanged")
    print("states:", tally)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
