"""How fast the canvas is on a big plan (4 releases × 25 epics × 10 features × 10 leaves = 11,100 nodes).

    python bench/canvas_bench.py [--dir DIR] [--writes 100] [--burst 1000]

Measures, headless (Textual's test driver, which composes every frame but
writes no bytes to a terminal):

- first screen: from starting a fresh Python process to the first frame with
  tree rows, with a cold stat cache and a warm one (what `leafwise` sees on
  the second run);
- external write → on screen: a process-external `os.replace` of a node file
  (a visible row's title) until the first frame composed after the row shows
  the new title, p50/p95/max;
- filter keystroke → redraw: one filter text applied until the next frame;
- a burst of writes: how late the event loop gets while another process
  rewrites N files as fast as it can, and how long after the last write the
  screen matches the files;
- the workbench views (issue 16): the board (`K`), the blocked view's impact
  ranking (`b`) and the progress view's forecast (`p`) from a journal grown
  to 50,000 lines, each from the key press to the first frame that shows it,
  and the core functions under them alone (board_cards, rank_stuck, forecast
  with the journal read); twice: as the canvas runs by default (each view
  built on its first visit), and with the opt-in background build
  (`CanvasApp(prebuild=True)`: the views built after opening, then visited).

A "frame" is the screen's repaint: the bench waits for it with Textual's public
`wait_for_refresh` (it returns once the screen has composed everything pending,
at once when nothing is), and takes the time then.
Wall times swing with the machine's load, so CPU times (the process's, all
threads) are reported beside them: on an idle machine the wall time of a step
is close to its CPU time (plus the watcher's few milliseconds of debounce).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = (160, 45)


def make_plan(folder: Path) -> Path:
    sys.path.insert(0, str(HERE))
    from generate import generate  # bench/generate.py

    root = folder / "big"
    if not (root / ".leafwise").exists():
        generate(root, releases=4, epics=25, features=10, leaves=10)
    return root


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def next_frame(app, timeout: float = 5.0) -> float:
    """The time the current screen has composed every change made so far (its next repaint)."""
    await asyncio.wait_for(app.screen.wait_for_refresh(), timeout)
    return time.perf_counter()


# --- first screen, in a fresh process -----------------------------------------------------

def first_screen_child(root: str, started: float) -> None:
    from leafwise.canvas.app import make_canvas
    from leafwise.canvas.widgets.plan_tree import PlanTree

    async def run() -> None:
        app = make_canvas(root, watch=False, settings_path=Path(tempfile.mkdtemp()) / "s.json")
        async with app.run_test(size=SIZE) as pilot:
            deadline = time.perf_counter() + 60
            while True:
                screen = app.screen
                rows = screen.query(PlanTree).first().visible_keys() if screen.query(PlanTree) else []
                if rows:
                    break
                if time.perf_counter() > deadline:
                    raise TimeoutError("no rows after a minute")
                await asyncio.sleep(0.002)
            shown = await next_frame(app)
            usage = resource.getrusage(resource.RUSAGE_SELF)
            print(json.dumps({"first_screen": time.time() - started - (time.perf_counter() - shown),
                              "cpu": usage.ru_utime + usage.ru_stime, "rows": len(rows)}))
            app.exit()

    asyncio.run(run())


def first_screen(root: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process) from launch to the first frame with rows."""
    started = time.time()
    out = subprocess.run([sys.executable, __file__, "--first-screen-child", str(root), repr(started)],
                         capture_output=True, text=True, check=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return round(found["first_screen"], 3), round(found["cpu"], 3)


# --- live latency, filter, burst ------------------------------------------------------------

def write_title(path: Path, title: str) -> None:
    lines = [line for line in path.read_text().splitlines() if not line.startswith("title:")]
    lines.insert(1, f"title: {title}")
    tmp = path.with_name(f".lw-bench-{path.stem}.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)


BURST = """
import os, sys
from pathlib import Path
nodes = Path(sys.argv[1]) / ".leafwise" / "nodes"
ids = sys.argv[2].split(",")
for i, nid in enumerate(ids):
    path = nodes / f"{nid}.yaml"
    lines = [l for l in path.read_text().splitlines() if not l.startswith("title:")]
    lines.insert(1, f"title: Burst write {i} on {nid}")
    tmp = nodes / f".lw-burst-{nid}.tmp"
    tmp.write_text("\\n".join(lines) + "\\n")
    os.replace(tmp, path)
"""


async def live(root: Path, writes: int, burst: int) -> dict[str, object]:
    from leafwise.canvas.app import make_canvas
    from leafwise.canvas.widgets.plan_tree import PlanTree

    app = make_canvas(root, watch=True, settings_path=Path(tempfile.mkdtemp()) / "s.json")
    report: dict[str, object] = {}
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.perf_counter() + 60
        while app.state is None or not app.live:
            await asyncio.sleep(0.01)
            if time.perf_counter() > deadline or app.return_code is not None:
                raise RuntimeError(f"the canvas did not start watching (exit code {app.return_code})")
        await pilot.pause(1.0)  # the watcher's catch-up re-read
        tree = app.screen.query_one(PlanTree)
        # Open a feature with open leaves near the top, so leaves are on screen too.
        nodes = app.state.nodes
        feature = next(n.parent for n in nodes.values() if not n.children and n.status == "draft"
                       and nodes[n.parent].effective_release == "R1")
        tree.reveal(feature)
        tree.expand(feature)
        await pilot.pause(0.5)

        # external write → on screen: status flips (what agents mostly write) and renames
        applied: list[float] = []
        original_apply = tree.apply

        def apply(delta) -> None:
            original_apply(delta)
            applied.append(time.perf_counter())

        tree.apply = apply  # the instance's rows are updated: note when
        latencies: dict[str, list[float]] = {"status": [], "title": []}
        cpu: list[float] = []
        for i in range(writes):
            top = int(tree.scroll_offset.y)
            visible = [k for k in tree.visible_keys()[top:top + tree.size.height] if k in app.state.nodes]  # node rows only
            kind = "status" if i % 2 == 0 else "title"
            path_of = lambda k: root / ".leafwise" / "nodes" / f"{k}.yaml"  # noqa: E731
            cpu_start = time.process_time()
            if kind == "status":
                leaves = [k for k in visible if not app.state.nodes[k].children
                          and app.state.nodes[k].status in ("draft", "in-progress")]
                key = leaves[i % len(leaves)]
                old = app.state.nodes[key].status
                new_status = "in-progress" if old == "draft" else "draft"
                text = path_of(key).read_text().replace(f"status: {old}", f"status: {new_status}")
                wanted = lambda: app.state.nodes[key].status == new_status  # noqa: E731
                written = time.perf_counter()
                tmp = path_of(key).with_name(f".lw-bench-{key}.tmp")
                tmp.write_text(text)
                os.replace(tmp, path_of(key))
            else:
                key = visible[i % len(visible)]
                title = f"Renamed {i} {key}"
                wanted = lambda: app.state.nodes[key].title == title  # noqa: E731
                written = time.perf_counter()
                write_title(path_of(key), title)
            while not (wanted() and applied and applied[-1] >= written):
                await asyncio.sleep(0.001)
                if time.perf_counter() - written > 5:
                    raise TimeoutError(f"{key} never changed on screen")
            shown = await next_frame(app)
            latencies[kind].append((shown - written) * 1000)
            cpu.append((time.process_time() - cpu_start) * 1000)
            await asyncio.sleep(0.2)  # let the throttled parts (next task, detail) settle between writes
        report["write_to_screen_ms"] = summary(latencies["status"] + latencies["title"])
        report["write_to_screen_status_ms"] = summary(latencies["status"])
        report["write_to_screen_title_ms"] = summary(latencies["title"])
        report["write_to_screen_cpu_ms"] = summary(cpu)
        print("write → screen", report["write_to_screen_ms"], file=sys.stderr)

        # filter keystroke → redraw
        filter_times = []
        filter_cpu = []
        for text in ("p", "pa", "pay", "paym", "payments", "status:blocked", "@claude-1", "#tech-debt",
                     "release:R2 status:draft", "cache", ""):
            start, cpu_start = time.perf_counter(), time.process_time()
            tree.set_filter(text)
            shown = await next_frame(app)
            filter_times.append((shown - start) * 1000)
            filter_cpu.append((time.process_time() - cpu_start) * 1000)
            await pilot.pause(0.05)
        report["filter_keystroke_ms"] = summary(filter_times)
        report["filter_keystroke_cpu_ms"] = summary(filter_cpu)
        print("filter", report["filter_keystroke_ms"], file=sys.stderr)

        # scrolling: a page down (or back up) until the next frame
        scroll_times = []
        tree.focus()
        tree.action_scroll_home()
        await pilot.pause(0.1)
        for i in range(20):
            start = time.perf_counter()
            tree.action_page_down() if i % 4 < 2 else tree.action_page_up()
            shown = await next_frame(app)
            scroll_times.append((shown - start) * 1000)
            await pilot.pause(0.02)
        report["page_down_ms"] = summary(scroll_times)

        # a burst of writes from another process
        ids = sorted(app.state.nodes)[:burst]
        lag: list[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:
            while not stop.is_set():
                before = time.perf_counter()
                await asyncio.sleep(0.01)
                lag.append((time.perf_counter() - before - 0.01) * 1000)

        ticking = asyncio.create_task(ticker())
        started = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", BURST, str(root), ",".join(ids))
        await proc.wait()
        written = time.perf_counter()
        while not all(app.state.nodes[i].title == f"Burst write {n} on {i}" for n, i in enumerate(ids)):
            await asyncio.sleep(0.005)
            if time.perf_counter() - written > 60:
                raise TimeoutError("the burst never settled")
        settled = time.perf_counter()
        stop.set()
        await ticking
        report["burst"] = {"writes": len(ids), "write_seconds": round(written - started, 2),
                           "settled_after_last_write_ms": round((settled - written) * 1000, 1),
                           "loop_lag_ms": summary(lag)}
        app.exit()
    return report


# --- the workbench views: board, impact ranking, forecast --------------------------------------

JOURNAL_LINES = 50_000


def grow_journal(root: Path, lines: int = JOURNAL_LINES) -> int:
    """Pad the plan's journal to `lines` lines with what agents write most: heartbeats, starts, completes.

    The events are spread over the 120 days before the newest one, in time order, on real leaf ids.
    """
    from datetime import datetime, timedelta, timezone

    journal = root / ".leafwise" / "journal.jsonl"
    have = journal.read_bytes().count(b"\n") if journal.exists() else 0
    leaves = sorted(p.stem for p in (root / ".leafwise" / "nodes").iterdir() if p.suffix == ".yaml")
    start = datetime(2026, 7, 1, tzinfo=timezone.utc)
    out = []
    for i in range(max(0, lines - have)):
        nid = leaves[(i * 7919) % len(leaves)]
        when = (start + timedelta(seconds=i * 200)).strftime("%Y-%m-%dT%H:%M:%SZ")
        kind = i % 10
        if kind < 7:
            event = {"time": when, "actor": f"agent-{i % 5}", "command": "heartbeat", "node": nid, "changes": {},
                     "claim_expires": when}
        elif kind < 9:
            event = {"time": when, "actor": f"agent-{i % 5}", "command": "start", "node": nid,
                     "changes": {"status": ["draft", "in-progress"], "assignee": [None, f"agent-{i % 5}"]}}
        else:
            event = {"time": when, "actor": f"agent-{i % 5}", "command": "complete", "node": nid,
                     "changes": {"status": ["in-progress", "done"]}, "summary": "did it"}
        out.append(json.dumps(event, separators=(",", ":")))
    with journal.open("a") as fh:
        fh.write("\n".join(out) + ("\n" if out else ""))
    return journal.read_bytes().count(b"\n")


def timed(fn, repeat: int = 5) -> dict[str, float]:
    """Median wall and CPU milliseconds of `fn()` over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return {"wall_ms": round(statistics.median(walls), 1), "cpu_ms": round(statistics.median(cpus), 1)}


async def workbench(root: Path, prebuild: bool = False) -> dict[str, object]:
    """The views' figures: as the canvas runs by default (each view built on its first visit), or with
    `prebuild` (CanvasApp(prebuild=True): the views built in the background after opening, and
    visited once that is done)."""
    from leafwise.canvas.app import PREBUILT_VIEWS, make_canvas
    from leafwise.canvas.screens.blocked import BlockedScreen
    from leafwise.canvas.screens.board import BoardScreen, board_cards
    from leafwise.canvas.screens.progress import ProgressScreen
    from leafwise.commands.core.forecast import forecast
    from leafwise.commands.core.impact import rank_stuck
    from leafwise.commands.plan_files import read_lines

    lines = grow_journal(root)
    app = make_canvas(root, watch=False, settings_path=Path(tempfile.mkdtemp()) / "s.json", prebuild=prebuild)
    report: dict[str, object] = {"journal_lines": lines}
    async with app.run_test(size=SIZE) as pilot:
        while app.state is None:
            await asyncio.sleep(0.01)
        shown = time.perf_counter()
        await pilot.pause(1.5)  # the first frames and the validator's first verdict
        if prebuild:
            while not app.prebuilt >= set(PREBUILT_VIEWS) and time.perf_counter() < shown + 30:
                await asyncio.sleep(0.01)
            report["views_built_in_background_s_after_load"] = round(time.perf_counter() - shown, 2)
        state = app.state
        report["core_ms"] = {
            "board_cards (whole plan)": timed(lambda: board_cards(state, None)),
            "rank_stuck (impact ranking)": timed(lambda: rank_stuck(state.plan)),
            "forecast (read 50k-line journal + compute)":
                timed(lambda: forecast(state.plan, read_lines(state.paths.journal))),
        }

        async def view(key: str, screen_type, ready) -> dict[str, float]:
            """The first visit, key press → the first frame showing the view; then its redraw alone, again."""
            await pilot.press("escape")
            await pilot.pause(0.3)
            wall, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            deadline = wall + 30
            while not (isinstance(app.screen, screen_type) and ready(app.screen)):  # the view, filled
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"{key}: the view did not fill")
                await asyncio.sleep(0.001)
            shown = await next_frame(app)  # then its first frame
            first = {"wall_ms": round((shown - wall) * 1000, 1), "cpu_ms": round((time.process_time() - cpu) * 1000, 1)}
            screen = app.screen
            again = timed(screen.redraw if isinstance(screen, BoardScreen) else lambda: screen.redraw(app.state))
            await pilot.pause(0.3)
            return {"first_visit": first, "redraw": again}

        report["views_ms"] = {
            "board (K)": await view("K", BoardScreen,
                                    lambda s: s.query_one("#board-draft").option_count > 0),
            "blocked, ranked by impact (b)": await view("b", BlockedScreen,
                                                        lambda s: s.query_one("#blocked-list").option_count > 0),
            "progress + forecast (p)": await view("p", ProgressScreen, lambda s: bool(s.forecasts)),
        }
        app.exit()
    return report


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50": round(statistics.median(values), 1), "p95": round(percentile(values, 95), 1),
            "max": round(max(values), 1)}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--first-screen-child":
        first_screen_child(sys.argv[2], float(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description="canvas benchmark on an 11,100-node plan")
    parser.add_argument("--dir", type=Path, help="where to generate the plan (default: a temp folder)")
    parser.add_argument("--writes", type=int, default=100, help="external writes timed one by one")
    parser.add_argument("--burst", type=int, default=1000, help="files rewritten in one burst")
    parser.add_argument("--workbench-only", action="store_true",
                        help="only the board, impact ranking and forecast figures (and the first screen)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="leafwise-bench-"))
    root = make_plan(folder)
    shutil.rmtree(root / ".leafwise" / ".cache", ignore_errors=True)
    report: dict[str, object] = {"nodes": sum(1 for _ in (root / ".leafwise" / "nodes").iterdir())}
    report["first_screen_cold_cache_s"], report["first_screen_cold_cache_cpu_s"] = first_screen(root)
    runs = sorted(first_screen(root) for _ in range(5))
    report["first_screen_s"] = [wall for wall, _cpu in runs]
    report["first_screen_cpu_s"] = sorted(cpu for _wall, cpu in runs)
    if not args.workbench_only:
        report.update(asyncio.run(live(root, args.writes, args.burst)))
    report["workbench"] = asyncio.run(workbench(root))  # the default: the figures bench/run.py tabulates
    report["workbench_views_built_in_background"] = asyncio.run(workbench(root, prebuild=True))["views_ms"]
    print(json.dumps(report, indent=1))
    if not args.dir:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
