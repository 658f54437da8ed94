"""Each registry command's params as a hint's command line spells them: (name, type, CLI flag or
None for a positional, multiple), in param order.

Generated from the registry by `python tests/contract/test_command_params.py`, which as a test proves
this table equal to the registry. `registry.command_line` reads it only for a command whose handler
module is not loaded, so a hint names any command without importing its module.
"""

from __future__ import annotations

PARAMS: dict[str, tuple[tuple[str, str, str | None, bool], ...]] = {
    "add": (
        ("title", "str", None, False),
        ("parent", "str", "--parent", False),
        ("release", "str", "--release", False),
        ("depends_on", "str", "--depends-on", True),
        ("tag", "str", "--tag", True),
        ("tech_debt", "bool", "--tech-debt", False),
        ("trigger", "str", "--trigger", False),
        ("follows", "str", "--follows", False),
        ("priority", "str", "--priority", False),
        ("agent", "str", "--agent", False),
        ("force", "bool", "--force", False),
    ),
    "agent-guide": (),
    "ask": (
        ("node_id", "str", None, False),
        ("question", "str", None, False),
        ("option", "str", "--option", True),
        ("agent", "str", "--agent", False),
    ),
    "block": (
        ("node_id", "str", None, False),
        ("reason", "str", "--reason", False),
        ("agent", "str", "--agent", False),
        ("force", "bool", "--force", False),
    ),
    "bulk": (
        ("source", "str", None, False),
        ("updates", "str", "--updates", False),
        ("agent", "str", "--agent", False),
    ),
    "cancel": (
        ("node_id", "str", None, False),
        ("reason", "str", "--reason", False),
        ("agent", "str", "--agent", False),
    ),
    "commands": (),
    "comment": (
        ("node_id", "str", None, False),
        ("text", "str", "--text", False),
        ("agent", "str", "--agent", False),
    ),
    "complete": (
        ("node_id", "str", None, False),
        ("summary", "str", "--summary", False),
        ("agent", "str", "--agent", False),
        ("force", "bool", "--force", False),
    ),
    "context": (
        ("agent", "str", "--agent", False),
        ("limit", "int", "--limit", False),
    ),
    "cycle start": (
        ("name", "str", None, False),
        ("kind", "str", "--kind", False),
        ("max_iterations", "int", "--max-iterations", False),
        ("token_cap", "int", "--token-cap", False),
        ("verify", "str", "--verify", True),
        ("off_limits", "str", "--off-limits", True),
        ("node", "str", "--node", False),
        ("agent", "str", "--agent", False),
    ),
    "cycle status": (
        ("name", "str", None, False),
    ),
    "cycle stop": (
        ("name", "str", None, False),
        ("reason", "str", "--reason", False),
        ("agent", "str", "--agent", False),
    ),
    "cycle tick": (
        ("name", "str", None, False),
        ("tokens", "int", "--tokens", False),
        ("agent", "str", "--agent", False),
    ),
    "cycle verify": (
        ("name", "str", None, False),
        ("timeout", "float", "--timeout", False),
        ("agent", "str", "--agent", False),
    ),
    "decide": (
        ("node_id", "str", None, False),
        ("option", "int", "--option", False),
        ("note", "str", "--note", False),
        ("expect", "str", "--expect", False),
    ),
    "diagnose": (
        ("node_id", "str", None, False),
        ("agent", "str", "--agent", False),
    ),
    "doc": (
        ("node_id", "str", None, False),
        ("agent", "str", "--agent", False),
        ("write", "str", "--write", False),
    ),
    "doctor": (),
    "edit": (
        ("node_id", "str", None, False),
        ("set", "str", "--set", True),
        ("add", "str", "--add", True),
        ("remove", "str", "--remove", True),
        ("agent", "str", "--agent", False),
        ("force", "bool", "--force", False),
    ),
    "export": (
        ("format", "str", None, False),
        ("path", "str", None, False),
        ("journal", "bool", "--journal", False),
    ),
    "heartbeat": (
        ("node_id", "str", None, False),
        ("agent", "str", "--agent", False),
        ("ttl", "float", "--ttl", False),
    ),
    "import": (
        ("format", "str", None, False),
        ("path", "str", None, False),
        ("release", "str", "--release", False),
        ("parent", "str", "--parent", False),
        ("dry_run", "bool", "--dry-run", False),
        ("partial", "bool", "--partial", False),
        ("map", "str", "--map", True),
        ("agent", "str", "--agent", False),
    ),
    "init": (
        ("name", "str", "--name", False),
        ("prefix", "str", "--prefix", False),
        ("agent", "str", "--agent", False),
    ),
    "list": (
        ("status", "str", "--status", False),
        ("release", "str", "--release", False),
        ("tag", "str", "--tag", False),
        ("parent", "str", "--parent", False),
        ("assignee", "str", "--assignee", False),
        ("priority", "str", "--priority", False),
        ("search", "str", "--search", False),
        ("blocked", "bool", "--blocked", False),
        ("ready", "bool", "--ready", False),
        ("sort", "str", "--sort", False),
        ("limit", "int", "--limit", False),
    ),
    "merge-driver": (
        ("base", "str", None, False),
        ("ours", "str", None, False),
        ("theirs", "str", None, False),
        ("path", "str", None, False),
        ("install", "bool", "--install", False),
        ("agent", "str", "--agent", False),
    ),
    "next": (
        ("agent", "str", "--agent", False),
        ("explain", "bool", "--explain", False),
        ("wait", "float", "--wait", False),
    ),
    "progress": (
        ("agent", "str", "--agent", False),
    ),
    "project set": (
        ("name", "str", "--name", False),
        ("prefix", "str", "--prefix", False),
        ("agent", "str", "--agent", False),
    ),
    "reconcile": (
        ("node", "str", "--node", False),
        ("release", "str", "--release", False),
        ("apply", "bool", "--apply", False),
        ("min_confidence", "float", "--min-confidence", False),
        ("limit", "int", "--limit", False),
        ("explain", "bool", "--explain", False),
        ("reject", "str", "--reject", False),
        ("close", "str", "--close", False),
        ("note", "str", "--note", False),
        ("agent", "str", "--agent", False),
    ),
    "release add": (
        ("release_id", "str", None, False),
        ("title", "str", "--title", False),
        ("target", "str", "--target", False),
        ("agent", "str", "--agent", False),
    ),
    "release edit": (
        ("release_id", "str", None, False),
        ("title", "str", "--title", False),
        ("target", "str", "--target", False),
        ("clear_target", "bool", "--clear-target", False),
        ("agent", "str", "--agent", False),
    ),
    "release list": (),
    "release move": (
        ("release_id", "str", None, False),
        ("before", "str", "--before", False),
        ("after", "str", "--after", False),
        ("agent", "str", "--agent", False),
    ),
    "release remove": (
        ("release_id", "str", None, False),
        ("agent", "str", "--agent", False),
    ),
    "renumber": (
        ("node_id", "str", None, False),
        ("agent", "str", "--agent", False),
    ),
    "repair": (
        ("dry_run", "bool", "--dry-run", False),
        ("agent", "str", "--agent", False),
    ),
    "setup": (
        ("client", "str", None, False),
        ("dry_run", "bool", "--dry-run", False),
        ("remove", "bool", "--remove", False),
        ("config", "str", "--config", False),
        ("agent", "str", "--agent", False),
    ),
    "show": (
        ("node_id", "str", None, False),
        ("agent", "str", "--agent", False),
    ),
    "start": (
        ("node_id", "str", None, False),
        ("next", "bool", "--next", False),
        ("agent", "str", "--agent", False),
        ("ttl", "float", "--ttl", False),
        ("wait", "float", "--wait", False),
        ("offline", "bool", "--offline", False),
    ),
    "team claim": (
        ("node_id", "str", None, False),
        ("next", "bool", "--next", False),
        ("agent", "str", "--agent", False),
        ("ttl", "float", "--ttl", False),
    ),
    "team doctor": (),
    "team init": (
        ("remote", "str", "--remote", False),
        ("agent", "str", "--agent", False),
    ),
    "team join": (
        ("agent", "str", "--agent", False),
    ),
    "team repair": (
        ("dry_run", "bool", "--dry-run", False),
        ("agent", "str", "--agent", False),
    ),
    "team status": (
        ("local", "bool", "--local", False),
    ),
    "team sync": (
        ("grace_days", "float", "--grace-days", False),
        ("agent", "str", "--agent", False),
    ),
    "tree": (
        ("node_id", "str", None, False),
        ("depth", "int", "--depth", False),
        ("limit", "int", "--limit", False),
    ),
    "trust": (
        ("allow", "str", "--allow", True),
        ("everything", "bool", "--all", False),
        ("revoke", "str", "--revoke", True),
        ("yes", "bool", "--yes", False),
        ("agent", "str", "--agent", False),
    ),
    "unblock": (
        ("node_id", "str", None, False),
        ("note", "str", "--note", False),
        ("agent", "str", "--agent", False),
    ),
    "unclaim": (
        ("node_id", "str", None, False),
        ("agent", "str", "--agent", False),
        ("force", "bool", "--force", False),
    ),
    "validate": (
        ("limit", "int", "--limit", False),
    ),
    "verify": (
        ("node_id", "str", None, False),
        ("next", "bool", "--next", False),
        ("verdict", "str", "--verdict", False),
        ("evidence", "str", "--evidence", True),
        ("quote", "str", "--quote", True),
        ("missing", "str", "--missing", False),
        ("agent", "str", "--agent", False),
        ("decide", "str", "--decide", False),
        ("note", "str", "--note", False),
        ("sample", "bool", "--sample", False),
    ),
    "write-doc": (
        ("node_id", "str", None, False),
        ("content", "str", "--content", False),
        ("agent", "str", "--agent", False),
    ),
}
