"""A team step refused because the remote does not answer says what to wait on and the very step to run
again, for the agent that asked (real clones of a file:// bare repository, then its URL pointed at a
port where nothing listens). The calls run in this one process, as in a long-lived MCP server, so the
new URL must be seen after the first call read the old one."""

from __future__ import annotations

import socket
import shlex
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import copy_team, set_url, team_clones


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("team-wait")
    team_clones(base, lambda repo: repo.as_uri(), 1, tasks=2)
    return base


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(("step", "again"), [
    (("complete", "--summary", "did it"), ("complete", "--summary", "<summary>")),
    (("heartbeat",), ("heartbeat",)),
    (("block", "--reason", "keys"), ("block", "--reason", "<reason>")),
])
def test_an_unreachable_remote_is_a_wait_then_the_same_step_again(template, tmp_path, step, again):
    (a,) = copy_team(template, tmp_path / "team")
    started = run_cli_in_process("start", "--next", "--agent", "ana", "--json", cwd=a)
    assert started.code == 0, started.stdout + started.stderr
    task = started.json["result"]["task"]["id"]
    set_url(a, f"git://127.0.0.1:{closed_port()}/plan.git")
    res = run_cli_in_process(step[0], task, *step[1:], "--agent", "ana", "--json", cwd=a)
    assert res.code != 0 and res.json["error"]["code"] == "remote_unreachable", res.stdout
    action = res.json["_next_action"]
    assert action["marker"] == "wait" and "answers" in action["condition"], action
    assert shlex.split(action["or"]) == ["leafwise", again[0], task, *again[1:], "--agent", "ana"], action
    text = run_cli_in_process(step[0], task, *step[1:], "--agent", "ana", cwd=a).stderr.rstrip().splitlines()
    assert text[-2].startswith("Wait: ") and text[-1] == f"Or: {action['or']}", text
