"""Consent to run a command that came from a plan file, recorded outside the repository.

Plan files are untrusted (docs/security.md): a `done_when: [{command: ...}]` or
a cycle's verify command runs only once the person approved that exact command
for that exact plan, like `direnv allow`. The approval is the sha256 of the
plan's real path and the command, kept in the person's own config folder
(`config_dirs.config_dir()/trust.json`: `$LEAFWISE_CONFIG_DIR`, else the platform's config
folder, see there). Nothing under `.leafwise/` can grant it,
and an edited command (or the same command in a cloned plan) needs a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from leafwise.store import atomic, reader
from leafwise.store.config_dirs import config_dir, outside, work_trees
from leafwise.store.timestamps import to_text, utc_now

FILE_NAME = "trust.json"


def store_path() -> Path:
    return config_dir() / FILE_NAME


def digest(root: Path | str, command: str) -> str:
    """The approval key of `command` in the plan at `root` (its real path: no alias via links)."""
    real = os.path.realpath(str(root))
    return hashlib.sha256(f"{real}\0{command}".encode()).hexdigest()


def short(full: str) -> str:
    """The 16-hex prefix people type (`leafwise trust --allow 3f2a...`)."""
    return full[:16]


def _read() -> dict[str, Any]:
    try:
        data = reader.read_json(store_path(), reader.SETTINGS)
    except (OSError, ValueError):  # reader.Refused is a ValueError
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("allowed"), dict):
        return {}
    return data


def trees(root: Path | str) -> list[str]:
    """The folders whose files a clone of the plan at `root` may have brought: the plan root and the work
    trees of the repository holding it (`config_dirs.work_trees`: its top, a superproject whose
    `.git/modules/` holds it, the main checkout of a `git worktree`): a plan in a subfolder of a
    repository whose top is HOME (a sandbox, a devcontainer) sits beside that repository's
    `.config/leafwise/`."""
    return [str(root), *work_trees(root)]


def planted_store(root: Path | str) -> str | None:
    """The tree a clone brought that holds the approvals file (so no approval in it ever counts for the
    plan at `root`), or None: what `trust --allow` tells a person instead of recording in vain."""
    return next((tree for tree in trees(root) if not outside(store_path(), tree)), None)


def allowed(root: Path | str | None = None) -> dict[str, dict[str, Any]]:
    """Every approval: full digest -> {root, command, at}; with `root`, none when the approvals file lies
    inside a tree a clone of that plan brings (`trees`, config_dirs.outside): its author could have
    written it. (Not "any repository tracks it": a dotfiles repository at HOME that tracks
    `~/.config/leafwise/` is the person's own.)"""
    if root is not None and planted_store(root) is not None:
        return {}
    return dict(_read().get("allowed", {}))


def is_trusted(root: Path | str, command: str) -> bool:
    """Approved by the person; never by an approvals file inside the plan's own tree (config_dirs.outside)."""
    return digest(root, command) in allowed(root)


def allow(root: Path | str, commands: list[str]) -> list[str]:
    """Record approval of `commands` for the plan at `root`; returns their digests."""
    data = _read() or {"allowed": {}}
    at = to_text(utc_now())
    keys = []
    for command in commands:
        key = digest(root, command)
        data["allowed"][key] = {"root": os.path.realpath(str(root)), "command": command, "at": at}
        keys.append(key)
    _write(data)
    return keys


def revoke(keys: list[str]) -> list[str]:
    """Drop approvals by digest (or a prefix of at least 8 hex digits); returns the ones dropped."""
    data = _read()
    table = data.get("allowed", {})
    gone = [k for k in list(table) if any(len(p) >= 8 and k.startswith(p) for p in keys)]
    for key in gone:
        del table[key]
    if gone:
        _write(data)
    return gone


def _write(data: dict[str, Any]) -> None:
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic.replace(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode(), mode=0o600)
