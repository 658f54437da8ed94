"""Derived caches, kept out of every work tree and sealed with this machine's key.

A cloned repository can hold any file, so nothing derived is ever read from it: each cache lives
in the person's cache folder (`config_dirs.cache_dir()`), under `plans/<digest of the plan's real
path>/`, and each file is sealed: a keyed BLAKE2b (a MAC) over its bytes and what it is for, with a
per-machine key kept in the person's config folder (`cache.key`, 0600). Only bytes that this
machine's Leafwise wrote pass the seal, so `marshal` (which trusts its input: a planted 5-byte file
can ask for gigabytes) only ever reads its own output. Any problem at all (no key, no folder, a
link, a foreign or corrupt file, too large) is a miss: a re-parse, never an error.

The node cache: parsed node files keyed by `stat_key` (mtime_ns, size, inode, ctime_ns). An atomic
rewrite always gives the file a new inode, so a file replaced within the same mtime tick and with the
same size is still seen as changed; one rewritten in place with its mtime put back has a new ctime. It holds only plain values (marshal reads 11,000 entries in a few milliseconds,
several times faster than pickle of objects or JSON).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

# store/reader.py and store/atomic.py are imported where they are used: a remembered answer
# (store/memo.py) reads one sealed file and should not load the plan's model on the way.

CACHE_FORMAT = 7  # the layout of the payload below
# What a cached entry depends on besides its file: the code that parses, checks and words it. A change
# to any of these modules (a new refusal, a reworded error) makes every cached entry stale at once.
LOADER_MODULES = ("cache", "ids", "loader", "model", "node_files", "paths", "project_file", "reader", "safe_yaml",
                  "schema")
CACHE_NAME = "nodes.marshal"
KEY_NAME = "cache.key"
MAGIC = b"LWC1"
MAC_BYTES = 32
StatKey = tuple[int, int, int, int]
# One entry per file name: (stat key, data or None, digest, error or None)
Entry = tuple[StatKey, Any, str, Any]


# The derived index of an unchanged plan: id -> (children, depth, effective release)
Snapshot = dict[str, tuple[list[str], int, Any]]


def stat_key(st: os.stat_result) -> StatKey:
    """A node file's cache key: (mtime_ns, size, inode, ctime_ns). An atomic replace gives a new
    inode; a rewrite in place with the size and mtime put back still moves the ctime, which no
    program can set."""
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


@lru_cache(maxsize=1)
def cache_version() -> tuple[int, int]:
    """(format, a checksum of the loader's code): a stored cache with another version is ignored."""
    import zlib

    from leafwise.store import reader

    here = Path(__file__).parent
    try:
        code = b"".join(reader.read_capped(here / f"{name}.py", reader.OWN_DATA) for name in LOADER_MODULES)
        return CACHE_FORMAT, zlib.crc32(code)
    except (OSError, ValueError):  # installed without sources: the format alone
        return CACHE_FORMAT, 0


def plan_folder(real: str) -> Path:
    """The folder of the caches of the plan whose real path is `real`, in the person's cache folder."""
    from leafwise.store.config_dirs import cache_dir

    digest = hashlib.blake2b(real.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    return cache_dir() / "plans" / digest


def digest(data: bytes) -> str:
    """A short hex digest naming a cache entry (not a seal: `_mac` is)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def memo_file(folder: str, key: str) -> tuple[Path, str]:
    """(the cache file of entry `key` under `folder/<its first two digits>/` in the person's cache
    folder, what it is for): the same depth as a plan's caches, so `own_folder` checks the same."""
    from leafwise.store.config_dirs import cache_dir

    return cache_dir() / folder / key[:2] / key, f"{folder} {key}"


def cache_file(repo: Path, name: str) -> tuple[Path, str]:
    """(the cache file `name` of the plan in `repo`, what it is for: its name and the plan's real path)."""
    real = os.path.realpath(repo)
    return plan_folder(real) / name, f"{name} {real}"


_KEY: dict[tuple[str, tuple[str, ...]], bytes] = {}


def machine_key(create: bool = False) -> bytes | None:
    """This machine's cache key (`config_dir()/cache.key`), made on the first write; None without one."""
    from leafwise.store.config_dirs import config_dir, inside_a_plan, worked

    from leafwise.store import reader

    path = config_dir() / KEY_NAME
    known = _KEY.get((str(path), worked()))  # a plan found since may lie in a tree holding this folder
    if known is not None:
        return known
    if inside_a_plan(path.parent):  # a key a repository could ship would let it seal what marshal reads
        return None
    try:
        key = reader.read_capped(path, reader.POINTER)
    except FileNotFoundError:
        key = b""
    except (OSError, ValueError):
        return None
    if len(key) != 32:
        if not create or key:  # a wrong-sized key is left for the person to look at; no cache meanwhile
            return None
        from leafwise.store import atomic

        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic.create(path, os.urandom(32), mode=0o600)
        except atomic.Exists:
            pass  # another process made it first: use theirs
        except OSError:
            return None
        return machine_key(False)
    _KEY[(str(path), worked())] = key
    return key


def _mac(key: bytes, purpose: bytes, payload: bytes) -> bytes:
    h = hashlib.blake2b(key=key, digest_size=MAC_BYTES)
    h.update(len(purpose).to_bytes(4, "big") + purpose)
    h.update(payload)
    return h.digest()


def seal_record(purpose: str, payload: bytes) -> str | None:
    """This machine's seal of `payload` for `purpose` (hex), or None without a key: what a record in
    the plan's committed files carries to say this machine wrote it (a clone cannot forge one)."""
    key = machine_key(create=True)
    return _mac(key, purpose.encode(), payload).hex() if key else None


def sealed_here(purpose: str, payload: bytes, mark: Any) -> bool:
    """Whether `mark` is this machine's `seal_record` of `payload` for `purpose`."""
    import hmac

    key = machine_key()
    return bool(key) and isinstance(mark, str) and hmac.compare_digest(mark, _mac(key, purpose.encode(), payload).hex())


def read_sealed(path: Path | None, purpose: str) -> Any:
    """The value a `write_sealed` of this machine put at `path` for `purpose`, or None (any problem)."""
    return _read_sealed(path, purpose)[0]


def _read_sealed(path: Path | None, purpose: str) -> tuple[Any, bytes | None]:
    """(`read_sealed`'s value, the seal it passed: names those exact bytes), or (None, None)."""
    if path is None:
        return None, None
    key = machine_key()
    if key is None:
        return None, None
    from leafwise.store import reader

    try:
        data = reader.read_capped(path, reader.CACHE)
    except (OSError, ValueError):
        return None, None
    head = len(MAGIC) + MAC_BYTES
    if len(data) < head or data[:len(MAGIC)] != MAGIC:
        return None, None
    body = memoryview(data)[head:]
    import hmac

    seal = data[len(MAGIC):head]
    if not hmac.compare_digest(seal, _mac(key, purpose.encode(), body)):
        return None, None
    try:
        return marshal.loads(body), seal  # sealed by this machine's key: bytes this Leafwise wrote
    except (EOFError, ValueError, TypeError):
        return None, None


def write_sealed(path: Path | None, purpose: str, value: Any, *, limit: int | None = None) -> bool:
    """Seal and store `value` (marshal) at `path`, at once; nothing on any failure (a read-only
    cache folder, a link on the way, a value marshal cannot write, more than `limit` bytes); whether
    it was written (`limit`: the reader's cap on a cache file, less the seal, unless given)."""
    return _write_sealed(path, purpose, value, limit=limit) is not None


def _write_sealed(path: Path | None, purpose: str, value: Any, *, limit: int | None = None) -> bytes | None:
    """`write_sealed`, answering the seal of what it wrote (None: nothing written)."""
    from leafwise.store import atomic, reader

    limit = reader.CACHE.cap - 64 if limit is None else min(limit, reader.CACHE.cap - 64)
    key = machine_key(create=True) if path is not None else None
    if key is None or path is None:
        return None
    try:
        body = marshal.dumps(value)
    except ValueError:
        return None  # unmarshallable data is re-parsed next time
    if len(body) > limit:
        return None
    seal = _mac(key, purpose.encode(), body)
    try:
        own_folder(path.parent)
        own_target(path)
        atomic.replace(path, MAGIC + seal + body, mode=0o600, durable=False)
    except OSError:
        return None  # a read-only cache folder: everything still works, only slower
    return seal


def own_folder(folder: Path) -> None:
    """Make the plan's cache folder and its `plans/` parent (0700), one at a time, refusing either when
    it is a link or not a folder (OSError): a shared cache folder may hold links someone planted, and
    `mkdir(parents=True)` would create through them. The person's cache folder itself is theirs."""
    folder.parent.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    for item in (folder.parent, folder):
        try:
            os.mkdir(item, 0o700)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(item).st_mode):
            raise OSError(f"{item} is not a folder of this cache (a link or a file)")


def own_target(path: Path) -> None:
    """Refuse (OSError) a cache file that is there as anything but a regular file (a link, a FIFO):
    the replace would only swap the name, but a planted entry means someone else writes here."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OSError(f"{path} is not a regular file")


class NodeCache:
    """The node cache: a base file of every entry and the saved index, and an overlay beside it of
    the entries that changed since the base was written.

    A write after a start or a complete (a few files changed, the index kept) stores the overlay
    alone, a few kilobytes, instead of the whole base (3.4 MB at 11,100 nodes: 25 ms a command of
    the agent loop). The overlay's seal covers the seal of the base it extends, so it is read only
    over those exact bytes; over a base written since (by any process) it fails its seal and is
    not read. An overlay past OVERLAY_MAX entries, or an index rebuilt, writes the base again (and
    removes the overlay). Two writers at once: the last overlay wins and the entries it lacks are
    parsed again on the next read (every entry is checked against its file's stat key before use,
    whichever file it came from)."""

    def __init__(self, path: Path | None, purpose: str, overlay: tuple[Path, str] | None = None):
        self.path = path
        self._purpose = purpose
        self._overlay = overlay
        self._snapshot: Snapshot | None = None
        self._base: dict[str, Entry] | None = None  # the base's entries as read, and its seal
        self._seal: bytes | None = None

    def read(self) -> dict[str, Entry]:
        payload, seal = _read_sealed(self.path, self._purpose)
        if not isinstance(payload, tuple) or len(payload) != 3 or payload[0] != cache_version() \
                or not isinstance(payload[1], dict):
            return {}
        self._snapshot = payload[2] if isinstance(payload[2], dict) else None
        self._base, self._seal = payload[1], seal
        changes = self._changes()
        if not changes:
            return payload[1]
        entries = dict(payload[1])
        for name, entry in changes.items():
            if entry is None:
                entries.pop(name, None)
            else:
                entries[name] = entry
        return entries

    def _over(self) -> str:
        """What the overlay's seal is for: its own purpose and the base it extends (by the base's seal),
        so an overlay of another base fails its seal before anything of it is unmarshalled."""
        assert self._overlay is not None and self._seal is not None
        return f"{self._overlay[1]} over {self._seal.hex()}"

    def _changes(self) -> dict[str, Entry | None] | None:
        """The overlay's entries (None: the file is gone) when it extends the base just read."""
        if self._overlay is None or self._seal is None:
            return None
        found = read_sealed(self._overlay[0], self._over())
        if not isinstance(found, tuple) or len(found) != 2 or found[0] != cache_version() \
                or not isinstance(found[1], dict):
            return None
        return found[1]

    def snapshot(self) -> Snapshot | None:
        """The index saved with the entries `read` returned (valid only if nothing changed)."""
        return self._snapshot

    def write(self, entries: dict[str, Entry], snapshot: Snapshot | None = None) -> None:
        base = self._base
        if base is not None and self._overlay is not None and snapshot is not None and snapshot is self._snapshot:
            # the index read with the base still holds: only what differs from the base is new
            changes: dict[str, Entry | None] = {n: e for n, e in entries.items() if base.get(n) is not e}
            changes.update((n, None) for n in base.keys() - entries.keys())
            if len(changes) <= OVERLAY_MAX and write_sealed(self._overlay[0], self._over(), (cache_version(), changes)):
                return
        seal = _write_sealed(self.path, self._purpose, (cache_version(), entries, snapshot))
        if seal is not None:  # what this process wrote is the base now; an overlay of the old one goes
            self._base, self._seal, self._snapshot = entries, seal, snapshot
            if self._overlay is not None:
                try:
                    clear(self._overlay[0])
                except OSError:
                    pass  # left there, it fails its seal over the new base: never read

    def exists(self) -> bool:
        return self.path is not None and self.path.exists()

    def clear(self) -> bool:
        if self._overlay is not None:
            clear(self._overlay[0])
        return self.path is not None and clear(self.path)


OVERLAY_NAME = "nodes.overlay.marshal"
OVERLAY_MAX = 2000  # changed entries the overlay carries before the base is written again


def node_cache(repo: Path) -> NodeCache:
    """The node cache of the plan in `repo` (its own folder in the person's cache folder)."""
    return NodeCache(*cache_file(repo, CACHE_NAME), overlay=cache_file(repo, OVERLAY_NAME))


def clear(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False
