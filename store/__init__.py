"""Persistence: YAML files <-> the plan model; atomic writes, locks, cache, journal.

Nothing here knows about hints, commands or the UI.
"""

from leafwise.store.loader import LoadStats, load_plan
from leafwise.store.model import (
    CLOSED,
    OPEN,
    PRIORITIES,
    PRIORITY_RANK,
    STATUSES,
    Node,
    Plan,
    Problem,
    Project,
    Release,
    Status,
    priority_rank,
)
from leafwise.store.paths import PlanNotFound, PlanPaths, UnsafePath, find_root

__all__ = [
    "CLOSED", "OPEN", "PRIORITIES", "PRIORITY_RANK", "STATUSES", "LoadStats", "Node", "Plan", "PlanNotFound",
    "PlanPaths", "Problem", "Project", "Release", "Status", "UnsafePath", "find_root", "load_plan", "priority_rank",
]
