"""A quote from a committed path that has a twin differing only in case or in how its letters are composed
(`App/export.py` and `app/export.py`, NFC and NFD `café`) is refused when the twins differ: a case-insensitive
or normalising disk (macOS, Windows) checks out one of them, so what a person opens is not what the quote was
checked against. Before, `verify --evidence App/export.py:1-1` was accepted and completed the leaf with the
attacker's twin (`return "attacker"`). Real git, the real CLI."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, run

CODE = "def export_orders_csv(orders):"
CAFE_NFC, CAFE_NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
TWINS = {  # (the quoted path, its twin)
    "folder case": ("App/export.py", "app/export.py"),
    "file case": ("app/Export.py", "app/export.py"),
    "upper case": ("APP/EXPORT.PY", "app/export.py"),
    "composed letters": (f"app/{CAFE_NFD}.py", f"app/{CAFE_NFC}.py"),
    "folded letters": ("app/STRASSE.py", "app/straße.py"),
}


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    run(repo, "git", "init", "-q", "-b", "main")
    run(repo, "git", "config", "core.precomposeUnicode", "false")
    run(repo, LEAFWISE, "init", "--prefix", "P1")
    run(repo, LEAFWISE, "add", "Export orders as CSV")
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-q", "-m", "code")
    return repo


def _verify(repo: Path, path: str) -> dict:
    return json.loads(run(repo, LEAFWISE, "verify", "P1-1", "--verdict", "shipped", "--evidence", f"{path}:1-1",
                          "--quote", CODE, "--agent", "bot", "--json", code=None).stdout)


@pytest.mark.parametrize("kind", sorted(TWINS))
def test_a_quote_from_a_path_with_a_differing_twin_is_refused(tmp_path: Path, kind: str) -> None:
    quoted, twin = TWINS[kind]
    repo = _repo(tmp_path, {quoted: f"{CODE}\n    return 'attacker'\n", twin: f"{CODE}\n    return ','.join(orders)\n"})
    listed = run(repo, "git", "ls-files", "-z").stdout.split("\0")
    assert quoted in listed and twin in listed
    for path in (quoted, twin):
        said = _verify(repo, path)
        assert said.get("error", {}).get("code") == "evidence_look_alike_path", said
    assert "status: draft" in (repo / ".leafwise" / "nodes" / "P1-1.yaml").read_text()


def test_twins_with_the_same_content_and_a_plain_path_are_quoted(tmp_path: Path) -> None:
    same = f"{CODE}\n    return ','.join(orders)\n"
    repo = _repo(tmp_path, {"App/export.py": same, "app/export.py": same})
    assert _verify(repo, "App/export.py")["status"] == "ok"
    plain = _repo(tmp_path / "plain", {"app/export.py": same, "app/import.py": "x = 1\n"})
    assert _verify(plain, "app/export.py")["status"] == "ok"
