#!/usr/bin/env python3
"""A person decides the agents' shipped verdicts in the real canvas, one key each (Textual's Pilot drives the keys).

    LEAFWISE_USER="Pat Person" python bench/reconcile_eval/canvas_confirm.py REPO ID=a|x[:NOTE] ...

Opens the canvas on REPO (headless, the same app `leafwise canvas` runs), opens the reconcile view (`r`), moves to
the agents' verdicts and, for each ID named, puts the cursor on its row and presses `a` (confirm: the leaf is
completed with the agent's evidence) or `x` (reject, with NOTE typed into the note dialog). Prints each row as the
view showed it before and after the key, and each node's status after. The decisions are the person's (given on the
command line); this only presses the keys, as the verify loop's last step in the bench (RESULTS.md).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from leafwise.canvas.app import make_canvas
from leafwise.canvas.screens.reconcile import ReconcileScreen
from textual.widgets import Input


async def until(pilot, predicate, what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def rows(listing) -> list[str]:
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def main(repo: Path, decisions: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_canvas(repo, watch=False, settings_path=Path(tmp) / "settings.json")
        async with app.run_test(size=(170, 45)) as pilot:
            await until(pilot, lambda: app.state is not None, "the plan")
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, ReconcileScreen) and app.screen.ran, "the reconcile view")
            listing = app.screen.query_one("#verified-list")
            await until(pilot, lambda: listing.option_count > 0, "the agents' verdicts")
            print(f"{listing.option_count} agent verdict(s) in the view:")
            for row in rows(listing):
                print("  ", row.splitlines()[0])
            for node_id, key, note in decisions:
                index = next((i for i, row in enumerate(rows(listing)) if f"{node_id} " in row), None)
                if index is None:
                    print(f"{node_id}: no row in the view")
                    continue
                listing.focus()
                listing.highlighted = index
                await pilot.pause()
                await pilot.press(key)
                if key == "x":
                    await until(pilot, lambda: bool(app.screen.query(Input)), "the note dialog")
                    app.screen.query_one(Input).value = note
                    await pilot.press("enter")
                want = "confirmed by" if key == "a" else "rejected by"
                await until(pilot, lambda: app.screen is not None and isinstance(app.screen, ReconcileScreen)
                            and any(want in row for row in rows(listing) if f"{node_id} " in row),
                            f"{node_id} {want}")
                after = next(row for row in rows(listing) if f"{node_id} " in row)
                print(f"{node_id} [{key}] -> {after.splitlines()[0]}")
            await pilot.pause(0.5)
            for node_id, _, _ in decisions:
                print(f"{node_id}: {app.state.nodes[node_id].status}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    asked = []
    for arg in sys.argv[2:]:
        node_id, _, rest = arg.partition("=")
        key, _, note = rest.partition(":")
        if key not in ("a", "x"):
            raise SystemExit(f"{arg}: the key is a (confirm) or x (reject)")
        asked.append((node_id, key, note))
    asyncio.run(main(Path(sys.argv[1]), asked))
