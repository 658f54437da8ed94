#!/usr/bin/env python3
"""Tuning aid (development half only): every labelled draft's suggestion with --explain, as JSON lines.

    python bench/reconcile_eval/dump.py OUT.jsonl [repo ...]
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from leafwise.commands.reconcile.engine import draft_leaves, suggest  # noqa: E402
from leafwise.store import find_root, load_plan  # noqa: E402
from real_eval import REAL, REPOS, ensure_repos, names_of, not_for_tuning, write_plan  # noqa: E402


def main(out: str, names: list[str]) -> None:
    names = names or names_of("dev")
    if set(names) & not_for_tuning():
        raise SystemExit("held-out repositories are not for tuning")
    ensure_repos(names)
    with open(out, "w") as f:
        for name in names:
            labels = yaml.safe_load((REAL / f"{name}.yaml").read_text())
            repo = REPOS / name
            truth = write_plan(repo, labels["drafts"])
            try:
                plan = load_plan(find_root(repo))
                report = suggest(plan, draft_leaves(plan), run_commands=False, explain=True)
            finally:
                shutil.rmtree(repo / ".leafwise", ignore_errors=True)
            for s in report.suggestions:
                d = truth[s["id"]]
                f.write(json.dumps({"repo": name, "label": d["label"], "trap": bool(d.get("trap")), **s}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
