"""Leased claims under an injectable clock, and heartbeat / unclaim / renumber / cross-branch ids.

The state machine drives the real commands (runner.execute, the path every
surface uses) on real files, keeps a model of who should hold what, and checks
after every step that the files, the command answers and the picker agree with it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from leafwise.commands.merge_conflicts import conflict_sides, with_merge_conflicts
from leafwise.commands.registry import REGISTRY, Ctx, command_line, load_all
from leafwise.commands.runner import execute
from leafwise.store import PlanPaths, load_plan
from leafwise.store import claims as leases
from testkit import node, run_cli, write_plan

AGENTS = ("ann", "bob", "cy")
TASKS = ("T-1", "T-2", "T-3")
START = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


class Leases(RuleBasedStateMachine):
    """Agents start, heartbeat, unclaim and complete tasks while the clock moves."""

    def __init__(self) -> None:
        super().__init__()
        load_all()
        self.root = Path(tempfile.mkdtemp(prefix="leafwise-claims-"))
        write_plan(self.root, [node(t, f"Task {t}", release="R1") for t in TASKS])
        self.now = START
        # the model: task -> (holder, expires) of its lease file; status and assignee of each task
        self.lease: dict[str, tuple[str, datetime]] = {}
        self.status = {t: "draft" for t in TASKS}
        self.assignee: dict[str, str | None] = {t: None for t in TASKS}

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def run(self, name: str, **args):
        return execute(REGISTRY[name], Ctx(root=str(self.root), clock=lambda: self.now), args)

    def live_holder(self, task: str) -> str | None:
        holder = self.lease.get(task)
        return holder[0] if holder and holder[1] > self.now else None

    @initialize()
    def plan_exists(self) -> None:
        assert load_plan(PlanPaths(self.root), use_cache=False).nodes.keys() == set(TASKS)

    @rule(agent=st.sampled_from(AGENTS), task=st.sampled_from(TASKS), ttl=st.sampled_from([1, 5, 30]))
    def start(self, agent: str, task: str, ttl: int) -> None:
        out = self.run("start", node_id=task, agent=agent, ttl=float(ttl))
        holder = self.live_holder(task)
        if self.status[task] == "done":
            assert out.exit_code == 3 and out.envelope["error"]["code"] == "closed"
        elif holder and holder != agent:
            assert out.exit_code == 3, out.envelope
            assert out.envelope["_next_action"]["condition"].startswith(f"{holder} holds {task} until ")
        else:  # free, expired, or already ours: the lease is (re)taken
            assert out.exit_code == 0, out.envelope
            self.lease[task] = (agent, self.now + timedelta(minutes=ttl))
            self.status[task], self.assignee[task] = "in-progress", agent

    @rule(agent=st.sampled_from(AGENTS), task=st.sampled_from(TASKS))
    def heartbeat(self, agent: str, task: str) -> None:
        out = self.run("heartbeat", node_id=task, agent=agent, ttl=10.0)
        ours = self.lease.get(task, ("", START))[0] == agent
        if self.status[task] != "done" and ours:
            assert out.exit_code == 0, out.envelope
            self.lease[task] = (agent, self.now + timedelta(minutes=10))
        else:
            assert out.exit_code == 3, out.envelope

    @rule(agent=st.sampled_from(AGENTS), task=st.sampled_from(TASKS), force=st.booleans())
    def unclaim(self, agent: str, task: str, force: bool) -> None:
        agent = None if force else agent  # an override is a person's call (an agent's --force takes nothing)
        out = self.run("unclaim", node_id=task, agent=agent, force=force)
        holder = self.live_holder(task)
        if holder and holder != agent and not force:
            assert out.exit_code == 3 and out.envelope["_next_action"]["marker"] == "wait"
            return
        assert out.exit_code == 0, out.envelope
        previous = self.lease.pop(task, None)
        if self.status[task] == "in-progress":
            self.status[task] = "draft"
        if force or self.assignee[task] in (agent, previous[0] if previous else None):
            self.assignee[task] = None

    @rule(agent=st.sampled_from(AGENTS), task=st.sampled_from(TASKS))
    def complete(self, agent: str, task: str) -> None:
        out = self.run("complete", node_id=task, summary=f"{agent} finished", agent=agent)
        holder = self.live_holder(task)
        if self.status[task] == "done":
            assert out.exit_code == 0 and out.envelope["mutation"]["applied"] is False
        elif holder and holder != agent:
            assert out.exit_code == 3 and out.envelope["error"]["code"] == "claim_held"
        elif self.status[task] != "draft" and self.assignee[task] not in (None, agent):
            # a lapsed lease frees the task for `start`, not for another agent's `complete`
            assert out.exit_code == 3 and out.envelope["error"]["code"] == "claim_held"
        else:
            assert out.exit_code == 0, out.envelope
            self.status[task] = "done"
            self.lease.pop(task, None)

    @precondition(lambda self: "done" in self.status.values())
    @rule(data=st.data())
    def reopen(self, data) -> None:
        task = data.draw(st.sampled_from(sorted(t for t, s in self.status.items() if s == "done")))
        out = self.run("edit", node_id=task, set=("status=draft",))
        assert out.exit_code == 0, out.envelope
        self.status[task] = "draft"

    @rule(minutes=st.integers(min_value=0, max_value=40))
    def time_passes(self, minutes: int) -> None:
        self.now += timedelta(minutes=minutes)

    @invariant()
    def files_match_the_model(self) -> None:
        paths = PlanPaths(self.root)
        on_disk = leases.read_all(paths)
        assert {t: (c.agent, leases.parse_time(c.expires)) for t, c in on_disk.items()} == self.lease
        plan = load_plan(paths)
        for task in TASKS:
            assert plan.nodes[task].status == self.status[task]
            assert plan.nodes[task].assignee == self.assignee[task]

    @invariant()
    def at_most_one_live_holder_and_it_is_the_assignee(self) -> None:
        for task in TASKS:
            holder = self.live_holder(task)
            if holder:
                assert self.status[task] == "in-progress" and self.assignee[task] == holder

    @invariant()
    def next_never_hands_out_a_task_held_by_another(self) -> None:
        for agent in AGENTS:
            out = self.run("next", agent=agent)
            assert out.exit_code == 0, out.envelope
            task = out.envelope["result"]["task"]
            mine = sorted(t for t in TASKS if self.live_holder(t) == agent)
            if mine:  # its own work first
                assert out.envelope["result"]["resumed"] and task["id"] in mine
            elif task is not None:
                holder = self.live_holder(task["id"])
                assert holder is None, f"next --agent {agent} handed out {task['id']} held by {holder}"
                assert self.status[task["id"]] == "draft" or self.lease.get(task["id"]) is not None
            else:  # nothing free: every open task is held by someone else, live
                open_tasks = [t for t in TASKS if self.status[t] != "done"]
                assert all(self.live_holder(t) not in (None, agent) for t in open_tasks)


Leases.TestCase.settings = settings(max_examples=30, stateful_step_count=30, deadline=None,
                                    suppress_health_check=[HealthCheck.too_slow])
test_leases_state_machine = pytest.mark.slow(Leases.TestCase)  # a fuzz run: the slow set


# --- heartbeat and unclaim through the CLI ---------------------------------------

@pytest.fixture
def plan3(tmp_path: Path) -> Path:
    write_plan(tmp_path, [node("T-1", "Alpha", release="R1"), node("T-2", "Beta", release="R1"),
                          node("T-3", "Gamma", release="R1", depends_on=["T-1"])])
    return tmp_path


def claim_of(root: Path, nid: str) -> dict:
    return json.loads((root / f".leafwise/claims/{nid}.json").read_text())


def test_heartbeat_extends_the_lease_and_refuses_anyone_else(plan3: Path) -> None:
    assert run_cli("start", "T-1", "--agent", "ann", "--ttl", "1", cwd=plan3).code == 0
    first = claim_of(plan3, "T-1")
    res = run_cli("heartbeat", "T-1", "--agent", "ann", "--ttl", "45", "--json", cwd=plan3)
    assert res.code == 0 and res.json["_next_action"]["command"].startswith("leafwise complete T-1")
    renewed = claim_of(plan3, "T-1")
    assert renewed["since"] == first["since"] and renewed["expires"] > first["expires"]
    assert leases.parse_time(renewed["expires"]) - leases.parse_time(renewed["heartbeat"]) == timedelta(minutes=45)
    other = run_cli("heartbeat", "T-1", "--agent", "bob", cwd=plan3)
    assert other.code == 3 and other.last_lines[-2] == f"Wait: ann holds T-1 until {renewed['expires']}"
    assert claim_of(plan3, "T-1") == renewed
    never = run_cli("heartbeat", "T-2", "--agent", "bob", cwd=plan3)
    assert never.code == 3 and never.last_lines[-1] == "Fix: leafwise start T-2 --agent bob"
    assert run_cli("complete", "T-1", "--summary", "done", "--agent", "ann", cwd=plan3).code == 0
    closed = run_cli("heartbeat", "T-1", "--agent", "ann", cwd=plan3)
    assert closed.code == 3 and closed.last_lines[-1] == "Fix: leafwise next --agent ann"
    beats = [e for e in map(json.loads, (plan3 / ".leafwise/journal.jsonl").read_text().splitlines())
             if e["command"] == "heartbeat"]
    assert [(b["actor"], b["claim_expires"]) for b in beats] == [("ann", renewed["expires"])]


def test_unclaim_gives_the_task_back_and_refuses_another_agents_lease(plan3: Path) -> None:
    assert run_cli("start", "T-1", "--agent", "ann", cwd=plan3).code == 0
    refused = run_cli("unclaim", "T-1", "--agent", "bob", cwd=plan3)
    assert refused.code == 3 and "--force" not in refused.stderr  # an agent is never offered an override
    assert refused.last_lines[-2].startswith("Wait: ann holds T-1 until ")
    assert refused.last_lines[-1] == "Or: leafwise next --agent bob"
    assert (plan3 / ".leafwise/claims/T-1.json").exists()
    res = run_cli("unclaim", "T-1", "--agent", "ann", "--json", cwd=plan3)
    assert res.code == 0 and res.json["mutation"]["applied"] is True
    assert not (plan3 / ".leafwise/claims/T-1.json").exists()
    data = yaml.safe_load((plan3 / ".leafwise/nodes/T-1.yaml").read_text())
    assert data["status"] == "draft" and data.get("assignee") is None
    assert run_cli("next", "--agent", "bob", "--json", cwd=plan3).json["result"]["task"]["id"] == "T-1"
    again = run_cli("unclaim", "T-1", "--agent", "ann", "--json", cwd=plan3)
    assert again.code == 0 and again.json["mutation"]["applied"] is False  # idempotent


def test_unclaim_force_takes_back_a_lease_and_says_so_in_the_journal(plan3: Path) -> None:
    assert run_cli("start", "T-2", "--agent", "ann", cwd=plan3).code == 0
    res = run_cli("unclaim", "T-2", "--force", cwd=plan3)
    assert res.code == 0, res.stderr
    event = json.loads((plan3 / ".leafwise/journal.jsonl").read_text().splitlines()[-1])
    assert event["command"] == "unclaim" and event["holder"] == "ann" and event["forced"] is True
    assert run_cli("start", "T-2", "--agent", "bob", cwd=plan3).code == 0


def test_an_expired_lease_frees_the_task_for_next_and_start(plan3: Path) -> None:
    assert run_cli("start", "T-1", "--agent", "ann", cwd=plan3).code == 0
    held = run_cli("next", "--agent", "bob", "--json", cwd=plan3).json["result"]
    assert held["task"]["id"] == "T-2" and held["held"][0]["id"] == "T-1"
    path = plan3 / ".leafwise/claims/T-1.json"
    lapsed = {**claim_of(plan3, "T-1"), "expires": "2000-01-01T00:00:00Z"}
    path.write_text(json.dumps(lapsed))
    assert run_cli("next", "--agent", "bob", "--json", cwd=plan3).json["result"]["task"]["id"] == "T-1"
    assert run_cli("start", "T-1", "--agent", "bob", cwd=plan3).code == 0
    assert claim_of(plan3, "T-1")["agent"] == "bob"


# --- renumber ---------------------------------------------------------------------

def test_renumber_moves_every_reference_the_claim_and_keeps_the_file(tmp_path: Path) -> None:
    write_plan(tmp_path, {
        "T-1": "# the epic, by hand\nid: T-1\ntitle: Epic\nstatus: in-progress\nrelease: R1\n",
        "T-2": "id: T-2\ntitle: Target\nparent: T-1\nstatus: draft   # keep me\nx_note: unknown key\n",
        "T-3": "id: T-3\ntitle: Child\nparent: T-2\nstatus: draft\n",
        "T-4": "id: T-4\ntitle: Waits\nparent: T-1\nstatus: draft\ndepends_on: [T-3, T-2]\n",
        "T-5": "id: T-5\ntitle: Tail\nparent: T-1\nstatus: draft\nfollows: T-2\n",
    })
    assert run_cli("start", "T-3", "--agent", "ann", cwd=tmp_path).code == 0
    res = run_cli("renumber", "T-2", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    new = res.json["result"]["id"]
    assert new == "T-6" and res.json["_next_action"]["command"] == "leafwise show T-6"
    nodes = tmp_path / ".leafwise/nodes"
    assert not (nodes / "T-2.yaml").exists()
    text = (nodes / "T-6.yaml").read_text()
    assert "status: in-progress # keep me\n" in text and "x_note: unknown key\n" in text  # started by T-3
    assert yaml.safe_load(text)["renumbered_from"] == "T-2"
    assert yaml.safe_load((nodes / "T-3.yaml").read_text())["parent"] == "T-6"
    assert yaml.safe_load((nodes / "T-4.yaml").read_text())["depends_on"] == ["T-3", "T-6"]
    assert yaml.safe_load((nodes / "T-5.yaml").read_text())["follows"] == "T-6"
    assert run_cli("validate", cwd=tmp_path).code == 0
    assert run_cli("show", "T-2", cwd=tmp_path).code == 5
    # the claim of a renumbered node moves with it
    moved = run_cli("renumber", "T-3", "--json", cwd=tmp_path)
    assert moved.code == 0 and moved.json["result"]["claim"]["agent"] == "ann"
    assert claim_of(tmp_path, moved.json["result"]["id"])["node"] == moved.json["result"]["id"]
    assert not (tmp_path / ".leafwise/claims/T-3.json").exists()
    event = json.loads((tmp_path / ".leafwise/journal.jsonl").read_text().splitlines()[-1])
    assert event["command"] == "renumber" and event["renumbered_from"] == "T-3"


def test_a_renumber_cut_short_is_finished_by_running_it_again(tmp_path: Path) -> None:
    write_plan(tmp_path, {"T-1": "id: T-1\ntitle: Old\nstatus: draft\n",
                          "T-2": "id: T-2\ntitle: Child\nstatus: draft\nparent: T-1\n"})
    # what a renumber killed after writing its copy leaves behind
    (tmp_path / ".leafwise/nodes/T-7.yaml").write_text("id: T-7\ntitle: Old\nstatus: draft\nrenumbered_from: T-1\n")
    res = run_cli("renumber", "T-1", "--json", cwd=tmp_path)
    assert res.code == 0 and res.json["result"]["id"] == "T-7"
    assert sorted(p.name for p in (tmp_path / ".leafwise/nodes").iterdir()) == ["T-2.yaml", "T-7.yaml"]
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-2.yaml").read_text())["parent"] == "T-7"


# --- ids across worktrees and clones ------------------------------------------------

def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=False, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}).stdout


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git_plan(root: Path) -> Path:
    """A repository whose plan `init` made (its .gitignore and .gitattributes) with one node, committed."""
    root.mkdir()
    git("init", "-q", "-b", "main", cwd=root)
    for args in (("init", "--prefix", "T"), ("release", "add", "R1", "--title", "One"),
                 ("add", "Existing", "--release", "R1")):
        assert run_cli(*args, cwd=root).code == 0
    git("add", "-A", cwd=root)
    git("commit", "-qm", "plan", cwd=root)
    return root


@needs_git
def test_worktrees_of_one_clone_never_pick_the_same_id(tmp_path: Path) -> None:
    main = git_plan(tmp_path / "repo")
    git("worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"), cwd=main)
    one = run_cli("add", "Built on main", "--json", cwd=main)
    two = run_cli("add", "Built on the feature branch", "--json", cwd=tmp_path / "wt")
    assert (one.json["result"]["id"], two.json["result"]["id"]) == ("T-2", "T-3")  # not T-2 twice
    git("add", "-A", cwd=tmp_path / "wt")
    git("commit", "-qm", "feature", cwd=tmp_path / "wt")
    git("add", "-A", cwd=main)
    git("commit", "-qm", "main", cwd=main)
    git("merge", "-q", "feature", "-m", "merge", cwd=main)
    assert not git("diff", "--name-only", "--diff-filter=U", cwd=main).strip()  # the journal merges too
    assert run_cli("validate", cwd=main).code == 0
    adds = [e["node"] for e in map(json.loads, (main / ".leafwise/journal.jsonl").read_text().splitlines())
            if e["command"] == "add"]
    assert sorted(adds) == ["T-1", "T-2", "T-3"]


@needs_git
def test_two_clones_that_took_one_id_are_reported_and_split_by_renumber(tmp_path: Path) -> None:
    origin = git_plan(tmp_path / "origin")
    git("clone", "-q", str(origin), str(tmp_path / "other"), cwd=tmp_path)
    other = tmp_path / "other"
    assert run_cli("add", "Ours: the cart", "--json", cwd=origin).json["result"]["id"] == "T-2"
    assert run_cli("add", "Theirs: the wishlist", "--json", cwd=other).json["result"]["id"] == "T-2"
    assert run_cli("add", "Under theirs", "--parent", "T-2", "--json", cwd=other).json["result"]["id"] == "T-3"
    git("add", "-A", cwd=other)
    git("commit", "-qm", "theirs", cwd=other)
    git("add", "-A", cwd=origin)
    git("commit", "-qm", "ours", cwd=origin)
    git("pull", "-q", "--no-rebase", str(other), "main", cwd=origin)
    conflicted = (origin / ".leafwise/nodes/T-2.yaml").read_text()
    assert "<<<<<<<" in conflicted
    plan = load_plan(PlanPaths(origin), use_cache=False)
    problems = with_merge_conflicts(plan, command_line)
    dup = next(p for p in problems if p.node == "T-2")
    assert dup.code == "duplicate_id" and dup.fix == "leafwise renumber T-2" and dup.line
    res = run_cli("renumber", "T-2", "--json", cwd=origin)
    assert res.code == 0, res.stderr
    new = res.json["result"]["id"]
    assert new == "T-4" and res.json["result"]["check"] == ["T-3"]
    assert res.json["_next_action"]["or"] == f"leafwise edit T-3 --set parent={new}"
    nodes = origin / ".leafwise/nodes"
    assert yaml.safe_load((nodes / "T-2.yaml").read_text())["title"] == "Ours: the cart"
    assert yaml.safe_load((nodes / f"{new}.yaml").read_text())["title"] == "Theirs: the wishlist"
    assert run_cli("edit", "T-3", "--set", f"parent={new}", cwd=origin).code == 0
    assert run_cli("validate", cwd=origin).code == 0


def test_conflict_sides_keeps_shared_lines_and_drops_a_diff3_base() -> None:
    text = ("id: T-2\n<<<<<<< HEAD\ntitle: A\n||||||| base\ntitle: O\n=======\ntitle: B\n>>>>>>> x\n"
            "status: draft\n")
    assert conflict_sides(text) == ("id: T-2\ntitle: A\nstatus: draft\n", "id: T-2\ntitle: B\nstatus: draft\n", 2)
    assert conflict_sides("id: T-2\n<<<<<<< HEAD\ntitle: A\n") is None  # unterminated


def test_two_edits_of_one_node_in_a_conflict_are_not_split(tmp_path: Path) -> None:
    text = ("id: T-1\ntitle: Task\n<<<<<<< HEAD\nstatus: done\n=======\nstatus: blocked\nblocked_reason: x\n"
            ">>>>>>> b\ncreated: 2026-11-01T00:00:00Z\n")
    write_plan(tmp_path, {"T-1": text})
    res = run_cli("renumber", "T-1", cwd=tmp_path)
    assert res.code == 3 and "Fix: git mergetool .leafwise/nodes/T-1.yaml" in res.stderr
    plan = load_plan(PlanPaths(tmp_path), use_cache=False)
    assert [p.code for p in with_merge_conflicts(plan, lambda r: r)] == ["merge_conflict"]
