#!/usr/bin/env python3
"""Tuning aid (development half only): the retrieval features of every labelled draft, in-process.

    python bench/reconcile_eval/probe.py [repo ...]

Refuses the held-out repositories: nobody tunes on them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from leafwise.commands.reconcile.match import Stats, weigh  # noqa: E402
from leafwise.commands.reconcile.retrieve import RIndex, retrieve  # noqa: E402
from leafwise.commands.reconcile.scan import build_index  # noqa: E402
from real_eval import REAL, REPOS, ensure_repos, names_of, not_for_tuning  # noqa: E402


def main(names: list[str]) -> None:
    names = names or names_of("dev")
    if set(names) & not_for_tuning():
        raise SystemExit("held-out repositories are not for tuning")
    ensure_repos(names)
    for name in names:
        labels = yaml.safe_load((REAL / f"{name}.yaml").read_text())
        t = time.perf_counter()
        index = build_index(REPOS / name)
        stats = Stats.of(index)
        rindex = RIndex.of(index)
        print(f"== {name} index {time.perf_counter() - t:.2f}s docs {len(rindex.docs)}")
        for d in labels["drafts"]:
            w = weigh(d["title"], "", stats)
            r = retrieve(w.weights, w.why, w.soft, rindex, lexical=w.lexical)
            good = (r.verdict == "shipped") == (d["label"] == "shipped")
            print(f"{'ok ' if good else 'BAD'} {d['label'][:4]}{'T' if d.get('trap') else ' '} -> {r.verdict[:4]} "
                  f"{d['title'][:70]}")
            print("      w: " + " ".join(f"{w.words[c]}={v:.1f}" for c, v in w.weights.items()) + f"  head={r.head}")
            for cat, h in r.best.items():
                print(f"      {cat:5} {h.score:.2f} {h.doc.kind} {h.doc.name[:50]!r} {h.doc.path}:{h.doc.line} "
                      f"{sorted(h.exact)} ~{sorted(h.soft)}")


if __name__ == "__main__":
    main(sys.argv[1:])
