"""Every Python child Leafwise starts as `python -m MODULE` passes `-P`: `-m` puts the working directory
first on sys.path, and a child's working directory is the person's clone (the loop server, the merge driver
git runs in the work tree, the canvas tabs of `leafwise serve`), so a committed `json.py` or
`leafwise/__init__.py` there runs in place of the module. (Found with the reconcile worker: a plain clone ran
its `json.py` on `leafwise reconcile`, `verify` and, through the loop server, `leafwise next`.)"""

from __future__ import annotations

import ast
from pathlib import Path

from testkit import source_files

ROOT = Path(__file__).resolve().parents[2]


def _unsafe_starts() -> list[str]:
    found = []
    for top in ("store", "commands", "canvas", "bench"):  # bench's trials start servers in real clones too
        for path in source_files(ROOT / top):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.List) or len(node.elts) < 2:
                    continue
                first = node.elts[0]
                words = [e.value for e in node.elts if isinstance(e, ast.Constant)]
                starts_python = "sys.executable" in ast.unparse(first)
                if starts_python and "-m" in words and "-P" not in words[:words.index("-m")]:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return sorted(found)


def test_the_reconcile_worker_starts_python_without_the_working_directory() -> None:
    assert not [f for f in _unsafe_starts() if f.startswith("commands/reconcile/")]


def test_every_python_child_starts_without_the_working_directory() -> None:
    assert _unsafe_starts() == []
