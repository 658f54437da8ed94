"""Open/closed and the priority order have one home, `store/schema.py` (re-exported by `store/model.py`),
and nothing writes them out again."""

from __future__ import annotations

import ast
from pathlib import Path

from leafwise.store.model import CLOSED, OPEN, PRIORITIES, PRIORITY_RANK, STATUSES, Status, priority_rank
from testkit import parsed, source_files

ROOT = Path(__file__).resolve().parents[2]
STATUS_WORDS = set(STATUSES)
PRIORITY_WORDS = set(PRIORITIES)


def test_blocked_is_open_and_only_done_and_cancelled_are_closed() -> None:
    assert CLOSED == {"done", "cancelled"}
    assert OPEN == {"draft", "in-progress", "blocked"}
    assert OPEN | CLOSED == set(Status) and not OPEN & CLOSED


def test_unset_and_planted_priorities_rank_as_normal() -> None:
    assert [priority_rank(p) for p in ("high", "normal", "low")] == [0, 1, 2]
    assert priority_rank(None) == priority_rank("urgent") == priority_rank(["high"]) == PRIORITY_RANK["normal"]


def literal_sets(tree: ast.AST, words: set[str]):
    """Tuples, lists and sets of two or more strings, all of them from `words`."""
    for item in ast.walk(tree):
        if isinstance(item, (ast.Tuple, ast.List, ast.Set)) and len(item.elts) >= 2:
            values = [e.value for e in item.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(values) == len(item.elts) and set(values) <= words:
                yield item.lineno, tuple(values)


def copies(words: set[str], folders: tuple[str, ...]) -> list[str]:
    found = []
    for folder in folders:
        for path in source_files(ROOT / folder):
            if path == ROOT / "store" / "schema.py":
                continue
            for line, values in literal_sets(parsed(path.read_text(encoding="utf-8")), words):
                found.append(f"{path.relative_to(ROOT)}:{line}: {values}")
    return found


def test_no_other_module_writes_out_a_status_set() -> None:
    assert copies(STATUS_WORDS, ("store", "commands", "canvas")) == []


def test_no_other_module_writes_out_the_priorities() -> None:
    assert copies(PRIORITY_WORDS, ("store", "commands")) == []
