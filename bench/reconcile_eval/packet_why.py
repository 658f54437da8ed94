#!/usr/bin/env python3
"""Tuning aid (development half only): for each draft whose packet misses its labelled files, where those
files stand in the packet's search: indexed or not, their best document, its score and rank.

    python bench/reconcile_eval/packet_why.py REPO [SUBSTRING ...]

Refuses the held-out and fresh repositories: nobody tunes on them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import real_eval  # noqa: E402
from packet_recall import labelled_files, tree_files  # noqa: E402


def main(argv: list[str]) -> None:
    from leafwise.commands.domain import verify_packet as vp
    from leafwise.commands.reconcile.match import Stats, weigh
    from leafwise.commands.reconcile.retrieve import RIndex
    from leafwise.commands.reconcile.scan import build_index
    from leafwise.store import PlanPaths, load_plan

    name, subs = argv[0], [s.lower() for s in argv[1:]]
    if name in real_eval.not_for_tuning():
        raise SystemExit("held-out and fresh repositories are not for tuning")
    real_eval.ensure_repos([name])
    labels = yaml.safe_load((real_eval.REAL / f"{name}.yaml").read_text())
    repo = real_eval.REPOS / name
    truth = real_eval.write_plan(repo, labels["drafts"])
    try:
        plan = load_plan(PlanPaths(repo))
        index = build_index(repo)
        stats, rindex = Stats.of(index), RIndex.of(index)
        tree = tree_files(repo)
        for nid, d in truth.items():
            if d["label"] != "shipped" or (subs and not any(s in d["title"].lower() for s in subs)):
                continue
            wanted = labelled_files(d.get("why", ""), repo, tree)
            packet = vp.build(plan.nodes[nid], index, stats, rindex)
            if not wanted or wanted & {p.path for p in packet.places}:
                continue
            node = plan.nodes[nid]
            weighed = weigh(node.title, "", stats)
            print(f"\n## {d['title']}\n   why: {d.get('why')}")
            print("   weights: " + ", ".join(f"{weighed.words.get(c, c)}={w:.2f}" for c, w in
                                             sorted(weighed.weights.items(), key=lambda t: -t[1])))
            ranked = vp.ranked_places(node, index, stats, rindex)
            for rank, (s, art, named) in enumerate(ranked[:12]):
                print(f"   {rank:3} {s:.3f} {art.kind:10} {art.path}:{art.line} {art.name[:50]!r} {named}")
            for f in sorted(wanted):
                at = [(r, s, a, n) for r, (s, a, n) in enumerate(ranked) if a.path == f]
                docs = [dd for dd in rindex.docs if dd.path == f]
                print(f"   WANTED {f}: indexed={f in index.texts or bool(docs)} docs={len(docs)}")
                for r, s, a, n in at[:3]:
                    print(f"      rank {r} {s:.3f} {a.kind} {a.name[:60]!r} line {a.line} {n}")
    finally:
        shutil.rmtree(repo / ".leafwise", ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
