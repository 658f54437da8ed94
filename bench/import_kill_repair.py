"""Kill an import with SIGKILL at random moments, then see what validate says and what repair leaves.

    python bench/import_kill_repair.py FORMAT PATH [--partial] [--trials N] [--seed S] [--in-writes | --in-renames]

Like `import_kill.py` (whose helpers it uses), but after each kill: whether an import manifest is
there and `validate` reports "an import was interrupted", which way `repair` rolled it, and whether
the plan after repair is exactly the plan before (every byte) or exactly the whole import (every
byte but the times written, the journal included, after the repair a whole import gets too: the
Backlog.md import's cascade), with no temp file left.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from import_kill import CLI, files, leafwise, prepare, start

MANIFEST = ".leafwise/.locks/import.json"
_TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def timeless(snapshot: dict[str, bytes]) -> dict[str, bytes]:
    return {k: _TIME.sub(b"<time>", v) for k, v in snapshot.items()}


def everything(root: Path) -> dict[str, bytes]:
    """Every file of the plan, temp files included (but the cache and locks)."""
    base = root / ".leafwise"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()
            and not str(p.relative_to(base)).startswith((".cache", ".locks"))}


def start_renames(words: list[str], root: Path) -> tuple[subprocess.Popen[bytes], float]:
    """The import in a child, and the moment its manifest appeared (its renames begin)."""
    child = subprocess.Popen([*CLI, *words], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while child.poll() is None and not (root / MANIFEST).exists():
        time.sleep(0.0005)  # a poll of the folder: the renames start at a moment no timer knows
    return child, time.monotonic()


def trial(words: list[str], template: Path, root: Path, delay: float, mode: str,
          whole: dict[str, bytes], repaired: dict[str, bytes]) -> dict[str, object]:
    shutil.copytree(template, root)
    before = everything(root)
    child, begun = start_renames(words, root) if mode == "renames" else start(words, root, mode == "writes")
    try:
        child.wait(timeout=max(0.0, delay - (time.monotonic() - begun)))
    except subprocess.TimeoutExpired:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    after = files(root)
    killed = "unchanged" if after == files_of(before) else "complete" if timeless(after) == timeless(whole) \
        else "partial"
    manifest = (root / MANIFEST).exists()
    check = leafwise("validate", cwd=root)
    said = "an import was interrupted" in check.stdout + check.stderr
    answer = json.loads(leafwise("repair", "--json", cwd=root).stdout)["result"]["repairs"]
    way = next((c["repair"] for c in answer if c.get("file") == MANIFEST), None)
    final = everything(root)
    state = "before" if final == before else "whole" if timeless(final) == timeless(repaired) else "neither"
    return {"delay": round(delay, 2), "exit": child.returncode, "killed": killed, "manifest": manifest,
            "validate_said": said, "repair": way, "after_repair": state,
            "left": (root / MANIFEST).exists() or any(".lw-" in k for k in final)}


def files_of(snapshot: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in snapshot.items() if not k.rpartition("/")[2].startswith(".lw-")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("format")
    ap.add_argument("path")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--partial", action="store_true")
    ap.add_argument("--in-writes", action="store_true", help="kill within the import's writing only")
    ap.add_argument("--in-renames", action="store_true", help="kill within the manifest's life only")
    args = ap.parse_args()
    mode = "renames" if args.in_renames else "writes" if args.in_writes else "all"
    words, rng, work, template = prepare(args, "import-kill-repair-")
    whole_root = shutil.copytree(template, work / "whole")
    child, begun = start_renames(words, whole_root) if mode == "renames" else start(words, whole_root, mode == "writes")
    while mode == "renames" and child.poll() is None and (whole_root / MANIFEST).exists():
        time.sleep(0.0005)
    wall = time.monotonic() - begun
    child.wait()
    whole = files(whole_root)
    leafwise("repair", cwd=whole_root)  # what repair does to a whole import (Backlog.md's: a cascade)
    repaired = everything(whole_root)
    print(f"whole import: {wall:.2f} s ({mode}), {len(whole)} files")
    tally: dict[str, int] = {}
    for n in range(args.trials):
        row = trial(words, template, work / f"t{n}", rng.uniform(0, wall * 1.05), mode, whole,
                    repaired)
        shutil.rmtree(work / f"t{n}")
        for key in ("killed", "after_repair"):
            tally[f"{key}={row[key]}"] = tally.get(f"{key}={row[key]}", 0) + 1
        if row["manifest"]:
            tally["manifest"] = tally.get("manifest", 0) + 1
            tally[f"repair={row['repair']}"] = tally.get(f"repair={row['repair']}", 0) + 1
        ok = row["after_repair"] != "neither" and not row["left"] and row["manifest"] == row["validate_said"]
        tally["bad"] = tally.get("bad", 0) + (not ok)
        print(f"trial {n}: " + ", ".join(f"{k} {v}" for k, v in row.items()) + ("" if ok else "  <-- BAD"))
    print("tally:", dict(sorted(tally.items())))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
