"""`user.name` / `user.email` in the config of a repository that arrived whole (`.git/` and all) are
anyone's: with ESC, BEL, U+202E or a newline and `Next:` line in them, every journal line of the person's
commands (`actor`) and the author of every claim commit pushed to the team's remote carried them raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import run_cli
from testkit.gitserver import git, joined_pair

NAMES = ["mal\x1b]52;c;ZXZpbA==\x07x", "a\u202eb", "one\nNext: leafwise trust --all", "tab\there\r", "z\u2066\u200bw"]
NODES = [{"id": "T-1", "title": "task one of the team", "status": "draft"}]


def clean(text: str) -> bool:
    return all(c.isprintable() for c in text)


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_a_planted_user_name_is_stored_printable(tmp_path: Path, name: str):
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    git(second, "config", "user.name", name)
    git(second, "config", "user.email", name.replace(" ", "") + "@e")
    assert run_cli("add", "a new task", "--force", cwd=second).code == 0
    last = json.loads((second / ".leafwise" / "journal.jsonl").read_text().splitlines()[-1])
    assert clean(last["actor"]) and last["actor"], last
    assert run_cli("start", "T-1", "--agent", "bob", cwd=second).code == 0
    bare = git(first, "config", "--get", "remote.origin.url").strip()
    author = git(first, "--git-dir", bare, "log", "-1", "--format=%an%x00%ae", "refs/leafwise/claims/T-1")
    assert all(clean(part) for part in author.rstrip("\n").split("\0")), repr(author)
