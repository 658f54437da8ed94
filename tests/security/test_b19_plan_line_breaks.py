"""A line end in a plan's command is never shown as a blank (`text.counted_blanks`).

Found in the bypass round of session 19: `done_when: [{command: "echo ok\\n\\n\\n\\nrm -rf ~/x"}]` was
listed by `trust` (and `show`, validate, the terminal question) as `echo ok⟨4 blanks⟩rm -rf ~/x`, which
reads as one harmless echo; a shell runs `rm -rf ~/x` on its own line. `show` put a single newline as a
space (`echo ok rm -rf ~/x`). Every character `_BLANK_RUN` takes that ends a line (newline, CR, VT, FF,
the file/group/record/unit separators, NEL, U+2028, U+2029) in a run with other blanks is now counted
as line breaks, and a lone one is shown (␊, <U+2028>), on every surface a person reads before
approving."""

from __future__ import annotations

import pytest
from testkit import node, run_cli, write_plan

from security.test_approvals import on_a_terminal

ENDS = ["\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\u2028", "\u2029", "\r\n"]
TAIL = "rm -rf ~/x"


@pytest.fixture
def env(tmp_path):
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


@pytest.mark.parametrize("end", ENDS)
@pytest.mark.parametrize("shape", ["alone", "four", "among spaces"])
def test_a_line_end_in_a_command_is_named_on_every_approval_surface(tmp_path, env, end, shape):
    run = {"alone": end, "four": end * 4, "among spaces": "  " + end + "   "}[shape]
    command = "echo ok" + run + TAIL
    root = tmp_path / "plan"
    write_plan(root, [node("P1-1", "Epic", release="R1"),
                      node("P1-2", "Leaf", parent="P1-1", done_when=[{"command": command}])], prefix="P1")
    surfaces = {"trust": run_cli("trust", cwd=root, env=env).stdout,
                "validate": run_cli("validate", cwd=root, env=env).stdout,
                "show": run_cli("show", "P1-2", cwd=root, env=env).stdout}
    key = run_cli("trust", "--json", cwd=root, env=env).json["result"]["commands"][0]["hash"]
    surfaces["question"] = on_a_terminal(["trust", "--allow", key], root, env, b"n\n")[1]
    for name, text in surfaces.items():
        line = next((row for row in text.splitlines() if "echo ok" in row), "")
        after = line.partition("echo ok")[2]
        assert ("line break" in after if shape != "alone" else after[:1] not in " " + TAIL[0]), (name, line)
        assert TAIL in after, (name, text)
        assert "echo ok rm" not in line and "⟨4 blanks⟩" not in line, (name, line)
