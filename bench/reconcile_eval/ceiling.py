#!/usr/bin/env python3
"""How far can the engine's own evidence go? A learned verdict, measured honestly.

    python bench/reconcile_eval/dump.py /tmp/dev.jsonl        # every development-half draft with --explain
    python bench/reconcile_eval/ceiling.py /tmp/dev.jsonl      # needs numpy (pip install -e '.[bench]')
    python bench/reconcile_eval/ceiling.py /tmp/dev.jsonl --extra SIMS.json   # more features per draft
                                                               # (sentence_sims.py: a sentence model's)

The engine's rules turn what it found (each kind of source's best document and its coverage,
what they have in common, the lead's kind, the title's concepts and weights) into a verdict by
hand-set thresholds. This asks whether a better combination of the same findings would do much
better: a logistic model over those features, trained on all repositories but one and scored on
the one left out (leave-one-repository-out, so no repository is scored by a model that saw it).
It prints precision, recall and traps of "shipped" at several thresholds beside the engine's own
answer. If even the learned combination cannot reach the goal at any threshold, better thresholds
are not the way forward: the findings themselves must get better (the right lead document, what
the code does rather than which words it uses).
"""

from __future__ import annotations

import json
import re
import sys

CATEGORIES = ("code", "test", "ui", "docs", "text")
LEAD_KINDS = ("body", "definition", "option", "symbol", "flag", "route", "component", "cli", "field", "page", "model")
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)


def features(row: dict) -> dict[str, float]:
    """What the engine found for one draft (its --explain), as numbers."""
    explain = row["explain"]
    weights = {c["concept"]: c["weight"] for c in explain["concepts"]}
    total = sum(weights.values()) or 1.0
    sources = {s["category"]: s for s in explain["sources"]}
    code = sources.get("code")
    code_named = set(code["matched"]) | set(code.get("related", [])) if code else set()
    f: dict[str, float] = {}
    for cat in CATEGORIES:
        s = sources.get(cat)
        f[f"{cat}_coverage"] = s["score"] if s else 0.0
        f[f"{cat}_concepts"] = len(s["matched"]) / max(1, len(weights)) if s else 0.0
        if cat != "code":
            named = set(s["matched"]) | set(s.get("related", [])) if s else set()
            f[f"{cat}_agrees"] = sum(weights.get(c, 0.0) for c in code_named & named) / total
    for kind in LEAD_KINDS:
        f[f"lead_{kind}"] = float(bool(code) and code["kind"] == kind)
    f["concepts"] = float(len(weights))
    f["heaviest"] = max(weights.values(), default=0.0)
    f["background"] = sum("background" in c["why"] for c in explain["concepts"]) / max(1, len(weights))
    f["engine_shipped"] = float(row["verdict"] in ("shipped", "likely"))
    f["engine_partial"] = float(row["verdict"] == "partial")
    f["engine_confidence"] = float(row["confidence"])
    rules = " ".join(explain["rules"])
    f["unbound"] = float("unbound" in rules)
    m = re.search(r"meaning: best: .*? covers ([0-9.]+)", rules)
    f["name_path"] = float(m.group(1)) if m else 0.0
    f["title_words"] = len(row["title"].split()) / 10
    return f


def fit(x, y, l2: float = 1.0, steps: int = 3000, rate: float = 0.1):
    import numpy as np

    mean, std = x.mean(0), x.std(0) + 1e-9
    z = (x - mean) / std
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = p - y
        w -= rate * (z.T @ g / len(y) + l2 * w / len(y))
        b -= rate * g.mean()
    return lambda xs: 1 / (1 + np.exp(-(((xs - mean) / std) @ w + b)))


def line(name: str, chosen, y, traps) -> str:
    right = int((chosen & (y == 1)).sum())
    proposed = int(chosen.sum())
    return (f"| {name} | {proposed} | {right} | {right / proposed if proposed else 1:.2f} "
            f"| {right / max(1, int((y == 1).sum())):.2f} | {int((chosen & traps).sum())} |")


def main(path: str, extra: str | None = None) -> None:
    try:
        import numpy as np
    except ImportError:
        raise SystemExit("ceiling.py needs numpy: pip install -e '.[bench]'") from None
    rows = [json.loads(s) for s in open(path, encoding="utf-8") if s.strip()]
    table = [features(r) for r in rows]
    if extra:  # one object of numbers per draft, in the dump's order
        table = [{**f, **more} for f, more in zip(table, json.load(open(extra, encoding="utf-8")), strict=True)]
    names = sorted(table[0])
    x = np.array([[f[n] for n in names] for f in table])
    y = np.array([r["label"] == "shipped" for r in rows], dtype=float)
    traps = np.array([bool(r["trap"]) for r in rows])
    repos = np.array([r["repo"] for r in rows])
    p = np.zeros(len(rows))
    for repo in sorted(set(repos)):
        out = repos == repo
        p[out] = fit(x[~out], y[~out])(x[out])
    print(f"{len(rows)} drafts in {len(set(repos))} repositories, {int(y.sum())} labelled shipped "
          f"({y.mean():.0%}), {int(traps.sum())} traps; learned verdict scored leave-one-repository-out\n")
    print("| verdict | proposed | right | precision | recall | traps shipped |")
    print("|---|---|---|---|---|---|")
    print(line("the engine", np.array([r["verdict"] in ("shipped", "likely") for r in rows]), y, traps))
    for t in THRESHOLDS:
        print(line(f"learned, p ≥ {t}", p >= t, y, traps))


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], args[args.index("--extra") + 1] if "--extra" in args else None)
