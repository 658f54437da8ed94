"""What `setup` made in a person's files, so `--remove` takes out exactly that and no more.

A file setup created is deleted again; a key setup added ("mcpServers", "hooks") goes with its last
entry, but one the person already had (Cursor writes an empty `{"mcpServers": {}}`) stays. Kept in
the person's config folder (`store/config_dirs.py`), outside every repository; without a record (a
config setup wrote on another machine) `--remove` falls back to: an empty container goes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from leafwise.store import reader
from leafwise.store.config_dirs import config_dir
from leafwise.store.writer import write_text

FILE_NAME = "setup.json"


def _path() -> Path:
    return config_dir() / FILE_NAME


def _read() -> dict[str, Any]:
    try:
        data = reader.read_json(_path(), reader.SETTINGS)
    except (OSError, ValueError):  # none yet, or not ours to trust: as if setup had made nothing
        return {}
    return data.get("files", {}) if isinstance(data, dict) and isinstance(data.get("files"), dict) else {}


def record(path: Path) -> dict[str, Any] | None:
    found = _read().get(str(path))
    return found if isinstance(found, dict) else None


def note(path: Path, created_file: bool, created: list[tuple[str, ...]], folders: list[Path]) -> None:
    """Add to the record of `path`: whether setup created the file, the keys and the folders it made."""
    files = _read()
    old = files.get(str(path)) if isinstance(files.get(str(path)), dict) else {}
    keys = {".".join(k) for k in created} | set(old.get("created") or [])
    made = {str(f) for f in folders} | set(old.get("folders") or [])
    files[str(path)] = {"created_file": bool(old.get("created_file")) or created_file, "created": sorted(keys),
                        "folders": sorted(made)}
    _write(files)


def forget(path: Path) -> None:
    files = _read()
    if files.pop(str(path), None) is not None:
        _write(files)


def _write(files: dict[str, Any]) -> None:
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    write_text(_path(), json.dumps({"files": files}, indent=2, sort_keys=True) + "\n")
