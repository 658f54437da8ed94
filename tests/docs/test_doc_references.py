"""The docs name only what exists: files, tests, commands and flags, checked against the tree and the registry.

Code moves (a module to another folder, a test file renamed, a flag added); these tests fail when a
doc still points at the old place, so README, docs/ and llms.txt stay true as the code changes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from testkit import run_cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "llms.txt", *sorted((ROOT / "docs").glob("*.md"))]
README_LIMIT = 15_000  # bytes: the README says what Leafwise is and links the rest
GLOBAL_FLAGS = {"--json", "--root", "--bare", "--jsonl", "-h", "--help", "--version"}
# Paths of the repository itself: a backticked path under one of these folders must exist.
TREE_ROOTS = ("store/", "commands/", "canvas/", "themes/", "tests/", "bench/")
# Files of the example projects the docs' transcripts run in, not of this repository.
EXAMPLE_FILES = {"bench/checkout.py"}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_readme_stays_short() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size < README_LIMIT, f"README.md is {size:,} bytes; move the detail into docs/"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _text(doc)):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        if not (doc.parent / target).resolve().exists():
            broken.append(target)
    assert not broken, f"{doc.name} links to missing files: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_repository_path_named_exists(doc: Path) -> None:
    named = set(re.findall(r"`((?:%s)[A-Za-z0-9_./-]+)" % "|".join(map(re.escape, TREE_ROOTS)), _text(doc)))
    def exists(path: str) -> bool:  # `store/writer` names the module store/writer.py
        path = path.split("::")[0].rstrip(".,")
        return (ROOT / path).exists() or (ROOT / f"{path}.py").exists()

    missing = sorted(p for p in named - EXAMPLE_FILES if not p.endswith("/") and not exists(p))
    missing += sorted(p for p in named if p.endswith("/") and not (ROOT / p).is_dir()
                      and ".repos" not in p)
    assert not missing, f"{doc.name} names paths the tree does not have: {missing}"


def test_every_test_named_in_the_docs_exists() -> None:
    defined = {m for f in (ROOT / "tests").rglob("test_*.py") for m in re.findall(r"def (test_\w+)", _text(f))}
    files = {f.stem for f in (ROOT / "tests").rglob("test_*.py")}
    cited = {name for doc in DOCS for name in re.findall(r"`(?:[\w/]+\.py::)?(test_\w+)`", _text(doc))}
    cited |= {name for doc in DOCS for name in re.findall(r"::(test_\w+)", _text(doc))}
    missing = sorted(cited - defined - files)
    assert not missing, f"tests named in the docs that do not exist: {missing}"


def _registry() -> dict[str, set[str]]:
    res = run_cli("commands", "--json", cwd=ROOT)
    assert res.code == 0, res.stderr
    items = json.loads(res.stdout)["result"]["items"]
    return {c["name"]: ({a["flag"] for a in c["arguments"] if a["flag"]} if c["kind"] != "launcher" else set())
            | ({"*"} if c["kind"] == "launcher" else set()) for c in items}


def test_the_command_reference_names_real_commands_and_flags() -> None:
    """Each line of docs/commands.md's reference: the words name a registry command, the flags are its own."""
    text = _text(ROOT / "docs" / "commands.md")
    block = text[text.index("## Every command"):]
    block = block[block.index("```\n") + 4:]
    block = block[:block.index("```")]
    commands = _registry()
    wrong = []
    current: str | None = None
    for raw in block.splitlines():
        line = raw.split("   ", 1)[0] if raw.startswith("leafwise") else raw  # drop a trailing comment column
        line = line.strip()
        if line.startswith("leafwise"):
            line = line[len("leafwise"):]
            current = None
        for segment in line.split(" | "):
            words = segment.split()
            plain = [w for w in words if re.fullmatch(r"[a-z][a-z-]*", w)]
            name = next((" ".join(plain[:n]) for n in (2, 1) if " ".join(plain[:n]) in commands), None)
            if name is None and plain[:1] == ["cycle"]:
                continue  # docs/cycles.md has the cycle commands
            if name is None and not words:
                name = "canvas"
            if name is None and not words[0].startswith("["):
                if current is None:
                    wrong.append(f"no command {segment.strip()!r}")
                    continue
                name = current
            current = name or current
            flags = {m for m in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", segment)}
            known = commands.get(current or "", set())
            if "*" in known:
                continue
            wrong += [f"{current}: {flag}" for flag in sorted(flags - known - GLOBAL_FLAGS)]
    assert not wrong, f"docs/commands.md names what the registry does not have: {wrong}"
