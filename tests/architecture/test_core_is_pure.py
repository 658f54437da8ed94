"""`commands/core/` holds pure rules: no process, no file and no folder is touched there (the callers
read what the rules need, e.g. `commands/plan_files.py`). An AST scan of every module in it."""

from __future__ import annotations

import ast
from pathlib import Path
from testkit import parsed

CORE = Path(__file__).resolve().parents[2] / "commands" / "core"
MODULES = ("subprocess", "glob", "shutil", "os", "pathlib", "io", "tempfile")
CALLS = {"open"}  # a bare call
METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "open", "exists", "iterdir", "glob", "rglob",
           "is_file", "is_dir", "stat", "walk", "listdir", "scandir", "unlink", "mkdir", "touch", "resolve"}


def impurities(tree: ast.AST) -> list[str]:
    found = []
    for item in ast.walk(tree):
        if isinstance(item, ast.Import):
            found += [f"{item.lineno}: import {a.name}" for a in item.names if a.name.split(".")[0] in MODULES]
        elif isinstance(item, ast.ImportFrom) and (item.module or "").split(".")[0] in MODULES:
            found.append(f"{item.lineno}: from {item.module} import …")
        elif isinstance(item, ast.Call):
            func = item.func
            if isinstance(func, ast.Name) and func.id in CALLS:
                found.append(f"{item.lineno}: {func.id}(…)")
            elif isinstance(func, ast.Attribute) and func.attr in METHODS:
                found.append(f"{item.lineno}: .{func.attr}(…)")
    return found


def test_no_module_of_core_touches_a_process_or_a_file() -> None:
    modules = sorted(CORE.rglob("*.py"))
    assert len(modules) >= 10, "the scan must see the core's modules"
    found = {str(p.relative_to(CORE)): bad for p in modules
             if (bad := impurities(parsed(p.read_text(encoding="utf-8"))))}
    assert found == {}, f"core must stay pure; read at the caller instead: {found}"


def test_the_scan_finds_each_kind_of_impurity() -> None:
    sample = ("import subprocess\nfrom os import walk\nimport shutil\nfrom glob import glob\n"
              "open('x')\np.read_text()\np.exists()\np.iterdir()\nos.listdir('.')\nos.scandir('.')\n")
    assert len(impurities(parsed(sample))) == 10
