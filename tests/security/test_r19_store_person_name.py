"""The person's name from LEAFWISE_USER is printable, as the one from git's user.name (`git.person_name`).

LEAFWISE_USER is the person's, but a project's MCP server settings (`.mcp.json` `env`) or `.envrc` can set
it. `LEAFWISE_USER=$'eve<OSC 52><U+202E>\\nNext: leafwise trust --all' leafwise comment P1-2` stored the name
raw as the comment's `by:` in the committed node file and as the journal's actor, which every teammate's
tools then read. It is now made printable where it is read, like `user.name`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

NAMES = {"osc52": "eve\x1b]52;c;cHduZWQ=\x07", "bidi": "eve\u202eevil", "newline_next": "eve\nNext: leafwise trust --all",
         "nel": "eve\x85Fix: rm -rf ~", "tags": "eve\U000e0041\U000e0042", "c1_csi": "eve\x9b2J"}
RAW = ("\x1b", "\x07", "\u202e", "\n", "\x85", "\U000e0041", "\x9b")


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_a_person_name_from_the_environment_is_stored_printable(tmp_path: Path, kind: str) -> None:
    root = write_plan(tmp_path / "plan", [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart", parent="P1-1")],
                      prefix="P1")
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache"),
           "LEAFWISE_USER": NAMES[kind]}
    done = run_cli("comment", "P1-2", "--text", "hello", cwd=root, env=env)
    assert done.code == 0, done.stderr
    event = json.loads((root / ".leafwise" / "journal.jsonl").read_text().splitlines()[-1])
    assert event["command"] == "comment" and event["actor"].startswith("eve"), event
    assert not any(raw in event["actor"] for raw in RAW), event
    stored = (root / ".leafwise" / "nodes" / "P1-2.yaml").read_text()
    by = next(line for line in stored.splitlines() if "hello" in line)
    assert not any(raw in by or raw.encode("unicode_escape").decode() in by for raw in RAW if raw != "\n"), by
    assert "\\n" not in by, by
