"""The CLI as a fresh interpreter runs it, against the fork server most tests use (testkit/cli_fork.py).

A forked child starts from a process that imported the CLI once, with the first test's environment:
anything the CLI computed at import time from the environment, the folder or the clock would carry
over into every later call. Here the same calls, in two copies of one plan, through both ways, must
answer alike (exit status, stdout, stderr, journal), with the config folder, the agent and the time
zone changed between calls. A fresh start is also what the fork cannot show, so it is run here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from testkit import DEMO_PLAN, cli_fork, journal, run_cli

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?|\b\d+(?:\.\d+)? ?(?:ms|s)\b")
# (argv, extra environment): a command of each kind, with the environment a later test would change
CALLS = [
    (("--help",), {}),
    (("next",), {}),
    (("next", "--json"), {"LEAFWISE_AGENT": "ana"}),
    (("list", "--status", "blocked"), {}),
    (("validate",), {"TZ": "Pacific/Kiritimati"}),
    (("trust",), {}),
    (("start", "--next", "--agent", "bo"), {}),
    (("complete", "--agent", "bo", "--summary", "done in the test"), {}),
    (("show", "NOPE-1"), {}),
    (("no-such-command",), {}),
    (("progress",), {"TZ": "America/St_Johns"}),
    (("next", "--agent", "bo"), {}),
]


def _plain(text: str, folder: Path) -> str:
    return STAMP.sub("T", text.replace(str(folder), "<folder>"))


@pytest.mark.slow
def test_forked_calls_answer_as_fresh_ones(tmp_path: Path):
    answers = {}
    for way in ("forked", "fresh"):
        root = tmp_path / way / "shop"
        shutil.copytree(DEMO_PLAN, root)
        config = tmp_path / way / "config"
        answers[way] = []
        for i, (argv, extra) in enumerate(CALLS):
            env = {"LEAFWISE_CONFIG_DIR": str(config / str(i % 3)), **extra}
            res = run_cli(*argv, cwd=root, env=env, fresh=way == "fresh")
            answers[way].append((argv, res.code, _plain(res.stdout, root.parent),
                                 _plain(res.stderr, root.parent)))
        answers[way].append([_plain(json.dumps(event, sort_keys=True), root.parent) for event in journal(root)])
    for forked, fresh in zip(answers["forked"], answers["fresh"]):
        assert forked == fresh


def test_a_startup_variable_runs_a_fresh_interpreter(tmp_path: Path):
    """PYTHON* and locale variables are read as the interpreter starts: such a call is not forked."""
    assert cli_fork.needs_exec({**os.environ, "PYTHONWARNINGS": "error"})
    assert cli_fork.needs_exec({**os.environ, "LC_ALL": "C"})
    assert not cli_fork.needs_exec({**os.environ, "LEAFWISE_AGENT": "ana"})
    res = run_cli("--help", cwd=tmp_path, env={"PYTHONWARNINGS": "error::DeprecationWarning"})
    assert res.code == 0, res.stderr


def test_a_timeout_kills_the_call_and_its_children(tmp_path: Path):
    """A call past its timeout raises as subprocess.run does, and its process group is gone."""
    root = tmp_path / "shop"
    shutil.copytree(DEMO_PLAN, root)
    for node in (root / ".leafwise/nodes").glob("*.yaml"):
        node.write_text(node.read_text().replace("status: draft", "status: blocked\nblocked_reason: waiting"))
    before = _children()
    with pytest.raises(subprocess.TimeoutExpired):
        run_cli("next", "--wait", "120", "--agent", "ana", cwd=root, timeout=3)
    deadline = time.monotonic() + 10
    while _children() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _children() - before


def _children() -> set[int]:
    """The live children of this test process's fork server (the calls it forked)."""
    servers = {pid for pid, parent in _processes() if parent == os.getpid()}
    return {pid for pid, parent in _processes() if parent in servers}


def _processes() -> list[tuple[int, int]]:
    """(pid, parent pid) of every live process."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                found.append((int(proc.name), int((proc / "stat").read_text().rsplit(") ", 1)[1].split()[1])))
            except (OSError, ValueError, IndexError):
                pass
    return found
