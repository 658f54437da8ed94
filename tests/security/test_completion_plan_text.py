"""Shell completion prints plan text into the person's prompt: zsh and fish show a release's title beside
its id (h22g, issue 22). The title went out raw: a cloned project.yaml's title with an OSC 52 (the
terminal's clipboard), ESC[2J, U+202E reached the terminal, and a newline in it broke zsh's protocol
(one item a line: every item after it was shifted, its words taken for the next item's kind and
value). A title is now one inert line (`text.one_line`).

Through the real CLI (click's `_LEAFWISE_COMPLETE`) on a real `git clone`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from leafwise.commands.text import is_hidden
from testkit import node, write_plan

GIT = ["git", "-c", "user.name=m", "-c", "user.email=m@example.com"]
PAYLOADS = {"OSC 52": r"\e]52;c;aGk=\a", "clear": r"\e[2J", "C1 CSI": r"\x9b2J", "bidi": r"\u202e",
            "newline": r"two\nplain\nR9; touch PWNED\nhelp", "carriage return": r"a\rb", "line separator": r"a\u2028b",
            "tab": r"a\tb", "tag characters": r"\U000e0069\U000e0067", "zero width": r"a\u200bb"}


def clone(tmp_path: Path, payload: str) -> Path:
    src = write_plan(tmp_path / "src", [node("T-1", "Epic", release="R1")])
    project = src / ".leafwise/project.yaml"
    project.write_text(project.read_text().replace("title: Release R2", f'title: "Release {payload} two"'))
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=src, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=src, check=True)
    subprocess.run([*GIT, "commit", "-qm", "plan"], cwd=src, check=True)
    subprocess.run(["git", "clone", "-q", str(src), str(tmp_path / "clone")], check=True)
    return tmp_path / "clone"


def completion(root: Path, shell: str) -> str:
    line = "leafwise add x --release "
    env = {**os.environ, "_LEAFWISE_COMPLETE": f"{shell}_complete", "COMP_WORDS": line,
           "COMP_CWORD": "4" if shell == "zsh" else ""}
    env.pop("LEAFWISE_ROOT", None)
    done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_release_title_completes_as_one_inert_line(tmp_path, name):
    root = clone(tmp_path, PAYLOADS[name])
    zsh = completion(root, "zsh").split("\n")[:-1]
    assert len(zsh) == 9 and zsh[0::3] == ["plain"] * 3 and zsh[1::3] == ["R1", "R2", "R3"], zsh
    fish = completion(root, "fish").split("\n")[:-1]
    assert [row.split("\t")[0] for row in fish] == ["plain,R1", "plain,R2", "plain,R3"], fish
    for text in (*zsh, *fish):
        raw = sorted({f"U+{ord(c):04X}" for c in text if is_hidden(c) and c != "\t"})
        assert not raw, (name, raw)
    assert all(row.count("\t") == 1 for row in fish), fish
