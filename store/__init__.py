"""Persistence: YAML files <-> the plan model; atomic writes, locks, cache, journal.

Nothing here knows about hints, commands or the UI.

The names below are imported on first use (PEP 562), so a module of the store that needs none of
them (`store/memo.py`, on the path of every remembered answer) does not load the plan's model.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "LoadStats": "loader", "load_plan": "loader",
    "CLOSED": "model", "OPEN": "model", "PRIORITIES": "model", "PRIORITY_RANK": "model", "STATUSES": "model",
    "Node": "model", "Plan": "model", "Problem": "model", "Project": "model", "Release": "model",
    "Status": "model", "priority_rank": "model",
    "PlanNotFound": "paths", "PlanPaths": "paths", "UnsafePath": "reader", "find_root": "paths",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
