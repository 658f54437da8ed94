"""What one key press in the plan view costs: CPU per cursor move and per filter keystroke.

    python bench/canvas_keys.py [--big | --plan DIR] [--keys 40] [--verbose] [--profile OUT.prof]

Opens the real canvas headless (Textual's test driver, 160×45) on a copy of the demo plan, or with
`--big` on the generated 11,100-node plan (bench/generate.py), and measures each key twice over,
in process CPU time (all threads):

- as a person: the key is posted to the app, which then runs alone for 0.25 s (longer than the
  detail pane's wait before it reads the journal and docs, so that read is counted); the CPU an
  idle app spends in 0.25 s (its timers) is measured the same way and reported beside it;
- as a test: Pilot's `press`, then Pilot's `pause` and the screen's `wait_for_refresh` (Textual's
  public calls), what the canvas tests do for every key. Pilot visits every widget of the screen
  on each wait, so this also grows with the number of widgets.

The keys: `j`/`k` in the tree (down to the last row, then back up), then letters typed into the
filter and deleted again. It counts the screen's full layouts and the footer's recomposes while the
keys run (cProfile, by function name): the costs a key should not pay when nothing changes size.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "canvas" / "demo" / "shop"
SIZE = (160, 45)
REST = 0.25  # seconds the app runs alone after a key (the detail pane reads the disk after 0.12 s)
WORD = "checkout payments"


def plan(folder: Path, big: bool, given: Path | None = None) -> Path:
    if given is not None:
        shutil.copytree(given, folder / "plan")
        return folder / "plan"
    if big:
        sys.path.insert(0, str(HERE))
        from generate import generate  # bench/generate.py

        root = folder / "big"
        generate(root, releases=4, epics=25, features=10, leaves=10)
        return root
    shutil.copytree(DEMO, folder / "shop")
    return folder / "shop"


async def settle(app, pilot) -> None:
    await pilot.pause()
    await app.screen.wait_for_refresh()
    await pilot.pause()


async def as_person(app, key: str) -> float:
    from textual import events

    start = time.process_time()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    await asyncio.sleep(REST)
    return time.process_time() - start


async def as_test(app, pilot, key: str) -> float:
    start = time.process_time()
    await pilot.press(key)
    await settle(app, pilot)
    return time.process_time() - start


def calls(profile: cProfile.Profile, name: str, where: str) -> int:
    """How often Textual's `where` (a file name) ran `name`."""
    stats = pstats.Stats(profile)
    return sum(row[1] for (file, _line, func), row in stats.stats.items()  # type: ignore[attr-defined]
               if func == name and Path(file).name == where)


def tree_keys(tree, count: int) -> list[str]:
    """`j` to the last row, then `k` to the first, and so on: every key moves the cursor."""
    keys, line, step = [], tree.cursor_line, 1
    for _ in range(count):
        if not 0 <= line + step <= tree.last_line:
            step = -step
        keys.append("j" if step > 0 else "k")
        line += step
    return keys


async def run(app, pilot, keys: list[str], press) -> list[float]:
    spent = []
    for key in keys:
        spent.append(await press(key))
    return spent


async def session(root: Path, folder: Path, count: int, out: str | None) -> dict[str, object]:
    from leafwise.canvas.app import make_canvas
    from leafwise.canvas.widgets.plan_tree import PlanTree

    app = make_canvas(root, watch=False, settings_path=folder / "settings.json")
    report: dict[str, object] = {}
    typed = list((WORD * (count // len(WORD) + 1))[: count // 2])
    typing = typed + ["backspace"] * len(typed)
    async with app.run_test(size=SIZE) as pilot:
        while app.state is None or not app.screen.query_one(PlanTree).visible_keys():
            await pilot.pause(0.05)
        await settle(app, pilot)
        await asyncio.sleep(1.0)  # the validator's first run and the detail's first read are over
        await settle(app, pilot)
        tree = app.screen.query_one(PlanTree)
        idle = []
        for _ in range(5):
            start = time.process_time()
            await asyncio.sleep(REST)
            idle.append(time.process_time() - start)
        report["idle app"] = idle
        profile = cProfile.Profile()
        profile.enable()
        report["cursor (person)"] = await run(app, pilot, tree_keys(tree, count), lambda k: as_person(app, k))
        report["cursor (test)"] = await run(app, pilot, tree_keys(tree, count), lambda k: as_test(app, pilot, k))
        await pilot.press("slash")
        await settle(app, pilot)
        report["filter (person)"] = await run(app, pilot, typing, lambda k: as_person(app, k))
        report["filter (test)"] = await run(app, pilot, typing, lambda k: as_test(app, pilot, k))
        profile.disable()
        report["full layouts"] = calls(profile, "_refresh_layout", "screen.py")
        report["footer recomposes"] = calls(profile, "recompose", "widget.py")  # Widget.recompose
        report["widgets"] = len(list(app.screen.walk_children(with_self=True)))
        if out:
            profile.dump_stats(out)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="the generated 11,100-node plan")
    parser.add_argument("--plan", type=Path, help="a copy of this plan instead")
    parser.add_argument("--keys", type=int, default=40, help="keys of each kind")
    parser.add_argument("--verbose", action="store_true", help="every key's CPU time")
    parser.add_argument("--profile", help="write the cProfile of the key presses here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        root = plan(folder, args.big, args.plan)
        report = asyncio.run(session(root, folder, args.keys, args.profile))
    for what in ("idle app", "cursor (person)", "cursor (test)", "filter (person)", "filter (test)"):
        times = report[what]
        assert isinstance(times, list)
        print(f"{what:>16}: median {statistics.median(times) * 1000:6.1f} ms CPU, "
              f"max {max(times) * 1000:6.1f} ms, total {sum(times):.2f} s over {len(times)} keys")
        if args.verbose:
            print(" " * 18 + " ".join(f"{t * 1000:.0f}" for t in times))
    print(f"{'full layouts':>16}: {report['full layouts']}   footer recomposes: {report['footer recomposes']}   "
          f"widgets on the screen at the end: {report['widgets']}")


if __name__ == "__main__":
    main()
