"""Re-make the README's screenshots: the real canvas on a copy of the demo plan, exported by the app itself.

    python docs/screenshots/update.py            # writes plan.svg, board.svg, blocked.svg, progress.svg here
    python docs/screenshots/update.py --out DIR

Headless (Textual's test driver), at a fixed size, with the display clock pinned to the day after the
demo's last journal event and the time zone set to UTC, so the pictures change only when the canvas does.
The demo plan is copied to a temporary folder first: nothing here writes to the repository's plan.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent.parent / "canvas" / "demo" / "shop"
SIZE = (140, 40)
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)  # the snapshot tests' clock
# file name → (keys pressed on the plan screen, the picture's title)
SHOTS = {
    "plan": ((), "Leafwise: the plan"),
    "board": (("K",), "Leafwise: the board"),
    "blocked": (("b",), "Leafwise: blocked work, ranked by what it holds up"),
    "progress": (("p",), "Leafwise: progress and forecast"),
}


async def settle(app, pilot) -> None:
    while app.state is None:
        await pilot.pause(0.02)
    await pilot.pause(0.4)
    await app.workers.wait_for_complete()
    await pilot.pause(0.3)


async def shoot(plan: Path, name: str, keys: tuple[str, ...], title: str, out: Path, settings: Path) -> Path:
    from leafwise.canvas.app import make_canvas

    app = make_canvas(plan, watch=False, settings_path=settings, clock=lambda: NOW, prebuild=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        if keys:
            await pilot.press(*keys)
            await settle(app, pilot)
        for field in app.screen.query("Input"):
            field.cursor_blink = False
        target = out / f"{name}.svg"
        target.write_text(app.export_screenshot(title=title), encoding="utf-8")
        app.exit()
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for the SVGs (default: docs/screenshots)")
    args = parser.parse_args()
    os.environ["TZ"] = "UTC"
    time.tzset()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="leafwise-shots-") as tmp:
        plan = Path(tmp) / "shop"
        shutil.copytree(DEMO, plan, ignore=shutil.ignore_patterns(".cache", "__pycache__"))
        os.environ["LEAFWISE_CONFIG_DIR"] = str(Path(tmp) / "config")  # no trust store or settings of yours
        for name, (keys, title) in SHOTS.items():
            settings = Path(tmp) / f"settings-{name}.json"
            path = asyncio.run(shoot(plan, name, keys, title, args.out, settings))
            print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
