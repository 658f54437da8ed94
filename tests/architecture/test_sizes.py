"""Small modules and short functions: every module of store/, commands/ and canvas/ is at most 500 lines,
every function at most 60, unless a `# long: <why>` comment says why.

For a function the comment sits on the line directly above its `def` (above its decorators, if any); for a
module it is one of the module's first lines. An AST scan of every module; each violation is named by
file:line so the fix starts there.
"""

from __future__ import annotations

import ast
from pathlib import Path
from testkit import walked

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("store", "commands", "canvas")
MODULE_LIMIT = 500
FUNCTION_LIMIT = 60
REASON = "# long:"
MODULE_HEAD = 5  # a module's reason is one of its first lines


def _says_why(line: str) -> bool:
    return line.strip().startswith(REASON) and len(line.strip()) > len(REASON) + 1


def violations(source: str, name: str) -> list[str]:
    """Each module over MODULE_LIMIT lines and each function over FUNCTION_LIMIT lines with no reason above it."""
    lines = source.splitlines()
    found = []
    if len(lines) > MODULE_LIMIT and not any(_says_why(line) for line in lines[:MODULE_HEAD]):
        found.append(f"{name}:1: module of {len(lines)} lines (limit {MODULE_LIMIT})")
    for item in walked(source):
        if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = (item.end_lineno or item.lineno) - item.lineno + 1
        top = min([item.lineno, *(d.lineno for d in item.decorator_list)])
        above = lines[top - 2] if top >= 2 else ""
        if length > FUNCTION_LIMIT and not _says_why(above):
            found.append(f"{name}:{item.lineno}: {item.name} is {length} lines (limit {FUNCTION_LIMIT})")
    return found


def test_no_module_or_function_is_too_long_without_a_reason() -> None:
    modules = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert len(modules) >= 50, "the scan must see the packages' modules"
    found = [v for p in modules for v in violations(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))]
    assert found == [], "split by meaning, or say why above it with '# long: <why>':\n" + "\n".join(found)


def _function(length: int, above: str = "", decorator: bool = False) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(length - 1))
    return f"{above}{'@cache' + chr(10) if decorator else ''}def f():\n{body}"


def test_the_scan_counts_lines_and_reads_the_reason() -> None:
    assert violations(_function(60), "m.py") == []
    assert violations(_function(61), "m.py") == ["m.py:1: f is 61 lines (limit 60)"]
    assert violations(_function(61, "# long: one table, read top to bottom\n"), "m.py") == []
    assert violations(_function(61, "# long: the reason\n", decorator=True), "m.py") == []
    assert violations(_function(61, "# long:\n"), "m.py") != [], "a reason must say something"
    assert violations(_function(61, "# long: far above\n\n"), "m.py") != [], "the reason sits directly above"
    method = "class C:\n" + "".join("    " + line + "\n" for line in _function(61).splitlines())
    assert violations(method, "m.py") == ["m.py:2: f is 61 lines (limit 60)"]
    module = "x = 1\n" * 501
    assert violations(module, "m.py") == ["m.py:1: module of 501 lines (limit 500)"]
    assert violations("# long: generated table\n" + module, "m.py") == []
