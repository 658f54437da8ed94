"""The gate `complete` passes through when a bounded cycle owns the task.

Kept apart from `cycles.py` so `complete` imports only this small check.
"""

from __future__ import annotations

from ..store import Node
from .registry import Ctx


def check_complete(ctx: Ctx, node: Node) -> None:
    """Raise CommandError if a running cycle requires a green verify for `node` first."""
    folder = ctx.paths().cycles
    if not folder.is_dir():
        return
    try:
        from .cycles import require_green_verify
    except ImportError:  # cycles not installed in this build
        return
    require_green_verify(ctx, node)
