"""Contract cases by area: each module here (team.py, adoption.py, …) declares the cases of its own
commands, so the contract tests cover a new command without two areas editing one file.

A module defines any of:
- `CASES`: command -> (success case, error case, …) for tests/contract/test_contract.py;
- `AGENT_CASES`: the same, without --agent (the test adds it), for test_agent_in_hints.py;
- `NO_AGENT`: its commands that take no --agent (read-only, or a person's own act).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    code: int = 0
    where: str = "plan"  # "plan": a copy of the demo plan; "empty": a folder with no plan above it
    stdin: str | None = None
    mcp: dict[str, Any] | None = None  # tool arguments when the CLI form reads a file or stdin
    setup: Callable[[Path], None] | None = field(default=None, compare=False)
    trusted: tuple[str, ...] = ()  # commands from plan files the person approved for each copy (leafwise trust)


def ok(*args: str, **kw: Any) -> Case:
    return Case(args, 0, **kw)


def err(code: int, *args: str, **kw: Any) -> Case:
    return Case(args, code, **kw)


@dataclass(frozen=True)
class AgentCase:
    args: tuple[str, ...]  # without --agent: the test adds it
    code: int
    setup: Callable[[Path], None] | None = field(default=None, compare=False)
    where: str = "plan"  # "plan": a copy of the demo plan; "empty": an empty folder
    stdin: str | None = None
    mcp: dict[str, Any] | None = None  # the tool's arguments when the CLI reads a file or stdin


def _areas():
    for info in pkgutil.iter_modules(__path__):
        yield importlib.import_module(f"{__name__}.{info.name}")


def area_cases() -> dict[str, tuple[Case, ...]]:
    return {name: cases for module in _areas() for name, cases in getattr(module, "CASES", {}).items()}


def area_agent_cases() -> dict[str, tuple[AgentCase, ...]]:
    return {name: cases for module in _areas() for name, cases in getattr(module, "AGENT_CASES", {}).items()}


def area_no_agent() -> set[str]:
    return {name for module in _areas() for name in getattr(module, "NO_AGENT", ())}
