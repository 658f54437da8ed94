"""Team mode against real servers on 127.0.0.1: `git daemon` and smart HTTP (`git http-backend` behind a
token check), a host that refuses custom refs (pre-receive accepting only heads and tags), and clones
racing `start --next` in separate processes with a delay on the server so the server decides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import bare_repo, daemon, git, seed_plan, set_hook, smart_http, team_clones

TRANSPORTS = ("daemon", "http")


def served(kind: str, base: Path):
    return daemon(base) if kind == "daemon" else smart_http(base)


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_claims_over_a_real_server(kind, tmp_path):
    with served(kind, tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        doctor = run_cli_in_process("team", "doctor", cwd=b)
        assert doctor.code == 0 and "The host keeps claims safely." in doctor.stdout
        first = run_cli_in_process("start", "--next", "--agent", "alice", "--json", cwd=a)
        second = run_cli_in_process("start", "--next", "--agent", "bob", "--json", cwd=b)
        assert first.code == second.code == 0, first.stderr + second.stderr
        assert first.json["result"]["task"]["id"] != second.json["result"]["task"]["id"]
        done = run_cli_in_process("complete", second.json["result"]["task"]["id"], "--summary", "ok",
                                  "--agent", "bob", cwd=b)
        assert done.code == 0, done.stderr


def test_a_host_that_refuses_custom_refs_gets_branch_mode(tmp_path):
    repo = bare_repo(tmp_path, strict=True)
    a = seed_plan(repo, tmp_path / "clone-0", tasks=2)
    with daemon(tmp_path) as prefix:
        git(a, "remote", "set-url", "origin", f"{prefix}/plan.git")
        init = run_cli_in_process("team", "init", cwd=a)
        assert init.code == 0, init.stdout + init.stderr
        assert "pre-receive hook declined" in init.stdout and "branch mode" in init.stdout
        assert "mode: branch" in (a / ".leafwise" / "project.yaml").read_text()
        assert "commit and push .leafwise/project.yaml" in init.stdout  # the step the other clones need
        git(a, "add", "-A")
        git(a, "commit", "-q", "-m", "team mode")
        git(a, "push", "-q", "origin", "main")
        b = tmp_path / "clone-1"
        git(tmp_path, "clone", "-q", "-b", "main", f"{prefix}/plan.git", str(b))
        assert run_cli_in_process("team", "join", cwd=b).code == 0
        first = run_cli_in_process("start", "--next", "--agent", "alice", "--json", cwd=a)
        second = run_cli_in_process("start", "--next", "--agent", "bob", "--json", cwd=b)
        assert {first.json["result"]["task"]["id"], second.json["result"]["task"]["id"]} == {"T-1", "T-2"}
        task = first.json["result"]["task"]["id"]
        assert run_cli_in_process("complete", task, "--summary", "ok", "--agent", "alice", cwd=a).code == 0
        again = run_cli_in_process("start", task, "--agent", "carol", cwd=b)
        assert again.code == 3 and "is done in alice@" in again.stderr
        log = git(repo, "log", "--format=%s", "leafwise/state")
        assert f"leafwise: done {task} by alice [skip ci]" in log
        assert not git(repo, "for-each-ref", "refs/leafwise"), "nothing outside heads and tags"


def test_doctor_names_the_branch_mode_fallback_on_a_refusing_host(tmp_path):
    repo = bare_repo(tmp_path, strict=True)
    work = seed_plan(repo, tmp_path / "clone-0", tasks=1)
    project = work / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + "settings:\n  team: {remote: origin}\n")
    with daemon(tmp_path) as prefix:  # a served host: a local remote's hooks never run for Leafwise
        git(work, "remote", "set-url", "origin", f"{prefix}/plan.git")
        doctor = run_cli_in_process("team", "doctor", cwd=work)
    assert doctor.code == 3 and "FAILED create-only" in doctor.stdout
    assert "settings.team.mode: branch" in doctor.stderr
    start = run_cli_in_process("start", "--next", "--agent", "alice", cwd=work)
    # settings.team written into project.yaml (as a pull request could): no push until a person joins
    assert start.code == 3 and start.stderr.strip().endswith("Fix: leafwise team join"), start.stderr


RACER = """
import sys
from leafwise.commands.surfaces.cli import main
main(["start", "--next", "--agent", sys.argv[1], "--json"])
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", TRANSPORTS)
def test_clones_racing_start_next_get_different_tasks(kind, tmp_path):
    with served(kind, tmp_path) as prefix:
        clones = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 3, tasks=4)
        set_hook(tmp_path / "plan.git", delay=0.5)  # every push waits on the server: the races reach it
        procs = [subprocess.Popen([sys.executable, "-c", RACER, f"agent-{i}"], cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for i, work in enumerate(clones * 2)]
        outs = [(p.communicate(timeout=120), p.returncode) for p in procs]
    answers = [json.loads(out) for (out, _), _ in outs]
    taken = [a["result"]["task"]["id"] for a in answers if (a.get("result") or {}).get("task")]
    assert sorted(taken) == ["T-1", "T-2", "T-3", "T-4"], outs  # each task to exactly one of six racers
