"""An import over its caps (items, bytes) is refused whole, before anything is written, and its Fix
imports a part of the file instead of repeating the refused import."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from leafwise.commands.adoption.reading import IMPORT, MAX_IMPORT_ITEMS
from testkit import run_cli


def _beads(path: Path, items: int, pad: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for i in range(items):
            out.write(json.dumps({"id": f"bd-{i}", "title": f"task {i}", "status": "open",
                                  "description": "x" * pad}) + "\n")
    return path


@pytest.mark.parametrize("over", ["items", "bytes"])
def test_an_import_over_its_caps_changes_nothing_and_its_fix_imports_a_part(plan_root: Path, tmp_path: Path,
                                                                           over: str) -> None:
    source = tmp_path / "src" / "issues.jsonl"
    if over == "items":
        _beads(source, MAX_IMPORT_ITEMS + 1)
    else:
        _beads(source, 2, pad=IMPORT.cap // 2 + 1)
    before = sorted(p.relative_to(plan_root) for p in (plan_root / ".leafwise").rglob("*"))
    res = run_cli("import", "beads", str(source), cwd=plan_root)
    assert res.code == 2, res.stdout + res.stderr
    assert "nothing was imported" in res.stderr
    assert (f"{MAX_IMPORT_ITEMS + 1:,} items" if over == "items" else "over the limit") in res.stderr
    assert sorted(p.relative_to(plan_root) for p in (plan_root / ".leafwise").rglob("*")) == before
    [fix] = [line for line in res.stderr.splitlines() if line.startswith("Fix: ")]
    words = shlex.split(fix[len("Fix: "):])
    assert words[:3] == ["leafwise", "import", "beads"] and words[3] == "<part of the file>", fix
    assert "split the file" in res.stderr, res.stderr


def test_an_import_at_its_item_cap_is_taken(plan_root: Path, tmp_path: Path) -> None:
    source = _beads(tmp_path / "src" / "issues.jsonl", MAX_IMPORT_ITEMS)
    res = run_cli("import", "beads", str(source), "--dry-run", "--json", cwd=plan_root)
    assert res.code == 0, res.stderr
    assert res.json["result"]["total"] == MAX_IMPORT_ITEMS
