"""An import manifest is untrusted input: a planted or corrupt one is named by file and line, and
repair writes nothing for it, inside the plan or out; a live import's manifest is no problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leafwise.commands.adoption.manifest import digest
from leafwise.store import PlanPaths
from leafwise.store.locks import locked
from testkit import run_cli

MANIFEST = ".leafwise/.locks/import.json"
STAGED = ".lw-999999-planted.tmp"


def _plant(root: Path, files: list[dict], events: list[dict] | None = None, raw: bytes | None = None) -> None:
    lines = [json.dumps(f) for f in files] + [json.dumps(e) for e in (events or [])]
    head = {"manifest": "leafwise import", "version": 1, "pid": 999999, "written": "2026-12-03T00:00:00Z",
            "files": len(files), "events": len(events or [])}
    target = root / MANIFEST
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(raw if raw is not None else ("\n".join([json.dumps(head), *lines]) + "\n").encode())


def _entry(path: str, data: bytes = b"planted\n", staged: str = STAGED) -> dict:
    return {"path": path, "staged": staged, "new": digest(data), "old": None}


def _everything(root: Path) -> dict[str, bytes]:
    """Every file under the test's folder (the plan, and what lies outside it), but Leafwise's locks."""
    return {str(p.relative_to(root.parent)): p.read_bytes() for p in sorted(root.parent.rglob("*"))
            if p.is_file() and ".locks/" not in str(p) and ".cache/" not in str(p)}


def _refused(root: Path, line: int, words: str) -> None:
    """validate names the manifest's file and line; repair refuses it and writes nothing anywhere."""
    check = run_cli("validate", "--json", cwd=root)
    assert check.code == 4, check.stdout
    problem = next(p for p in json.loads(check.stdout)["error"]["details"]["problems"]["items"]
                   if p["file"] == MANIFEST)
    assert (problem["code"], problem["line"]) == ("import_manifest", line), problem
    assert words in problem["message"] and "removes .leafwise/.locks/import.json" in problem["fix"]
    before = _everything(root)
    res = run_cli("repair", "--json", cwd=root)
    mine = [c for c in json.loads(res.stdout)["result"]["repairs"] if c.get("file") == MANIFEST]
    assert mine and "refused" in mine[0] and not mine[0]["applied"], mine
    assert _everything(root) == before
    assert (root / MANIFEST).exists()


def test_a_manifest_naming_a_file_outside_the_plan_is_refused(plan_root: Path) -> None:
    victim = plan_root.parent / "victim.txt"
    victim.write_bytes(b"mine\n")
    (plan_root / ".leafwise" / STAGED).write_bytes(b"planted\n")
    _plant(plan_root, [_entry("nodes/AD-1.yaml"), _entry("../../victim.txt")])
    _refused(plan_root, 3, "leaves .leafwise/")
    assert victim.read_bytes() == b"mine\n"


def test_a_manifest_reaching_out_through_a_linked_docs_folder_is_refused(plan_root: Path) -> None:
    outside = plan_root.parent / "outside"
    outside.mkdir()
    (plan_root / ".leafwise/docs").mkdir(exist_ok=True)
    (plan_root / ".leafwise/docs/away").symlink_to(outside)
    (outside / STAGED).write_bytes(b"planted\n")
    _plant(plan_root, [_entry("docs/away/AD-1.md")])
    _refused(plan_root, 2, "not a file an import writes")
    assert sorted(p.name for p in outside.iterdir()) == [STAGED]


@pytest.mark.parametrize("staged", ["../../victim.txt", "/etc/passwd", "AD-1.yaml", ".lw-1-x.tmp/../../v"])
def test_a_staged_name_that_is_not_a_temp_file_beside_its_target_is_refused(plan_root: Path, staged: str) -> None:
    _plant(plan_root, [_entry("nodes/AD-1.yaml", staged=staged)])
    _refused(plan_root, 2, "staged file is not a temp file beside it")


def test_a_journal_line_no_import_writes_is_refused(plan_root: Path) -> None:
    (plan_root / ".leafwise/nodes" / STAGED).write_bytes(b"planted\n")
    _plant(plan_root, [_entry("nodes/AD-1.yaml")],
           [{"time": "2026-12-03T00:00:00Z", "command": "import", "node": "AD-1"},
            {"time": "2026-12-03T00:00:00Z", "command": "complete", "node": "AD-1"}])
    _refused(plan_root, 4, "not a journal line an import writes")
    assert not (plan_root / ".leafwise/nodes/AD-1.yaml").exists()


@pytest.mark.parametrize("raw, line, words", [
    (b'{"manifest": "leafwise import", "version": 1, "pid": 1, "written": "x", "files": 1, "events": 0}\n{"path": ',
     2, "not valid JSON"),
    (b"\xff\xfe not json\n", 1, "not UTF-8 text"),  # a UTF-16 byte order mark: refused before JSON (reader)
    (b'{"manifest": "leafwise import", "version": 1, "pid": 1, "written": "x", "files": 5, "events": 0}\n',
     1, "its header says 6"),
    (b"[" * 100_000, 1, "nests deeper"),
])
def test_a_corrupt_manifest_is_named_by_its_line(plan_root: Path, raw: bytes, line: int, words: str) -> None:
    _plant(plan_root, [], raw=raw)
    _refused(plan_root, line, words)


def test_a_manifest_that_is_a_link_is_not_read(plan_root: Path) -> None:
    secret = plan_root.parent / "secret.json"
    secret.write_text('{"manifest": "leafwise import"}\n')
    (plan_root / ".leafwise/.locks").mkdir(exist_ok=True)
    (plan_root / MANIFEST).symlink_to(secret)
    _refused(plan_root, 1, "symbolic link")


def test_a_manifest_a_live_import_holds_is_not_an_interrupted_import(plan_root: Path) -> None:
    (plan_root / ".leafwise/nodes" / STAGED).write_bytes(b"planted\n")
    _plant(plan_root, [_entry("nodes/AD-1.yaml")])
    with locked(PlanPaths(plan_root), "import"):  # this process is the import, writing now
        check = run_cli("validate", cwd=plan_root)
        assert check.code == 0 and "interrupted" not in check.stdout, check.stdout
    check = run_cli("validate", cwd=plan_root)  # the lock is free: the import is gone, midway
    assert check.code == 4 and "an import was interrupted" in check.stdout + check.stderr
    doctor = run_cli("doctor", cwd=plan_root)
    assert "an import was interrupted" in doctor.stdout and doctor.stdout.rstrip().endswith("Next: leafwise repair")
    assert run_cli("repair", cwd=plan_root).code == 0
    assert (plan_root / ".leafwise/nodes/AD-1.yaml").read_bytes() == b"planted\n"  # what the manifest said
    assert not (plan_root / MANIFEST).exists()
