"""Helpers of the adoption tests: a fresh plan, the imported nodes by their source id, a doc's parts."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from leafwise.store import PlanPaths, load_plan
from testkit import run_cli_in_process

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def plan_root(tmp_path: Path) -> Path:
    root = tmp_path / "plan"
    root.mkdir()
    res = run_cli_in_process("init", "--name", "Adopt", "--prefix", "AD", cwd=root)
    assert res.code == 0, res.stderr
    return root


def imported(root: Path) -> dict[str, dict[str, Any]]:
    """Every node with a source, by its source id: its fields, its doc's text and its file's id."""
    plan = load_plan(PlanPaths(root))
    out = {}
    for node in plan.nodes.values():
        src = node.data.get("source")
        if isinstance(src, dict):
            doc = ""
            if node.docs:
                doc = (root / ".leafwise" / node.docs[0]).read_text(encoding="utf-8")
            out[str(src["id"])] = {**node.data, "_doc": doc, "_release": node.effective_release}
    return out


def extra_fields(doc: str) -> dict[str, Any]:
    """The JSON block of the doc's "Imported fields" section ({} when there is none)."""
    head = doc.find("## Imported fields")
    if head < 0:
        return {}
    start = doc.index("```json\n", head) + len("```json\n")
    return json.loads(doc[start:doc.index("\n```", start)])


def by_id(nodes: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Leafwise id → source id."""
    return {n["id"]: key for key, n in nodes.items()}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under .leafwise/ but the cache and locks, with its bytes."""
    base = root / ".leafwise"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and not str(p.relative_to(base)).startswith((".cache", ".locks"))}


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for the test modules (which import no other test module)."""
    return SimpleNamespace(fixtures=FIXTURES, imported=imported, extra_fields=extra_fields, by_id=by_id,
                           snapshot=snapshot)
