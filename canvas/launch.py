"""`leafwise` and `leafwise canvas [--follow [--every SECONDS]]`: open the canvas on the plan found from here."""

from __future__ import annotations

import sys

from leafwise.commands.contract import EXIT_INVALID, EXIT_NOT_FOUND, EXIT_USAGE
from leafwise.store import PlanNotFound
from leafwise.store.paths import PlanUnsafe


def run_canvas(root: str | None, *, follow: bool = False, every: float | None = None) -> int:
    """Open the canvas (with `follow`, polling the team's remote every `every` seconds); without a plan,
    say so with the fix (exit 5, as the CLI's not-found)."""
    from leafwise.canvas.app import make_canvas

    if every is not None and not every > 0:
        print(f"Error: --every {every:g} is not a number of seconds above 0", file=sys.stderr)
        print("Fix: leafwise canvas --follow --every 10", file=sys.stderr)
        return EXIT_USAGE
    try:
        app = make_canvas(root, follow=follow, every=every)
    except (PlanUnsafe, PlanNotFound) as exc:
        return refused(exc)
    app.run()
    return app.return_code or 0


def refused(exc: PlanUnsafe | PlanNotFound) -> int:
    """The canvas (or `serve`) cannot open the plan: say so with the fix, exit as the CLI would."""
    print(f"Error: {exc}", file=sys.stderr)
    if isinstance(exc, PlanUnsafe):  # the CLI's own refusal: a link or a FIFO among the plan's own files
        print("Fix: leafwise repair --dry-run" if exc.repairable else "Fix: leafwise doctor", file=sys.stderr)
        return EXIT_INVALID
    print("Fix: leafwise init", file=sys.stderr)
    print("Or: leafwise demo", file=sys.stderr)
    return EXIT_NOT_FOUND
