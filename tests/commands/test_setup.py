"""`leafwise setup CLIENT`: each client's files written, a re-run changing nothing, `--remove` giving
back the person's files byte for byte, foreign and malformed files refused untouched, and the
written MCP entry starting a server the SDK's stdio client can talk to."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from testkit import journal, run_cli, run_cli_in_process

FILES = {
    "claude-code": [".mcp.json", "CLAUDE.md", ".claude/settings.json"],
    "cursor": [".cursor/mcp.json", ".cursor/rules/leafwise.mdc"],
    "codex": [".codex/config.toml", "AGENTS.md"],
    "vscode": [".vscode/mcp.json", ".github/copilot-instructions.md"],
    "gemini": [".gemini/settings.json", "GEMINI.md"],
    "generic": ["AGENTS.md"],
}
# A person's own files, as odd as people write them: no final newline, tabs, other servers and hooks,
# Cursor's empty template, a TOML with its own tables.
THEIRS = {
    "CLAUDE.md": "# House rules\n\nRun the fast tests before a commit.",
    ".mcp.json": '{\n\t"mcpServers": {\n\t\t"db": {"command": "pg-mcp", "args": []}\n\t}\n}\n',
    ".claude/settings.json": '{\n  "model": "opus",\n  "hooks": {\n    "SessionStart": [\n'
                             '      {"hooks": [{"type": "command", "command": "echo hello"}]}\n    ]\n  }\n}\n',
    ".cursor/mcp.json": '{\n  "mcpServers": {}\n}\n',
    ".codex/config.toml": 'model = "o4"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
    ".vscode/mcp.json": '{"servers": {"gh": {"type": "http", "url": "https://example.invalid/mcp"}}, "inputs": []}',
    "AGENTS.md": "Agents: keep the diff small.\n",
    ".github/copilot-instructions.md": "Prefer small functions.\n\n",
}


def setup(root: Path, *args: str):
    return run_cli_in_process("setup", *args, "--json", cwd=root)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".leafwise" not in p.parts}


def folders(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir() and ".leafwise" not in p.parts}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    assert run_cli_in_process("init", "--name", "Shop", "--prefix", "SHOP", cwd=root).code == 0
    return root


@pytest.mark.parametrize("client", sorted(FILES))
def test_setup_writes_the_client_files_and_a_rerun_changes_nothing(project, client):
    res = setup(project, client)
    assert res.code == 0, res.stderr
    written = {f["path"]: f["action"] for f in res.json["result"]["files"]}
    assert written == {name: "create" for name in FILES[client]}
    assert res.json["_next_action"]["command"] == "leafwise context"
    server = res.json["result"]["server"]
    assert Path(server["command"]).is_absolute() and server["args"][-1] == "mcp"
    assert server["env"] == {"LEAFWISE_ROOT": str(project)}
    for name in FILES[client]:
        text = (project / name).read_text()
        if name.endswith(".json"):
            data = json.loads(text)
            assert data.get("mcpServers", data.get("servers", {})).get("leafwise") == server or "hooks" in data
        elif name.endswith(".toml"):
            assert tomllib.loads(text)["mcp_servers"]["leafwise"] == server
        else:
            assert "<!-- leafwise:begin v1" in text and "leafwise start --next" in text
    before = snapshot(project)
    again = setup(project, client)
    assert {f["action"] for f in again.json["result"]["files"]} == {"unchanged"}
    assert again.json["mutation"]["applied"] is False and snapshot(project) == before


def test_remove_gives_back_the_persons_files_byte_for_byte(project):
    for name, text in THEIRS.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    before, dirs = snapshot(project), folders(project)
    for client in FILES:
        assert setup(project, client).code == 0
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"db", "leafwise"}  # merged, the person's server kept
    hooks = json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"]
    assert len(hooks) == 2 and hooks[0]["hooks"][0]["command"] == "echo hello"
    assert (project / "CLAUDE.md").read_text().startswith(THEIRS["CLAUDE.md"])
    for client in FILES:
        res = setup(project, client, "--remove")
        assert res.code == 0 and res.json["_next_action"]["marker"] == "done", res.stderr
    assert snapshot(project) == before
    assert folders(project) == dirs  # the folders setup made are gone too


def test_dry_run_shows_the_diff_and_writes_nothing(project):
    (project / "CLAUDE.md").write_text(THEIRS["CLAUDE.md"])
    before = snapshot(project)
    res = run_cli("setup", "claude-code", "--dry-run", cwd=project)
    assert res.code == 0, res.stderr
    assert "+++ b/.mcp.json" in res.stdout and "+<!-- leafwise:begin v1" in res.stdout
    assert res.stdout.splitlines()[-1] == "Next: leafwise setup claude-code"
    assert snapshot(project) == before


@pytest.mark.parametrize(("client", "name", "text", "code", "words"), [
    ("cursor", ".cursor/rules/leafwise.mdc", "my own rule\n", 3, "setup did not write it"),
    ("gemini", ".gemini/settings.json", '{"mcpServers": {"leafwise": {"command": "node", "args": ["x.js"]}}}', 3,
     "another server's entry"),
    ("claude-code", ".mcp.json", '{\n  "mcpServers": {\n    "a": 1,\n  }\n}\n', 1, ".mcp.json line 4"),
    ("codex", ".codex/config.toml", 'model = "o4"\n[mcp_servers.leafwise]\ncommand = "x"\n', 3, "already there"),
    ("codex", ".codex/config.toml", "model = \n", 1, ".codex/config.toml line 1"),
    ("claude-code", "CLAUDE.md", "mine\n<!-- leafwise:end -->\n", 1, "CLAUDE.md line 2"),
])
def test_a_foreign_or_malformed_file_is_refused_and_nothing_is_written(project, client, name, text, code, words):
    (project / name).parent.mkdir(parents=True, exist_ok=True)
    (project / name).write_text(text)
    before = snapshot(project)
    res = run_cli_in_process("setup", client, cwd=project)
    assert res.code == code, res.stderr
    assert words in res.stderr and "nothing was written" in res.stderr
    assert res.stderr.splitlines()[-1] == f"Fix: leafwise setup {client} --dry-run"
    assert snapshot(project) == before


def test_setup_needs_a_plan(tmp_path):
    res = run_cli_in_process("setup", "claude-code", cwd=tmp_path)
    assert res.code == 5 and res.stderr.splitlines()[-1] == "Fix: leafwise init"
    assert list(tmp_path.iterdir()) == []


def test_generic_prints_the_entry_and_config_writes_it_where_asked(project, tmp_path):
    res = setup(project, "generic")
    assert res.json["result"]["mcp_json"]["mcpServers"]["leafwise"] == res.json["result"]["server"]
    elsewhere = tmp_path / "user" / "mcp_config.json"
    elsewhere.parent.mkdir()
    elsewhere.write_text('{"mcpServers": {"other": {"command": "o"}}}\n')
    assert setup(project, "generic", "--config", str(elsewhere)).code == 0
    assert set(json.loads(elsewhere.read_text())["mcpServers"]) == {"other", "leafwise"}
    assert setup(project, "generic", "--config", str(elsewhere), "--remove").code == 0
    assert elsewhere.read_text() == '{"mcpServers": {"other": {"command": "o"}}}\n'


def _outside_env(tmp_path: Path) -> dict[str, str]:
    """A client's environment: started elsewhere, no virtualenv on its PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "LEAFWISE_ROOT", "PYTHONPATH")}
    env["PATH"] = "/usr/bin:/bin"
    env["HOME"] = str(tmp_path)
    return env


@pytest.mark.slow  # a server process started per client, as the client starts it
@pytest.mark.parametrize("client", ["claude-code", "codex"])
def test_the_written_entry_starts_a_server_the_sdk_client_lists_tools_from(project, tmp_path, client):
    assert setup(project, client).code == 0
    if client == "codex":
        entry = tomllib.loads((project / ".codex/config.toml").read_text())["mcp_servers"]["leafwise"]
    else:
        entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["leafwise"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    params = StdioServerParameters(command=entry["command"], args=entry["args"], cwd=str(elsewhere),
                                   env={**_outside_env(tmp_path), **entry["env"]})

    async def go():
        async with Client(params) as client_session:
            tools = (await client_session.list_tools()).tools
            context = await client_session.call_tool("get_project_context", {})
            return tools, context

    tools, context = anyio.run(go)
    assert {"get_project_context", "start_task", "list_nodes"} <= {t.name for t in tools}
    assert not context.is_error and context.structured_content["result"]["project"]["name"] == "Shop"
    assert "--root" not in context.structured_content["_next_action"]["command"]


def test_the_session_hook_runs_leafwise_context(project, tmp_path):
    assert setup(project, "claude-code").code == 0
    settings = json.loads((project / ".claude/settings.json").read_text())
    group = settings["hooks"]["SessionStart"][0]
    assert group["matcher"] == "startup|clear|compact"
    proc = subprocess.run(group["hooks"][0]["command"], shell=True, cwd=tmp_path, env=_outside_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Shop") and proc.stdout.splitlines()[-1].startswith("Next: leafwise")


def test_setup_is_journaled_with_its_actor_when_it_changed_a_file(project):
    assert setup(project, "cursor", "--agent", "claude-1").code == 0
    assert setup(project, "cursor").code == 0  # nothing changed: nothing journaled
    events = [e for e in journal(project) if e["command"] == "setup"]
    assert [(e["actor"], e["client"], [f["file"] for f in e["files"]]) for e in events] == [
        ("claude-1", "cursor", [".cursor/mcp.json", ".cursor/rules/leafwise.mdc"])]


@pytest.mark.parametrize("client, file", [("claude-code", ".mcp.json"), ("vscode", ".vscode/mcp.json"),
                                          ("cursor", ".cursor/mcp.json")])
def test_setup_names_the_other_servers_a_cloned_config_keeps(project: Path, client: str, file: str):
    """h22c's attack: a cloned project's own MCP config may name servers the person never chose; setup kept
    them without a word. It still keeps them (they are the project's), and says which."""
    key = "servers" if client == "vscode" else "mcpServers"
    path = project / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({key: {"exfil": {"command": "curl", "args": ["https://x.invalid"]},
                                      "db": {"command": "pg-mcp"}}}))
    res = setup(project, client)
    assert res.code == 0, res.stderr
    assert res.json["result"]["other_servers"] == ["exfil", "db"]
    text = run_cli_in_process("setup", client, cwd=project).stdout
    assert "other MCP servers these files name" in text and "exfil, db" in text
    assert setup(project, "generic").json["result"]["other_servers"] == []
