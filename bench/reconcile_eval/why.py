#!/usr/bin/env python3
"""Tuning aid (development half only): the engine's verdict, evidence and rules for each labelled draft, in-process.

    python bench/reconcile_eval/why.py REPO [SUBSTRING ...]     # drafts whose title contains a substring
    python bench/reconcile_eval/why.py REPO --wrong             # only the wrong ones

Refuses the held-out repositories: nobody tunes on them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from leafwise.commands.reconcile.engine import draft_leaves, suggest  # noqa: E402
from leafwise.store import find_root, load_plan  # noqa: E402
from real_eval import REAL, REPOS, ensure_repos, not_for_tuning, write_plan  # noqa: E402


def main(argv: list[str]) -> None:
    name, rest = argv[0], argv[1:]
    if name in not_for_tuning():
        raise SystemExit("held-out repositories are not for tuning")
    ensure_repos([name])
    wrong_only = "--wrong" in rest
    subs = [s.lower() for s in rest if not s.startswith("--")]
    labels = yaml.safe_load((REAL / f"{name}.yaml").read_text())
    repo = REPOS / name
    truth = write_plan(repo, labels["drafts"])
    try:
        plan = load_plan(find_root(repo))
        nodes = [n for n in draft_leaves(plan) if not subs or any(s in n.title.lower() for s in subs)]
        report = suggest(plan, nodes, run_commands=False, explain=True)
    finally:
        shutil.rmtree(repo / ".leafwise", ignore_errors=True)
    for s in report.suggestions:
        d = truth[s["id"]]
        wrong = (s["verdict"] in ("shipped", "likely")) != (d["label"] == "shipped")
        if wrong_only and not wrong:
            continue
        print(f"{'WRONG' if wrong else 'ok   '} {d['label']}{'T' if d.get('trap') else ''} -> {s['verdict']} "
              f"{s['confidence']} {s['title']}")
        x = s["explain"]
        print("   concepts: " + " ".join(f"{c['word']}={c['weight']:.2f}({c['why'][:12]})" for c in x["concepts"]))
        for e in s["evidence"][:4]:
            print(f"   ev {e['kind']} {e['name'][:60]!r} {e['path']}:{e['line']} {e.get('matched')}")
        for src in x["sources"]:
            print(f"   src {src['category']:5} {src['score']:.2f} {src['kind']} {src['name'][:50]!r} "
                  f"{src['path']}:{src['line']} {src['matched']} ~{src['related']}")
        for r in x["rules"]:
            if r.startswith(("meaning: shipped", "entry points and tests: shipped", "sources: shipped")) or \
                    "(>=" in r or r.startswith("meaning:") and len(rest) > 0:
                print(f"   rule {r[:200]}")
        print(f"   why: {d.get('why', '')[:200]}")


if __name__ == "__main__":
    main(sys.argv[1:])
