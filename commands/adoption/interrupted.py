"""Validate's, doctor's and every command's check for an interrupted import: one lstat of the
manifest's place when there is none (`recovery.problems` says what repair will do when there is)."""

from __future__ import annotations

import os

from leafwise.commands.adoption.manifest import path
from leafwise.store import Problem
from leafwise.store.paths import PlanPaths


def problems(paths: PlanPaths, repair: str = "leafwise repair") -> list[Problem]:
    if not os.path.lexists(path(paths)):
        return []
    from leafwise.commands.adoption import recovery

    return recovery.problems(paths, repair)
