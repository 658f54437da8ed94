"""The derived node cache: parsed files keyed by (mtime_ns, size, inode).

An atomic rewrite always gives the file a new inode, so a file replaced within
the same mtime tick and with the same size is still seen as changed. The cache
holds only plain values (marshal reads 11,000 entries in a few milliseconds,
several times faster than pickle of objects) and is advisory: any failure to
read or write it only costs a re-parse.
"""

from __future__ import annotations

import marshal
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from leafwise.store import atomic

CACHE_FORMAT = 5  # the layout of the payload below
# What a cached entry depends on besides its file: the code that parses, checks and words it. A change
# to any of these modules (a new refusal, a reworded error) makes every cached entry stale at once.
LOADER_MODULES = ("cache", "ids", "loader", "model", "node_files", "paths", "project_file", "safe_yaml", "schema")
CACHE_NAME = "nodes.marshal"
StatKey = tuple[int, int, int]
# One entry per file name: (stat key, data or None, digest, error or None)
Entry = tuple[StatKey, Any, str, Any]


# The derived index of an unchanged plan: id -> (children, depth, effective release)
Snapshot = dict[str, tuple[list[str], int, Any]]


@lru_cache(maxsize=1)
def cache_version() -> tuple[int, int]:
    """(format, a checksum of the loader's code): a stored cache with another version is ignored."""
    here = Path(__file__).parent
    try:
        return CACHE_FORMAT, zlib.crc32(b"".join((here / f"{name}.py").read_bytes() for name in LOADER_MODULES))
    except OSError:  # installed without sources: the format alone
        return CACHE_FORMAT, 0


class NodeCache:
    def __init__(self, path: Path):
        self.path = path
        self._snapshot: Snapshot | None = None

    def read(self) -> dict[str, Entry]:
        payload = read_marshal(self.path)
        if not isinstance(payload, tuple) or len(payload) != 3 or payload[0] != cache_version():
            return {}
        self._snapshot = payload[2]
        return payload[1]

    def snapshot(self) -> Snapshot | None:
        """The index saved with the entries `read` returned (valid only if nothing changed)."""
        return self._snapshot

    def write(self, entries: dict[str, Entry], snapshot: Snapshot | None = None) -> None:
        try:
            write_atomic(self.path, marshal.dumps((cache_version(), entries, snapshot)))
        except ValueError:
            pass  # unmarshallable data is re-parsed next time

    def clear(self) -> bool:
        return clear(self.path)


def read_marshal(path: Path) -> Any:
    """A derived cache file's payload, or None: missing, unreadable, corrupt or behind a link."""
    try:
        if path.is_symlink() or path.parent.is_symlink():
            return None
        with open(path, "rb") as fh:
            return marshal.loads(fh.read())  # load(fh) reads in tiny pieces: 6x slower
    except (OSError, EOFError, ValueError, TypeError):
        return None


def write_atomic(path: Path, data: bytes) -> None:
    """Replace a derived cache file at once (`atomic.replace`, without fsync: losing it only costs a
    re-parse), never through a committed link; a failure leaves the old file."""
    try:
        if path.parent.is_symlink() or path.parent.parent.is_symlink():
            return
        atomic.replace(path, data, durable=False)
    except OSError:
        pass  # a read-only checkout still works, only slower


def clear(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False
