"""Packet recall: does `leafwise verify`'s evidence packet hold a file the labeller named as evidence?

    python bench/reconcile_eval/run.py --packets [--half dev|clean|new|new2|all|SET] [--show-misses]

For every draft labelled `shipped` in real/<name>.yaml, the files its `why` names (`path/file.ext`,
with or without `:L12`) that exist in the extracted tree are its labelled evidence; the measure is
the fraction of those drafts whose packet (commands/domain/verify_packet.py `build`, the code
`verify ID` runs, over one index of the repository) holds at least one of them, and the same for
code files only (the packet's `code` places against labelled files that are code). Drafts whose
`why` names no file of the tree are counted apart (`unlabelled`), not as misses.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
# Before/after switches (environment): PACKET_FULL_PATHS=0 resolves labels as session 8 did (a shared end of path
# unresolved); PACKET_PASSAGES=0 builds packets without passages (the packet of session 8).
FULL_PATHS = os.environ.get("PACKET_FULL_PATHS", "1") != "0"
FILE = re.compile(r"[A-Za-z0-9_.\-/\[\]()@+]+\.[A-Za-z0-9]{1,6}")


def tree_files(repo: Path) -> list[str]:
    return [p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts
            and ".leafwise" not in p.parts]


def written_in_full(text: str, repo: Path) -> set[str]:
    """The paths a label file writes out in full (as they are in the tree), anywhere in it."""
    return {m.strip("./").split(":")[0] for m in FILE.findall(text) if (repo / m.strip("./").split(":")[0]).is_file()}


def labelled_files(why: str, repo: Path, files: list[str], full: set[str] = frozenset()) -> set[str]:
    """The files a label names: as written, without a leading folder the labeller added (`P/backend/…`), by
    a unique end of path (`routers/auth.py`, `test_auth.py`), or by an end of path several files share of
    which the label file writes exactly one out in full elsewhere (`full`: the labeller's own `main.py`)."""
    found = set()
    for match in FILE.findall(why or ""):
        rel = match.strip("./").split(":")[0]
        parts = rel.split("/")
        hit = None
        for i in range(len(parts)):  # as written, then without the labeller's leading folders
            tail = "/".join(parts[i:])
            if (repo / tail).is_file() and (i == 0 or i < len(parts) - 1):
                hit = tail
                break
        for i in range(len(parts) if hit is None else 0):  # a unique end of a path in the tree
            tail = "/".join(parts[i:])
            ends = [f for f in files if f == tail or f.endswith("/" + tail)]
            if len(ends) > 1 and len(full.intersection(ends)) == 1:
                ends = sorted(full.intersection(ends))
            if len(ends) == 1:
                hit = ends[0]
                break
        if hit:
            found.add(hit)
    return found


def session8_packet(verify_packet) -> None:
    """The packet as session 8 built it, to measure before and after: no passages, no fill below MIN_SCORE."""
    verify_packet.PASSAGES = 0
    verify_packet.FILL_SCORE = verify_packet.MIN_SCORE
    verify_packet.passages.search = lambda *args, **kwargs: []


def score_repo(name: str, real_eval) -> dict:
    from leafwise.commands.domain import verify_packet
    from leafwise.commands.domain.verify_packet import build
    from leafwise.commands.domain.verify_quotes import file_kind
    from leafwise.commands.reconcile.match import Stats
    from leafwise.commands.reconcile.retrieve import RIndex
    from leafwise.commands.reconcile.scan import build_index
    from leafwise.store import PlanPaths, load_plan

    if os.environ.get("PACKET_PASSAGES") == "0":
        session8_packet(verify_packet)
    text = (real_eval.REAL / f"{name}.yaml").read_text()
    labels = yaml.safe_load(text)
    repo = real_eval.REPOS / name
    truth = real_eval.write_plan(repo, labels["drafts"])
    try:
        started = time.perf_counter()
        plan = load_plan(PlanPaths(repo))
        index = build_index(repo)
        stats, rindex = Stats.of(index), RIndex.of(index)
        rows = []
        tree = tree_files(repo)
        full = written_in_full(text, repo) if FULL_PATHS else set()
        for nid, d in truth.items():
            if d["label"] != "shipped":
                continue
            wanted = labelled_files(d.get("why", ""), repo, tree, full)
            packet = build(plan.nodes[nid], index, stats, rindex)
            files = {p.path for p in packet.places}
            code_wanted = {f for f in wanted if file_kind(f) == "code"}
            rows.append({"title": d["title"], "wanted": sorted(wanted), "packet": sorted(files),
                         "hit": bool(wanted & files), "code_hit": bool(code_wanted & files),
                         "code_labelled": bool(code_wanted), "tokens": packet.tokens})
        seconds = time.perf_counter() - started
    finally:
        shutil.rmtree(repo / ".leafwise", ignore_errors=True)
    return {"repo": name, "rows": rows, "seconds": seconds}


def summary(results: list[dict]) -> dict:
    rows = [r for res in results for r in res["rows"]]
    labelled = [r for r in rows if r["wanted"]]
    code = [r for r in rows if r["code_labelled"]]
    return {"shipped": len(rows), "labelled": len(labelled), "hits": sum(r["hit"] for r in labelled),
            "code": len(code), "code_hits": sum(r["code_hit"] for r in code),
            "tokens": max((r["tokens"] for r in rows), default=0)}


def table(half: str, results: list[dict]) -> list[str]:
    lines = [f"### packets: {half}", "",
             "| repository | shipped drafts | with labelled files | packet holds one | recall | code: holds / labelled "
             "| max tokens | time |", "|---|---|---|---|---|---|---|---|"]
    for res in results:
        s = summary([res])
        lines.append(f"| {res['repo']} | {s['shipped']} | {s['labelled']} | {s['hits']} | "
                     f"{s['hits'] / s['labelled'] if s['labelled'] else 1:.2f} | {s['code_hits']} / {s['code']} | "
                     f"{s['tokens']} | {res['seconds']:.1f} s |")
    s = summary(results)
    lines.append(f"| **overall** | {s['shipped']} | {s['labelled']} | {s['hits']} | "
                 f"**{s['hits'] / s['labelled'] if s['labelled'] else 1:.2f}** | {s['code_hits']} / {s['code']} "
                 f"({s['code_hits'] / s['code'] if s['code'] else 1:.2f}) | {s['tokens']} | |")
    return lines + [""]


def misses(results: list[dict]) -> list[str]:
    out = []
    for res in results:
        for r in res["rows"]:
            if r["wanted"] and not r["hit"]:
                out.append(f"  {res['repo']}: {r['title']}\n      labelled {r['wanted']}\n      packet   {r['packet']}")
    return out


def main(half: str, show_misses: bool, real_eval) -> list[str]:
    halves = real_eval.split()
    lines: list[str] = []
    everything: list[dict] = []
    for h in [h for h in real_eval.sets_of(half) if halves.get(h)]:
        names = halves[h]
        real_eval.ensure_repos(names)
        results = [score_repo(n, real_eval) for n in names]
        everything += results
        lines += table(h, results)
        if show_misses:
            lines += misses(results)
    s = summary(everything)
    if s["labelled"]:
        lines.append(f"{half}: packets hold a labelled evidence file for {s['hits']} of {s['labelled']} shipped "
                     f"drafts ({s['hits'] / s['labelled']:.2f}); a labelled code file for {s['code_hits']} of "
                     f"{s['code']} ({s['code_hits'] / s['code'] if s['code'] else 1:.2f})")
    return lines
