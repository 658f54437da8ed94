"""Checking a value where it is read from a file: numbers finite, whole and in range; text bounded.

A file anyone can commit may hold `.inf`, `1e400`, `true` or a 4,000-digit number where a count
belongs; `int(.inf)` raises OverflowError, which no caller expects. Readers of claims, cycles
and settings call these and turn the ValueError into that file's problem.
"""

from __future__ import annotations

import math
from typing import Any

MAX_COUNT = 10**12  # far past any count a plan keeps (tokens, iterations)


def whole(value: Any, name: str, *, low: int = 0, high: int = MAX_COUNT) -> int:
    """`value` as an int in [low, high]; ValueError naming `name` for anything else (a bool, text,
    NaN, infinity, a fraction, a number out of range)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a whole number, not {str(value)[:40]!r}")
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low:,} and {high:,}, not {str(value)[:40]}")
    return int(value)


def number(value: Any, name: str, *, low: float, high: float) -> float:
    """A finite number in [low, high] (a TTL, a threshold); ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, not {str(value)[:40]!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low:g} and {high:g}, not {str(value)[:40]}")
    return float(value)


def text(value: Any, name: str, *, limit: int, optional: bool = True) -> str | None:
    """Text of at most `limit` characters (None allowed when `optional`); ValueError otherwise."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, not {type(value).__name__}")
    if len(value) > limit:
        raise ValueError(f"{name} is {len(value):,} characters; at most {limit:,}")
    return value


def texts(value: Any, name: str, *, limit: int, count: int = 1000) -> list[str]:
    """A list of at most `count` texts of at most `limit` characters each (None is an empty list)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{name} must be a list, not {type(value).__name__}")
    if len(value) > count:
        raise ValueError(f"{name} holds {len(value):,} items; at most {count:,}")
    return [text(v if not isinstance(v, (int, float)) or isinstance(v, bool) else str(v), f"{name} item",
                 limit=limit, optional=False) or "" for v in value]
