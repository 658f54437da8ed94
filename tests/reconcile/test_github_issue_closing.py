"""Reconcile on a plan imported from GitHub issues: a commit that closes the issue the way GitHub does
("Fixes #12") makes its node `shipped`; every other way of naming the number only mentions it.

Real git repositories, the real `import github` and `reconcile` CLI in subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testkit import run_cli

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
REPO = "acme/app"

# (message, closes): the issue number is spliced in for {n}; each case gets its own issue.
CLOSING = [f"{word} #{{n}}" for word in ("close", "closes", "closed", "fix", "fixes", "fixed", "resolve",
                                         "resolves", "resolved")] + [
    "Fixes: #{n}", "FIXES #{n}", "Parser rewrite\n\nCloses #{n}", f"fixes {REPO}#{{n}}", f"fixes ACME/App#{{n}}",
    f"Resolves https://github.com/{REPO}/issues/{{n}}", "fix #{n}, fix #9999", "Add it (closes #{n})"]
MENTIONS = ["see #{n}", "Add widget (#{n})", "ref #{n}", "part of #{n}", "partially fixes #{n}",
            "doesn't fix #{n}", "this does not fix #{n}", "fix for #{n}", "fixes #{n}0", "fixes other/repo#{n}",
            "fixes a#{n}", "fixes x/y/z#{n}", "fixes &#{n}", "fixing #{n}", "closes #{n}x",
            "fixes https://github.com/other/repo/issues/{n}", "fixes #9999 and #{n}"]


def cli(root: Path, *args: str):
    return run_cli(*args, cwd=root)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=GIT_ENV).stdout


def commit(root: Path, message: str, name: str) -> str:
    stem = name.split(".")[0]
    (root / name).write_text(f"def made_in_{stem}():\n    return '{name}'\n")
    git(root, "add", name)
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def imported(tmp_path: Path, numbers: list[int], repo: str | None = REPO) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q")
    assert cli(root, "init", "--prefix", "GH").code == 0
    issues = [{"number": n, "title": f"Feature number {n}", "body": "", "state": "OPEN", "labels": [],
               "assignees": [], **({"url": f"https://github.com/{repo}/issues/{n}"} if repo else {})}
              for n in numbers]
    (tmp_path / "issues.json").write_text(json.dumps(issues))
    done = cli(root, "import", "github", str(tmp_path / "issues.json"))
    assert done.code == 0, done.stdout + done.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    return root


def verdicts(root: Path) -> dict[int, str]:
    """{issue number: reconcile's verdict}."""
    done = cli(root, "reconcile", "--json")
    assert done.code == 0, done.stdout + done.stderr
    sources = {}
    for path in (root / ".leafwise" / "nodes").glob("*.yaml"):
        text = path.read_text()
        number = text.split("id: ", 2)[-1].split("#")[-1].split("\n")[0].strip().strip("'\"")
        sources[path.stem] = int(number)
    return {sources[s["id"]]: s["verdict"] for s in json.loads(done.stdout)["result"]["suggestions"]}


def test_githubs_closing_keywords_close_and_every_other_spelling_only_mentions(tmp_path: Path) -> None:
    cases = [(message, True) for message in CLOSING] + [(message, False) for message in MENTIONS]
    numbers = [100 + i for i in range(len(cases))]
    root = imported(tmp_path, numbers)
    for i, ((message, _), n) in enumerate(zip(cases, numbers)):
        commit(root, message.format(n=n), f"f{i}.py")
    got = verdicts(root)
    wrong = [(message.format(n=n), got[n]) for (message, closes), n in zip(cases, numbers)
             if (got[n] == "shipped") != closes]
    assert wrong == []


def test_a_reverted_closing_commit_and_the_revert_itself_close_nothing(tmp_path: Path) -> None:
    root = imported(tmp_path, [7, 8])
    commit(root, "Add export\n\nFixes #7", "export.py")
    git(root, "revert", "--no-edit", "HEAD")  # 'Revert "Add export"' + "This reverts commit <sha>."
    commit(root, "Add import, fixes #8", "import.py")
    sha = commit(root, "Revert 'Add import, fixes #8'", "undo.py")  # a hand-written revert naming no sha
    got = verdicts(root)
    assert got == {7: "partial", 8: "partial"}, (got, sha)


def test_a_bare_number_names_the_remotes_repository_or_the_one_the_plan_imported(tmp_path: Path) -> None:
    """A fork's remote names the fork (acme/app); the plan imported the upstream's issues (other/lib): a bare
    #5 in the history names other/lib's #5 too. With two imported repositories, a bare number names only
    the remote's."""
    root = imported(tmp_path, [5], repo="other/lib")
    git(root, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    commit(root, "fixes #5", "a.py")
    assert verdicts(root) == {5: "shipped"}
    issues = [{"number": 6, "title": "Six", "body": "", "state": "OPEN", "labels": [], "assignees": [],
               "url": "https://github.com/zed/other/issues/6"},
              {"number": 7, "title": "Seven", "body": "", "state": "OPEN", "labels": [], "assignees": [],
               "url": f"https://github.com/{REPO}/issues/7"}]
    (tmp_path / "more.json").write_text(json.dumps(issues))
    assert cli(root, "import", "github", str(tmp_path / "more.json")).code == 0
    commit(root, "fixes #6, fixes #7", "b.py")
    got = verdicts(root)
    assert (got[6], got[7]) == ("none", "shipped"), got  # zed/other's #6 is not this repository's #6


@pytest.mark.parametrize("origin", ["git@github.com:acme/app.git", "https://github.com/acme/app",
                                    "ssh://git@github.com/Acme/App.git/"])
def test_the_remote_may_be_spelled_any_way_github_accepts(tmp_path: Path, origin: str) -> None:
    root = imported(tmp_path, [5, 6], repo=None)  # an export with no url: the source is the number alone
    git(root, "remote", "add", "upstream", origin)
    commit(root, "fixes #5", "a.py")
    commit(root, "fixes acme/app#6", "b.py")
    assert verdicts(root) == {5: "shipped", 6: "shipped"}


def test_a_number_two_imported_repositories_share_closes_neither(tmp_path: Path) -> None:
    root = imported(tmp_path, [3])
    issues = [{"number": 3, "title": "Other three", "body": "", "state": "OPEN", "labels": [], "assignees": [],
               "url": "https://github.com/zed/lib/issues/3"}]
    (tmp_path / "more.json").write_text(json.dumps(issues))
    assert cli(root, "import", "github", str(tmp_path / "more.json")).code == 0
    commit(root, "fixes #3", "a.py")  # no remote: which repository's #3 is unknown
    assert set(verdicts(root).values()) == {"none"}


def test_apply_closes_it_with_the_commit_in_the_summary_and_progress_sees_it(tmp_path: Path) -> None:
    root = imported(tmp_path, [42])
    sha = commit(root, "Dark mode\n\nCloses #42", "dark.py")
    progress = cli(root, "progress", "--json")
    assert "reconcile" in progress.stdout, progress.stdout
    done = cli(root, "reconcile", "--apply", "--json")
    assert done.code == 0, done.stdout + done.stderr
    node = next((root / ".leafwise" / "nodes").glob("*.yaml")).read_text()
    assert "status: done" in node and sha[:12] in node


def test_the_packet_leads_with_the_code_the_closing_commit_changed(tmp_path: Path) -> None:
    """verify's packet for an imported issue: the files its closing commit changed come first, though the
    title's words are nowhere in them; a commit that only mentions the issue, or was reverted, leads nowhere."""
    root = imported(tmp_path, [21, 22])
    for i in range(6):  # files that name the title's words, and are not where it was done
        (root / f"feature_{i}.py").write_text(f"def feature_number_{i}():\n    return 'feature number'\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "unrelated")
    (root / "engine.py").write_text("def zz_walk(tree):\n    return sorted(tree)\n")
    git(root, "add", "engine.py")
    git(root, "commit", "-q", "-m", "Walk the tree in order\n\nFixes #21")
    (root / "other.py").write_text("def qq():\n    return 1\n")
    git(root, "add", "other.py")
    git(root, "commit", "-q", "-m", "Something\n\nFixes #22")
    git(root, "revert", "--no-edit", "HEAD")
    (root / "other.py").write_text("def qq():\n    return 2\n")
    git(root, "add", "other.py")
    git(root, "commit", "-q", "-m", "see #22")
    ids = {}
    for path in (root / ".leafwise" / "nodes").glob("*.yaml"):
        ids[int(path.read_text().split("#")[-1].split("\n")[0].strip("'\" "))] = path.stem
    places = {}
    for number, node_id in ids.items():
        done = cli(root, "verify", node_id, "--json")
        assert done.code == 0, done.stdout + done.stderr
        places[number] = json.loads(done.stdout)["result"]["places"]
    assert places[21][0]["path"] == "engine.py" and places[21][0]["why"] == "a code file the issue's commit changed"
    assert any(p["kind"] == "commit" and "closes the issue" in p["why"] for p in places[21])
    assert [p["why"] for p in places[22] if p["kind"] == "commit"] == [f"the commit names the issue {ids[22]} was "
                                                                        "imported from"]
    assert places[22][0]["path"] == "other.py"  # the newest commit naming it changed other.py


def test_a_closing_commit_counts_only_while_the_code_it_added_stands(tmp_path: Path) -> None:
    """The author's word outlives the code: a closing commit that changed only docs, that only removed
    code, whose added code is gone since, or a merge, is a lead (`likely`, `lead: commit`), not shipped."""
    root = imported(tmp_path, [1, 2, 3, 4, 5, 6, 7, 8])
    (root / "src").mkdir()
    (root / "src" / "flags.py").write_text("def parse(argv):\n    return list(argv)\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (root / "README.md").write_text("# app\n\nThe --width flag sets the width of line numbers.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Document the width\n\nFixes #1")  # docs only
    (root / "src" / "flags.py").write_text("def parse(argv):\n    return list(argv)\n\n"
                                           "def line_number_width(value):\n    return max(int(value), 1)\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Add --width\n\nCloses #2")  # later removed by #3's fix
    (root / "src" / "flags.py").write_text("def parse(argv):\n    return list(argv)\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Remove --width: it never aligned\n\nFixes #3")  # only removes code
    (root / "src" / "color.py").write_text("def colors_enabled(env):\n    return env.get('NO_COLOR') is None\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Respect NO_COLOR\n\nFixes #4")  # stands
    (root / "src" / "sort.py").write_text("def sort_by_modified(paths, stat):\n    return sorted(paths, key=stat)\n\n"
                                          "SORT_FLAG = '--sort-modified'\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Sort by mtime\n\nFixes #6")  # rewritten below: its names stay
    (root / "src" / "walk.py").write_text("def tree_walk_sorted(root):\n    return [p for p in sorted(root.iterdir())]\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Walk in order\n\nFixes #7")  # moved below to another file
    (root / "src" / "sort.py").write_text("SORT_FLAG = '--sort-modified'  # the flag\n\n\n"
                                          "def sort_by_modified(entries, stat_of):\n"
                                          "    return sorted(entries, key=lambda e: stat_of(e).st_mtime)\n")
    (root / "src" / "walk.py").unlink()
    (root / "src" / "tree.py").write_text("def tree_walk_sorted(root):\n    return [p for p in sorted(root.iterdir())]\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "refactor")
    (root / "src" / "flags.py").write_text(
        "def parse(argv):\n"
        "    # Width of the line numbers: see the docs for how\n"
        '    """Parse the command line.\n'
        "    Sets the width of the line numbers in every result,\n"
        "    padded with spaces on the left as the issue asked.\n"
        '    """\n'
        "    return list(argv)\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Explain the width\n\nFixes #8")  # a comment and help text in a code file
    git(root, "checkout", "-q", "-b", "side")
    (root / "src" / "pager.py").write_text("def pager_command(env):\n    return env.get('PAGER', 'less')\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pager")
    git(root, "checkout", "-q", "-")
    (root / "NEWS.md").write_text("news\n")  # so the merge is no parent's tree (git log would simplify it away)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "news")
    git(root, "merge", "-q", "--no-ff", "side", "-m", "Merge the pager\n\nFixes #5")
    done = cli(root, "reconcile", "--json")
    got = {}
    for s in json.loads(done.stdout)["result"]["suggestions"]:
        number = int((root / ".leafwise" / "nodes" / f"{s['id']}.yaml").read_text().split("#")[-1].split("\n")[0]
                     .strip("'\" "))
        got[number] = (s["verdict"], s.get("lead"), (s["missing"] or [""])[0])
    assert [got[n][0] for n in (4, 6, 7)] == ["shipped"] * 3, got
    assert [got[n][:2] for n in (1, 2, 3, 5, 8)] == [("likely", "commit")] * 5, got
    assert "changed only comments and help text" in got[8][2]
    assert "changed no code" in got[1][2] and "README.md" in got[1][2]
    assert "mostly gone since (0 of 2 lines left; 0 of 1 names it brought)" in got[2][2]
    assert "added no line of code" in got[3][2]
    assert "is a merge" in got[5][2]
    applied = json.loads(cli(root, "reconcile", "--apply", "--json").stdout)["result"]
    assert len(applied["applied"]) == 3  # #4, #6, #7


def test_a_revert_reverted_brings_the_closing_back(tmp_path: Path) -> None:
    root = imported(tmp_path, [9])
    commit(root, "Add nine\n\nFixes #9", "nine.py")
    git(root, "revert", "--no-edit", "HEAD")
    assert verdicts(root) == {9: "partial"}
    git(root, "revert", "--no-edit", "HEAD")  # `Reapply "Add nine"` (or `Revert "Revert …"`): this reverts the revert
    assert verdicts(root) == {9: "shipped"}


def test_a_negation_before_an_id_closes_nothing(tmp_path: Path) -> None:
    root = imported(tmp_path, [30])
    node_id = next((root / ".leafwise" / "nodes").glob("*.yaml")).stem
    commit(root, f"Start on it: this doesn't close {node_id} yet", "a.py")
    assert verdicts(root) == {30: "partial"}
    commit(root, f"Finish it, closes {node_id}", "b.py")
    assert verdicts(root) == {30: "shipped"}
