"""The docs name only what exists: files, tests, commands and flags, checked against the tree and the registry.

Code moves (a module to another folder, a test file renamed, a flag added); these tests fail when a
doc still points at the old place, so README, docs/ and llms.txt stay true as the code changes.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from testkit import run_cli, walked

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


# Short paths the docs use for modules: `handlers/agent_loop`, `core/cascade`, `surfaces/cli.py` are under
# commands/; `model/state.py`, `widgets/…`, `screens/…` under canvas/.
SHORT_ROOTS = {"handlers": "commands", "core": "commands", "surfaces": "commands", "domain": "commands",
               "reconcile": "commands", "model": "canvas", "widgets": "canvas", "screens": "canvas"}
FILE_SUFFIXES = {"py", "md", "yaml", "json", "jsonl", "toml", "txt", "svg", "tcss", "lock", "count", "cfg"}


def _names_in(path: Path) -> set[str]:
    """What a module defines at any depth: functions, classes, assigned names, imported names."""
    names: set[str] = set()
    for item in walked(_text(path)):
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.ImportFrom | ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in item.names}
    return names


def _modules_by_stem() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for package in ("store", "commands"):
        for path in (ROOT / package).rglob("*.py"):
            found.setdefault(path.stem, []).append(path)
    return found


def stale_names(text: str, root: Path = ROOT) -> list[str]:
    """Module and function names in `text` the tree does not have: `path.py` `name` (the name defined in
    that file), a short path (`handlers/shared.write`: the module, and the name in it), and `module.name`
    for a module of store/ or commands/ (`nodes.record`: some module of that name defines it)."""
    stale = []
    for path, name in re.findall(r"`((?:%s)[\w/]+\.py)` `([A-Za-z_]\w*)" % "|".join(TREE_ROOTS), text):
        if (root / path).is_file() and name not in _names_in(root / path):
            stale.append(f"{path} {name}")
    for head, rest, name in re.findall(r"`(%s)/([\w/]+?)(?:\.py)?(?:\.([A-Za-z_]\w*))?`" % "|".join(SHORT_ROOTS),
                                       text):
        base = root / SHORT_ROOTS[head] / head / rest
        module = base.with_suffix(".py")
        if not module.is_file() and not base.is_dir():
            stale.append(f"{head}/{rest}: no module {module.relative_to(root)}")
        elif name and module.is_file() and name not in _names_in(module):
            stale.append(f"{head}/{rest}.{name}: {module.relative_to(root)} defines no {name}")
    stems = _modules_by_stem() if root == ROOT else {}
    for stem, name in re.findall(r"`([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)(?:\.\w+)*(?:\(\))?`", text):
        files = stems.get(stem) if stem not in ("store", "commands", "canvas") else None  # a dotted package path
        if files and name not in FILE_SUFFIXES and not any(name in _names_in(f) for f in files):
            stale.append(f"{stem}.{name}")
    return stale


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_module_and_function_named_exists(doc: Path) -> None:
    stale = stale_names(_text(doc))
    assert not stale, f"{doc.name} names what the code does not have: {stale}"


def test_the_name_scan_finds_each_kind_of_stale_name() -> None:
    text = ("`handlers/shared.write` `core/nowhere` `commands/domain/claiming.py` `next` `nodes.gone` "
            "`domain/nodes.write` `core/cascade` `commands/domain/nodes.py` `write` `nodes.record` `store/writer`")
    assert stale_names(text) == [
        "commands/domain/claiming.py next",
        "handlers/shared: no module commands/handlers/shared.py",
        "core/nowhere: no module commands/core/nowhere.py",
        "nodes.gone",
    ]
