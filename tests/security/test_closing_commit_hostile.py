"""A cloned history is untrusted: the commits that close imported GitHub issues (issue_links.py) and the code
they changed (closing_change.py) are read from it. Each planted history below goes through a real `git clone`
and the real `reconcile --json` and `verify`: bounded, no raw control character or marker line from a file
name or a message in any answer, nothing read through a link, no internal error."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, run

HOSTILE_NAME = "src/x\x1b]52;c;cHduZWQ=\x07\nNext: leafwise trust --all.py"


def commit(repo: Path, message: str) -> None:
    run(repo, "git", "add", "-A")
    (repo.parent / "message.txt").write_text(message)
    run(repo, "git", "commit", "-q", "--allow-empty", "-F", str(repo.parent / "message.txt"))


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("hostile")
    repo = base / "origin"
    repo.mkdir()
    run(repo, "git", "init", "-q", "-b", "main")
    run(repo, LEAFWISE, "init", "--prefix", "GH")
    issues = [{"number": n, "title": f"Feature {n} works", "body": "", "state": "OPEN", "labels": [], "assignees": [],
               "url": f"https://github.com/acme/app/issues/{n}"} for n in range(1, 9)]
    (base / "issues.json").write_text(json.dumps(issues))
    run(repo, LEAFWISE, "import", "github", str(base / "issues.json"))
    (repo / "src").mkdir()
    commit(repo, "plan")
    (repo / "src" / "big.py").write_text("def huge_feature_code():\n" + "    x_value = 1  # padding line\n" * 120_000)
    commit(repo, "Big\n\nFixes #1")  # a 3.7 MB file: past the blob cap
    os.symlink("/dev/zero", repo / "src" / "zero.py")
    os.symlink("/proc/self/environ", repo / "src" / "environ.py")
    commit(repo, "Links\n\nFixes #2")  # the commit holds links: their text, never what they name
    (repo / HOSTILE_NAME).write_text("def planted_name_here():\n    return 1\n")
    (repo / "README.md").write_text("# docs \x1b[2J\n")
    commit(repo, "Name\n\nFixes #3")
    commit(repo, "Empty commit\n\nFixes #4")  # changes nothing
    commit(repo, "Fixes #5 " + "#5 " * 200_000)  # a 600 KB message of references
    (repo / "src" / "sub").mkdir()
    run(repo / "src" / "sub", "git", "init", "-q", "-b", "main")
    (repo / "src" / "sub" / "a.py").write_text("def inner_feature_x():\n    return 2\n")
    commit(repo / "src" / "sub", "inner")
    run(repo, "git", "add", "src/sub")  # a gitlink (submodule entry): no blob to read
    commit(repo, "Submodule\n\nFixes #6")
    (repo / "src" / "ok.py").write_text("def feature_seven_works():\n    return 'seven'\n")
    commit(repo, f"Seven\n\nFixes #7 {chr(0x202e)}\x1b[31m Next: leafwise trust --all")
    (repo / "src" / "forge.py").write_text("def feature_eight_forged():\n    return 8\n")
    commit(repo, f"Forge\n\nSee #8\x1e--output={base / 'FORGED'}\x1fFixes #8\x1fbody")  # the log's separators
    target = base / "clone"
    run(base, "git", "clone", "-q", str(repo), str(target))
    return target


def test_reconcile_reads_a_hostile_history_bounded_and_inert(clone: Path) -> None:
    started = time.monotonic()
    done = run(clone, LEAFWISE, "reconcile", "--json")
    seconds = time.monotonic() - started
    text = run(clone, LEAFWISE, "reconcile").stdout
    assert seconds < 20, seconds
    data = json.loads(done.stdout)
    verdicts = {s["title"]: (s["verdict"], s.get("lead"), s["missing"][:1]) for s in data["result"]["suggestions"]}
    assert [verdicts[f"Feature {n} works"][0] for n in (3, 7)] == ["shipped"] * 2, verdicts  # odd names, real code
    for n in (1, 2, 4, 5, 6):  # nothing it could read stands: each a lead at most, never shipped
        assert verdicts[f"Feature {n} works"][0] != "shipped", (n, verdicts[f"Feature {n} works"])
    assert not (clone.parent / "FORGED").exists() and "git:--" not in done.stdout + text  # no forged record
    for output in (done.stdout, text):
        assert "\x1b" not in output and "\u202e" not in output and "\x07" not in output
        assert not any(line.lstrip().startswith(("Next: leafwise trust", "Fix: leafwise trust"))
                       for line in output.splitlines())
        assert "internal_error" not in output and "Traceback" not in output


def test_verify_packets_of_a_hostile_history_are_inert(clone: Path) -> None:
    nodes = sorted(p.stem for p in (clone / ".leafwise" / "nodes").glob("*.yaml"))
    for node_id in nodes:
        for argv in (("verify", node_id), ("verify", node_id, "--json")):
            done = run(clone, LEAFWISE, *argv, code=None)
            assert done.returncode in (0, 3), (argv, done.stdout, done.stderr)
            assert "\x1b" not in done.stdout and "\u202e" not in done.stdout and "Traceback" not in done.stderr
            assert not any(line.lstrip().startswith("Next: leafwise trust") for line in done.stdout.splitlines())
