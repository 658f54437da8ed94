"""Confinement before any write (docs/security.md, "Confinement"): a plan whose folder, or one of its
own files and folders, is a link or a special file is refused at plan discovery, before anything is
read or written, by every command and surface, with the path named.

The matrix: every own entry of `.leafwise/` (and `.leafwise` itself) × {a link to an outside file, a
link to an outside folder, a FIFO, a dangling link} × every mutating command of the registry. Each call
must fail naming the entry, and no file anywhere (the repository, the outside folder) may change.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import pytest
from leafwise.commands.registry import Command, load_all
from leafwise.store.paths import OWN_FILES, OWN_FOLDERS, PLAN_DIR
from testkit import node, run_cli, run_cli_in_process, write_plan

ENTRIES = (PLAN_DIR, *(f"{PLAN_DIR}/{n}" for n in OWN_FILES + OWN_FOLDERS))
KINDS = ("link_to_file", "link_to_folder", "fifo", "dangling_link")
VALUES = {"node_id": "P1-2", "title": "A title", "question": "Which?", "reason": "waiting", "text": "a note",
          "summary": "it works", "agent": "bot", "content": "# Notes", "release_id": "R1", "kind": "until-goal",
          "name": "loop", "source": "updates.json"}
EXTRA = {"ask": ["--option", "A: card", "--option", "B: invoice"], "decide": ["--option", "1"],
         "edit": ["--set", "title=Renamed"], "release edit": ["--title", "Renamed"], "project set": ["--name", "x"],
         "release move": ["--before", "R2"], "cycle start": ["--max-iterations", "2", "--token-cap", "100", "--node", "P1-2"],
         "import": ["csv", "updates.csv"], "setup": ["generic"], "merge-driver": ["--install"],
}
# repair is the fix: it replaces a linked journal, claims, lock or cache folder (its own test below).
NOT_IN_MATRIX = {"repair"}


def mutating() -> list[Command]:
    return [s for s in sorted(load_all().values(), key=lambda s: s.name) if s.mutating and s.name not in NOT_IN_MATRIX]


def args_of(spec: Command) -> list[str]:
    words = spec.name.split()
    for p in spec.params:
        if (p.positional or p.required) and p.name in VALUES and p.name != "option":
            words += [VALUES[p.name]] if p.positional else [p.cli_flag, VALUES[p.name]]
    return words + EXTRA.get(spec.name, [])


def plan(root: Path) -> None:
    write_plan(root, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1"),
                      node("P1-3", "Pay button", parent="P1-1")], prefix="P1")
    plan_dir = root / PLAN_DIR
    for folder in OWN_FOLDERS:
        (plan_dir / folder).mkdir(exist_ok=True)
    (plan_dir / "journal.jsonl").write_text('{"time":"2026-01-01T00:00:00Z","command":"init"}\n')
    (plan_dir / ".gitignore").write_text(".cache/\n.locks/\nclaims/\n")
    (plan_dir / ".gitattributes").write_text("journal.jsonl merge=union\n")
    (root / "updates.json").write_text('[{"id": "P1-2", "set": {"title": "Bulk"}}]')
    (root / "updates.csv").write_text("title\nImported\n")


def plant(root: Path, outside: Path, rel: str, kind: str) -> None:
    """Replace `rel` by `kind`; what it held moves outside (a linked folder shows the real plan's files)."""
    path = root / rel
    moved = outside / "moved" / path.name
    moved.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        shutil.move(path, moved)
    elif path.exists():
        shutil.move(path, moved)
    if kind == "link_to_file":
        path.symlink_to(outside / "secret.txt")
    elif kind == "link_to_folder":
        path.symlink_to(moved if moved.is_dir() else outside / "folder", target_is_directory=True)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(outside / "missing")


def snapshot(*tops: Path) -> dict[str, str]:
    """Every entry under `tops`, never following a link nor opening a FIFO: its kind and content hash."""
    seen: dict[str, str] = {}
    for top in tops:
        for folder, dirs, files in os.walk(top):
            for name in dirs + files:
                path = Path(folder) / name
                mode = os.lstat(path).st_mode
                if stat.S_ISLNK(mode):
                    seen[str(path)] = "link " + os.readlink(path)
                elif stat.S_ISREG(mode):
                    seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                else:
                    seen[str(path)] = "dir" if stat.S_ISDIR(mode) else "special"
    return seen


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


def hostile(tmp_path: Path, rel: str, kind: str) -> tuple[Path, Path]:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.txt").write_text("secret c4n4ry9\n")
    (outside / "folder" / "P1-9.yaml").write_text("id: P1-9\ntitle: Outside\nstatus: draft\n")
    plan(root)
    plant(root, outside, rel, kind)
    return root, outside


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rel", ENTRIES)
def test_every_mutating_command_refuses_a_planted_entry_before_writing_anything(
        tmp_path: Path, env: dict[str, str], rel: str, kind: str) -> None:
    root, outside = hostile(tmp_path, rel, kind)
    before = snapshot(root, outside, tmp_path / "cache")
    for spec in mutating():
        words = args_of(spec)
        result = run_cli_in_process(*words, "--agent", "bot", cwd=root, env=env) \
            if any(p.name == "agent" for p in spec.params) and "--agent" not in words \
            else run_cli_in_process(*words, cwd=root, env=env)
        assert result.code != 0, (words, result.stdout)
        assert rel in result.stderr and "internal_error" not in result.stderr, (words, result.stderr)
        assert snapshot(root, outside, tmp_path / "cache") == before, words  # nothing anywhere changed


@pytest.mark.parametrize("rel,fix", [(f"{PLAN_DIR}/journal.jsonl", "Fix: leafwise repair"),
                                     (f"{PLAN_DIR}/nodes", "Fix: leafwise doctor"),
                                     (PLAN_DIR, "Fix: leafwise doctor")])
def test_the_refusal_is_an_invalid_plan_with_a_fix_a_person_can_act_on(
        tmp_path: Path, env: dict[str, str], rel: str, fix: str) -> None:
    root, _outside = hostile(tmp_path, rel, "link_to_folder" if rel != f"{PLAN_DIR}/journal.jsonl" else "link_to_file")
    for words in (["start", "--next", "--agent", "a"], ["next"], ["complete", "P1-2", "--summary", "x"]):
        result = run_cli(*words, cwd=root, env=env)
        assert result.code == 4 and fix in result.stderr and "--help" not in result.stderr, (words, result.stderr)


@pytest.mark.parametrize("rel", [PLAN_DIR, f"{PLAN_DIR}/nodes"])
def test_read_commands_on_a_linked_plan_folder_name_the_link(tmp_path: Path, env: dict[str, str], rel: str) -> None:
    """p03/p04: `next` once answered "no nodes yet" (a linked nodes/) or handed out the outside plan."""
    root, outside = hostile(tmp_path, rel, "link_to_folder")
    before = snapshot(root, outside)
    for words in (["next"], ["show", "P1-2"], ["list"], ["next", "--json"]):
        result = run_cli(*words, cwd=root, env=env)
        assert result.code != 0 and rel in result.stderr + result.stdout, (words, result.stdout, result.stderr)
        assert "Checkout" not in result.stdout and "P1-2" not in result.stdout.replace("show P1-2", "")
        assert "Next: leafwise add" not in result.stdout + result.stderr
    assert snapshot(root, outside) == before


def test_mcp_get_next_task_on_a_linked_nodes_folder_names_the_link(tmp_path: Path, env: dict[str, str]) -> None:
    import json
    import sys

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    root, _outside = hostile(tmp_path, f"{PLAN_DIR}/nodes", "link_to_folder")
    full = {k: v for k, v in os.environ.items() if k not in ("LEAFWISE_ROOT", "LEAFWISE_AGENT")}
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(root), env={**full, **env})

    async def go():
        async with Client(params, read_timeout_seconds=60) as client:
            return await client.call_tool("get_next_task", {})

    answer = anyio.run(go)
    assert answer.is_error
    text = json.dumps(answer.structured_content)
    assert f"{PLAN_DIR}/nodes" in text and "Checkout" not in text


def test_a_linked_journal_is_refused_before_the_first_write_and_repair_replaces_it(
        tmp_path: Path, env: dict[str, str]) -> None:
    """p01: `start --next` once wrote the node, its parent and the claim, then failed on the journal."""
    root, outside = hostile(tmp_path, f"{PLAN_DIR}/journal.jsonl", "link_to_file")
    before = snapshot(root, outside)
    started = run_cli("start", "--next", "--agent", "a", cwd=root, env=env)
    assert started.code != 0 and f"{PLAN_DIR}/journal.jsonl is a symbolic link" in started.stderr
    assert "leafwise repair" in started.stderr  # the message says the step
    assert snapshot(root, outside) == before
    dry = run_cli("repair", "--dry-run", cwd=root, env=env)
    assert dry.code == 0 and "replace_link .leafwise/journal.jsonl" in dry.stdout and snapshot(root, outside) == before
    fixed = run_cli("repair", cwd=root, env=env)
    assert fixed.code == 0, fixed.stderr
    journal = root / PLAN_DIR / "journal.jsonl"
    assert stat.S_ISREG(os.lstat(journal).st_mode)
    assert (outside / "secret.txt").read_text() == "secret c4n4ry9\n"
    assert run_cli("start", "--next", "--agent", "a", cwd=root, env=env).code == 0
    assert (outside / "secret.txt").read_text() == "secret c4n4ry9\n"


@pytest.mark.parametrize("rel", [f"{PLAN_DIR}/nodes", f"{PLAN_DIR}/project.yaml", PLAN_DIR])
def test_repair_refuses_a_link_that_is_not_its_own_to_replace(tmp_path: Path, env: dict[str, str], rel: str) -> None:
    root, outside = hostile(tmp_path, rel, "link_to_folder")
    before = snapshot(root, outside)
    result = run_cli("repair", cwd=root, env=env)
    assert rel in result.stdout + result.stderr and "refused" in result.stdout + result.stderr
    assert snapshot(root, outside) == before
    doctor = run_cli("doctor", cwd=root, env=env)
    assert rel in doctor.stdout and f"rm {rel}" in doctor.stdout and snapshot(root, outside) == before


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["", "nodes", ".gitignore", ".gitattributes", "journal.jsonl", "project.yaml"])
def test_init_refuses_a_planted_entry_before_writing_anything(tmp_path: Path, env: dict[str, str], name: str,
                                                              kind: str) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.txt").write_text("secret\n")
    root.mkdir()
    if name:
        (root / PLAN_DIR).mkdir()
    plant(root, outside, f"{PLAN_DIR}/{name}".rstrip("/"), kind)
    before = snapshot(root, outside)
    result = run_cli("init", "--prefix", "P1", cwd=root, env=env, timeout=20)
    assert result.code == 4, result.stderr
    assert f"{PLAN_DIR}/{name}".rstrip("/") in result.stderr
    assert snapshot(root, outside) == before


def test_a_planted_lock_file_is_replaced_never_written_through(tmp_path: Path, env: dict[str, str]) -> None:
    """A lock file is Leafwise's own empty file: a link there goes, so a command never fails half-way."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    root.mkdir()
    plan(root)
    for name in ("P1-1", "P1-2", "journal"):
        (root / PLAN_DIR / ".locks" / f"{name}.lock").symlink_to(outside / "secret.txt")
    assert run_cli("complete", "P1-2", "--summary", "done", cwd=root, env=env).code == 0
    assert (outside / "secret.txt").read_text() == "secret\n" and os.listdir(outside) == ["secret.txt"]
    assert not (root / PLAN_DIR / ".locks" / "P1-2.lock").is_symlink()


@pytest.mark.parametrize("planted", ["plans", "plans/DIGEST"])
def test_a_planted_link_in_the_cache_folder_receives_nothing(tmp_path: Path, env: dict[str, str],
                                                             monkeypatch: pytest.MonkeyPatch, planted: str) -> None:
    from leafwise.store import cache

    monkeypatch.setenv("LEAFWISE_CACHE_DIR", env["LEAFWISE_CACHE_DIR"])
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", env["LEAFWISE_CONFIG_DIR"])
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    path, purpose = cache.cache_file(root, cache.CACHE_NAME)
    link = Path(env["LEAFWISE_CACHE_DIR"]) / planted.replace("DIGEST", path.parent.name)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    assert cache.write_sealed(path, purpose, {"x": 1}) is False
    assert os.listdir(outside) == []


def test_a_planted_cache_file_link_is_refused(tmp_path: Path, env: dict[str, str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from leafwise.store import cache

    monkeypatch.setenv("LEAFWISE_CACHE_DIR", env["LEAFWISE_CACHE_DIR"])
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", env["LEAFWISE_CONFIG_DIR"])
    (tmp_path / "secret.txt").write_text("secret\n")
    path, purpose = cache.cache_file(tmp_path / "repo", cache.CACHE_NAME)
    path.parent.mkdir(parents=True)
    path.symlink_to(tmp_path / "secret.txt")
    assert cache.write_sealed(path, purpose, {"x": 1}) is False
    assert path.is_symlink() and (tmp_path / "secret.txt").read_text() == "secret\n"
