"""The benchmark's plan generator writes a plan the real CLI accepts, of the promised size."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import yaml
from testkit import REPO, run_cli

_spec = importlib.util.spec_from_file_location("bench_generate", REPO / "bench" / "generate.py")
bench_generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_generate)


def test_generated_plan_is_valid_and_counted(tmp_path: Path) -> None:
    written = bench_generate.generate(tmp_path, releases=2, epics=3, features=3, leaves=4, seed=1)
    expected = 2 * 3 * (1 + 3 + 3 * 4)
    assert written == expected == bench_generate.count(2, 3, 3, 4)
    files = sorted((tmp_path / ".leafwise" / "nodes").glob("*.yaml"))
    assert len(files) == expected

    checked = run_cli("validate", "--json", cwd=tmp_path)
    assert checked.code == 0, checked.stdout + checked.stderr
    body = checked.json["result"]
    assert body["valid"] is True and body["nodes"] == expected and body["warnings"] == 0

    nodes = [yaml.safe_load(f.read_text()) for f in files]
    statuses = Counter(n["status"] for n in nodes)
    assert statuses["done"] and statuses["draft"]  # a plan mid-way, not all one status
    assert all(n.get("assignee") for n in nodes if n["status"] == "in-progress" and n.get("parent")
               and not any(m.get("parent") == n["id"] for m in nodes))

    picked = run_cli("next", "--json", cwd=tmp_path)
    assert picked.code == 0 and picked.json["result"]["task"] is not None


def test_shape_for_node_counts() -> None:
    assert bench_generate.shape_for(11_100) == (4, 25, 10, 10)
    assert bench_generate.count(*bench_generate.shape_for(1_110)) == 1_110
    assert abs(bench_generate.count(*bench_generate.shape_for(50_000)) - 50_000) < 500


def test_peer_spec_converts_to_a_valid_plan(tmp_path: Path) -> None:
    spec = tmp_path / "plan.json"
    spec.write_text(json.dumps([
        {"id": 1, "title": "Add retry logic in CLI", "description": "Retry: with backoff.", "status": "done",
         "priority": "high", "deps": [], "labels": ["dx"], "assignee": None, "acceptance": ["Retries: 3"],
         "created": "2025-01-06T09:37:00+00:00"},
        {"id": 2, "title": "Fix pagination in user API", "description": "d", "status": "in_progress",
         "priority": "low", "deps": [1], "labels": [], "assignee": None, "acceptance": [],
         "created": "2025-01-06T10:00:00+00:00"},
        {"id": 3, "title": "Test audit log in event bus", "description": "d", "status": "todo",
         "priority": "medium", "deps": [1], "labels": ["testing"], "assignee": "bob", "acceptance": [],
         "created": "2025-01-06T11:00:00+00:00"},
    ]))
    root = tmp_path / "peer"
    assert bench_generate.from_peer_spec(spec, root) == 3
    assert run_cli("validate", "--json", cwd=root).json["result"]["valid"] is True
    picked = run_cli("next", "--json", cwd=root).json["result"]["task"]
    assert picked["id"] == "PEER-3" and picked["depends_on"] == ["PEER-1"]
    assert picked["description"] == "d"
