"""Approvals come only from the person's own folder: an approvals file inside the plan's repository (a
sandbox whose HOME or XDG_CONFIG_HOME is the work tree) is never read as the person's, whatever it
holds, and approving there is refused with the way out."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

COMMAND_TEMPLATE = "touch {mark}"


def planted(repo: Path, folder: Path, mark: Path) -> None:
    command = COMMAND_TEMPLATE.format(mark=mark)
    key = hashlib.sha256(f"{os.path.realpath(repo)}\0{command}".encode()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trust.json").write_text(json.dumps(
        {"allowed": {key: {"at": "2026-12-01T00:00:00Z", "command": command, "root": os.path.realpath(repo)}}}))


@pytest.mark.parametrize("where", ["home", "xdg", "explicit"])
def test_an_approvals_file_inside_the_repository_approves_nothing(tmp_path, where):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    mark = tmp_path / "PWNED"
    write_plan(repo, [node("T-1", "Ship it", done_when=[{"command": COMMAND_TEMPLATE.format(mark=mark)}])])
    env = {"HOME": str(repo), "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": "", "LEAFWISE_CONFIG_DIR": "",
           "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    folder = {"home": repo / ".config" / "leafwise", "xdg": repo / "cfg" / "leafwise", "explicit": repo / "lw"}[where]
    if where == "xdg":
        env["XDG_CONFIG_HOME"] = str(repo / "cfg")
    if where == "explicit":
        env["LEAFWISE_CONFIG_DIR"] = str(folder)
    planted(repo, folder, mark)
    listing = run_cli("trust", "--json", cwd=repo, env=env)
    assert listing.code == 0 and not any(c["trusted"] for c in listing.json["result"]["commands"]), listing.stdout
    run_cli("reconcile", cwd=repo, env=env)
    assert not mark.exists(), "a planted approval ran the plan's command"
    refused = run_cli("trust", "--all", "--yes", cwd=repo, env=env)
    assert refused.code != 0 and "inside this plan's repository" in refused.stdout + refused.stderr
    assert "Wait: a person sets LEAFWISE_CONFIG_DIR" in refused.stdout + refused.stderr


def test_a_cache_key_inside_a_plan_is_never_used_so_no_planted_cache_is_read(tmp_path, monkeypatch):
    """A repository that ships `.config/leafwise/cache.key` and caches sealed with it would pass the seal
    and feed marshal (and the answer memo) its own bytes: no key is read from a folder inside a plan."""
    from leafwise.store import PlanPaths, cache, load_plan

    repo = tmp_path / "repo"
    write_plan(repo, [node("T-1", "The real title")])
    folder = repo / ".config" / "leafwise"
    folder.mkdir(parents=True)
    (folder / cache.KEY_NAME).write_bytes(b"k" * 32)
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(folder))
    monkeypatch.setenv("LEAFWISE_CACHE_DIR", str(repo / ".cache" / "leafwise"))
    assert cache.machine_key() is None and cache.machine_key(create=True) is None
    path, purpose = cache.cache_file(repo, "probe")
    assert not cache.write_sealed(path, purpose, {"planted": True}) and cache.read_sealed(path, purpose) is None
    assert load_plan(PlanPaths(repo)).nodes["T-1"].title == "The real title"
    outside_folder = tmp_path / "person"
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(outside_folder))
    assert cache.machine_key(create=True) is not None  # the person's own folder: a key is made and used


def test_the_mcp_http_token_is_never_taken_from_inside_a_plan(tmp_path):
    repo = tmp_path / "repo"
    write_plan(repo, [node("T-1", "Task")])
    folder = repo / "cfg"
    folder.mkdir()
    (folder / "mcp-http.token").write_text("a" * 43 + "\n")
    answer = run_cli("mcp", "--http", "127.0.0.1:0", cwd=repo, env={"LEAFWISE_CONFIG_DIR": str(folder)}, timeout=30)
    assert answer.code != 0 and "inside a plan's repository" in answer.stdout + answer.stderr, answer
