"""Contract cases of the setup command (see __init__.py)."""

from __future__ import annotations

from pathlib import Path

from testkit.contract_cases import AgentCase, err, ok


def _malformed_mcp_json(root: Path) -> None:
    (root / ".mcp.json").write_text('{\n  "mcpServers": {\n    "a": 1,\n  }\n}\n')


def _foreign_rule(root: Path) -> None:
    (root / ".cursor/rules").mkdir(parents=True)
    (root / ".cursor/rules/leafwise.mdc").write_text("a rule of the person's own\n")


CASES: dict = {
    "setup": (ok("setup", "claude-code"),
              err(1, "setup", "claude-code", setup=_malformed_mcp_json),
              err(3, "setup", "cursor", setup=_foreign_rule),
              err(5, "setup", "codex", where="empty")),
}
# An agent may run setup for the person (a client asked to register Leafwise for itself).
AGENT_CASES: dict = {
    "setup": (AgentCase(("setup", "claude-code"), 0), AgentCase(("setup", "cursor"), 3, _foreign_rule)),
}
NO_AGENT: set[str] = set()
