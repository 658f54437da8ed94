"""Reconcile's and the verify packet's child process imports nothing from the clone it scans. It was
started as `python -m leafwise.commands.reconcile.worker` in the person's working directory, and `-m` puts
that directory first on sys.path: a committed `json.py`, `dataclasses.py`, `signal.py` or
`leafwise/__init__.py` at the repository's top ran on `leafwise reconcile` and `leafwise verify P1-2`
from a plain clone (marker files). Generated: a module file for every name of the standard library,
plus the packages Leafwise imports, each writing a marker when run. Real git, a clone, the real CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from testkit.repos import LEAFWISE, plan_repo, run

THIRD_PARTY = ("leafwise", "re2", "yaml", "ruamel", "tree_sitter", "tree_sitter_python", "tree_sitter_javascript",
               "tree_sitter_typescript", "click", "mcp", "anyio", "pydantic", "textual", "rich", "watchfiles")


def test_no_module_of_the_clone_runs_in_the_scan_worker(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    src = tmp_path / "src"
    plan_repo(src)
    run(src, LEAFWISE, "add", "Export orders as CSV")
    (src / "app").mkdir()
    (src / "app" / "export.py").write_text("def export_orders_csv(orders):\n    return ','.join(orders)\n")
    names = sorted(set(sys.stdlib_module_names) - {"__future__"})
    for name in names:
        (src / f"{name}.py").write_text(f"open({str(marks / name)!r}, 'w').write('ran')\n")
    for name in THIRD_PARTY:
        (src / name).mkdir()
        (src / name / "__init__.py").write_text(f"open({str(marks / name)!r}, 'w').write('ran')\n")
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "plant")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    reconciled = run(clone, LEAFWISE, "reconcile", "--json", code=None)
    packet = run(clone, LEAFWISE, "verify", "P1-1", "--json", code=None)
    assert sorted(p.name for p in marks.iterdir()) == []
    assert reconciled.returncode == 0, reconciled.stdout + reconciled.stderr
    assert packet.returncode == 0, packet.stdout + packet.stderr
