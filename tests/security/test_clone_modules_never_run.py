"""A clone's own Python files never run in a process Leafwise starts (`-P` on every `python -m` child).

Found in session 19's attack (h22i): `python -m MODULE` puts its working directory first on sys.path,
and the loop server that answers `leafwise next` starts in the person's clone, so a committed
`dataclasses.py` (or `json.py`, `leafwise/__init__.py`) at the repository's top ran on a plain
`leafwise next` (a marker file). The AST half is tests/security/test_r19_reconcile_python_children.py;
this is the real thing: the console script a person runs, the warm server it starts, and the calls
that server answers, in a real clone holding every such file.
"""

from __future__ import annotations

import subprocess

from testkit import node, write_plan

from commands.test_loop_server import call, runtime, serving  # noqa: F401 - the fixture

MODULES = ("json.py", "dataclasses.py", "typing.py", "enum.py", "leafwise/__init__.py", "re.py", "socket.py")


def test_the_warm_server_runs_none_of_the_clones_modules(tmp_path, runtime):  # noqa: F811
    origin = write_plan(tmp_path / "origin", [node("T-1", "Alpha", release="R1"), node("T-2", "Bravo", release="R1")])
    marks = tmp_path / "marks"
    marks.mkdir()
    for name in MODULES:
        (origin / name).parent.mkdir(parents=True, exist_ok=True)
        (origin / name).write_text(f"open({str(marks / name.replace('/', '_'))!r}, 'w').close()\n")
    git = ["git", "-c", "user.name=e", "-c", "user.email=e@x"]
    subprocess.run([*git, "init", "-q"], cwd=origin, check=True)
    subprocess.run([*git, "add", "-A", "-f"], cwd=origin, check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], cwd=origin, check=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    serving(clone)
    out, err, code, how = call(clone, "start", "--next", "--agent", "a")
    assert (code, how) == (0, "served"), err
    assert "T-1" in out
    assert sorted(p.name for p in marks.iterdir()) == [], "a clone's module ran"
