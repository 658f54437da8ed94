"""The derived node cache: parsed files keyed by (mtime_ns, size, inode).

An atomic rewrite always gives the file a new inode, so a file replaced within
the same mtime tick and with the same size is still seen as changed. The cache
is advisory: any failure to read or write it only costs a re-parse.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

CACHE_VERSION = 2
StatKey = tuple[int, int, int]


class NodeCache:
    def __init__(self, path: Path):
        self.path = path

    def read(self) -> dict[str, tuple[StatKey, Any]]:
        try:
            with open(self.path, "rb") as fh:
                payload = pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
            return {}
        if not isinstance(payload, dict) or payload.get("version") != CACHE_VERSION:
            return {}
        return payload.get("entries", {})

    def write(self, entries: dict[str, tuple[StatKey, Any]]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".nodes.", suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump({"version": CACHE_VERSION, "entries": entries}, fh,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only checkout still works, only slower

    def clear(self) -> bool:
        try:
            self.path.unlink()
            return True
        except FileNotFoundError:
            return False
