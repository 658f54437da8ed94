"""The real eval: `leafwise reconcile` on public repositories with labelled drafts (real/SPLIT.yaml).

    python bench/reconcile_eval/run.py --half dev --show-misses  # the development half (tune, heldout, fresh)
    python bench/reconcile_eval/run.py --half clean    # the held-out half (fresh2, fresh3): once per engine release
    python bench/reconcile_eval/run.py --half fresh3   # one set of SPLIT.yaml

Labels live in real/<name>.yaml (written by another engineer before any engine ran
on the repository; never edited). The repositories are extracted at their pinned
commits by real/materialise.py into .repos/<name> (git-ignored, never committed).
For each repository a throw-away plan with one draft leaf per labelled draft is
written into a copy-free `.leafwise/` folder inside the extracted tree, and the real
CLI `leafwise reconcile --json` runs in a subprocess; its `shipped` verdicts are
scored against the labels: precision and recall of `shipped`, traps proposed as
shipped (must be 0), and the wall time of the command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
BANDS = ("shipped", "likely", "partial", "none")
UNNAMED = "no code file names the title's word"  # engine.py's missing line for the title-word rule
REAL = HERE / "real"
REPOS = HERE / ".repos"
GOALS = {"precision": 0.95, "recall": 0.75, "repo_recall": 0.60, "seconds": 5.0}


def split() -> dict[str, list[str]]:
    return yaml.safe_load((REAL / "SPLIT.yaml").read_text())


def ensure_repos(names: list[str]) -> None:
    missing = [n for n in names if not (REPOS / n).is_dir()]
    if missing:
        subprocess.run([sys.executable, str(REAL / "materialise.py"), "--target", str(REPOS),
                        *[str(REAL / f"{n}.yaml") for n in missing]], check=True)
    for n in names:  # each its own work tree, as a real project is (and git's ignore rules apply)
        repo = REPOS / n
        if not (repo / ".git").exists():
            env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
                   "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
            for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
                subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)


def write_plan(repo: Path, drafts: list[dict]) -> dict[str, dict]:
    plan = repo / ".leafwise"
    if plan.exists():
        shutil.rmtree(plan)
    (plan / "nodes").mkdir(parents=True)
    (plan / "docs").mkdir()
    (plan / "project.yaml").write_text("schema: 1\npid: evaldrafts\nname: Eval\nid_prefix: EV\n"
                                       "releases:\n  - {id: R1, title: Release R1}\n")
    (plan / "nodes" / "EV-1.yaml").write_text('id: EV-1\ntitle: "Drafts"\nkind: epic\nstatus: draft\n'
                                               'release: R1\n')
    truth: dict[str, dict] = {}
    for k, d in enumerate(drafts, start=2):
        nid = f"EV-{k}"
        (plan / "nodes" / f"{nid}.yaml").write_text(
            f"id: {nid}\ntitle: {json.dumps(d['title'])}\nstatus: draft\nparent: EV-1\n")
        truth[nid] = d
    return truth


def run_reconcile(repo: Path) -> tuple[dict, float, float]:
    """The CLI's answer, its wall time and its CPU time (user + system: steadier on a shared machine)."""
    env = {**os.environ, "LEAFWISE_AGENT": "bench"}
    env.pop("LEAFWISE_ROOT", None)
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "reconcile", "--json",
                           "--limit", "100000"], cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    elapsed = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if proc.returncode != 0:
        raise SystemExit(f"reconcile failed in {repo}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout), elapsed, cpu


def score_repo(name: str) -> dict:
    labels = yaml.safe_load((REAL / f"{name}.yaml").read_text())
    repo = REPOS / name
    truth = write_plan(repo, labels["drafts"])
    try:
        env, seconds, cpu = run_reconcile(repo)
    finally:
        shutil.rmtree(repo / ".leafwise", ignore_errors=True)
    verdicts = {s["id"]: s for s in env["result"]["suggestions"]}
    tp = fp = fn = 0
    leads = {"tp": 0, "fp": 0, "traps": 0, "words": 0, "words_tp": 0}  # shipped + likely: the verify loop's leads
    unnamed = {"shipped": 0, "other": 0}  # leads the title-word rule turned partial, by label
    traps: list[str] = []
    rows: list[dict] = []
    matrix = {lab: {v: 0 for v in BANDS} for lab in ("shipped", "partial", "absent")}
    for nid, d in truth.items():
        s = verdicts.get(nid, {"verdict": "none", "confidence": 0, "evidence": [], "missing": []})
        v = s["verdict"]
        matrix[d["label"]][v] += 1
        if v in ("shipped", "likely"):
            leads["tp" if d["label"] == "shipped" else "fp"] += 1
            leads["traps"] += bool(d.get("trap"))
        if v == "likely" and s.get("lead") == "words":  # the partials the search scored high
            leads["words"] += 1
            leads["words_tp"] += d["label"] == "shipped"
        if s.get("missing") and str(s["missing"][0]).startswith(UNNAMED):
            unnamed["shipped" if d["label"] == "shipped" else "other"] += 1
        proposed = v == "shipped"
        if proposed and d["label"] == "shipped":
            tp += 1
        elif proposed:
            fp += 1
            if d.get("trap"):
                traps.append(d["title"])
        elif d["label"] == "shipped":
            fn += 1
        rows.append({"id": nid, "title": d["title"], "label": d["label"], "trap": bool(d.get("trap")),
                     "verdict": v, "confidence": s.get("confidence"),
                     "evidence": [f"{e['kind']} {e.get('name')} {e['path']}:{e.get('line')}"
                                  for e in s.get("evidence", [])[:3]],
                     "missing": s.get("missing", [])[:3]})
    return {"repo": name, "kind": labels.get("kind"), "drafts": len(truth), "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else 1.0,
            "traps": traps, "seconds": seconds, "cpu": cpu, "files": env["result"]["scanned_files"],
            "matrix": matrix, "rows": rows, "labelled": tp + fn, "lead_tp": leads["tp"], "lead_fp": leads["fp"],
            "lead_traps": leads["traps"], "words": leads["words"], "words_tp": leads["words_tp"],
            "lead_recall": leads["tp"] / (tp + fn) if tp + fn else 1.0, "unnamed": unnamed}


def summarise(results: list[dict]) -> dict:
    tp = sum(r["tp"] for r in results)
    fp = sum(r["fp"] for r in results)
    fn = sum(r["fn"] for r in results)
    lead_tp = sum(r["lead_tp"] for r in results)
    lead_fp = sum(r["lead_fp"] for r in results)
    lead_traps = sum(r["lead_traps"] for r in results)
    return {"tp": tp, "fp": fp, "fn": fn, "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else 1.0, "traps": sum(len(r["traps"]) for r in results),
            "lead_tp": lead_tp, "lead_fp": lead_fp, "lead_traps": lead_traps, "lead_recall": lead_tp / (tp + fn) if tp + fn else 1.0,
            "unnamed_right": sum(r["unnamed"]["shipped"] for r in results),
            "words": sum(r["words"] for r in results), "words_tp": sum(r["words_tp"] for r in results),
            "unnamed_wrong": sum(r["unnamed"]["other"] for r in results),
            "seconds": max((r["seconds"] for r in results), default=0.0),
            "cpu": max((r["cpu"] for r in results), default=0.0)}


def ratio(x: float | None) -> str:
    """A share to two places; "—" when nothing was proposed (no precision to measure)."""
    return "—" if x is None else f"{x:.2f}"


def table(half: str, results: list[dict]) -> list[str]:
    lines = [f"### {half}", "",
             "| repository | kind | files | drafts | labelled shipped | shipped | correct | precision | likely | "
             "shipped + likely recall | traps shipped | time (cpu) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        likely = r["lead_tp"] + r["lead_fp"] - r["tp"] - r["fp"]
        lines.append(f"| {r['repo']} | {r['kind']} | {r['files']} | {r['drafts']} | {r['labelled']} | {r['tp'] + r['fp']} "
                     f"| {r['tp']} | {ratio(r['precision'])} | {likely} | {r['lead_recall']:.2f} | {len(r['traps'])} "
                     f"| {r['seconds']:.2f} s ({r['cpu']:.2f} s) |")
    s = summarise(results)
    likely = s["lead_tp"] + s["lead_fp"] - s["tp"] - s["fp"]
    lines.append(f"| **overall** | | | {sum(r['drafts'] for r in results)} | {s['tp'] + s['fn']} | {s['tp'] + s['fp']} "
                 f"| {s['tp']} | **{ratio(s['precision'])}** | {likely} | **{s['lead_recall']:.2f}** | **{s['traps']}** "
                 f"| ≤ {s['seconds']:.2f} s ({s['cpu']:.2f} s) |")
    lines += ["", band_line(half, s), "", precision_line(half, results), ""]
    return lines


def precision_line(half: str, results: list[dict]) -> str:
    """Each band's precision: of the drafts given that band, the share whose label agrees (shipped for
    `shipped` and `likely`, partial for `partial`, absent for `none`), with the counts."""
    agrees = {"shipped": "shipped", "likely": "shipped", "partial": "partial", "none": "absent"}
    parts = []
    for band in BANDS:
        given = {lab: sum(r["matrix"][lab][band] for r in results) for lab in ("shipped", "partial", "absent")}
        total = sum(given.values())
        right = given[agrees[band]]
        parts.append(f"{band} {ratio(right / total if total else None)} ({right} of {total} labelled "
                     f"{agrees[band]}; {given['shipped']} shipped, {given['partial']} partial, "
                     f"{given['absent']} absent)")
    return f"{half} band precision: " + "; ".join(parts)


def band_line(half: str, s: dict) -> str:
    """The bands' two measures of a half against the goals, with their counts."""
    met = ("not measured: nothing shipped" if s["precision"] is None
           else "met" if s["precision"] >= GOALS["precision"] else "not met")
    return (f"{half}: shipped precision {ratio(s['precision'])} ({s['tp']} right of {s['tp'] + s['fp']} shipped; "
            f"goal ≥ {GOALS['precision']}: {met}), shipped + likely recall "
            f"{s['lead_recall']:.2f} ({s['lead_tp']} of {s['tp'] + s['fn']} labelled shipped; {s['lead_fp']} leads "
            f"not labelled shipped, {s['lead_traps']} of them traps; goal ≥ {GOALS['recall']}: {'met' if s['lead_recall'] >= GOALS['recall'] else 'not met'}), "
            f"{s['traps']} traps shipped; the title-word rule turned {s['unnamed_right']} labelled-shipped and "
            f"{s['unnamed_wrong']} other leads partial; lead precision (shipped + likely labelled shipped) "
            f"{ratio(s['lead_tp'] / (s['lead_tp'] + s['lead_fp']) if s['lead_tp'] + s['lead_fp'] else None)}; "
            f"of them on the words (lead: words) {s['words_tp']} right of {s['words']}, by a rule "
            f"{s['lead_tp'] - s['words_tp']} right of {s['lead_tp'] + s['lead_fp'] - s['words']}")


def misses(results: list[dict]) -> list[str]:
    out = []
    for r in results:
        out.append(f"== {r['repo']}  confusion {r['matrix']}")
        for row in r["rows"]:
            wrong = (row["verdict"] in ("shipped", "likely")) != (row["label"] == "shipped")  # as a lead
            mark = "WRONG" if wrong else "ok   "
            out.append(f"  {mark} {row['label']:7}{'T' if row['trap'] else ' '} -> {row['verdict']:7} "
                       f"{row['confidence']!s:5} {row['title']}")
            if wrong or row["verdict"] != "none":
                for e in row["evidence"]:
                    out.append(f"         ev: {e}")
                for m in row["missing"]:
                    out.append(f"         missing: {m}")
    return out


# From round 8 on, the sets already measured (tune, heldout, fresh) are open for development, and the
# two sets no engine change has been tuned on (fresh2, fresh3) are the held-out half. fresh4 (session 8)
# is a third column: repositories no session had seen, labelled before the engine first ran on them.
DEV = ("tune", "heldout", "fresh")
CLEAN = ("fresh2", "fresh3")
FRESH = ("fresh4",)
FRESH5 = ("fresh5",)  # session 12: shiori and tqdm, labelled and committed before any engine ran on them
FRESH6 = ("fresh6",)  # session 13: uvicorn, labelled and committed before any engine ran on it
FRESH7 = ("fresh7",)  # session 15: flask and express, labelled and committed before any engine ran on them
FRESH8 = ("fresh8",)  # session 16: gum and spliit, labelled and committed before any engine ran on them
FRESH9 = ("fresh9",)  # session 17: hyperfine and uptime-kuma, labelled and committed before any engine ran on them
FRESH10 = ("fresh10",)  # session 17's end: kanboard and datasette, labelled after its changes, before any run
FRESH11 = ("fresh11",)  # session 17, h24d: jsoup (Java) and spectre.console (C#), labelled before any run, after generic_source.py


def sets_of(half: str) -> tuple[str, ...]:
    """The sets of SPLIT.yaml a name stands for: `dev`, `clean`, `all`, or one set."""
    return {"dev": DEV, "clean": CLEAN, "new": FRESH, "new2": FRESH5, "new3": FRESH6, "new4": FRESH7,
            "new5": FRESH8, "new6": FRESH9,
            "new7": FRESH10, "new8": FRESH11,
            "all": DEV + CLEAN + FRESH + FRESH5 + FRESH6 + FRESH7 + FRESH8 + FRESH9 + FRESH10 + FRESH11}.get(half, (half,))


def names_of(half: str) -> list[str]:
    """The repositories of a set of SPLIT.yaml, of `dev` (the development half), `clean` (the held-out
    half) or `all`."""
    halves = split()
    return [n for h in sets_of(half) for n in halves.get(h) or []]


# Session 15 tuned the packet's retrieval on the misses of fresh2 and fresh5: from then on they are development
# sets too, and the tuning aids open them; fresh3, fresh4, fresh6, fresh7, fresh8, fresh9 and fresh10 stay held out.
TUNED_ON = ("fresh2", "fresh5")


def not_for_tuning() -> set[str]:
    """The sets no change was tuned on (fresh3, fresh4, fresh6, fresh7, fresh8, fresh9, fresh10): the tuning aids
    refuse them."""
    held = set(names_of("clean")) | set(names_of("new")) | set(names_of("new2")) | set(names_of("new3"))
    return (held | set(names_of("new4")) | set(names_of("new5")) | set(names_of("new6"))
            | set(names_of("new7")) | set(names_of("new8"))) - {n for h in TUNED_ON for n in names_of(h)}


def main(half: str, show_misses: bool) -> list[str]:
    halves = split()
    chosen = [h for h in sets_of(half) if halves.get(h)]
    lines: list[str] = []
    everything: list[dict] = []
    for h in chosen:
        names = halves[h]
        ensure_repos(names)
        results = [score_repo(n) for n in names]
        everything += results
        lines += table(h, results)
        if show_misses:
            lines += misses(results)
    if chosen:
        lines.append(band_line(f"{half} ({', '.join(chosen)})", summarise(everything)))
    return lines


def bands(show_misses: bool) -> list[str]:
    """Both halves and the fresh set, each set's table, then the bands' measures of each."""
    lines = main("dev", show_misses) + [""] + main("clean", show_misses) + [""] + main("new", show_misses)
    return lines + ["", "## Bands", ""] + [line for line in lines if line.startswith(("dev (", "clean (", "new ("))]
