"""`leafwise` and `leafwise canvas`: open the canvas on the plan found from here."""

from __future__ import annotations

import sys

from leafwise.commands.contract import EXIT_NOT_FOUND
from leafwise.store import PlanNotFound


def run_canvas(root: str | None) -> int:
    """Open the canvas; without a plan, say so with the fix (exit 5, as the CLI's not-found)."""
    from leafwise.canvas.app import make_canvas

    try:
        app = make_canvas(root)
    except PlanNotFound as exc:
        print(f"Error: {exc}", file=sys.stderr)
        print("Fix: leafwise init", file=sys.stderr)
        print("Or: leafwise demo", file=sys.stderr)
        return EXIT_NOT_FOUND
    app.run()
    return app.return_code or 0
