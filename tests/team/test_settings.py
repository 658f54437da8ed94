"""project.yaml's `settings.team`: each wrong value a problem with its line, team mode off, and no claim
taken until a person fixes it (no command reaches for a remote it cannot name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from leafwise.store.project_file import team_problem
from testkit import run_cli_in_process


@pytest.mark.parametrize(("value", "words"), [
    ([], "must be a mapping"),
    ({"remote": "-upload-pack=x"}, "must name a git remote"),
    ({"remote": "origin", "namespace": "refs/a/b"}, "refs/leafwise"),
    ({"remote": "origin", "namespace": "heads/x"}, "refs/leafwise"),
    ({"remote": "origin", "namespace": "refs/heads"}, "refs/leafwise"),
    ({"remote": "origin", "namespace": "refs/tags"}, "refs/leafwise"),
    ({"remote": "origin", "mode": "branch", "state_branch": "main"}, "under leafwise/"),
    ({"remote": "origin", "mode": "cloud"}, "refs or branch"),
    ({"remote": "origin", "state_branch": "a..b"}, "under leafwise/"),
    ({"remote": "origin", "token": "x"}, "no key 'token'"),
])
def test_a_wrong_team_setting_is_named(value, words):
    assert words in (team_problem(value) or "")


def test_a_good_team_setting_passes():
    assert team_problem({"remote": "origin", "namespace": "refs/leafwise", "mode": "refs"}) is None


def test_validate_names_the_line_and_team_mode_stays_off(tmp_path: Path):
    assert run_cli_in_process("init", "--name", "T", "--prefix", "T", cwd=tmp_path).code == 0
    assert run_cli_in_process("add", "one task", cwd=tmp_path).code == 0
    project = tmp_path / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + "settings:\n  team: {remote: '--exec=x'}\n")
    res = run_cli_in_process("validate", cwd=tmp_path)
    assert "settings.team.remote must name a git remote" in res.stdout + res.stderr
    assert ".leafwise/project.yaml:6" in res.stdout  # the settings line
    start = run_cli_in_process("start", "--next", "--agent", "a", cwd=tmp_path)  # no claim until it is fixed
    assert start.code == 4 and "project.yaml:6 does not load" in start.stderr, start.stdout + start.stderr
