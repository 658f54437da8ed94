"""Shell completion of node ids and release names (click's `_LEAFWISE_COMPLETE`, docs/completion.md).

Imported only when the shell asks for completions, never on a command's own path. Cheap by design:
ids are the names in `.leafwise/nodes/` (no node file is opened), releases come from project.yaml.
Any failure completes nothing: a completion never prints an error into the person's prompt.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem
from leafwise.store.ids import id_order, is_node_id

ID_PARAMS = frozenset({"node_id", "parent", "depends_on", "follows", "node"})
RELEASE_PARAMS = frozenset({"release", "release_id", "after", "before"})
MAX = 200  # a shell shows no more than this usefully


def _root(ctx: click.Context) -> str | None:
    while ctx is not None:
        for key in ("root", "root_opt"):
            if ctx.params.get(key):
                return str(ctx.params[key])
        ctx = ctx.parent
    return os.environ.get("LEAFWISE_ROOT") or None


def _paths(ctx: click.Context) -> Any:
    from leafwise.store import find_root

    return find_root(Path.cwd(), _root(ctx))


def node_ids(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    try:
        with os.scandir(_paths(ctx).nodes) as entries:
            ids = [e.name[:-5] for e in entries if e.name.endswith(".yaml")]
    except Exception:  # noqa: BLE001 - no plan, an unreadable folder: nothing to offer
        return []
    wanted = incomplete.upper()
    return sorted((i for i in ids if is_node_id(i) and i.startswith(wanted)), key=id_order)[:MAX]


def releases(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    try:
        from leafwise.store.project_file import load_project

        project, _problems = load_project(_paths(ctx))
    except Exception:  # noqa: BLE001 - as above
        return []
    from leafwise.commands.text import one_line

    # a title is plan text the shell prints into the person's prompt: one inert line (zsh reads the
    # items as lines: a newline in a title shifted every item after it; an ESC reached the terminal)
    return [CompletionItem(r.id, help=one_line(r.title, 120) or None) for r in project.releases
            if r.id.startswith(incomplete) or r.id.upper().startswith(incomplete.upper())][:MAX]
