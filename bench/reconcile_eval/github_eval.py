"""The GitHub-issues eval: reconcile on a plan imported from a real repository's GitHub issues, against
its real history, scored on labels a person wrote from the code (github/<name>.yaml, see github/README.md).

    python bench/reconcile_eval/run.py --github [--show-misses]      # every set in github/
    python bench/reconcile_eval/run.py --github --half ripgrep       # one set

For each set the repository is cloned from its mirror (`fetch`: /work/.mirror/owner+name/repo) with its
whole history, detached at the pinned commit (a snapshot lacks blobs of 4 MiB and more: those files are
left out of the work tree). A plan is made the way a user makes one: `leafwise init`, then `leafwise
import github issues.json` of the labelled issues, each open (the plan was imported before the work;
has it shipped since?), with the issue's URL so the node's source names the repository. Then the real
CLI `leafwise reconcile --json` runs once, and its bands are scored against the labels: `shipped`
precision (the band `--apply` closes), `shipped + likely` recall, and how many `shipped` came from a
closing commit the labeller had found.
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
SETS = HERE / "github"
REPOS = HERE / ".repos-github"
MIRRORS = Path(os.environ.get("LEAFWISE_MIRRORS", "/work/.mirror"))
ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com", "LEAFWISE_AGENT": "bench"}
ENV.pop("LEAFWISE_ROOT", None)
GOALS = {"precision": 0.95, "recall": 0.75}


def names() -> list[str]:
    return sorted(p.stem for p in SETS.glob("*.yaml"))


def labels(name: str) -> dict:
    return yaml.safe_load((SETS / f"{name}.yaml").read_text(encoding="utf-8"))


def _git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=ENV, check=check)


def materialise(name: str, data: dict) -> Path:
    """A clone with its history at the pinned commit; made once (delete .repos-github/<name> to redo)."""
    target = REPOS / name
    if (target / ".git").exists():
        return target
    owner, repo = data["repo"].split("/")
    mirror = MIRRORS / f"{owner}+{repo}" / "repo"
    if not mirror.is_dir():
        raise SystemExit(f"{name}: no mirror at {mirror} (bring it with the search tool's fetch github:{data['repo']})")
    shutil.rmtree(target, ignore_errors=True)
    REPOS.mkdir(parents=True, exist_ok=True)
    _git(REPOS, "clone", "-q", "--shared", "--no-checkout", str(mirror), str(target))
    commit = data["commit"]
    if _git(target, "checkout", "-q", "--detach", commit, check=False).returncode != 0:
        sys.path.insert(0, str(HERE / "real"))
        from materialise import extract_file_by_file  # type: ignore[import-not-found]

        missing = extract_file_by_file(target / ".git", commit, target)
        _git(target, "read-tree", commit)
        _git(target, "update-ref", "--no-deref", "HEAD", commit)
        print(f"  {name}: {len(missing)} blobs missing from the snapshot, left out", file=sys.stderr)
    _git(target, "remote", "remove", "origin", check=False)  # the mirror's path: no GitHub name
    return target


def write_plan(target: Path, data: dict) -> None:
    shutil.rmtree(target / ".leafwise", ignore_errors=True)
    cli(target, "init", "--prefix", "GH")
    issues = [{"number": i["number"], "title": i["title"], "body": i.get("body") or "", "state": "OPEN",
               "labels": [], "assignees": [], "url": f"https://github.com/{data['repo']}/issues/{i['number']}"}
              for i in data["issues"]]
    path = target / ".leafwise" / "issues-eval.json"
    path.write_text(json.dumps(issues), encoding="utf-8")
    cli(target, "import", "github", str(path))
    path.unlink()


def cli(cwd: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=cwd,
                          capture_output=True, text=True, env=ENV, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"leafwise {' '.join(args)} failed in {cwd}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return proc.stdout


def numbers_by_node(target: Path) -> dict[str, int]:
    found = {}
    for path in (target / ".leafwise" / "nodes").glob("*.yaml"):
        node = yaml.safe_load(path.read_text(encoding="utf-8"))
        source = node.get("source") or {}
        if source.get("tool") == "github":
            found[node["id"]] = int(str(source["id"]).rpartition("#")[2])
    return found


def score(name: str) -> dict:
    data = labels(name)
    target = materialise(name, data)
    write_plan(target, data)
    started = time.perf_counter()
    answer = json.loads(cli(target, "reconcile", "--json", "--limit", "100000"))
    seconds = time.perf_counter() - started
    by_number = {i["number"]: i for i in data["issues"]}
    number_of = numbers_by_node(target)
    rows = []
    for s in answer["result"]["suggestions"]:
        issue = by_number[number_of[s["id"]]]
        closing = next((c["sha"] for c in s.get("commits", []) if c.get("closes")), None)
        rows.append({"number": issue["number"], "title": issue["title"], "label": issue["label"],
                     "kind": issue.get("kind"), "verdict": s["verdict"], "closing": closing,
                     "labelled_closing": bool(issue.get("closing_commits"))})
    packets = packet_hits(target, data, number_of)
    for row in rows:
        row.update(packets.get(row["number"], {}))
    return {"name": name, "repo": data["repo"], "rows": rows, "seconds": round(seconds, 1)}


def packet_hits(target: Path, data: dict, number_of: dict[str, int]) -> dict[int, dict]:
    """For each issue labelled shipped whose `why` names files of the tree: does `verify`'s packet (the code
    `verify ID` runs, over one index) hold one of them? (packet_recall.py's measure, on these sets.)"""
    sys.path.insert(0, str(HERE))
    import packet_recall
    from leafwise.commands.domain.verify_packet import build
    from leafwise.commands.reconcile.match import Stats
    from leafwise.commands.reconcile.retrieve import RIndex
    from leafwise.commands.reconcile.scan import build_index
    from leafwise.store import PlanPaths, load_plan

    plan = load_plan(PlanPaths(target))
    index = build_index(target)
    stats, rindex = Stats.of(index), RIndex.of(index)
    tree = packet_recall.tree_files(target)
    text = (SETS / f"{target.name}.yaml").read_text(encoding="utf-8")
    full = packet_recall.written_in_full(text, target)
    by_number = {i["number"]: i for i in data["issues"]}
    found = {}
    for node_id, number in number_of.items():
        issue = by_number[number]
        if issue["label"] != "shipped":
            continue
        wanted = packet_recall.labelled_files(issue.get("why", ""), target, tree, full)
        places = {p.path for p in build(plan.nodes[node_id], index, stats, rindex).places}
        found[number] = {"wanted": sorted(wanted), "packet_hit": bool(wanted & places) if wanted else None,
                         "packet": sorted(places)}
    return found


def summary(result: dict) -> dict:
    rows = result["rows"]
    shipped = [r for r in rows if r["verdict"] == "shipped"]
    likely = [r for r in rows if r["verdict"] == "likely"]
    labelled = [r for r in rows if r["label"] == "shipped"]
    found = [r for r in labelled if r["verdict"] in ("shipped", "likely")]
    return {"issues": len(rows), "labelled shipped": len(labelled),
            "shipped": len(shipped), "shipped right": sum(r["label"] == "shipped" for r in shipped),
            "likely": len(likely), "likely right": sum(r["label"] == "shipped" for r in likely),
            "recall": len(found) / len(labelled) if labelled else None,
            "closing found": sum(r["closing"] is not None for r in rows),
            "closing labelled": sum(r["labelled_closing"] for r in rows),
            "closing agreed": sum(r["closing"] is not None and r["labelled_closing"] for r in rows),
            "packets labelled": sum(r.get("packet_hit") is not None for r in rows),
            "packet hits": sum(bool(r.get("packet_hit")) for r in rows)}


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.2f}" if whole else "n/a (0)"


def table(results: list[dict], show_misses: bool = False) -> list[str]:
    lines = ["| set | repository | issues | labelled shipped | `shipped` precision | `likely` right | "
             "`shipped + likely` recall | closing commits (engine / labeller / both) | packets holding a labelled file "
             "| seconds |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    total = {"shipped": 0, "shipped right": 0, "labelled shipped": 0, "found": 0}
    for result in results:
        s = summary(result)
        lines.append(f"| {result['name']} | {result['repo']} | {s['issues']} | {s['labelled shipped']} | "
                     f"{_ratio(s['shipped right'], s['shipped'])} | {_ratio(s['likely right'], s['likely'])} | "
                     f"{_ratio(s['shipped right'] + s['likely right'], s['labelled shipped'])} | "
                     f"{s['closing found']} / {s['closing labelled']} / {s['closing agreed']} | "
                     f"{_ratio(s['packet hits'], s['packets labelled'])} | {result['seconds']} |")
        total["packets"] = total.get("packets", 0) + s["packets labelled"]
        total["packet hits"] = total.get("packet hits", 0) + s["packet hits"]
        total["shipped"] += s["shipped"]
        total["shipped right"] += s["shipped right"]
        total["labelled shipped"] += s["labelled shipped"]
        total["found"] += s["shipped right"] + s["likely right"]
    lines.append(f"| all | | | {total['labelled shipped']} | {_ratio(total['shipped right'], total['shipped'])} | | "
                 f"{_ratio(total['found'], total['labelled shipped'])} | | "
                 f"{_ratio(total.get('packet hits', 0), total.get('packets', 0))} | |")
    lines.append(f"goals: `shipped` precision >= {GOALS['precision']}, `shipped + likely` recall >= {GOALS['recall']}")
    if show_misses:
        for result in results:
            for r in result["rows"]:
                wrong = (r["verdict"] == "shipped") != (r["label"] == "shipped") or \
                    (r["label"] == "shipped" and r["verdict"] not in ("shipped", "likely"))
                if r.get("packet_hit") is False:
                    lines.append(f"  {result['name']} #{r['number']} packet miss: labelled {r['wanted']}, "
                                 f"packet {r['packet']}")
                if wrong:
                    lines.append(f"  {result['name']} #{r['number']} [{r['label']} -> {r['verdict']}]"
                                 f"{' closing ' + r['closing'] if r['closing'] else ''} {r['title'][:80]}")
    return lines


def main(only: list[str] | None = None, show_misses: bool = False) -> list[str]:
    chosen = only or names()
    if not chosen:
        raise SystemExit(f"no GitHub-issues sets in {SETS}")
    results = [score(name) for name in chosen]
    lines = table(results, show_misses)
    print("\n".join(lines))
    return lines
