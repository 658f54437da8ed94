"""Where each agent client keeps its MCP servers, its instructions and its session hooks.

Every location and format here is from the client's own documentation (docs/adopting-agents.md
names the source of each). All are the project's files, so one `setup` serves everyone who opens
the repository; `--config` points the MCP entry at another file (a client's user-level config).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Format = Literal["json", "toml", "none"]


@dataclass(frozen=True, slots=True)
class Client:
    name: str  # the CLI word: `leafwise setup claude-code`
    title: str
    config: str  # the MCP config file, relative to the project ("" for none)
    format: Format
    servers: str  # the key (JSON) or table (TOML) that holds the servers
    stdio_type: bool  # the entry says "type": "stdio" (required by VS Code, written by `claude mcp add`)
    instructions: str  # the instruction file, relative to the project
    fresh: str = ""  # what a new instruction file starts with (a Cursor rule's front matter)
    hook: str = ""  # the settings file of a SessionStart hook that runs `leafwise context` ("" for none)


CURSOR_RULE = ("---\ndescription: How to drive this project's Leafwise plan (leafwise setup cursor)\n"
               "alwaysApply: true\n---\n\n")

CLIENTS: dict[str, Client] = {c.name: c for c in (
    Client("claude-code", "Claude Code", ".mcp.json", "json", "mcpServers", True, "CLAUDE.md",
           hook=".claude/settings.json"),
    Client("cursor", "Cursor", ".cursor/mcp.json", "json", "mcpServers", False, ".cursor/rules/leafwise.mdc",
           fresh=CURSOR_RULE),
    Client("codex", "Codex", ".codex/config.toml", "toml", "mcp_servers", False, "AGENTS.md"),
    Client("vscode", "VS Code (GitHub Copilot)", ".vscode/mcp.json", "json", "servers", True,
           ".github/copilot-instructions.md"),
    Client("gemini", "Gemini CLI", ".gemini/settings.json", "json", "mcpServers", False, "GEMINI.md"),
    Client("generic", "any MCP client", "", "none", "mcpServers", False, "AGENTS.md"),
)}
NAMES = tuple(CLIENTS)
SERVER = "leafwise"  # the entry's name in every client's config
# Claude Code's SessionStart matchers: a new session, and one whose context was cleared or compacted
# (a resumed session still has the context it was given).
SESSION_MATCHER = "startup|clear|compact"


def entry(client: Client, command: str, args: list[str], root: str) -> dict[str, Any]:
    """The client's MCP server entry for `command args`, serving the plan at `root` whatever folder the
    client starts it in (LEAFWISE_ROOT: the answers' hints then carry no --root)."""
    found: dict[str, Any] = {"type": "stdio"} if client.stdio_type else {}
    found.update(command=command, args=args, env={"LEAFWISE_ROOT": root})
    return found


def hook_group(command_line: str) -> dict[str, Any]:
    """The SessionStart group of Claude Code's settings that runs `command_line`."""
    return {"matcher": SESSION_MATCHER, "hooks": [{"type": "command", "command": command_line}]}
