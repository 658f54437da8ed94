"""A remote that accepts the connection and never answers reads as unreachable in every team command
that talks to it: `Wait:` the remote answers, never an internal error (real clones of a file:// bare
repository, then their URL pointed at a socket that listens and stays silent)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import copy_team, set_url, team_clones


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("team-silent")
    team_clones(base, lambda repo: repo.as_uri(), 1, tasks=2)
    return base


@pytest.mark.parametrize("args", [("start", "--next", "--agent", "carol"), ("team", "status"),
                                  ("team", "sync"), ("team", "repair", "--dry-run")])
def test_a_silent_remote_is_unreachable_not_an_internal_error(args, template, tmp_path, monkeypatch):
    from leafwise.commands.team import remote

    (a,) = copy_team(template, tmp_path / "team")
    monkeypatch.setattr(remote, "FETCH_DEADLINE", 1.0)  # the bound itself, shortened: the path is the same
    monkeypatch.setattr(remote.git, "REMOTE_DEADLINE", 1.0)
    with socket.socket() as silent:  # accepts the connection, never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        set_url(a, f"git://127.0.0.1:{silent.getsockname()[1]}/plan.git")
        res = run_cli_in_process(*args, "--json", cwd=a)
    assert res.code != 0
    error = res.json["error"]
    assert error["code"] == "remote_unreachable", error
    assert res.json["_next_action"]["marker"] == "wait", res.json["_next_action"]
    assert "answers" in res.json["_next_action"]["reason"] + (res.json["_next_action"]["condition"] or "")
