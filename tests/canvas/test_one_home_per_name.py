"""The canvas writes no second copy of a rule that has a home, and gives no name a second meaning.

Cutting and making text inert live in `commands/text.py`, status words in `commands/core/views.py`,
open/closed in `store/model.py`, the progress bar in `canvas/look.py` (`bar_runs`). A canvas module
that defines one of these names again, or draws bar cells itself, fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from testkit import parsed

CANVAS = Path(__file__).resolve().parents[2] / "canvas"
HOMED_ELSEWHERE = {"cut", "one_line", "clean", "inert", "plain", "STATUS_WORD", "STATUS_WORDS", "status_word",
                   "OPEN_STATUSES", "CLOSED_STATUSES", "OPEN", "CLOSED", "NO_RELEASE", "utc_now", "parse_time"}
BAR_CELLS = re.compile(r"""["'][━·]["']\s*\*""")  # a run of bar cells drawn by repetition


def modules() -> list[Path]:
    return sorted(p for p in CANVAS.rglob("*.py") if "demo" not in p.relative_to(CANVAS).parts)


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level (its API; locals and methods are left out)."""
    names: set[str] = set()
    for item in tree.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(item.name)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_no_canvas_module_defines_a_name_whose_rule_lives_elsewhere():
    found = {str(p.relative_to(CANVAS)): sorted(defined_names(parsed(p.read_text())) & HOMED_ELSEWHERE)
             for p in modules()}
    assert {k: v for k, v in found.items() if v} == {}


def test_only_the_canvas_bar_draws_bar_cells():
    drawing = [str(p.relative_to(CANVAS)) for p in modules() if BAR_CELLS.search(p.read_text())]
    assert drawing == ["look.py"]
