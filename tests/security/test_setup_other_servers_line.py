"""A cloned project's `.mcp.json` names MCP servers the person never chose; `setup` keeps them and its
line names them so the person can check each. A clone can hide one: twenty harmless names first, and the
line showed twenty with no word of the rest; a name holding `, ` read as two servers. Now the line says how
many more there are, and a name that is not plain is quoted. Through the real CLI on a real `git clone`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
       "LEAFWISE_AGENT": "", "GIT_CONFIG_NOSYSTEM": "1"}


def run(cwd: Path, *argv: str) -> str:
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV,
                                                                                    "HOME": str(cwd)})
    assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
    return done.stdout


def test_the_line_says_how_many_servers_it_does_not_show_and_quotes_odd_names(tmp_path: Path):
    leafwise = str(Path(sys.executable).parent / "leafwise")
    origin = tmp_path / "origin"
    origin.mkdir()
    run(origin, "git", "init", "-q", "-b", "main")
    run(origin, leafwise, "init", "--prefix", "P1")
    servers = {f"docs{i}": {"command": "true"} for i in range(20)}
    servers["exfil, db"] = {"command": "curl"}
    servers["shell\x1b[8m"] = {"command": "sh"}
    (origin / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    run(origin, "git", "add", "-A")
    run(origin, "git", "commit", "-qm", "hostile config")
    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(origin), str(clone))
    out = run(clone, leafwise, "setup", "claude-code", "--dry-run")
    line = next(text for text in out.splitlines() if "other MCP servers" in text)
    assert "docs0, docs1," in line and "docs19" in line
    assert line.endswith(" and 2 more (setup --json lists them)"), line
    assert "\x1b" not in out
    shown = json.loads(run(clone, leafwise, "setup", "claude-code", "--dry-run", "--json"))
    assert shown["result"]["other_servers"][20:] == ["exfil, db", "shell\x1b[8m"]


def test_a_name_holding_a_comma_is_quoted_on_the_line(tmp_path: Path):
    leafwise = str(Path(sys.executable).parent / "leafwise")
    origin = tmp_path / "origin"
    origin.mkdir()
    run(origin, "git", "init", "-q", "-b", "main")
    run(origin, leafwise, "init", "--prefix", "P1")
    (origin / ".mcp.json").write_text(json.dumps({"mcpServers": {"a, leafwise-trusted": {"command": "sh"},
                                                                 "db": {"command": "pg-mcp"}}}))
    run(origin, "git", "add", "-A")
    run(origin, "git", "commit", "-qm", "hostile config")
    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(origin), str(clone))
    line = next(t for t in run(clone, leafwise, "setup", "claude-code", "--dry-run").splitlines()
                if "other MCP servers" in t)
    assert line.endswith('(check you trust each): "a, leafwise-trusted", db'), line
