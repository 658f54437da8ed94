"""An off-limits glob protects the same files however the repository path is written
(`commands/domain/cycle_gates.py` `repo_glob`).

Found in session 19's attack (h22h), through the real CLI: a running cycle started with
`--off-limits /abs/path/of/the/repo/.leafwise/docs/*` or `--off-limits .leafwise//docs/*` did not stop
`doc P1-2 --write -` from writing `.leafwise/docs/P1-2.md` (`.leafwise/docs/*` and `./.leafwise/docs/**`
did): the gate was off, silently. Now an absolute glob under the repository is made relative, any
other rooted glob (`/.leafwise/docs/*`) is anchored at the repository's root as in .gitignore, and
repeated slashes are one.
"""

from __future__ import annotations

import pytest
from testkit import run_cli, run_cli_in_process, write_plan

FORMS = ["{repo}/.leafwise/docs/*", "{repo}//.leafwise/docs/**", ".leafwise//docs/*", ".leafwise/docs//*",
         "./.leafwise/docs/**", ".leafwise/docs/*", "/.leafwise/docs/*", "//.leafwise/docs/**"]


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_the_glob_keeps_the_doc_unwritten(tmp_path, form):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    glob = form.format(repo=root.resolve().as_posix())
    started = run_cli_in_process("cycle", "start", "c", "--kind", "until-goal", "--max-iterations", "3",
                                 "--token-cap", "10", "--node", "T-1", "--off-limits", glob, cwd=root)
    assert started.code == 0, started.stdout + started.stderr
    res = run_cli("doc", "T-1", "--write", "-", "--json", cwd=root, stdin="# new\n")
    assert res.code == 3 and res.json["error"]["code"] == "off_limits", res.stdout
    assert not (root / ".leafwise" / "docs" / "T-1.md").exists()
    assert run_cli_in_process("cycle", "stop", "c", cwd=root).code == 0
    written = run_cli("doc", "T-1", "--write", "-", cwd=root, stdin="# new\n")
    assert written.code == 0 and (root / ".leafwise" / "docs" / "T-1.md").exists(), written.stdout + written.stderr
