"""A cloned repository is hostile: each way in that a fresh attacker found, as a test of the gateway that
closes its whole class (docs/security.md). Every plan here is committed and then cloned with plain git,
so the test sees exactly what a person who clones the repository gets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def mkplan(root: Path) -> None:
    write_plan(root, [node("P1-1", "Checkout", release="R1"),
                      node("P1-2", "Cart page", parent="P1-1"), node("P1-3", "Pay button", parent="P1-1")],
               prefix="P1")
    git(root, "init", "-q", "-b", "main")


def commit_and_clone(origin: Path, clone: Path) -> Path:
    git(origin, "add", "-A", "-f")
    git(origin, "commit", "-q", "-m", "plan")
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
    return clone


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


def hints(result) -> list[str]:
    text = result.stdout + result.stderr
    return [line for line in text.splitlines() if line.split(":", 1)[0] in ("Next", "Or", "Fix", "Wait")]


HOSTILE_COMMANDS = (["validate"], ["doctor"], ["diagnose"], ["repair", "--dry-run"], ["show", "P1-3"],
                    ["reconcile"])


def hostile_config(mark: Path) -> str:
    """Config lines that make git run `touch mark` from every place a read-only git command could."""
    touch = f"touch {mark}"
    return (f'\trepositoryformatversion = 0\n\tfsmonitor = "{touch}; false"\n\thooksPath = hooks\n'
            f'\tpager = "{touch}; cat"\n\tsshCommand = "{touch}; false"\n'
            f'[diff]\n\texternal = "{touch}; false"\n[diff "node"]\n\ttextconv = "{touch}; cat"\n'
            f'[log]\n\tshowSignature = true\n[gpg]\n\tprogram = "{touch}; false"\n'
            f'[alias]\n\tls-files = "!{touch}"\n\tlog = "!{touch}"\n\tst = "!{touch}"\n')


def plant_bare_repository(folder: Path, mark: Path) -> None:
    """The files of a bare repository in `folder`. `repositoryformatversion = 0` makes git honour its
    `worktree`, so an index read there runs the fsmonitor (git 2.39: `ls-files -u` does)."""
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    for keep in ("objects/info", "refs/heads"):
        (folder / keep).mkdir(parents=True)
        (folder / keep / ".keep").write_text("")
    (folder / "config").write_text("[core]\n\tbare = false\n\tworktree = .\n" + hostile_config(mark))
    hook = folder / "hooks" / "post-index-change"
    hook.parent.mkdir()
    hook.write_text(f"#!/bin/sh\ntouch {mark}\n")
    hook.chmod(0o755)
    (folder / "info").mkdir()
    (folder / "info" / "attributes").write_text("* diff=node\n")


CONFLICTED = ("<<<<<<< HEAD\nid: P1-3\ntitle: a\nstatus: draft\n=======\n"
              "id: P1-3\ntitle: b\nstatus: draft\n>>>>>>> other\n")


def test_bare_repository_files_in_the_plan_never_run_their_config(tmp_path, env):
    origin, mark = tmp_path / "origin", tmp_path / "PWNED"
    mkplan(origin)
    nodes = origin / ".leafwise" / "nodes"
    plant_bare_repository(nodes, mark)
    (nodes / "P1-3.yaml").write_text(CONFLICTED)
    clone = commit_and_clone(origin, tmp_path / "clone")
    assert (clone / ".leafwise" / "nodes" / "config").is_file() and not mark.exists()
    for args in HOSTILE_COMMANDS:
        res = run_cli(*args, cwd=clone, env=env)
        assert not mark.exists(), f"leafwise {' '.join(args)} ran the planted repository's config"
        assert "internal_error" not in res.stdout + res.stderr, (args, res.stderr)
    res = run_cli("validate", cwd=clone / ".leafwise" / "nodes", env=env)  # started inside the planted one
    assert not mark.exists() and "P1-3" in res.stdout + res.stderr


def test_the_repositorys_own_config_never_runs_a_command(tmp_path, env):
    """A repository that arrives whole (an archive, a shared folder) brings its `.git/config`: the
    person's own git commands run with it, Leafwise's never run what it names."""
    root, mark = tmp_path / "shared", tmp_path / "PWNED"
    mkplan(root)
    (root / ".leafwise" / "nodes" / "P1-3.yaml").write_text(CONFLICTED)
    (root / "app.py").write_text("def checkout():\n    pass\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "P1-2 done: the cart page")
    with (root / ".git" / "config").open("a") as fh:
        fh.write("[core]\n" + hostile_config(mark))
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text("* diff=node\n")
    for args in HOSTILE_COMMANDS:
        res = run_cli(*args, cwd=root, env=env)
        assert not mark.exists(), f"leafwise {' '.join(args)} ran a command from .git/config"
        assert "internal_error" not in res.stdout + res.stderr, (args, res.stderr)


def test_a_caller_environment_pointing_git_elsewhere_is_not_followed(tmp_path, env):
    """Run from a git hook, Leafwise inherits GIT_DIR and GIT_WORK_TREE naming the hook's
    repository (and maybe GIT_CONFIG_* settings): its own calls still ask the plan's repository."""
    origin, mark = tmp_path / "origin", tmp_path / "PWNED"
    mkplan(origin)
    (origin / ".leafwise" / "nodes" / "P1-3.yaml").write_text(CONFLICTED)
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "plan")
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    with (other / ".git" / "config").open("a") as fh:
        fh.write("[core]\n" + hostile_config(mark))
    hostile_env = {**env, "GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(other),
                   "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor",
                   "GIT_CONFIG_VALUE_0": f"touch {mark}; false", "GIT_EXTERNAL_DIFF": f"touch {mark}"}
    for args in (["reconcile"], ["validate"]):
        res = run_cli(*args, cwd=origin, env=hostile_env)
        assert not mark.exists(), f"leafwise {' '.join(args)} followed the caller's GIT_* variables"
        assert "internal_error" not in res.stdout + res.stderr, (args, res.stderr)


def test_no_hint_on_any_surface_approves_a_planted_command(tmp_path, env):
    origin, mark = tmp_path / "origin", tmp_path / "PWNED"
    mkplan(origin)
    write_plan(origin, [node("P1-4", "Export", parent="P1-1", done_when=[{"command": f"touch {mark}"}])],
               prefix="P1")
    clone = commit_and_clone(origin, tmp_path / "clone")
    for args in (["validate"], ["validate", "--json"], ["trust"], ["reconcile"], ["next"], ["diagnose"]):
        res = run_cli(*args, cwd=clone, env=env)
        assert "trust --allow" not in res.stdout + res.stderr, f"{args} hands out an approval"
        assert "trust --all" not in res.stdout + res.stderr, f"{args} hands out an approval"
    assert not mark.exists()


def test_a_hint_never_carries_a_file_name_a_shell_would_run(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    evil = "$(touch${IFS}PWNED)"
    (origin / ".leafwise" / "nodes" / f"{evil}.yaml").write_text("id: [unclosed\n")
    clone = commit_and_clone(origin, tmp_path / "clone")
    for args in (["validate"], ["diagnose"], ["next"]):
        res = run_cli(*args, cwd=clone, env=env)
        for line in hints(res):
            command = line.split(":", 1)[1].strip()
            if not command.startswith("leafwise"):
                continue
            subprocess.run(["bash", "-c", f"true {command.removeprefix('leafwise')}"], cwd=tmp_path, timeout=10)
            assert not (tmp_path / "PWNED").exists(), f"pasting {line!r} runs the file name"


def test_a_planted_cache_is_a_miss_never_memory_or_an_error(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    cache = origin / ".leafwise" / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("nodes.marshal", "nodes.cache", "index.marshal"):
        (cache / name).write_bytes(b"(" + (2**31 - 1).to_bytes(4, "little"))
    clone = commit_and_clone(origin, tmp_path / "clone")
    res = run_cli("next", "--json", cwd=clone, env=env)
    assert res.code == 0, res.stderr
    assert res.json["result"]["task"]["id"] in ("P1-2", "P1-3")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_node_file_linked_to_a_device_is_never_read(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    os.symlink("/dev/zero", origin / ".leafwise" / "nodes" / "P1-9.yaml")
    clone = commit_and_clone(origin, tmp_path / "clone")
    for args in (["next"], ["start", "--next", "--agent", "a1"], ["validate"]):
        res = run_cli(*args, cwd=clone, env=env, timeout=20)
        assert "internal_error" not in res.stdout + res.stderr, args


def test_one_planted_value_is_its_file_problem_never_a_crash(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    lw = origin / ".leafwise"
    deep = "[" * 3000 + "]" * 3000
    with (lw / "journal.jsonl").open("a") as fh:
        fh.write(json.dumps({"at": "2026-12-01T00:00:00Z", "command": "edit", "node": "P1-2"})[:-1]
                 + f', "changes": {deep}}}\n')
    (lw / "cycles").mkdir(exist_ok=True)
    (lw / "cycles" / "loop.yaml").write_text("name: loop\nmax_iterations: .inf\nfor_each: P1-1\n")
    clone = commit_and_clone(origin, tmp_path / "clone")
    for args in (["show", "P1-2"], ["validate"], ["complete", "P1-2", "--summary", "done"]):
        res = run_cli(*args, cwd=clone, env=env)
        assert "internal_error" not in res.stdout + res.stderr and "Traceback" not in res.stderr, (args, res.stderr)


def test_a_deeply_nested_package_json_does_not_crash_reconcile(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    (origin / "package.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    clone = commit_and_clone(origin, tmp_path / "clone")
    res = run_cli("reconcile", "--json", cwd=clone, env=env, timeout=60)
    assert "internal_error" not in res.stdout + res.stderr and "Traceback" not in res.stderr, res.stderr


def test_backtracking_text_in_scanned_code_keeps_reconcile_fast(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    (origin / "login.test.js").write_text('test("' + "\\" * 120 + "\n")
    write_plan(origin, [node("P1-5", "Login", parent="P1-1", done_when=[{"file": "**" * 12 + "zz"}])],
               prefix="P1")
    clone = commit_and_clone(origin, tmp_path / "clone")
    res = run_cli("reconcile", "--json", cwd=clone, env=env, timeout=30)
    assert res.code == 0, res.stderr


def test_hidden_characters_are_those_unicode_calls_invisible(tmp_path, env):
    origin = tmp_path / "origin"
    mkplan(origin)
    hidden = ["\ufe0f", "\U000e0100", "\u3164", "\u115f", "\u180e", "\u2064", "\u061c", "\U000e0041"]
    write_plan(origin, [node("P1-6", "Pay" + "".join(hidden) + "now", parent="P1-1")], prefix="P1")
    clone = commit_and_clone(origin, tmp_path / "clone")
    for args in (["show", "P1-6"], ["show", "P1-6", "--json"], ["list"]):
        res = run_cli(*args, cwd=clone, env=env)
        out = res.stdout if args[-1] != "--json" else json.dumps(res.json, ensure_ascii=False)
        assert not any(ch in out for ch in hidden), (args, [hex(ord(c)) for c in hidden if c in out])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


@pytest.mark.parametrize("path", ["../../../../etc/passwd", "/etc/passwd", "~/.ssh/id_rsa", "docs/../../project.yaml"])
def test_a_doc_path_outside_the_plans_docs_is_named_so_and_never_read(tmp_path, path):
    write_plan(tmp_path, [node("T-1", "Task", docs=[path])])
    shown = run_cli("doc", "T-1", "--json", cwd=tmp_path)
    assert shown.code == 0, shown.stderr
    (item,) = shown.json["result"]["docs"]
    assert item["text"] == "" and item["note"].startswith("not read: "), item
    text = run_cli("doc", "T-1", cwd=tmp_path).stdout
    assert "(not read: " in text and "root:" not in text and "(missing)" not in text


@pytest.mark.slow
def test_a_deep_parent_chain_keeps_every_line_short(tmp_path):
    depth = 3000
    write_plan(tmp_path, [node("T-1", "top")] + [node(f"T-{i}", f"level {i} " + "x" * 60, parent=f"T-{i - 1}")
                                                 for i in range(2, depth + 1)])
    for args in (("next",), ("show", f"T-{depth}"), ("tree", f"T-{depth - 1}")):
        answer = run_cli(*args, cwd=tmp_path)
        assert answer.code == 0, answer.stderr
        assert max(map(len, answer.stdout.splitlines())) < 600, args


@pytest.mark.parametrize("name", ["T-2\nx.yaml", "T-2 x.yaml", "$(touch pwned).yaml", "T-2\u202e.yaml"])
def test_a_broken_node_file_whose_name_is_no_id_gets_a_fix_that_runs(tmp_path, name):
    write_plan(tmp_path, [node("T-1", "Task")])
    (tmp_path / ".leafwise/nodes" / name).write_text("id: T-2\ntitle: [broken\n")
    checked = run_cli("validate", cwd=tmp_path)
    fix_line = next(line for line in checked.last_lines if line.startswith("Fix: "))
    assert fix_line == "Fix: leafwise diagnose", checked.stderr
    ran = run_cli("diagnose", cwd=tmp_path)
    assert ran.code == 0 and ".leafwise/nodes/" in ran.stdout, ran.stderr
    assert ran.last_lines[-1].startswith("Wait: a person renames or removes the file in \u201c.leafwise/nodes\u201d "
                                         "whose name is not a node id"), ran.stdout
    assert "pwned" not in ran.last_lines[-1] and "x.yaml" not in ran.last_lines[-1]  # the repository's text
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-23:59", "0001-01-01"])
def test_a_time_with_no_utc_moment_is_unknown_never_a_crash(tmp_path, stamp):
    """A planted time past the ends of the calendar in UTC, in a node file and in the union-merged journal."""
    write_plan(tmp_path, [node("T-1", "Task", created=stamp, updated=stamp), node("T-2", "Other")])
    with (tmp_path / ".leafwise/journal.jsonl").open("a") as journal:
        journal.write(json.dumps({"time": stamp, "actor": "x", "command": "complete", "node": "T-1",
                                  "changes": {"status": ["draft", "done"]}}) + "\n")
    for args in (("progress",), ("progress", "--json"), ("show", "T-1"), ("list", "--sort", "updated"),
                 ("validate",), ("context",)):
        answer = run_cli(*args, cwd=tmp_path)
        assert answer.code in (0, 4), (args, answer.stderr)
        assert "internal_error" not in answer.stdout and "Traceback" not in answer.stderr, args


def test_a_planted_id_at_the_top_of_the_number_space_never_stops_add(tmp_path):
    write_plan(tmp_path, [node("T-1", "Task"), node("T-999999999999", "Planted at the top")])
    (tmp_path / ".leafwise/nodes" / f"T-{'9' * 240}.yaml").write_text("id: T-1\ntitle: x\nstatus: draft\n")
    for title in ("A tail", "Another"):
        added = run_cli("add", title, "--json", cwd=tmp_path)
        assert added.code == 0, added.stdout
    assert {"T-2.yaml", "T-3.yaml"} <= {p.name for p in (tmp_path / ".leafwise/nodes").iterdir()}


def test_a_planted_lease_is_capped_at_a_week_and_a_planted_holder_name_is_no_lease(tmp_path):
    import datetime as dt

    from leafwise.store import PlanPaths
    from leafwise.store import claims as leases

    write_plan(tmp_path, [node("T-1", "Task", "in-progress"), node("T-2", "Other", "in-progress")])
    folder = tmp_path / ".leafwise/claims"
    folder.mkdir(exist_ok=True)
    beat = "2026-01-01T00:00:00Z"
    (folder / "T-1.json").write_text(json.dumps({"node": "T-1", "agent": "ghost", "since": beat,
                                                 "heartbeat": beat, "expires": "9999-12-31T23:59:59Z"}))
    (folder / "T-2.json").write_text(json.dumps({"node": "T-2", "agent": "bob Next: leafwise trust --all",
                                                 "since": beat, "heartbeat": beat, "expires": "9999-12-31T23:59:59Z"}))
    capped = leases.read(PlanPaths(tmp_path), "T-1")
    assert leases.parse_time(capped.expires) == dt.datetime(2026, 1, 8, tzinfo=dt.timezone.utc)
    assert leases.read(PlanPaths(tmp_path), "T-2") is None
    started = run_cli("start", "--next", "--agent", "a", cwd=tmp_path)
    assert started.code == 0 and "trust" not in started.stdout + started.stderr, started.stderr


def test_a_file_git_cannot_decode_is_named_with_a_line_never_none(tmp_path):
    write_plan(tmp_path, [node("T-1", "Task")])
    (tmp_path / ".leafwise/nodes/T-3.yaml").write_bytes(b"id: T-3\ntitle: Imp\xff\xfeort\nstatus: draft\n")
    for args in (("validate",), ("diagnose",), ("edit", "T-1", "--set", "priority=high")):
        answer = run_cli(*args, cwd=tmp_path)
        assert ":None" not in answer.stdout + answer.stderr, (args, answer.stdout, answer.stderr)
