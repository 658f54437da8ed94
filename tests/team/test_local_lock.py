"""Agents of one clone fetching at once: git refuses the second one's update of a claim copy whose ref
lock the first holds ("cannot lock ref"). The remote answered, so that is no outage: the fetch is
tried again, and a lock that stays (a crashed git's) is named as this clone's, never `--offline`."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from testkit import run_cli, run_cli_in_process
from testkit.gitserver import copy_team, team_clones


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("team-lock")
    team_clones(base, lambda repo: repo.as_uri(), 2, tasks=3)
    return base


def lock_of_copy(clone: Path) -> Path:
    folder = clone / ".git/refs/remotes-leafwise/origin/leafwise/claims"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "T-1.lock"


def test_a_copy_locked_for_a_moment_is_fetched_again(template, tmp_path):
    a, b = copy_team(template, tmp_path / "team")
    assert run_cli("start", "T-1", "--agent", "ann", cwd=a).code == 0  # a claim ref b's fetch must copy
    lock = lock_of_copy(b)
    lock.write_text("")
    threading.Timer(0.3, lock.unlink).start()  # the other agent's fetch ends
    res = run_cli_in_process("next", "--json", "--agent", "bo", cwd=b)
    assert res.json["status"] == "ok", res.json
    assert res.json["result"]["claims"] == "fetched", res.json["result"]  # not the last copy, which lacks ann's
    assert res.json["result"]["task"]["id"] != "T-1", res.json["result"]  # ann holds it


def test_a_lock_that_stays_is_this_clones_not_the_remotes(template, tmp_path):
    a, b = copy_team(template, tmp_path / "team")
    assert run_cli("start", "T-1", "--agent", "ann", cwd=a).code == 0
    lock_of_copy(b).write_text("")
    started = time.monotonic()
    res = run_cli_in_process("start", "--next", "--agent", "bo", "--json", cwd=b)
    assert time.monotonic() - started < 60
    assert res.json["error"]["code"] == "copies_locked", res.json["error"]
    action = res.json["_next_action"]
    assert action["marker"] == "wait" and "--offline" not in str(action), action
