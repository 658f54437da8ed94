"""The benchmark's plan generator writes a plan the real CLI accepts, of the promised size."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import yaml

from conftest import REPO, run_cli

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
