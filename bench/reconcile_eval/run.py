#!/usr/bin/env python3
"""Measure `leafwise reconcile` on the labelled cases and time it on a large repository.

    python bench/reconcile_eval/run.py --bands [--show-misses]
    python bench/reconcile_eval/run.py [--half dev|clean|new|all|SET] [--show-misses]
    python bench/reconcile_eval/run.py --packets [--half dev|clean|new|new2|new3|all|SET] [--show-misses]
    python bench/reconcile_eval/run.py --github [--half NAME] [--show-misses]
    python bench/reconcile_eval/run.py --synthetic [--no-write] [--files 2000]

Without --synthetic: the real eval (real_eval.py: 23 public repositories, labelled
drafts, the development and held-out halves). --bands runs both halves and ends with the bands'
measures of each: `shipped` precision and `shipped + likely` recall, with their counts. With
--synthetic:

For each case in cases/: copy it to a temporary folder (without labels.yaml),
`git init` and commit it (so git's ignore rules apply, as in a real
repository), run the real CLI `leafwise reconcile --json` in a subprocess, and
score its suggestions against labels.yaml: precision and recall of `shipped`
("reconcile proposes closing the leaf"), traps proposed (must be 0) and the
3-way confusion matrix. Then generate a synthetic repository of about
--files files (Python routers, services, models and tests; an Express API;
React pages, components and tests) with a 300-leaf plan, and time the same
command on it (goal: under 5 s). Results go to RESULTS-synthetic.md beside this file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
GOALS = {"precision": 0.95, "recall": 0.70, "seconds": 5.0}
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def git_commit(folder: Path) -> None:
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=folder, check=True, env=env, capture_output=True)


def run_reconcile(folder: Path, *extra: str) -> tuple[dict, float]:
    env = {**os.environ, "LEAFWISE_AGENT": "bench"}
    env.pop("LEAFWISE_ROOT", None)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "reconcile", "--json", "--limit", "100000",
                           *extra], cwd=folder, capture_output=True, text=True, env=env, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"reconcile failed in {folder}:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout), elapsed


def strip_declared_checks(work: Path) -> None:
    """The ablation: the same plan without `done_when:`, so only the code search decides."""
    for path in (work / ".leafwise" / "nodes").glob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        if "done_when" in data:
            data.pop("done_when")
            path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def score_case(case: Path, search_only: bool = False) -> dict:
    labels = yaml.safe_load((case / "labels.yaml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / case.name
        shutil.copytree(case, work)
        (work / "labels.yaml").unlink()  # reconcile must never see the answers
        if search_only:
            strip_declared_checks(work)
        git_commit(work)
        env, seconds = run_reconcile(work)
    verdicts = {s["id"]: s for s in env["result"]["suggestions"]}
    matrix = {lab: {"shipped": 0, "likely": 0, "partial": 0, "none": 0} for lab in ("shipped", "partial", "absent")}
    mistakes, traps = [], []
    tp = fp = fn = leads = 0
    for node_id, truth in labels.items():
        got = verdicts.get(node_id, {"verdict": "none", "confidence": 0, "title": "?"})
        label, verdict = truth["label"], got["verdict"]
        matrix[label][verdict] += 1
        proposed, shipped = verdict == "shipped", label == "shipped"
        tp += proposed and shipped
        leads += verdict in ("shipped", "likely") and shipped
        fp += proposed and not shipped
        fn += shipped and not proposed
        if truth.get("trap") and verdict != "none":
            traps.append((node_id, verdict))
        if proposed != shipped:
            mistakes.append(f"{node_id} labelled {label}, reconcile said {verdict} ({got['confidence']}): "
                            f"{got.get('title', '')}")
    return {
        "case": case.name + (" (search only)" if search_only else ""), "leaves": len(labels), "tp": tp, "fp": fp, "fn": fn,
        "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0,
        "lead_recall": leads / (tp + fn) if tp + fn else 1.0,
        "traps_proposed": sum(1 for _, v in traps if v == "shipped"),
        "traps_noted_partial": sum(1 for _, v in traps if v == "partial"),
        "matrix": matrix, "mistakes": mistakes, "seconds": seconds,
        "scanned_files": env["result"]["scanned_files"],
    }


NOUNS = ("invoice", "shipment", "customer", "supplier", "warehouse", "ticket", "vendor", "contract", "payout",
         "receipt", "voucher", "parcel", "budget", "campaign", "survey", "webinar", "course", "lesson", "badge",
         "playlist", "podcast", "recipe", "garden", "vehicle", "booking", "room", "guest", "meeting", "sprint",
         "release", "incident", "alert", "metric", "report", "policy", "claim", "quote", "lead", "deal", "asset")
ADJECTIVES = ("draft", "archived", "shared", "recurring", "premium", "regional", "overdue", "pending", "public",
              "private", "weekly", "monthly", "pinned", "flagged", "imported", "exported", "scheduled", "featured",
              "bulk", "nested")


def generate_repo(root: Path, target_files: int) -> int:
    """A large, plausible repository: each domain gets a router, service, model, test, API, page, component."""
    rng = random.Random(7)
    domains = [(a, n) for n in NOUNS for a in ADJECTIVES]
    rng.shuffle(domains)
    per_domain = 9
    domains = domains[: max(1, target_files // per_domain)]
    files = 0
    for adj, noun in domains:
        name, camel = f"{adj}_{noun}", f"{adj.title()}{noun.title()}"
        path = f"/{adj}-{noun}s"
        write = lambda rel, text: (root / rel).parent.mkdir(parents=True, exist_ok=True) or (root / rel).write_text(text)  # noqa: E731
        write(f"api/routers/{name}.py", f'''from fastapi import APIRouter

router = APIRouter(prefix="{path}", tags=["{noun}"])


@router.get("")
def list_{name}s():
    return []


@router.post("")
def create_{name}(body: dict):
    return body


@router.patch("/{{item_id}}")
def update_{name}(item_id: int, body: dict):
    return body


@router.delete("/{{item_id}}")
def delete_{name}(item_id: int):
    return None
''')
        write(f"api/services/{name}_service.py", f'''def summarise_{name}s(items):
    """Totals for the {adj} {noun} report."""
    return {{"count": len(items)}}


def archive_{name}(item):
    item["archived"] = True
    return item
''')
        write(f"api/models/{name}.py", f'''from sqlalchemy.orm import Mapped, mapped_column

from api.database import Base


class {camel}(Base):
    __tablename__ = "{name}s"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column()
    owner_id: Mapped[int] = mapped_column()
    created_at: Mapped[str] = mapped_column()
''')
        write(f"tests/test_{name}.py", f'''def test_list_{name}s(client):
    assert client.get("{path}").status_code == 200


def test_create_{name}(client):
    assert client.post("{path}", json={{}}).status_code == 200


def test_delete_{name}(client):
    assert client.delete("{path}/1").status_code == 200
''')
        write(f"server/routes/{adj}-{noun}s.js", '''const express = require('express');

const router = express.Router();

router.get('/', (req, res) => res.json([]));
router.post('/:id/share', (req, res) => res.status(201).json({}));

module.exports = router;
''')
        write(f"client/src/pages/{camel}Page.jsx", f'''import {camel}Card from '../components/{camel}Card';

export default function {camel}Page() {{
  return <section><h1>{adj} {noun}s</h1><{camel}Card /></section>;
}}
''')
        write(f"client/src/components/{camel}Card.jsx", f'''export default function {camel}Card({{ item }}) {{
  return <article className="card">{{item?.title}}</article>;
}}
''')
        write(f"client/src/__tests__/{camel}Card.test.jsx", f'''import {{ it }} from 'vitest';

it('renders a {adj} {noun} card', () => {{}});
it('shares a {adj} {noun}', () => {{}});
''')
        write(f"docs/{name}.md", f"# {adj} {noun}s\n\nHow the {adj} {noun} screens work.\n")
        files += per_domain
    mounts = "\n".join(f"app.use('/api/{a}-{n}s', require('./routes/{a}-{n}s'));" for a, n in domains)
    (root / "server").mkdir(exist_ok=True)
    (root / "server/app.js").write_text(f"const express = require('express');\nconst app = express();\n{mounts}\n"
                                        "module.exports = app;\n")
    (root / "node_modules/left-pad").mkdir(parents=True)
    (root / "node_modules/left-pad/index.js").write_text("module.exports = () => '';\n")
    (root / ".gitignore").write_text("node_modules/\n")
    _synthetic_plan(root, domains, rng)
    return files + 1


def _synthetic_plan(root: Path, domains: list[tuple[str, str]], rng: random.Random) -> None:
    plan = root / ".leafwise"
    (plan / "nodes").mkdir(parents=True)
    (plan / "project.yaml").write_text("schema: 1\npid: big\nname: Big\nid_prefix: BIG\nreleases:\n"
                                       "  - {id: R1, title: One}\n  - {id: R2, title: Two}\n")
    titles = ["Users can see the {a} {n}s", "Users can add a {a} {n}", "Users can remove a {a} {n}",
              "Users can share a {a} {n} with a teammate", "Users can print a {a} {n} as a PDF",
              "Admins can import {a} {n}s from a spreadsheet"]
    number = 1
    for epic_index in range(10):
        epic = f"BIG-{number}"
        (plan / "nodes" / f"{epic}.yaml").write_text(f"id: {epic}\ntitle: Area {epic_index}\nstatus: draft\n")
        number += 1
        for _ in range(30):
            a, n = rng.choice(domains)
            title = rng.choice(titles).format(a=a, n=n)
            release = rng.choice(("R1", "R2"))
            (plan / "nodes" / f"BIG-{number}.yaml").write_text(
                f"id: BIG-{number}\ntitle: {title}\nparent: {epic}\nrelease: {release}\nstatus: draft\n")
            number += 1


def timing_run(files: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "big"
        root.mkdir()
        made = generate_repo(root, files)
        git_commit(root)
        env, seconds = run_reconcile(root)
        again, warm = run_reconcile(root)
    counts = env["result"]["counts"]
    return {"generated_files": made, "scanned_files": env["result"]["scanned_files"],
            "indexed": env["result"]["indexed"], "leaves": env["result"]["total"], "counts": counts,
            "seconds": seconds, "warm_seconds": warm, "engine_seconds": again["result"]["seconds"]}


def render(results: list[dict], ablation: list[dict], timing: dict) -> str:
    tp = sum(r["tp"] for r in results)
    fp = sum(r["fp"] for r in results)
    fn = sum(r["fn"] for r in results)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    traps = sum(r["traps_proposed"] for r in results)
    lines = ["# Reconcile evaluation results", "",
             "Produced by `.venv/bin/python bench/reconcile_eval/run.py` (the real CLI, `leafwise reconcile --json`,",
             "on a git-committed copy of each case without its labels). \"Proposed\" = verdict `shipped`.", "",
             "| case | leaves | proposed | correct | precision | recall | shipped + likely recall | traps proposed "
             "| traps noted partial | run time |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['case']} | {r['leaves']} | {r['tp'] + r['fp']} | {r['tp']} | {r['precision']:.2f} | "
                     f"{r['recall']:.2f} | {r['lead_recall']:.2f} | {r['traps_proposed']} | {r['traps_noted_partial']} "
                     f"| {r['seconds']:.2f} s |")
    lines.append(f"| **overall** | {sum(r['leaves'] for r in results)} | {tp + fp} | {tp} | **{precision:.2f}** | "
                 f"**{recall:.2f}** | | **{traps}** | {sum(r['traps_noted_partial'] for r in results)} | |")
    for r in ablation:
        lines.append(f"| {r['case']} | {r['leaves']} | {r['tp'] + r['fp']} | {r['tp']} | {r['precision']:.2f} | "
                     f"{r['recall']:.2f} | {r['lead_recall']:.2f} | {r['traps_proposed']} | {r['traps_noted_partial']} "
                     f"| {r['seconds']:.2f} s |")
    if ablation:
        lines += ["", "\"search only\": the same plans with every `done_when:` removed, so the code search alone "
                  "decides (the declared checks are 8 of the 63 leaves)."]
    lines += ["", f"Goals: precision ≥ {GOALS['precision']}, recall ≥ {GOALS['recall']}, traps proposed = 0: "
              + ("**met**" if precision >= GOALS["precision"] and recall >= GOALS["recall"] and not traps
                 else "**not met**"), "", "## Confusion (label × verdict)", ""]
    for r in results:
        lines += [f"{r['case']}:", "", "| label \\ verdict | shipped | likely | partial | none |", "|---|---|---|---|---|"]
        for label, row in r["matrix"].items():
            lines.append(f"| {label} | {row['shipped']} | {row['likely']} | {row['partial']} | {row['none']} |")
        lines.append("")
    lines += ["## Misses and false proposals", ""]
    for r in results:
        lines += [f"- {m}" for m in r["mistakes"]] or ["- none"]
    lines += ["", "## Run time on a large repository", "",
              f"A generated repository of {timing['generated_files']} source files (FastAPI routers, services, "
              f"models and pytest tests; Express routes; React pages, components and vitest tests; docs; an "
              f"ignored node_modules) and a plan of {timing['leaves']} draft leaves.", "",
              f"- files scanned (git ls-files): {timing['scanned_files']}, named things indexed: {timing['indexed']}",
              f"- verdicts: {timing['counts']}",
              f"- `leafwise reconcile --json`, whole process: **{timing['seconds']:.2f} s** cold, "
              f"{timing['warm_seconds']:.2f} s again (engine alone: {timing['engine_seconds']:.2f} s); "
              f"goal < {GOALS['seconds']:.0f} s: " + ("**met**" if timing["seconds"] < GOALS["seconds"] else "**not met**"),
              ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000, help="size of the synthetic repository")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS-synthetic.md alone")
    parser.add_argument("--half", default="dev",
                        help="real repositories: dev (default: tune, heldout, fresh, open for development), "
                             "clean (the held-out half: fresh2, fresh3), new (the fresh set: fresh4), new2 (fresh5: shiori, tqdm), new3 (fresh6: uvicorn), new4 (fresh7: flask, express), new5 (fresh8: gum, spliit), new6 (fresh9: hyperfine, uptime-kuma), new7 (fresh10: kanboard, datasette), new8 (fresh11: jsoup, spectre-console), all, "
                             "or one set of real/SPLIT.yaml")
    parser.add_argument("--show-misses", action="store_true", help="real repositories: every verdict and why")
    parser.add_argument("--bands", action="store_true",
                        help="real repositories, both halves: shipped precision and shipped + likely recall of each")
    parser.add_argument("--packets", action="store_true",
                        help="real repositories: the recall of verify's evidence packets (packet_recall.py)")
    parser.add_argument("--github", action="store_true",
                        help="the GitHub-issues sets (github_eval.py: plans imported from real issues, real history); "
                             "--half NAME for one set")
    parser.add_argument("--synthetic", action="store_true",
                        help="the small synthetic cases in cases/ and the synthetic timing run instead")
    args = parser.parse_args()
    if not args.synthetic:
        sys.path.insert(0, str(HERE))
        import real_eval

        if args.github:
            import github_eval

            github_eval.main([args.half] if args.half != "dev" else None, args.show_misses)
            return
        if args.packets:
            import packet_recall

            print("\n".join(packet_recall.main(args.half, args.show_misses, real_eval)))
            return
        lines = real_eval.bands(args.show_misses) if args.bands else real_eval.main(args.half, args.show_misses)
        print("\n".join(lines))
        return
    cases = sorted(p for p in CASES.iterdir() if (p / "labels.yaml").is_file())
    results = [score_case(case) for case in cases]
    ablation = [score_case(case, search_only=True) for case in cases]
    timing = timing_run(args.files)
    report = render(results, ablation, timing)
    print(report)
    if not args.no_write:
        (HERE / "RESULTS-synthetic.md").write_text(report)  # RESULTS.md is the real eval (written by hand from run.py)


if __name__ == "__main__":
    main()
