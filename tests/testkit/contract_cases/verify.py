"""Contract cases of the verify commands (see __init__.py)."""

from __future__ import annotations

CASES: dict = {}
AGENT_CASES: dict = {}
NO_AGENT: set[str] = set()
