"""Old import path of the node and hold building blocks; they live in commands/domain/nodes.py and holds.py."""

from __future__ import annotations

from leafwise.commands.domain.holds import live_claims, pick_for, ttl_minutes, unreadable_parents
from leafwise.commands.domain.nodes import (
    Mutator,
    cascade_changes,
    change_list,
    get_node,
    move_status,
    plain,
    record,
    require_project,
    set_fields,
    write,
)

__all__ = ["Mutator", "cascade_changes", "change_list", "get_node", "live_claims", "move_status", "pick_for",
           "plain", "record", "require_project", "set_fields", "ttl_minutes", "unreadable_parents", "write"]
