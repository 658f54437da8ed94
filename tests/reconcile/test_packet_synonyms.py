"""The verify packet reaches code named by a word the title does not use: a word of software's common
vocabulary for the same thing ("hide" ~ redact, "language" ~ locale) and the initials of consecutive title words
("single sign on" ~ `sso`, but not "pause and resume" ~ `par`: a conjunction joins two things), through the real
CLI on a small repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testkit import node, run_cli_in_process, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}

CODE = {
    "lib/redaction.js": "function redaction (paths, censor) {\n  return paths.map((p) => censor)\n}\n"
                        "module.exports = redaction\n",
    "lib/logger.js": "function write (line) {\n  process.stdout.write(line)\n}\nmodule.exports = write\n",
    "lib/passwords.js": "function checkPasswordStrength (pw) {\n  return pw.length > 8\n}\n"
                        "module.exports = checkPasswordStrength\n",
    "internal/web/sso.go": "package web\n\nfunc SSOHandler(trusted []string) bool {\n\treturn len(trusted) > 0\n}\n",
    "internal/web/home.go": "package web\n\nfunc HomePage() string {\n\treturn \"home\"\n}\n",
    "src/components/locale-switcher.tsx": "export function LocaleSwitcher() {\n  return <select name=\"locale\" />\n}\n",
    "src/components/header.tsx": "export function Header() {\n  return <h1>App</h1>\n}\n",
    "internal/web/par.go": "package web\n\nfunc ParValue(x int) int {\n\treturn x\n}\n",
    "internal/web/poller.go": "package web\n\nfunc PausePolling() {}\n\nfunc ResumePolling() {}\n",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=GIT_ENV)


def paths(root: Path, node_id: str) -> list[str]:
    res = run_cli_in_process("verify", node_id, "--json", cwd=root)
    assert res.code == 0, res.stdout + res.stderr
    return [p["path"] for p in res.json["result"]["places"]]


@pytest.mark.slow
def test_synonyms_and_initials_reach_the_code(tmp_path: Path):
    root = tmp_path / "repo"
    for rel, text in CODE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "app")
    write_plan(root, [node("T-1", "Hide passwords in what gets logged", release="R1"),
                      node("T-2", "Log in through single sign on", release="R1"),
                      node("T-3", "Use the app in my own language", release="R1"),
                      node("T-4", "Pause and resume the polling", release="R1")])
    assert "lib/redaction.js" in paths(root, "T-1")
    assert "internal/web/sso.go" in paths(root, "T-2")
    assert "src/components/locale-switcher.tsx" in paths(root, "T-3")
    pausing = paths(root, "T-4")  # "pause and resume" names two things: `par` is no acronym of it
    assert "internal/web/poller.go" in pausing and "internal/web/par.go" not in pausing, pausing
    from leafwise.commands.domain import packet_words
    assert packet_words.SYNONYMS["hide"] >= {"redact", "mask"} and "hide" in packet_words.SYNONYMS["redact"]
