"""Test helpers: real plans in temporary folders, the real CLI in a subprocess."""

from __future__ import annotations

import ast
import functools
import io
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from testkit import cli_fork

REPO = Path(__file__).resolve().parents[2]
DEMO_PLAN = REPO / "canvas" / "demo" / "shop"

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = 30.0, *, what: str | None = None,
               interval: float = 0.02) -> T:
    """Poll `predicate()` every `interval` seconds until it returns a true value, and return that value.

    Fails after `timeout` seconds naming `what` (or the predicate) and its last answer. Wait for the
    thing itself, never for a fixed time: a loaded 2-core machine makes any fixed time too short.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            name = what or getattr(predicate, "__name__", repr(predicate))
            raise AssertionError(f"timed out after {timeout:g} s waiting for {name} (last: {value!r})")
        time.sleep(interval)


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
            timeout: float = 60, fresh: bool = False) -> CliResult:
    """Run the real `leafwise` CLI in a subprocess: forked from a server that has imported it
    (`cli_fork`), or, with `fresh` (or where the fork could differ), a new interpreter."""
    full_env = {**os.environ, "LEAFWISE_AGENT": "", **(env or {})}
    full_env.pop("LEAFWISE_ROOT", None)
    if not fresh and not cli_fork.needs_exec(full_env):
        return CliResult(*cli_fork.run(list(args), cwd, full_env, stdin, timeout))
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=timeout)
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_cli_in_process(*args: str, cwd: Path | str, env: dict[str, str] | None = None) -> CliResult:
    """The CLI's own `main()` in this process, as `run_cli` runs it in a child: the same words, folder and
    environment, its output through UTF-8 streams like a pipe's.

    No interpreter start-up (about 0.4 s a call on this machine): for a test that asks the CLI about
    every node of a plan. Keep some `run_cli` calls beside it: start-up, imports and exit codes as a
    real process sees them are only tested there.
    """
    from leafwise.commands.surfaces.cli import main

    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True))
    saved_env, saved_cwd, saved_streams = dict(os.environ), os.getcwd(), (sys.stdout, sys.stderr)
    full_env = {**os.environ, "LEAFWISE_AGENT": "", **(env or {})}
    full_env.pop("LEAFWISE_ROOT", None)
    os.environ.clear()
    os.environ.update(full_env)
    os.chdir(cwd)
    sys.stdout, sys.stderr = streams
    try:
        main(list(args))
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return CliResult(code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"))


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


def process_gone(pid: int) -> bool:
    """Whether no process has this id any more (a worker killed at its deadline, or ended with its parent)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def source_files(folder: Path) -> list[Path]:
    """Our Python files under `folder`, in order: no `__pycache__`, and no dot folder (bench's checked-out
    evaluation repositories hold other projects' code, some of it templates that do not parse)."""
    return sorted(p for p in folder.rglob("*.py")
                  if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(folder).parts))


@functools.lru_cache(maxsize=None)
def parsed(source: str) -> ast.Module:
    """`source`'s syntax tree, parsed once per test process: the one-home scans each read every module of
    the package, and parsing is most of their cost. Callers only read the tree."""
    return ast.parse(source)


@functools.lru_cache(maxsize=None)
def walked(source: str) -> tuple[ast.AST, ...]:
    """Every node of `source`'s tree (`ast.walk`'s order), kept like `parsed`."""
    return tuple(ast.walk(parsed(source)))
