#!/usr/bin/env python3
"""Time reconcile on a large repository assembled from tune-half trees (never held-out ones).

    python bench/reconcile_eval/big.py [--copies 2]

Copies mealie and healthchecks `--copies` times into one git repository (about 2,700 files per
copy), writes their labelled drafts as a plan, and runs the real CLI: prints files, drafts, wall
and CPU time (user + system of the CLI process).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from real_eval import REAL, REPOS, ensure_repos, run_reconcile, write_plan  # noqa: E402

TREES = ("mealie", "healthchecks")
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com"}


def main(copies: int) -> None:
    ensure_repos(list(TREES))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "big"
        root.mkdir()
        drafts = []
        for name in TREES:
            drafts += yaml.safe_load((REAL / f"{name}.yaml").read_text())["drafts"]
            for k in range(copies):
                shutil.copytree(REPOS / name, root / f"{name}{k}", ignore=shutil.ignore_patterns(".git", ".leafwise"))
        env = {**os.environ, **GIT_ENV}
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "big"]):
            subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
        files = len(subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True).stdout.splitlines())
        write_plan(root, drafts)
        for run in ("first", "second"):
            answer, wall, cpu = run_reconcile(root)
            print(f"{run} run: {files} files, {len(drafts)} drafts, indexed {answer['result']['indexed']}: "
                  f"wall {wall:.2f} s, cpu {cpu:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=2)
    main(parser.parse_args().copies)
