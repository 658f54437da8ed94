#!/usr/bin/env python3
"""Time peer task trackers (Task Master, Backlog.md) on generated plans.

For every tool, plan size and operation: one untimed warm-up run (its output
is checked against the plan generate.py made), then --reps timed runs.  Each
run is a fresh child process in its own session, stdin from /dev/null and
stdout/stderr to files (no TTY, as an agent would call it), killed with its
whole process group after --timeout seconds.

Per run we record
  * wall time (perf_counter around spawn .. reap),
  * peak RSS of the whole process tree: the largest sum of VmRSS over the child
    and all its descendants, sampled from /proc every --sample-ms, and the
    child's ru_maxrss from wait4() (largest single process in the tree, exact
    even for runs shorter than one sample).  "peak MB" is the larger of the two.

  * CPU seconds (user+sys from wait4, child plus the descendants it reaped),
    which a busy machine inflates far less than wall time,
  * "bg cores": CPU used meanwhile by every other process on the machine
    (/proc/stat busy time minus ours, averaged over the run).  Before each
    timed run we wait up to --quiet-wait s for a quiet half-second; a run with
    more background than --quiet-cores is retried up to --retries times and,
    if still noisy, kept and counted in the "runs" column as noisy.

Prints a table (tool, operation, tasks, median/min/max s, median CPU s, peak MB
of the tree, largest single process MB, runs, bg cores, output check) and, with
--json, writes every sample.  Stdlib only.  Needs the tools installed in
bench/peers/node_modules (npm install --prefix bench/peers).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

BIN = HERE / "node_modules" / ".bin"
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


# ------------------------------------------------------------------ expectations

@dataclass
class Expect:
    total: int
    todo: set[int]
    ready: set[int]          # not done, every dependency done
    ready_todo: set[int]


def expectations(n: int, seed: int) -> Expect:
    tasks = generate.make_plan(n, seed)
    done = {t.id for t in tasks if t.status == "done"}
    ready = {t.id for t in tasks if t.status != "done" and all(d in done for d in t.deps)}
    todo = {t.id for t in tasks if t.status == "todo"}
    return Expect(len(tasks), todo, ready, ready & todo)


def _json_after_noise(text: str):
    return json.loads(text[text.index("{"):])


def _ids(pattern: str, text: str) -> list[int]:
    return [int(m) for m in re.findall(pattern, text, flags=re.M)]


def _count_check(got: int, want: int) -> tuple[bool, str]:
    return got == want, f"{got} listed, expected {want}"


# Each check gets (stdout, expectations) and returns (ok, note).
Check = Callable[[str, Expect], tuple[bool, str]]

TM_ROW = r"^│ (\d+)\s+│"          # one table row per top-level task
BL_ROW = r"^\s+(?:\[\w+\] )?TASK-(\d+) - "


def tm_next(out: str, e: Expect):
    m = re.search(r"Next Task: #(\d+)", out)
    if not m:
        return False, "no 'Next Task: #' in output"
    tid = int(m.group(1))
    return tid in e.ready, f"#{tid} {'is' if tid in e.ready else 'is NOT'} ready"


def tm_list(out: str, e: Expect):
    return _count_check(len(_ids(TM_ROW, out)), e.total)


def tm_list_ready(out: str, e: Expect):
    ids = set(_ids(TM_ROW, out))
    return ids == e.ready, f"{len(ids)} listed, expected {len(e.ready)}"


def tm_list_json(out: str, e: Expect):
    return _count_check(len(_json_after_noise(out)["tasks"]), e.total)


def bl_list(out: str, e: Expect):
    return _count_check(len(_ids(BL_ROW, out)), e.total)


def bl_ready(out: str, e: Expect):
    ids = set(_ids(BL_ROW, out))
    return ids == e.ready, f"{len(ids)} listed, expected {len(e.ready)}"


def bl_todo(out: str, e: Expect):
    ids = set(_ids(BL_ROW, out))
    return ids == e.todo, f"{len(ids)} listed, expected {len(e.todo)}"


def bl_next(out: str, e: Expect):
    ids = _ids(BL_ROW, out)
    if len(ids) != 1:
        return False, f"{len(ids)} listed, expected 1"
    ok = ids[0] in e.ready_todo
    return ok, f"TASK-{ids[0]} {'is' if ok else 'is NOT'} a ready To Do task"


def bl_list_json(out: str, e: Expect):
    return _count_check(len(json.loads(out)["tasks"]), e.total)


@dataclass
class Op:
    tool: str
    name: str
    argv: list[str]
    check: Check


OPS = [
    Op("taskmaster", "next", ["task-master", "next"], tm_next),
    Op("taskmaster", "list --ready", ["task-master", "list", "--ready"], tm_list_ready),
    Op("taskmaster", "list", ["task-master", "list"], tm_list),
    Op("taskmaster", "list --json", ["task-master", "list", "--json"], tm_list_json),
    Op("backlog", "next (ready To Do, by priority, limit 1)",
       ["backlog", "task", "list", "--plain", "--ready", "-s", "To Do",
        "--sort", "priority", "--limit", "1"], bl_next),
    Op("backlog", "ready (--ready)", ["backlog", "task", "list", "--plain", "--ready"], bl_ready),
    Op("backlog", "status filter (-s \"To Do\")",
       ["backlog", "task", "list", "--plain", "-s", "To Do"], bl_todo),
    Op("backlog", "list", ["backlog", "task", "list", "--plain"], bl_list),
    Op("backlog", "list --json", ["backlog", "task", "list", "--json"], bl_list_json),
]


# ------------------------------------------------------------------- measurement

@dataclass
class Run:
    seconds: float
    tree_peak_kb: int
    maxrss_kb: int
    rc: int | None
    timed_out: bool
    cpu_s: float = 0.0           # user+sys of the child and its reaped descendants
    foreign_cores: float = 0.0   # average CPU used meanwhile by everything else

    @property
    def peak_kb(self) -> int:
        return max(self.tree_peak_kb, self.maxrss_kb)


def _proc_children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(p))
    return kids


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss_kb(root: int) -> int:
    kids = _proc_children()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss_kb(pid)
        stack.extend(kids.get(pid, ()))
    return total


CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_busy_s() -> float:
    """Busy CPU seconds of the whole machine so far (all cores, /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / CLK_TCK


def self_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def wait_quiet(limit_cores: float, max_wait: float, window: float = 0.5) -> float:
    """Wait until the rest of the machine uses < limit_cores for one window.

    Returns the foreign load of the last window (other processes' CPU, in cores).
    Gives up after max_wait seconds (the run is then flagged, not skipped)."""
    deadline = time.monotonic() + max_wait
    while True:
        b0, s0, t0 = cpu_busy_s(), self_cpu_s(), time.monotonic()
        time.sleep(window)
        load = ((cpu_busy_s() - b0) - (self_cpu_s() - s0)) / (time.monotonic() - t0)
        if load < limit_cores or time.monotonic() > deadline:
            return load


def run_once(argv: list[str], cwd: Path, env: dict, timeout: float,
             out_path: Path, err_path: Path, sample_s: float, nice: int = 0) -> Run:
    pre = (lambda: os.setpriority(os.PRIO_PROCESS, 0, nice)) if nice else None
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        busy0, self0 = cpu_busy_s(), self_cpu_s()
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True,
                                preexec_fn=pre)
    peak = [0]
    stop = threading.Event()
    timed_out = [False]

    def sampler():
        while not stop.is_set():
            peak[0] = max(peak[0], tree_rss_kb(proc.pid))
            stop.wait(sample_s)

    def killer():
        timed_out[0] = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    timer = threading.Timer(timeout, killer)
    timer.start()
    _, status, ru = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    timer.cancel()
    stop.set()
    th.join()
    busy = cpu_busy_s() - busy0
    cpu = ru.ru_utime + ru.ru_stime
    foreign = max(0.0, busy - cpu - (self_cpu_s() - self0)) / elapsed
    proc.returncode = os.waitstatus_to_exitcode(status)
    # Reap anything the tool left behind in its group (none expected).
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return Run(elapsed, peak[0], ru.ru_maxrss, proc.returncode, timed_out[0], cpu, foreign)


def bench_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not re.search(r"(API_KEY|_TOKEN|OAUTH|SECRET)", k)}
    env.update({
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),                    # no user-level config of either tool
        "TASKMASTER_SKIP_AUTO_UPDATE": "1",   # else every call asks the npm registry
    })
    env.pop("CI", None)                       # same behaviour in and out of CI
    return env


def tool_versions(env: dict) -> dict[str, str]:
    def ver(argv):
        try:
            r = subprocess.run(argv, env=env, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60)
            return (r.stdout.strip().splitlines() or ["?"])[-1]
        except Exception as exc:  # noqa: BLE001
            return f"error: {exc}"
    return {
        "task-master (task-master-ai)": ver(["task-master", "--version"]),
        "backlog (backlog.md)": ver(["backlog", "--version"]),
        "node": ver(["node", "--version"]),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "cpus": str(os.cpu_count()),
    }


# ------------------------------------------------------------------------- main

def fmt_table(rows: list[dict]) -> str:
    head = ["tool", "operation", "tasks", "median s", "min s", "max s", "CPU s",
            "peak MB", "1-proc MB", "runs", "bg cores", "check"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if h in ("tasks", "median s", "min s", "max s", "CPU s", "peak MB", "1-proc MB", "runs", "bg cores")
                            else "---" for h in head) + "|"]
    for r in rows:
        lines.append("| " + " | ".join([
            r["tool"], r["operation"], f"{r['tasks']:,}",
            f"{r['median_s']:.2f}" if r["median_s"] is not None else "—",
            f"{r['min_s']:.2f}" if r["min_s"] is not None else "—",
            f"{r['max_s']:.2f}" if r["max_s"] is not None else "—",
            f"{r['cpu_s']:.2f}" if r["cpu_s"] is not None else "—",
            f"{r['peak_mb']:.0f}" if r["peak_mb"] is not None else "—",
            f"{r['maxrss_mb']:.0f}" if r["maxrss_mb"] is not None else "—",
            str(r["runs_ok"]) + "/" + str(r["runs"])
            + (f" ({r['noisy']} noisy)" if r.get("noisy") else ""),
            f"{r['bg_cores']:.2f}" if r.get("bg_cores") is not None else "—",
            ("ok: " if r["check_ok"] else "FAIL: ") + r["check_note"],
        ]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated task counts")
    ap.add_argument("--tools", default="taskmaster,backlog")
    ap.add_argument("--ops", default="", help="only operations whose name contains one of "
                    "these comma-separated strings")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs first (>=1: output check)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--sample-ms", type=float, default=25.0)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--quiet-cores", type=float, default=0.3,
                    help="a timed run counts as noisy when other processes used more "
                    "CPU than this (cores, averaged over the run); it is retried")
    ap.add_argument("--retries", type=int, default=0, help="retries of a noisy run")
    ap.add_argument("--budget", type=float, default=1080.0,
                    help="seconds; once spent, remaining operations get min(reps, 3) runs, "
                    "no quiet waiting and no retries, so a busy machine still finishes")
    ap.add_argument("--nice", type=int, default=0,
                    help="scheduling priority of the measured tools (e.g. -10 as root on a "
                    "shared machine); 0 leaves it alone")
    ap.add_argument("--quiet-wait", type=float, default=2.0,
                    help="seconds to wait at most for a quiet machine before a run")
    ap.add_argument("--work", type=Path, default=HERE / "work",
                    help="where projects are generated (default bench/peers/work, git-ignored)")
    ap.add_argument("--reuse", action="store_true", help="reuse projects already in --work")
    ap.add_argument("--json", type=Path, help="write all samples here")
    a = ap.parse_args(argv)

    for exe in ("task-master", "backlog"):
        if not (BIN / exe).exists():
            print(f"missing {BIN / exe}: run `npm install --prefix {HERE}`", file=sys.stderr)
            return 2
    sizes = [int(s) for s in a.sizes.split(",") if s]
    tools = [t for t in a.tools.split(",") if t]
    wanted = [s for s in a.ops.split(",") if s]
    a.work.mkdir(parents=True, exist_ok=True)
    home = a.work / "home"
    home.mkdir(exist_ok=True)
    logs = a.work / "logs"
    logs.mkdir(exist_ok=True)
    env = bench_env(home)
    versions = tool_versions(env)
    print("versions:", json.dumps(versions), flush=True)

    rows, samples = [], []
    t_start = time.perf_counter()
    for n in sizes:
        exp = expectations(n, a.seed)
        for tool in tools:
            proj = a.work / f"{tool}-{n}"
            if not (a.reuse and (proj / ".bench-expected.json").exists()):
                t0 = time.perf_counter()
                generate.generate(tool, n, proj, a.seed, force=True)
                print(f"generated {tool} {n} in {time.perf_counter() - t0:.1f}s -> {proj}",
                      flush=True)
            for op in OPS:
                if op.tool != tool or (wanted and not any(w in op.name for w in wanted)):
                    continue
                tag = re.sub(r"[^a-z0-9]+", "_", f"{tool}_{n}_{op.name}".lower()).strip("_")
                out_p, err_p = logs / f"{tag}.out", logs / f"{tag}.err"
                check_ok, note = False, "not run"
                for w in range(max(a.warmup, 1)):
                    r = run_once(op.argv, proj, env, a.timeout, out_p, err_p, a.sample_ms / 1000, a.nice)
                    if w == 0:
                        if r.timed_out:
                            check_ok, note = False, f"timed out after {a.timeout:.0f}s"
                        elif r.rc != 0:
                            check_ok, note = False, f"exit {r.rc}, see {err_p}"
                        else:
                            try:
                                check_ok, note = op.check(out_p.read_text(errors="replace"), exp)
                            except Exception as exc:  # noqa: BLE001
                                check_ok, note = False, f"unparsable output: {exc}"
                runs = []
                over = time.perf_counter() - t_start > a.budget
                reps, retries = (min(a.reps, 3), 0) if over else (a.reps, a.retries)
                if not (r.timed_out or r.rc != 0):
                    for _ in range(reps):
                        for attempt in range(retries + 1):
                            if not over:
                                wait_quiet(a.quiet_cores, a.quiet_wait)
                            r = run_once(op.argv, proj, env, a.timeout,
                                         logs / f"{tag}.rep.out", logs / f"{tag}.rep.err",
                                         a.sample_ms / 1000, a.nice)
                            samples.append({"tool": tool, "operation": op.name, "tasks": n,
                                            "argv": op.argv, "seconds": r.seconds,
                                            "cpu_s": r.cpu_s, "foreign_cores": r.foreign_cores,
                                            "tree_peak_kb": r.tree_peak_kb,
                                            "maxrss_kb": r.maxrss_kb, "rc": r.rc,
                                            "timed_out": r.timed_out,
                                            "kept": r.foreign_cores <= a.quiet_cores
                                            or attempt == retries})
                            if r.foreign_cores <= a.quiet_cores or r.timed_out or over:
                                break
                        runs.append(r)
                        if r.timed_out:
                            break
                ok = [x for x in runs if x.rc == 0 and not x.timed_out]
                row = {
                    "tool": tool, "operation": op.name, "tasks": n,
                    "command": " ".join(f'"{x}"' if " " in x else x for x in op.argv),
                    "median_s": statistics.median(x.seconds for x in ok) if ok else None,
                    "min_s": min(x.seconds for x in ok) if ok else None,
                    "max_s": max(x.seconds for x in ok) if ok else None,
                    "cpu_s": statistics.median(x.cpu_s for x in ok) if ok else None,
                    "noisy": sum(x.foreign_cores > a.quiet_cores for x in ok),
                    "max_foreign_cores": max((x.foreign_cores for x in ok), default=None),
                    "bg_cores": statistics.median(x.foreign_cores for x in ok) if ok else None,
                    "peak_mb": max(x.peak_kb for x in ok) / 1024 if ok else None,
                    "tree_peak_mb": max(x.tree_peak_kb for x in ok) / 1024 if ok else None,
                    "maxrss_mb": max(x.maxrss_kb for x in ok) / 1024 if ok else None,
                    "runs": len(runs), "runs_ok": len(ok),
                    "check_ok": check_ok, "check_note": note,
                }
                rows.append(row)
                med = f"{row['median_s']:.2f}s" if ok else "—"
                pk = f"{row['peak_mb']:.0f}MB" if ok else "—"
                print(f"  {tool:10} {n:>6} {op.name:45} {med:>8} {pk:>7}  "
                      f"{'ok' if check_ok else 'FAIL'}: {note}", flush=True)
    total = time.perf_counter() - t_start
    print(f"\ntotal {total:.0f}s\n")
    print(fmt_table(rows))
    if a.json:
        a.json.write_text(json.dumps({"versions": versions, "args": vars(a) | {
            "work": str(a.work), "json": str(a.json)}, "rows": rows, "samples": samples,
            "total_seconds": total}, indent=1, default=str) + "\n")
    return 0 if all(r["check_ok"] and r["runs_ok"] == r["runs"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
