"""Test helpers: real plans in temporary folders, the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO_PLAN = REPO / "canvas" / "demo" / "shop"


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    @property
    def last_lines(self) -> list[str]:
        text = self.stderr if self.code else self.stdout
        return [line for line in text.splitlines() if line.strip()]


def run_cli(*args: str, cwd: Path | str, stdin: str | None = None, env: dict[str, str] | None = None,
            timeout: float = 60) -> CliResult:
    """Run the real `leafwise` CLI in a subprocess."""
    full_env = {**os.environ, "LEAFWISE_AGENT": "", **(env or {})}
    full_env.pop("LEAFWISE_ROOT", None)
    proc = subprocess.run([sys.executable, "-m", "leafwise.commands.surfaces.cli", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=timeout)
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def write_plan(root: Path, nodes: dict[str, str] | list[dict[str, Any]], *, releases=("R1", "R2", "R3"),
               prefix: str = "T") -> Path:
    """A plan in `root/.leafwise`: nodes as raw YAML texts by id, or as dicts."""
    plan = root / ".leafwise"
    (plan / "nodes").mkdir(parents=True, exist_ok=True)
    (plan / "docs").mkdir(exist_ok=True)
    rel = "".join(f"  - {{id: {r}, title: Release {r}}}\n" for r in releases)
    (plan / "project.yaml").write_text(
        f"schema: 1\npid: test\nname: Test\nid_prefix: {prefix}\nreleases:\n{rel}" if releases
        else f"schema: 1\npid: test\nname: Test\nid_prefix: {prefix}\nreleases: []\n")
    items = nodes.items() if isinstance(nodes, dict) else ((n["id"], n) for n in nodes)
    for node_id, body in items:
        if isinstance(body, dict):
            lines = []
            for key, value in body.items():
                lines.append(f"{key}: {json.dumps(value)}")
            text = "\n".join(lines) + "\n"
        else:
            text = textwrap.dedent(body).lstrip()
        (plan / "nodes" / f"{node_id}.yaml").write_text(text)
    return root


def journal(root: Path) -> list[dict[str, Any]]:
    """The plan's journal events in order ([] before the first write)."""
    path = Path(root) / ".leafwise" / "journal.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def node_data(root: Path, node_id: str) -> dict[str, Any]:
    """A node's file as data, read by the store's loader (timestamps stay the strings the file has)."""
    from leafwise.store import load_plan
    from leafwise.store.paths import find_root

    return load_plan(find_root(explicit=root)).nodes[node_id].data


def node(node_id: str, title: str, status: str = "draft", **fields: Any) -> dict[str, Any]:
    return {"id": node_id, "title": title, "status": status, **fields}
