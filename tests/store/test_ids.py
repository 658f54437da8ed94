"""Ids and prefixes have one home, `store/ids.py`: `init` accepts exactly what the loader loads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.commands.text import MARKER_WORDS, reads_as_marker
from leafwise.store import PlanPaths, load_plan
from leafwise.store.ids import (
    agent_problem,
    MAX_ID_LENGTH,
    MAX_PREFIX_LENGTH,
    canonical_id,
    find_ids,
    id_problem,
    is_node_id,
    prefix_problem,
    suggest_prefix,
)
from testkit import run_cli, source_files, walked

ROOT = Path(__file__).resolve().parents[2]
TOO_LONG = "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMN"  # 40 letters


def loader_words(tmp_path: Path, prefix: str) -> str | None:
    """What the loader says of a project.yaml with this id_prefix (None: nothing wrong)."""
    plan = tmp_path / "loader" / ".leafwise"
    (plan / "nodes").mkdir(parents=True)
    (plan / "project.yaml").write_text(f"schema: 1\npid: p\nname: P\nid_prefix: {prefix}\nreleases: []\n")
    found = [p.message.removeprefix("project.yaml: ") for p in load_plan(PlanPaths(plan.parent)).problems
             if "id_prefix" in p.message]
    return found[0] if found else None


def test_init_refuses_a_prefix_the_loader_would_refuse_in_the_loaders_words(tmp_path: Path) -> None:
    res = run_cli("init", "--prefix", TOO_LONG, cwd=tmp_path)
    assert res.code == 2, res.stdout + res.stderr
    words = loader_words(tmp_path, TOO_LONG)
    assert words and words in res.stderr  # one rule, one message
    fix_line = next(line for line in res.stderr.splitlines() if line.startswith("Fix:"))
    assert "<prefix>" in fix_line and "ROJ" not in fix_line and TOO_LONG[:3] not in fix_line
    assert not (tmp_path / ".leafwise").exists()


@pytest.mark.parametrize("prefix", ["A" * MAX_PREFIX_LENGTH, "shop", "X1"])
def test_add_works_on_every_prefix_init_accepts(tmp_path: Path, prefix: str) -> None:
    assert loader_words(tmp_path, prefix) is None
    repo = tmp_path / "repo"
    repo.mkdir()
    assert run_cli("init", "--prefix", prefix, cwd=repo).code == 0
    res = run_cli("add", "First task", "--json", cwd=repo)
    assert res.code == 0, res.stderr
    assert res.json["result"]["id"] == f"{prefix.upper()}-1"
    assert is_node_id(res.json["result"]["id"])


def test_a_prefix_made_from_the_folder_name_starts_with_a_letter(tmp_path: Path) -> None:
    repo = tmp_path / "3d-print"
    repo.mkdir()
    assert run_cli("init", cwd=repo).code == 0
    res = run_cli("add", "First task", "--json", cwd=repo)
    assert res.code == 0, res.stderr
    assert res.json["result"]["id"] == "DPRINT-1"


def test_project_set_refuses_the_same_prefix_with_a_placeholder(tmp_path: Path) -> None:
    assert run_cli("init", "--prefix", "SHOP", cwd=tmp_path).code == 0
    res = run_cli("project", "set", "--prefix", TOO_LONG, cwd=tmp_path)
    assert res.code == 2 and prefix_problem(TOO_LONG) in res.stderr
    fix_line = next(line for line in res.stderr.splitlines() if line.startswith("Fix:"))
    assert "<prefix>" in fix_line and TOO_LONG not in fix_line


@pytest.mark.parametrize(("text", "ok"), [
    ("SHOP", True), ("shop", True), ("S", True), ("A" * MAX_PREFIX_LENGTH, True), ("AB12", True),
    ("A" * (MAX_PREFIX_LENGTH + 1), False), ("1AB", False), ("AB-1", False), ("AB_1", False), ("", False),
    ("ſHOP", False), ("\u212aEY", False), ("SHOP\n", False), (12, False), (None, False),
])
def test_the_prefix_rule(text: object, ok: bool) -> None:
    assert (prefix_problem(text) is None) is ok


@pytest.mark.parametrize(("text", "ok"), [
    ("SHOP-7", True), ("A-0", True), ("X1-123456789012", True), ("A" * MAX_PREFIX_LENGTH + "-1", True),
    ("shop-7", False), ("SHOP-", False), ("SHOP-1234567890123", False), ("7-SHOP", False), ("SHOP-7\n", False),
    ("A" * (MAX_PREFIX_LENGTH + 1) + "-1", False), ("SH OP-7", False), ("1AB-7", False), (7, False),
])
def test_the_id_rule(text: object, ok: bool) -> None:
    assert is_node_id(text) is ok and (id_problem(text) is None) is ok
    if ok:
        assert len(text) <= MAX_ID_LENGTH


def test_ids_typed_in_any_case_and_found_in_text() -> None:
    assert canonical_id(" hx-10 ") == "HX-10" and canonical_id("hx 10") is None and canonical_id(3) is None
    assert find_ids("fixes SHOP-7 and X-12; not shop-9 or A-B") == ["SHOP-7", "X-12"]
    assert suggest_prefix("3D print!") == "DPRINT" and suggest_prefix("***") == "TASK"
    assert prefix_problem(suggest_prefix("a" * 200)) is None


# A regex literal is taken for an id (or prefix) format when it behaves like one on these samples.
ID_LIKE = (("SHOP-7", "AB12-345"), ("SHOP-X", "SHOP_7", "7-SHOP", "SHOP"))
PREFIX_LIKE = (("SHOP", "AB12", "S"), ("12AB", "AB_1", "AB-1", "AB.1", "AB 1", "AB$1"))
REGEX_CALLS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}


def behaves_like(pattern: re.Pattern[str], samples: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    yes, no = samples
    return all(pattern.fullmatch(s) for s in yes) and not any(pattern.fullmatch(s) for s in no)


def is_a_format(text: str) -> bool:
    """Whether a regex's text, anchors and word boundaries aside, is an id or a prefix format."""
    try:
        pattern = re.compile(text.strip("^$").removesuffix("\\Z").replace("\\b", ""))
    except re.error:
        return False
    return behaves_like(pattern, ID_LIKE) or behaves_like(pattern, PREFIX_LIKE)


def regex_literals(path: Path):
    for item in walked(path.read_text(encoding="utf-8")):
        if (isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr in REGEX_CALLS
                and isinstance(item.func.value, ast.Name) and item.func.value.id == "re" and item.args
                and isinstance(item.args[0], ast.Constant) and isinstance(item.args[0].value, str)):
            yield item.lineno, item.args[0].value


def test_no_other_module_writes_out_an_id_or_prefix_format() -> None:
    copies = []
    for folder in ("store", "commands", "canvas", "bench"):
        for path in source_files(ROOT / folder):
            if path == ROOT / "store" / "ids.py" or "reconcile_eval/cases" in path.as_posix():
                continue
            copies += [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in regex_literals(path)
                       if is_a_format(text)]
    assert copies == []


def test_the_guard_sees_a_copy() -> None:
    for text in (r"^[A-Z][A-Z0-9]*-[0-9]+\Z", r"\b([A-Z][A-Z0-9]*-[0-9]+)\b", r"^[A-Za-z][A-Za-z0-9]{0,31}\Z",
                 r"[A-Za-z][A-Za-z0-9]*-[0-9]+", r"^[A-Z][A-Z0-9]*$"):
        assert is_a_format(text), text
    assert not is_a_format(r"[A-Za-z0-9_./:@=+-]+") and not is_a_format(r"[A-Za-z_$][\w$]*")


_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@+-"


@settings(max_examples=300, deadline=None)
@given(word=st.sampled_from(MARKER_WORDS), cut=st.integers(0, 6), rest=st.text(_NAME_CHARS, max_size=12))
def test_no_agent_name_reads_as_a_marker_line(word: str, cut: int, rest: str) -> None:
    # names built from each marker word (any case, cut anywhere) plus name characters: whatever
    # agent_problem accepts never reads as a marker, alone on a line or leading one
    for name in (word[: len(word) - cut] + rest, word.upper()[: len(word) - cut] + rest, word.lower() + rest):
        if agent_problem(name) is None:
            assert not reads_as_marker(name) and not reads_as_marker(f"{name} holds T-1"), name
    assert agent_problem("done-bot") is None and agent_problem("Done.") is not None
