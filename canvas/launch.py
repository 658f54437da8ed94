"""`leafwise` and `leafwise canvas`: open the canvas on the plan found from here."""

from __future__ import annotations

import sys

from leafwise.commands.contract import EXIT_INVALID, EXIT_NOT_FOUND
from leafwise.store import PlanNotFound
from leafwise.store.paths import PlanUnsafe


def run_canvas(root: str | None) -> int:
    """Open the canvas; without a plan, say so with the fix (exit 5, as the CLI's not-found)."""
    from leafwise.canvas.app import make_canvas

    try:
        app = make_canvas(root)
    except PlanUnsafe as exc:  # the CLI's own refusal: a link or a FIFO among the plan's own files
        print(f"Error: {exc}", file=sys.stderr)
        print("Fix: leafwise repair --dry-run" if exc.repairable else "Fix: leafwise doctor", file=sys.stderr)
        return EXIT_INVALID
    except PlanNotFound as exc:
        print(f"Error: {exc}", file=sys.stderr)
        print("Fix: leafwise init", file=sys.stderr)
        print("Or: leafwise demo", file=sys.stderr)
        return EXIT_NOT_FOUND
    app.run()
    return app.return_code or 0
