"""Many agents at once, with real processes: races, lost updates and SIGKILL.

Races that need the full start-up of the CLI use `leafwise` subprocesses; the
loops that run hundreds of commands use worker processes (this file run as a
script) calling `runner.execute`, the one path every surface goes through.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

TESTS = Path(__file__).resolve().parents[1]  # tests/, where testkit lives
if str(TESTS) not in sys.path:  # run as a worker script
    sys.path.insert(0, str(TESTS))

from testkit import run_cli, wait_until, write_plan  # noqa: E402

CLI = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]


# --- worker processes ----------------------------------------------------------

def _execute(root: str, name: str, **args: Any):
    from leafwise.commands.registry import REGISTRY, Ctx, load_all
    from leafwise.commands.runner import execute

    load_all()
    return execute(REGISTRY[name], Ctx(root=root), args)


def agent_loop(root: str, agent: str, seconds: float) -> dict[str, Any]:
    """next → start → complete until the picker says Done (or time runs out)."""
    report: dict[str, Any] = {"agent": agent, "completed": [], "lost": 0, "waits": 0, "errors": []}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        nxt = _execute(root, "next", agent=agent)
        task = nxt.envelope["result"]["task"] if nxt.exit_code == 0 else None
        if task is None:
            if nxt.envelope["_next_action"]["marker"] == "done":
                return report
            report["waits"] += 1
            time.sleep(0.02)
            continue
        started = _execute(root, "start", node_id=task["id"], agent=agent)
        if started.exit_code == 3:
            report["lost"] += 1
            continue
        if started.exit_code:
            report["errors"].append(("start", task["id"], started.envelope["error"]["message"]))
            continue
        done = _execute(root, "complete", node_id=task["id"], summary=f"done by {agent}", agent=agent)
        if done.exit_code:
            report["errors"].append(("complete", task["id"], done.envelope["error"]["message"]))
        else:
            report["completed"].append(task["id"])
    report["errors"].append(("timeout", None, f"not done after {seconds}s"))
    return report


def edit_loop(root: str, node_id: str, rounds: int) -> dict[str, Any]:
    """One node edited `rounds` times (each edit also appends a journal event)."""
    codes = [_execute(root, "edit", node_id=node_id, set=(f"title=Edit {k} of {node_id}",)).exit_code
             for k in range(rounds)]
    return {"node": node_id, "codes": codes}


def churn(root: str, seed: int) -> None:
    """Mutate the plan as fast as possible until killed: start, complete, block, edit, unclaim."""
    rng = random.Random(seed)
    agent = f"churn-{seed}"
    ids = [f"T-{i}" for i in range(1, 13)]
    while True:
        nid = rng.choice(ids)
        step = rng.randrange(7)
        if step == 0:
            _execute(root, "start", node_id=nid, agent=agent)
        elif step == 1:
            _execute(root, "complete", node_id=nid, summary="churned", agent=agent)
        elif step == 2:
            _execute(root, "block", node_id=nid, reason=f"blocked by {agent}")
        elif step == 3:
            _execute(root, "unblock", node_id=nid)
        elif step == 4:
            _execute(root, "edit", node_id=nid, set=(f"title=Churn {rng.randrange(10**6)}", "status=draft"))
        elif step == 5:
            _execute(root, "unclaim", node_id=nid, agent=agent, force=True)
        else:
            _execute(root, "edit", node_id=nid, set=(f"tags=[t{rng.randrange(100)}, churn]",))


def killer(root: str, seed: int, kills: int) -> dict[str, Any]:
    """Fork a churning writer and SIGKILL it a few milliseconds later, again and again."""
    rng = random.Random(seed)
    _execute(root, "validate")  # import everything once: each forked writer starts writing at once
    killed = 0
    for k in range(kills):
        pid = os.fork()
        if pid == 0:
            try:
                churn(root, seed * 1000 + k)
            finally:
                os._exit(1)
        if k % 10:
            time.sleep(rng.uniform(0.001, 0.04))
        else:  # now and then one finishes a step, however loaded the machine
            _until_the_journal_grows(Path(root), time.monotonic() + 10)
        os.kill(pid, signal.SIGKILL)
        _pid, status = os.waitpid(pid, 0)
        killed += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return {"kills": killed}


def _until_the_journal_grows(root: Path, deadline: float) -> None:
    journal_file = root / ".leafwise/journal.jsonl"
    size = journal_file.stat().st_size if journal_file.exists() else 0
    while time.monotonic() < deadline and (journal_file.stat().st_size if journal_file.exists() else 0) <= size:
        time.sleep(0.005)


def _spawn(mode: str, *args: Any) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, mode, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "LEAFWISE_AGENT": ""})


def _reports(procs: list[subprocess.Popen], timeout: float = 120) -> list[dict[str, Any]]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, stderr
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


# --- the plan and what must survive ---------------------------------------------

def task_file(nid: str, parent: str | None, n: int) -> str:
    return (f"# task {n}: written by hand, this comment must survive\n"
            f"id: {nid}\ntitle: 'Task number {n}'\n" + (f"parent: {parent}\n" if parent else "")
            + f"status: draft\nestimate: {{points: {n % 5 + 1}}}   # an unknown key\n"
            f"x_owner: team-{n % 3}\n")


def epics_plan(root: Path, epics: int, per_epic: int) -> tuple[list[str], list[str]]:
    files: dict[str, str] = {}
    epic_ids = [f"T-{e}" for e in range(1, epics + 1)]
    task_ids: list[str] = []
    for e, eid in enumerate(epic_ids):
        files[eid] = f"id: {eid}\ntitle: Epic {e}\nrelease: R1\nstatus: draft\n"
        for k in range(per_epic):
            n = epics + 1 + e * per_epic + k
            files[f"T-{n}"] = task_file(f"T-{n}", eid, n)
            task_ids.append(f"T-{n}")
    write_plan(root, files)
    return epic_ids, task_ids


def events(root: Path) -> list[dict[str, Any]]:
    """Every journal line, each of which must be one whole JSON object."""
    lines = (root / ".leafwise/journal.jsonl").read_bytes().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def assert_every_file_parses(root: Path) -> None:
    from leafwise.store import PlanPaths, load_plan

    plan = load_plan(PlanPaths(root), use_cache=False)
    assert not plan.problems, plan.problems
    for path in (root / ".leafwise/nodes").glob("*.yaml"):
        assert isinstance(yaml.safe_load(path.read_text()), dict), path


# --- the tests -----------------------------------------------------------------

@pytest.mark.slow
def test_sixteen_agents_race_to_start_one_task_and_exactly_one_wins(tmp_path: Path) -> None:
    write_plan(tmp_path, {f"T-{i}": task_file(f"T-{i}", None, i) for i in range(1, 5)})
    env = {**os.environ, "LEAFWISE_AGENT": ""}
    procs = [subprocess.Popen([*CLI, "start", "T-1", "--agent", f"agent-{i}"], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(16)]
    results = [(i, *p.communicate(timeout=120), p.returncode) for i, p in enumerate(procs)]
    winners = [r for r in results if r[3] == 0]
    losers = [r for r in results if r[3] != 0]
    assert len(winners) == 1, results
    winner = f"agent-{winners[0][0]}"
    assert len(losers) == 15
    for i, _out, err, code in losers:
        assert code == 3, err
        lines = err.strip().splitlines()
        assert lines[-2].startswith(f"Wait: {winner} holds T-1 until "), err
        assert lines[-1] == f"Or: leafwise start --next --agent agent-{i}", err
    claim = json.loads((tmp_path / ".leafwise/claims/T-1.json").read_text())
    assert claim["agent"] == winner
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["assignee"] == winner
    assert [e["actor"] for e in events(tmp_path) if e["command"] == "start"] == [winner]


@pytest.mark.slow
def test_eight_agents_finish_150_tasks_and_nothing_is_lost(tmp_path: Path) -> None:
    epic_ids, task_ids = epics_plan(tmp_path, epics=5, per_epic=30)
    reports = _reports([_spawn("agent", tmp_path, f"agent-{i}", 100) for i in range(8)])
    assert [r["errors"] for r in reports] == [[]] * 8
    completed = Counter(t for r in reports for t in r["completed"])
    assert sorted(completed) == sorted(task_ids) and set(completed.values()) == {1}
    for n, nid in enumerate(task_ids, len(epic_ids) + 1):
        text = (tmp_path / f".leafwise/nodes/{nid}.yaml").read_text()
        data = yaml.safe_load(text)
        assert data["status"] == "done" and data["summary"].startswith("done by agent-")
        assert text.startswith(f"# task {n}: written by hand, this comment must survive\n")
        assert f"estimate: {{points: {n % 5 + 1}}}   # an unknown key\n" in text
        assert f"x_owner: team-{n % 3}\n" in text
    for eid in epic_ids:
        assert yaml.safe_load((tmp_path / f".leafwise/nodes/{eid}.yaml").read_text())["status"] == "done"
    log = events(tmp_path)
    starts = Counter(e["node"] for e in log if e["command"] == "start")
    completes = [e for e in log if e["command"] == "complete"]
    assert starts == Counter(task_ids)
    assert Counter(e["node"] for e in completes) == Counter(task_ids)
    closed = Counter(c["id"] for e in completes for c in e.get("cascade", []))
    assert closed == Counter(epic_ids)  # each epic closed exactly once, by the last child's agent
    opened = Counter(c["id"] for e in log if e["command"] == "start" for c in e.get("cascade", []))
    assert opened == Counter(epic_ids)
    assert not list((tmp_path / ".leafwise/claims").glob("*.json"))
    assert run_cli("validate", cwd=tmp_path).code == 0


@pytest.mark.slow
def test_twenty_processes_journal_and_edit_different_nodes(tmp_path: Path) -> None:
    write_plan(tmp_path, {f"T-{i}": task_file(f"T-{i}", None, i) for i in range(1, 21)})
    rounds = 8
    reports = _reports([_spawn("edit", tmp_path, f"T-{i}", rounds) for i in range(1, 21)])
    assert all(r["codes"] == [0] * rounds for r in reports), reports
    assert_every_file_parses(tmp_path)
    for i in range(1, 21):
        text = (tmp_path / f".leafwise/nodes/T-{i}.yaml").read_text()
        assert yaml.safe_load(text)["title"] == f"Edit {rounds - 1} of T-{i}"
        assert text.startswith(f"# task {i}: written by hand")
    edits = [e for e in events(tmp_path) if e["command"] == "edit"]
    assert len(edits) == 20 * rounds
    for i in range(1, 21):  # each node's edits in order, each seeing the one before
        titles = [e["changes"]["title"] for e in edits if e["node"] == f"T-{i}"]
        assert [t[1] for t in titles] == [f"Edit {k} of T-{i}" for k in range(rounds)]
        assert [t[0] for t in titles[1:]] == [t[1] for t in titles[:-1]]


@pytest.mark.slow
def test_two_processes_edit_different_fields_of_one_node_and_both_survive(tmp_path: Path) -> None:
    write_plan(tmp_path, {"T-1": task_file("T-1", None, 1)})
    for round_ in range(3):
        a = subprocess.Popen([*CLI, "edit", "T-1", "--set", f"title=Title {round_}"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        b = subprocess.Popen([*CLI, "edit", "T-1", "--set", f"tags=[round-{round_}]"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert a.wait(60) == 0 and b.wait(60) == 0, (a.stderr.read(), b.stderr.read())
        data = yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())
        assert data["title"] == f"Title {round_}" and data["tags"] == [f"round-{round_}"]


SLEEPING = ("hrtimer_nanosleep", "do_nanosleep")


def _sleeping(pid: int) -> bool:
    """Whether process `pid` sits in time.sleep: the CLI only sleeps between tries of a lock."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text().strip() in SLEEPING
    except OSError:
        return False


def _wchan_shows_sleep() -> bool:
    """Whether this kernel names the sleep in /proc (some hide wchan behind "0")."""
    import threading

    def shows() -> bool:
        try:
            return Path(f"/proc/self/task/{sleeper.native_id}/wchan").read_text().strip() in SLEEPING
        except OSError:
            return False

    stop = threading.Event()

    def nap() -> None:
        while not stop.is_set():
            time.sleep(0.05)

    sleeper = threading.Thread(target=nap)
    sleeper.start()
    try:
        deadline = time.monotonic() + 1.0
        while not shows():  # until the thread is asleep, or a second of not seeing it
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True
    finally:
        stop.set()
        sleeper.join()


def test_two_processes_set_the_same_field_one_wins_one_gets_a_conflict(tmp_path: Path) -> None:
    """Both read the node, then both wait on its lock: never a silent last-writer-wins."""
    from leafwise.store import PlanPaths
    from leafwise.store.writer import locked

    if not _wchan_shows_sleep():
        pytest.skip("this kernel does not show in /proc who sleeps waiting on a lock")

    write_plan(tmp_path, {"T-1": task_file("T-1", None, 1)})
    paths = PlanPaths(tmp_path)
    with locked(paths, "T-1"):
        procs = {value: subprocess.Popen([*CLI, "edit", "T-1", "--set", f"title={value}"], cwd=tmp_path,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for value in ("Alpha", "Beta")}
        deadline, streak = time.monotonic() + 8, 0
        while streak < 5:  # both have read the node and now poll its lock
            assert time.monotonic() < deadline, "the editors never reached the lock"
            streak = streak + 1 if all(_sleeping(p.pid) for p in procs.values()) else 0
            time.sleep(0.02)
    results = {value: (p.wait(60), p.stderr.read()) for value, p in procs.items()}
    codes = sorted(code for code, _err in results.values())
    assert codes == [0, 3], results
    winner = next(v for v, (code, _e) in results.items() if code == 0)
    loser_err = next(err for code, err in results.values() if code == 3)
    assert "changed since it was read" in loser_err and "Fix: leafwise show T-1" in loser_err
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["title"] == winner
    assert [e["changes"]["title"] for e in events(tmp_path) if e["command"] == "edit"] == \
        [["Task number 1", winner]]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="the killers fork their writers")
def test_writers_killed_at_any_point_leave_a_valid_plan_and_no_stuck_lock(tmp_path: Path) -> None:
    """300 writers, most SIGKILLed 1-40 ms into their work (a naive in-place write fails this)."""
    from leafwise.store import PlanPaths
    from leafwise.store.writer import locked, sweep_temp_files

    write_plan(tmp_path, {f"T-{i}": task_file(f"T-{i}", None, i) for i in range(1, 13)})
    kills = 150
    reports = _reports([_spawn("kill", tmp_path, seed, kills) for seed in (1, 2)])
    assert [r["kills"] for r in reports] == [kills, kills]  # each writer died by the signal, not a crash
    assert_every_file_parses(tmp_path)
    assert len(events(tmp_path)) > 10  # the churn wrote, and every journal line is whole
    paths = PlanPaths(tmp_path)
    for i in range(1, 13):  # no lock outlived its killed holder
        with locked(paths, f"T-{i}", timeout=1):
            pass
    with locked(paths, "journal", timeout=1):
        pass
    sweep_temp_files(paths)
    assert not list((tmp_path / ".leafwise").rglob(".lw-*.tmp"))
    res = run_cli("validate", cwd=tmp_path)
    assert res.code == 0, res.stdout + res.stderr
    assert run_cli("edit", "T-1", "--set", "title=After the storm", cwd=tmp_path).code == 0


if __name__ == "__main__":  # a worker process
    mode, *argv = sys.argv[1:]
    if mode == "agent":
        print(json.dumps(agent_loop(argv[0], argv[1], float(argv[2]))))
    elif mode == "edit":
        print(json.dumps(edit_loop(argv[0], argv[1], int(argv[2]))))
    elif mode == "kill":
        print(json.dumps(killer(argv[0], int(argv[1]), int(argv[2]))))


def test_a_parent_is_never_handed_out_while_its_cascade_is_half_done(tmp_path: Path) -> None:
    """No agent claims and "completes" an epic in the
    moment between another agent writing the epic's last child done and closing the epic.
    Here the test is that other agent: it holds the pick lock with the child done and the epic
    still open, and `start EPIC` must wait for the cascade, then lose the race (exit 3)."""
    from leafwise.store import PlanPaths
    from leafwise.store.writer import locked

    write_plan(tmp_path, {"T-1": "id: T-1\ntitle: Epic\nrelease: R1\nstatus: in-progress\n",
                          "T-2": "id: T-2\ntitle: Last child\nparent: T-1\nstatus: done\nsummary: finished\n"})
    epic = tmp_path / ".leafwise/nodes/T-1.yaml"
    with locked(PlanPaths(tmp_path), "pick"):
        late = subprocess.Popen([*CLI, "start", "T-1", "--agent", "b", "--json"], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # `start` reaches the pick lock and sleeps between tries of it (the kernel says so, where it can)
        if _wchan_shows_sleep():
            wait_until(lambda: late.poll() is not None or _sleeping(late.pid), 30, what="start waiting on the lock")
        else:
            time.sleep(1.0)
        assert late.poll() is None, "start ran while a cascade held the pick lock"
        epic.write_text(epic.read_text().replace("status: in-progress", "status: done"))
    stdout, _ = late.communicate(timeout=60)
    answer = json.loads(stdout)
    assert late.returncode == 3 and answer["error"]["code"] == "closed", answer
    assert "assignee" not in yaml.safe_load(epic.read_text())
