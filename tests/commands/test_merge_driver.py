"""`leafwise merge-driver` under real git: the two conflicts of issue 23 merge, a real conflict is left
with markers that `validate` names, and an existing clone installs the driver with one command.

One repository is made once by the real console script (`leafwise init` in a git work tree installs
the driver, by its full path); each test works on its own copy. git runs with a PATH that holds no
virtualenv, so the driver git starts is the one `init` recorded. The plan commands run in-process
(`run_cli_in_process`, the same `main()`), the driver always in the process git starts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from leafwise.store.node_merge import merge_node
from testkit import run_cli, run_cli_in_process, write_plan

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NODES = ".leafwise/nodes"
PLAIN_PATH = "/usr/bin:/bin"  # no virtualenv on it: git finds the driver by the path init wrote


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo), "PATH": PLAIN_PATH, "LEAFWISE_AGENT": ""}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env)
    if check:
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def leafwise(repo: Path, *args: str, code: int = 0) -> str:
    res = run_cli_in_process(*args, cwd=repo)
    assert res.code == code, f"leafwise {' '.join(args)}: exit {res.code}\n{res.stdout}{res.stderr}"
    return res.stdout + res.stderr


def node(repo: Path, node_id: str) -> dict:
    return yaml.safe_load((repo / NODES / f"{node_id}.yaml").read_text())


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A repository with T-2 and T-3 in progress for bot, committed on main; the driver installed by
    `leafwise init` run as the console script a person runs."""
    repo = tmp_path_factory.mktemp("made") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    script = Path(sys.executable).parent / "leafwise"
    init = subprocess.run([str(script), "init", "--prefix", "T"], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "LEAFWISE_AGENT": ""})
    assert init.returncode == 0, init.stderr
    assert "node files merge key by key" in init.stdout
    for args in (("release", "add", "R1", "--title", "One"), ("add", "Shop"),
                 ("add", "Export the orders", "--parent", "T-1", "--release", "R1"),
                 ("add", "Import the catalogue", "--parent", "T-1", "--release", "R1"),
                 ("start", "T-2", "--agent", "bot"), ("start", "T-3", "--agent", "bot")):
        leafwise(repo, *args)
    commit(repo, "plan")
    return repo


@pytest.fixture
def repo(made: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(made, copy, symlinks=True)
    return copy


def test_init_installs_the_driver_by_the_full_path_of_the_running_leafwise(made: Path):
    assert (made / ".leafwise/.gitattributes").read_text().splitlines() == \
        ["journal.jsonl merge=union", "nodes/*.yaml merge=leafwise"]
    driver = git(made, "config", "--get", "merge.leafwise.driver").stdout.strip()
    assert driver == f"{Path(sys.executable).parent / 'leafwise'} merge-driver %O %A %B %P"
    assert git(made, "check-attr", "merge", f"{NODES}/T-2.yaml").stdout.strip().endswith("merge: leafwise")


def _the_issue_s_two_edits(repo: Path) -> None:
    """On a branch the agent completes T-2 and blocks T-3; on main a person sets T-2's priority,
    comments on it, and renames T-3 (issue 23's two reproduced conflicts)."""
    git(repo, "checkout", "-q", "-b", "agent")
    leafwise(repo, "complete", "T-2", "--summary", "CSV export with tests", "--agent", "bot")
    leafwise(repo, "block", "T-3", "--reason", "waiting for the supplier's feed", "--agent", "bot")
    commit(repo, "agent: T-2 done, T-3 blocked")
    git(repo, "checkout", "-q", "main")
    leafwise(repo, "edit", "T-2", "--set", "priority=high")
    leafwise(repo, "comment", "T-2", "--text", "keep the old CSV columns")
    leafwise(repo, "edit", "T-3", "--set", "title=Import the supplier catalogue")
    commit(repo, "person: priority, comment, title")


def test_the_issue_s_two_conflicts_merge_and_validate_is_clean(repo: Path):
    _the_issue_s_two_edits(repo)
    merged = git(repo, "merge", "--no-edit", "agent", check=False)
    said = merged.stdout + merged.stderr + "".join((repo / NODES / f"T-{n}.yaml").read_text() for n in (2, 3))
    assert merged.returncode == 0, said
    assert "Merged .leafwise/nodes/T-2.yaml key by key" in said
    done, blocked = node(repo, "T-2"), node(repo, "T-3")
    print(said)  # shown when an assertion below fails
    assert (done["status"], done["summary"], done["priority"]) == ("done", "CSV export with tests", "high")
    assert [c["text"] for c in done["comments"]] == ["keep the old CSV columns"]
    assert (blocked["status"], blocked["title"]) == ("blocked", "Import the supplier catalogue")
    assert blocked["blocked_reason"] == "waiting for the supplier's feed"
    assert not git(repo, "diff", "--name-only", "--diff-filter=U").stdout.strip()
    validated = run_cli("validate", cwd=repo)
    assert validated.code == 0, validated.stdout + validated.stderr


def test_a_real_conflict_leaves_markers_around_the_field_and_validate_names_it(repo: Path):
    git(repo, "checkout", "-q", "-b", "agent")
    leafwise(repo, "edit", "T-2", "--set", "title=Export the orders as CSV")
    leafwise(repo, "complete", "T-2", "--summary", "CSV export", "--agent", "bot")
    commit(repo, "agent: renamed and done")
    git(repo, "checkout", "-q", "main")
    leafwise(repo, "edit", "T-2", "--set", "title=Export the orders to the warehouse", "--set", "priority=high")
    commit(repo, "person: renamed")
    merged = git(repo, "merge", "--no-edit", "agent", check=False)
    assert merged.returncode != 0 and f"CONFLICT (content): Merge conflict in {NODES}/T-2.yaml" in merged.stdout
    assert "both sides changed title" in merged.stderr and "Fix: leafwise validate" in merged.stderr
    text = (repo / NODES / "T-2.yaml").read_text()
    assert text.count("<<<<<<<") == 1
    assert ("<<<<<<< ours: title\ntitle: Export the orders to the warehouse\n=======\n"
            "title: Export the orders as CSV\n>>>>>>> theirs: title\n") in text
    assert "status: done" in text and "priority: high" in text  # every other field merged
    first = text.splitlines().index("<<<<<<< ours: title") + 1
    text_answer = run_cli("validate", cwd=repo)
    assert f"{NODES}/T-2.yaml:{first}" in text_answer.stdout + text_answer.stderr
    assert text_answer.code == 4 and "merge_conflict" in text_answer.stdout
    assert "set title differently" in text_answer.stdout
    assert f"to fix: git mergetool {NODES}/T-2.yaml" in text_answer.stdout


@pytest.mark.slow  # two merges in a fresh clone: the fast set has the driver's merges above
def test_an_existing_clone_installs_the_driver_with_one_command(repo: Path, tmp_path: Path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    _the_issue_s_two_edits(clone)
    plain = git(clone, "merge", "--no-edit", "agent", check=False)  # no driver in this clone's config yet
    assert plain.returncode != 0 and "CONFLICT (content)" in plain.stdout
    git(clone, "merge", "--abort")
    out = leafwise(clone, "merge-driver", "--install")
    assert "Installed the key-wise merge driver" in out and out.rstrip().endswith("Done.")
    assert git(clone, "merge", "--no-edit", "agent", check=False).returncode == 0
    assert run_cli("validate", cwd=clone).code == 0
    again = leafwise(clone, "merge-driver", "--install")  # twice is harmless: one attribute line
    assert "Installed" in again
    assert (clone / ".leafwise/.gitattributes").read_text().count("merge=leafwise") == 1


@pytest.mark.slow  # the refusal itself is in tests/store/test_node_merge.py; this is git's view of it
def test_a_side_with_an_alias_is_refused_and_left_as_git_s_plain_conflict(repo: Path):
    git(repo, "checkout", "-q", "-b", "agent")
    path = repo / NODES / "T-2.yaml"
    path.write_text(path.read_text().replace("title: Export the orders", "title: &t Export the orders")
                    + "summary: *t\n")
    commit(repo, "agent: an alias")
    git(repo, "checkout", "-q", "main")
    leafwise(repo, "edit", "T-2", "--set", "priority=high")
    commit(repo, "person: priority")
    merged = git(repo, "merge", "--no-edit", "agent", check=False)
    assert merged.returncode != 0
    assert "anchors and aliases" in merged.stderr
    text = path.read_text()
    assert "<<<<<<< ours\n" in text and ">>>>>>> theirs\n" in text and "priority: high" in text
    assert run_cli("validate", cwd=repo).code == 4


def test_validate_names_the_driver_s_conflict_in_a_file_committed_with_its_markers(tmp_path: Path):
    base = ("id: T-1\ntitle: Export\nstatus: in-progress\nassignee: bot\n"
            "created: 2026-11-16T09:43:00Z\nupdated: 2026-11-16T09:43:00Z\n")
    ours = base.replace("in-progress", "cancelled").replace("updated: 2026-11-16T09:43", "updated: 2026-11-17T09:43")
    theirs = base.replace("in-progress", "done") + "summary: shipped\n"
    merged = merge_node(base.encode(), ours.encode(), theirs.encode(), "T-1")
    write_plan(tmp_path, {"T-1": merged.text.decode()})  # no git here: the markers alone tell it
    res = run_cli("validate", cwd=tmp_path)
    line = merged.text.decode().splitlines().index("<<<<<<< ours: status") + 1
    assert res.code == 4 and "merge_conflict" in res.stdout and f"{NODES}/T-1.yaml:{line}" in res.stdout
    assert "set status differently" in res.stdout and f"to fix: git mergetool {NODES}/T-1.yaml" in res.stdout
    assert f"Fix: git mergetool {NODES}/T-1.yaml" in res.stderr.splitlines()


def test_init_outside_a_git_repository_succeeds_and_names_the_one_command_for_later(tmp_path: Path):
    res = run_cli_in_process("init", "--prefix", "T", "--json", cwd=tmp_path)
    assert res.code == 0
    driver = res.json["result"]["merge_driver"]
    assert (driver["installed"], driver["install"]) == (False, "leafwise merge-driver --install")
    assert "not a git repository" in driver["reason"]
    assert (tmp_path / ".leafwise/.gitattributes").read_text().splitlines()[-1] == "nodes/*.yaml merge=leafwise"
    refused = run_cli_in_process("merge-driver", "--install", cwd=tmp_path)
    assert refused.code == 5 and "is not in a git repository" in refused.stderr
    assert refused.stderr.splitlines()[-1] == "Fix: leafwise merge-driver --install"


def test_install_replaces_a_planted_driver_and_nothing_it_names_runs(repo: Path, tmp_path: Path):
    pwned = tmp_path / "pwn-merge-driver"
    for value in (f"touch {pwned}", f"touch {pwned}-2"):  # two values: a plain `git config` refuses to set one
        git(repo, "config", "--add", "merge.leafwise.driver", value)
    git(repo, "config", "--add", "merge.leafwise.name", "planted")
    out = leafwise(repo, "merge-driver", "--install")
    assert "Installed the key-wise merge driver" in out and out.rstrip().endswith("Done.")
    drivers = git(repo, "config", "--get-all", "merge.leafwise.driver").stdout.splitlines()
    assert len(drivers) == 1 and drivers[0].endswith(" merge-driver %O %A %B %P") and "touch" not in drivers[0]
    assert git(repo, "config", "--get-all", "merge.leafwise.name").stdout.splitlines() == [
        "Leafwise: node files merged key by key"]
    file = repo / NODES / "T-2.yaml"
    git(repo, "checkout", "-q", "-b", "agent")  # both sides change T-2's file: git runs the driver
    file.write_text(file.read_text().replace("title: Export the orders", "title: Export the orders as CSV"))
    commit(repo, "agent: title")
    git(repo, "checkout", "-q", "main")
    file.write_text(file.read_text() + "priority: high\n")
    commit(repo, "person: priority")
    assert git(repo, "merge", "--no-edit", "agent", check=False).returncode == 0
    assert (node(repo, "T-2")["title"], node(repo, "T-2")["priority"]) == ("Export the orders as CSV", "high")
    assert not list(tmp_path.glob("pwn-merge-driver*"))


def test_a_config_git_cannot_write_names_the_cause_and_a_fix_that_is_not_itself(repo: Path):
    config = repo / ".git/config"
    config.write_text(config.read_text() + "[merge \"leafwise\"\n\tdriver = x\n")  # a line git cannot parse
    out = leafwise(repo, "merge-driver", "--install", code=1)
    assert "not in a git repository" not in out and "bad config line" in out
    assert "Fix: git config --list --show-origin" in out and "merge-driver --install" not in out.split("Fix:")[1]


LINES = [f"line {i}\n" for i in range(1, 21)]


def _branches_editing(repo: Path, ours_line: int, theirs_line: int) -> None:
    """app.py committed on main under a clone's `*.py merge=leafwise`; `side` changes one line, main another."""
    (repo / ".gitattributes").write_text("*.py merge=leafwise\n")
    (repo / "app.py").write_text("".join(LINES))
    commit(repo, "app and a planted attribute")
    git(repo, "checkout", "-q", "-b", "side")
    edited = list(LINES)
    edited[theirs_line] = "theirs\n"
    (repo / "app.py").write_text("".join(edited))
    commit(repo, "theirs")
    git(repo, "checkout", "-q", "main")
    edited = list(LINES)
    edited[ours_line] = "ours\n"
    (repo / "app.py").write_text("".join(edited))
    commit(repo, "ours")


def test_a_file_that_is_no_node_file_merges_as_git_merges_text(repo: Path):
    """h22c's attack: a clone's `.gitattributes` sent app.py to the node-file driver, which refused it and
    wrote a whole-file conflict where git merges cleanly (resolving by one side lost the other's edit)."""
    _branches_editing(repo, ours_line=2, theirs_line=15)
    merged = git(repo, "merge", "-q", "side", "-m", "merge", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = (repo / "app.py").read_text()
    assert "ours\n" in text and "theirs\n" in text and "<<<<<<<" not in text
    assert text.count("\n") == len(LINES)


def test_a_real_conflict_in_such_a_file_keeps_both_sides_inside_git_s_markers(repo: Path):
    _branches_editing(repo, ours_line=5, theirs_line=5)
    merged = git(repo, "merge", "-q", "side", "-m", "merge", check=False)
    assert merged.returncode != 0
    text = (repo / "app.py").read_text()
    assert "<<<<<<< app.py (ours)" in text and ">>>>>>> app.py (theirs)" in text
    assert "ours\n" in text and "theirs\n" in text and "line 4\n" in text and "line 7\n" in text
