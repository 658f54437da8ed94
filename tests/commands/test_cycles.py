"""Bounded cycles through the real CLI: the ledger counts, the caps stop, verify is run for real."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from leafwise.commands.contract import CommandError
from leafwise.commands.domain.cycle_gates import check_paths, off_limits_for
from leafwise.commands.registry import REGISTRY, Ctx, load_all
from leafwise.store import cycles as ledger
from testkit import node, run_cli, write_plan

PY = shlex.quote(sys.executable)
PASS = f'{PY} -c "import sys; sys.exit(0)"'
FAIL3 = f'{PY} -c "import sys; sys.exit(3)"'


@pytest.fixture
def bugs(tmp_path: Path) -> Path:
    """Three bugs under an epic, and unrelated work the walk must leave alone."""
    return write_plan(tmp_path, [
        node("T-1", "Bugs", release="R1"),
        node("T-2", "Bug: cart total", parent="T-1"),
        node("T-3", "Bug: login loop", parent="T-1"),
        node("T-4", "Bug: search crash", parent="T-1"),
        node("T-5", "Dark mode", release="R1"),
    ])


def cli(root: Path, *args: str):
    res = run_cli(*args, "--json", cwd=root)
    if args[:2] == ("cycle", "start") and res.code == 0:
        # the person approves the loop's verify commands (a call without a terminal never does)
        assert run_cli("trust", "--all", "--yes", cwd=root).code == 0
    return res


def count_file(root: Path, name: str) -> Path:
    return root / ".leafwise" / "cycles" / f"{name}.count"


def status_of(root: Path, node_id: str) -> str:
    return cli(root, "show", node_id).json["result"]["status"]


def journal(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / ".leafwise" / "journal.jsonl").read_text().splitlines()]


# --- refused starts -------------------------------------------------------------

@pytest.mark.parametrize("args, code, in_fix", [
    (("--token-cap", "1000"), "missing_max_iterations", "--max-iterations <1-12> --token-cap 1000"),
    (("--max-iterations", "13", "--token-cap", "1000"), "max_iterations_out_of_range", "--max-iterations 12"),
    (("--max-iterations", "0", "--token-cap", "1000"), "max_iterations_out_of_range", "--max-iterations 1"),
    (("--max-iterations", "5"), "missing_token_cap", "--max-iterations 5 --token-cap <tokens>"),
    (("--max-iterations", "5", "--token-cap", "-4"), "missing_token_cap", "--token-cap <tokens>"),
])
def test_start_refused_without_real_limits(bugs, args, code, in_fix):
    res = run_cli("cycle", "start", "walk", "--kind", "for-each-work-item", "--verify", "true", *args, cwd=bugs)
    assert res.code == 2
    assert res.last_lines[-1].startswith("Fix: leafwise cycle start walk --kind for-each-work-item")
    assert in_fix in res.last_lines[-1] and "--verify true" in res.last_lines[-1]
    env = cli(bugs, "cycle", "start", "walk", "--kind", "for-each-work-item", *args).json
    assert env["error"]["code"] == code and env["_next_action"]["marker"] == "fix"
    assert not (bugs / ".leafwise" / "cycles").exists()  # a refused start leaves no ledger


def test_start_refuses_unchecked_goal_and_a_reused_name(bugs):
    res = cli(bugs, "cycle", "start", "g", "--kind", "until-goal", "--max-iterations", "3", "--token-cap", "10")
    assert res.code == 2 and res.json["error"]["code"] == "no_goal"
    assert '--verify "<command>"' in res.json["_next_action"]["command"]
    assert cli(bugs, "cycle", "start", "g", "--kind", "until-goal", "--max-iterations", "3", "--token-cap", "10",
               "--verify", "true").code == 0
    again = cli(bugs, "cycle", "start", "g", "--kind", "review", "--token-cap", "10", "--verify", "true")
    assert again.code == 3 and again.json["error"]["code"] == "cycle_exists"
    assert again.json["_next_action"]["command"] == "leafwise cycle tick g"


def test_review_cycle_defaults_to_four_iterations(bugs):
    res = cli(bugs, "cycle", "start", "rev", "--kind", "review", "--token-cap", "5000", "--verify", "true")
    assert res.code == 0, res.stderr
    assert res.json["result"]["cap"] == 4 and res.json["result"]["count"] == 0
    assert count_file(bugs, "rev").read_text().strip() == "0"


# --- the ledger is what counts ----------------------------------------------------

def test_the_ledger_file_is_the_count(bugs):
    assert cli(bugs, "cycle", "start", "g", "--kind", "until-goal", "--max-iterations", "4", "--token-cap", "9999",
               "--node", "T-5", "--verify", FAIL3).code == 0
    first = cli(bugs, "cycle", "tick", "g")
    assert first.json["result"]["iteration"] == 1
    assert count_file(bugs, "g").read_text().strip() == "1"
    count_file(bugs, "g").write_text("3\n")  # a person edits the ledger: that is the count now
    last = cli(bugs, "cycle", "tick", "g")
    assert last.json["result"]["iteration"] == 4 and last.json["result"]["last"] is True
    stopped = run_cli("cycle", "tick", "g", cwd=bugs)
    assert stopped.code == 3 and "STOPPED at its cap (4 of 4 iterations)" in stopped.stdout
    assert count_file(bugs, "g").read_text().strip() == "4"  # never past the cap
    assert status_of(bugs, "T-5") == "blocked"


def test_an_unreadable_ledger_stops_instead_of_guessing(bugs):
    cli(bugs, "cycle", "start", "g", "--kind", "until-goal", "--max-iterations", "4", "--token-cap", "99",
        "--verify", "true")
    count_file(bugs, "g").write_text("lots")
    res = cli(bugs, "cycle", "tick", "g")
    assert res.code == 4 and res.json["error"]["code"] == "ledger_unreadable"
    assert res.json["_next_action"] == {**res.json["_next_action"], "marker": "fix",
                                        "command": "leafwise cycle stop g"}
    assert cli(bugs, "cycle", "stop", "g").code == 0
    assert cli(bugs, "cycle", "tick", "g").code == 3


def test_the_token_budget_stops_the_loop(bugs):
    cli(bugs, "cycle", "start", "b", "--kind", "until-goal", "--max-iterations", "10", "--token-cap", "100",
        "--node", "T-5", "--verify", "true")
    assert cli(bugs, "cycle", "tick", "b", "--tokens", "60").code == 0
    over = cli(bugs, "cycle", "tick", "b", "--tokens", "50")
    assert over.code == 3 and over.json["error"]["code"] == "cycle_budget_spent"
    assert "token budget (110 of 100 tokens)" in over.json["error"]["message"]
    assert over.json["error"]["details"]["report"]["iterations"] == 1
    assert count_file(bugs, "b").read_text().strip() == "1"  # no iteration begins past the budget
    assert status_of(bugs, "T-5") == "blocked"
    refused = run_cli("cycle", "tick", "b", cwd=bugs)
    assert refused.code == 3 and refused.last_lines[-1] == "Fix: leafwise cycle status b"


# --- a for-each walk over three bugs ----------------------------------------------

@pytest.mark.slow
def test_for_each_walk_over_three_bugs_ends_done_at_three_of_six(bugs):
    start = cli(bugs, "cycle", "start", "bugs", "--kind", "for-each-work-item", "--max-iterations", "6",
                "--token-cap", "100000", "--node", "T-1", "--agent", "bot", "--verify", PASS,
                "--off-limits", "migrations/**")
    assert start.code == 0, start.stderr
    walked = []
    answer = cli(bugs, "cycle", "tick", "bugs", "--tokens", "500")
    while answer.json["_next_action"]["marker"] != "done":
        env = answer.json
        assert answer.code == 0, answer.stderr
        item = env["result"]["item"]["id"]
        walked.append(item)
        assert env["result"]["off_limits"] == ["migrations/**"]
        # follow the hints as an agent would: start → verify → complete
        assert env["_next_action"]["command"] == f"leafwise start {item} --agent bot"
        assert cli(bugs, "start", item, "--agent", "bot").code == 0
        verified = cli(bugs, "cycle", "verify", "bugs")
        assert verified.code == 0 and verified.json["result"]["green"] is True
        assert verified.json["_next_action"]["command"] == f'leafwise complete {item} --summary "<summary>"'
        assert cli(bugs, "complete", item, "--summary", f"fixed {item}", "--agent", "bot").code == 0
        answer = cli(bugs, "cycle", "tick", "bugs", "--tokens", "500")
    assert walked == ["T-2", "T-3", "T-4"]  # pick order, and nothing outside the subtree
    assert count_file(bugs, "bugs").read_text().strip() == "3"
    row = answer.json["result"]["cycle"]
    assert (row["count"], row["cap"], row["status"], row["finished"]) == (3, 6, "stopped", True)
    assert answer.json["result"]["report"]["done"] == ["T-2", "T-3", "T-4"]
    assert status_of(bugs, "T-5") == "draft"
    assert status_of(bugs, "T-1") == "done"  # the epic closed by cascade
    again = cli(bugs, "cycle", "tick", "bugs")
    assert again.code == 0 and again.json["_next_action"]["marker"] == "done"
    assert count_file(bugs, "bugs").read_text().strip() == "3"


# --- a stuck item ends at the cap, honestly -------------------------------------

@pytest.mark.slow
def test_stuck_item_stops_at_the_cap_blocks_and_escalates(bugs):
    cli(bugs, "cycle", "start", "stuck", "--kind", "for-each-work-item", "--max-iterations", "3",
        "--token-cap", "100000", "--node", "T-1", "--agent", "bot", "--verify", FAIL3)
    for iteration in (1, 2, 3):
        tick = cli(bugs, "cycle", "tick", "stuck")
        assert tick.code == 0 and tick.json["result"]["item"]["id"] == "T-2"
        assert tick.json["result"]["retry"] is (iteration > 1)
        if iteration == 1:
            assert cli(bugs, "start", "T-2", "--agent", "bot").code == 0
        red = cli(bugs, "cycle", "verify", "stuck")
        assert red.code == 1 and red.json["error"]["code"] == "verify_red"
        assert red.json["_next_action"]["command"] == "leafwise cycle tick stuck"
        refused = cli(bugs, "complete", "T-2", "--summary", "surely fine", "--agent", "bot")
        assert refused.code == 3 and refused.json["error"]["code"] == "verify_required"
        assert refused.json["_next_action"]["command"] == "leafwise cycle verify stuck --agent bot"  # the asker's hint carries it
        again = cli(bugs, "cycle", "verify", "stuck")  # one fix-and-verify per iteration
        assert again.code == 3 and again.json["error"]["code"] == "verify_again"
    stop = run_cli("cycle", "tick", "stuck", cwd=bugs)
    assert stop.code == 3
    assert "STOPPED at its cap (3 of 3 iterations). It did not finish" in stop.stdout
    assert "done (0): none" in stop.stdout
    assert "left (3): T-2 'Bug: cart total', T-3 'Bug: login loop', T-4 'Bug: search crash'" in stop.stdout
    assert "stopped on: T-2 'Bug: cart total'" in stop.stdout
    assert stop.last_lines[-1] == "Fix: leafwise cycle status stuck"
    shown = cli(bugs, "show", "T-2").json["result"]
    assert shown["status"] == "blocked"
    assert shown["blocked_reason"].startswith("cycle stuck stopped at its cap (3 of 3 iterations) on T-2; "
                                              "its last verify was red (exit codes [3])")
    escalations = [e for e in journal(bugs) if e["command"] == "cycle escalate"]
    assert len(escalations) == 1
    assert escalations[0]["node"] == "T-2" and escalations[0]["escalate_to"] == "owner"
    assert escalations[0]["left"] == ["T-2", "T-3", "T-4"]
    for _ in range(2):
        refused = cli(bugs, "cycle", "tick", "stuck")
        assert refused.code == 3 and refused.json["error"]["code"] == "cycle_escalated"
    assert count_file(bugs, "stuck").read_text().strip() == "3"
    status = cli(bugs, "cycle", "status", "stuck").json
    assert status["_next_action"]["marker"] == "wait" and "leafwise unblock T-2" in status["_next_action"]["condition"]


# --- verify: real exit codes, recorded as evidence ------------------------------

def test_verify_records_real_exit_codes_and_timeouts(bugs):
    slow = f'{PY} -c "import time; time.sleep(30)"'
    cli(bugs, "cycle", "start", "v", "--kind", "until-goal", "--max-iterations", "3", "--token-cap", "1000",
        "--node", "T-5", "--verify", "true", "--verify", PASS, "--verify", "exit 2", "--verify", slow)
    cli(bugs, "cycle", "tick", "v")
    res = cli(bugs, "cycle", "verify", "v", "--timeout", "1")
    assert res.code == 1 and res.json["error"]["message"] == "verify is red: exit 2 from `exit 2`"
    results = res.json["error"]["details"]["results"]
    assert [r["exit_code"] for r in results] == [0, 0, 2, 124]
    assert results[3]["timed_out"] is True and results[3]["seconds"] < 10
    evidence = cli(bugs, "show", "T-5").json["result"]["evidence"]
    assert [(e["kind"], e["command"], e["exit_code"], e["iteration"]) for e in evidence] == [
        ("verify", "true", 0, 1), ("verify", PASS, 0, 1), ("verify", "exit 2", 2, 1), ("verify", slow, 124, 1)]
    assert all(e["at"] and e["cycle"] == "v" for e in evidence)
    assert [e["green"] for e in journal(bugs) if e["command"] == "cycle verify"] == [False]


def test_goal_loop_without_a_task_finishes_on_green_verify(bugs):
    cli(bugs, "cycle", "start", "g", "--kind", "refine-until-quality", "--max-iterations", "2",
        "--token-cap", "1000", "--verify", PASS)
    assert cli(bugs, "cycle", "tick", "g").json["_next_action"]["command"] == "leafwise cycle verify g"
    res = cli(bugs, "cycle", "verify", "g")
    assert res.code == 0 and res.json["_next_action"]["marker"] == "done"
    assert res.json["result"]["cycle"]["status"] == "stopped" and res.json["result"]["cycle"]["finished"]


def test_retry_with_backoff_answers_wait_and_holds_the_retry(bugs):
    cli(bugs, "cycle", "start", "r", "--kind", "retry-with-backoff", "--max-iterations", "5",
        "--token-cap", "1000", "--verify", FAIL3)
    assert cli(bugs, "cycle", "tick", "r").json["_next_action"]["marker"] == "next"
    assert cli(bugs, "cycle", "verify", "r").code == 1
    second = run_cli("cycle", "tick", "r", cwd=bugs)
    assert second.code == 0 and second.last_lines[-1].startswith("Wait: 5 seconds (until ")
    early = cli(bugs, "cycle", "verify", "r")
    assert early.code == 3 and early.json["_next_action"]["marker"] == "wait"
    assert cli(bugs, "cycle", "tick", "r").json["result"]["backoff_seconds"] == 10


# --- status, stop, the MCP names ------------------------------------------------

def test_status_lists_every_cycle_for_the_canvas(bugs):
    cli(bugs, "cycle", "start", "a", "--kind", "review", "--token-cap", "500", "--node", "T-5")
    cli(bugs, "cycle", "start", "b", "--kind", "reconcile-config", "--max-iterations", "2", "--token-cap", "50")
    tick = cli(bugs, "cycle", "tick", "b", "--tokens", "7").json
    assert tick["_next_action"]["command"] == "leafwise reconcile"
    cli(bugs, "cycle", "stop", "b", "--reason", "enough")
    env = cli(bugs, "cycle", "status").json
    rows = {r["name"]: r for r in env["result"]["items"]}
    assert env["result"]["total"] == 2
    assert {k: rows["b"][k] for k in ("kind", "count", "cap", "tokens_used", "token_cap", "status")} == {
        "kind": "reconcile-config", "count": 1, "cap": 2, "tokens_used": 7, "token_cap": 50, "status": "stopped"}
    assert rows["a"]["status"] == "running" and rows["a"]["cap"] == 4
    assert env["_next_action"]["command"] == "leafwise cycle tick a"
    assert cli(bugs, "cycle", "tick", "b").code == 3
    missing = cli(bugs, "cycle", "status", "nope")
    assert missing.code == 5 and missing.json["_next_action"]["command"] == "leafwise cycle status"


def test_cycle_commands_are_registered_with_their_mcp_tools():
    load_all()
    tools = {name: REGISTRY[name].tool for name in REGISTRY if name.startswith("cycle ")}
    assert tools == {"cycle start": "cycle_start", "cycle tick": "cycle_tick", "cycle verify": "cycle_verify",
                     "cycle status": "cycle_status", "cycle stop": "cycle_stop"}
    assert not REGISTRY["cycle status"].mutating and REGISTRY["cycle tick"].mutating


# --- off limits -----------------------------------------------------------------

def test_off_limits_globs_refuse_writes_while_the_cycle_runs(bugs):
    cli(bugs, "cycle", "start", "o", "--kind", "until-goal", "--max-iterations", "2", "--token-cap", "10",
        "--verify", "true", "--off-limits", "migrations/**", "--off-limits", "*.lock",
        "--off-limits", "src/legacy/*.py")
    ctx = Ctx(cwd=bugs)
    assert off_limits_for(ctx) == ["migrations/**", "*.lock", "src/legacy/*.py"]
    check_paths(ctx, ["src/app.py", "src/legacy/deep/x.py", "migrationsX/a.py", "/elsewhere/poetry.lock"])
    for path in ("migrations/0001_init.py", "migrations/a/b.sql", "poetry.lock", "web/package.lock",
                 "src/legacy/old.py", bugs / "migrations" / "x.py"):
        with pytest.raises(CommandError) as caught:
            check_paths(ctx, [path])
        assert caught.value.exit_code == 3 and caught.value.action.command == "leafwise cycle status o"
    tick = run_cli("cycle", "tick", "o", cwd=bugs)
    assert "Off limits (never touch): migrations/**, *.lock, src/legacy/*.py" in tick.stdout
    cli(bugs, "cycle", "stop", "o")
    assert off_limits_for(Ctx(cwd=bugs)) == []
    check_paths(Ctx(cwd=bugs), ["migrations/0001_init.py"])


def test_glob_matching():
    assert ledger.first_match("a/b/secrets/key.pem", ["secrets"]) == "secrets"
    assert ledger.first_match("docs/api.md", ["docs/"]) == "docs/"
    assert ledger.first_match("docs/api.md", ["doc"]) is None
    assert ledger.first_match("x/y/z.min.js", ["**/*.min.js"]) == "**/*.min.js"
    assert ledger.first_match("z.min.js", ["**/*.min.js"]) == "**/*.min.js"
    assert ledger.first_match("a.txt", ["?.txt"]) == "?.txt" and ledger.first_match("ab.txt", ["?.txt"]) is None


@pytest.mark.slow
def test_racing_ticks_never_pass_the_cap(bugs):
    """Eight agents tick at once: five iterations begin, one tick escalates, the rest are refused."""
    cli(bugs, "cycle", "start", "race", "--kind", "until-goal", "--max-iterations", "5", "--token-cap", "10000",
        "--node", "T-5", "--verify", "true")
    env = {**os.environ, "LEAFWISE_AGENT": ""}
    env.pop("LEAFWISE_ROOT", None)
    procs = [subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "cycle", "tick", "race", "--json"],
                              cwd=bugs, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(8)]
    answers = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    iterations = sorted(a["result"]["iteration"] for a in answers if a["status"] == "ok")
    codes = sorted(a["error"]["code"] for a in answers if a["status"] == "error")
    assert iterations == [1, 2, 3, 4, 5]
    assert codes == ["cycle_cap_reached", "cycle_escalated", "cycle_escalated"]
    assert count_file(bugs, "race").read_text().strip() == "5"
    assert [e["command"] for e in journal(bugs)].count("cycle escalate") == 1


def test_write_doc_refuses_an_off_limits_path(tmp_path):

    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    started = run_cli("cycle", "start", "guard", "--kind", "until-goal", "--max-iterations", "3",
                      "--token-cap", "1000", "--verify", "true", "--off-limits", ".leafwise/docs/**",
                      cwd=tmp_path)
    assert started.code == 0, started.stderr
    res = run_cli("doc", "T-1", "--write", "-", stdin="# no\n", cwd=tmp_path)
    assert res.code == 3 and "off limits" in res.stderr
    assert not (tmp_path / ".leafwise/docs/T-1.md").exists()


@pytest.mark.parametrize("body", ["name: big\nverify: [\"true\"]\nnote: " + "x" * 300_000 + "\n", "kind: [\n"],
                         ids=["oversize", "unparsable"])
def test_validate_names_a_cycle_file_it_cannot_trust_and_tasks_still_complete(tmp_path, body):
    from testkit import node, run_cli, write_plan

    write_plan(tmp_path, [node("T-1", "Task")])
    (tmp_path / ".leafwise/cycles").mkdir()
    (tmp_path / ".leafwise/cycles/bad.yaml").write_text(body)
    checked = run_cli("validate", "--json", cwd=tmp_path)
    assert checked.code == 4, checked.stdout
    (problem,) = [p for p in checked.json["error"]["details"]["problems"]["items"] if p["code"] == "cycle_file"]
    assert problem["file"] == ".leafwise/cycles/bad.yaml" and problem["severity"] == "error", problem
    assert run_cli("edit", "T-1", "--set", "priority=high", cwd=tmp_path).code == 0
