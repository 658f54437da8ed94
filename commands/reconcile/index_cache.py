"""The reconcile index cache: what each file yielded the last time, so a second `reconcile`
parses only what changed.

One file, `reconcile-index.marshal` in the plan's folder of the person's cache folder (derived, safe
to delete, never in the work tree: a clone's files are never trusted), sealed with this machine's key
and written atomically (`store/cache.py` `read_sealed`/`write_sealed`): only bytes this machine's
Leafwise wrote are ever unmarshalled, and any problem with the file is a miss.
An entry is keyed by the file's path, the BLAKE2 digest of its bytes and the little it takes
from other files (the prefix its routers are mounted under), so it is used only for exactly
the content it was made from; the whole file is keyed by a digest of the scanners' own source
(`SCANNERS`) and the grammar versions, so a new Leafwise (or an edited scanner) starts afresh. Entries hold
plain values only (marshal: several times faster than pickle of objects), each file's marshalled
on its own, so a run re-writes what it read without encoding it again. Each write keeps the
entries of the current tree only, and none at all past `MAX_BYTES`. Any failure to read or
write costs a re-parse, never a wrong answer: results are the same with and without it
(tests/core/reconcile/test_index_cache.py).
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from leafwise.commands.reconcile.artifacts import Artifact
from leafwise.store import reader
from leafwise.store.cache import cache_file, read_sealed, write_sealed

FORMAT = 2  # 2: languages without a grammar read by generic_source.py
CACHE_NAME = "reconcile-index.marshal"
PLAN_DIR = ".leafwise"
MAX_BYTES = reader.CACHE.cap - 64  # the sealed file holds a few bytes more
ENV = "LEAFWISE_RECONCILE_CACHE"  # "0": neither read nor write it
# The modules whose code decides what a file yields (scan.py and everything it imports from this
# package; a test keeps the list complete). The matching layer is not here: tuning it keeps the cache.
SCANNERS = ("artifacts", "documents", "file_routes", "generic_source", "index_cache", "js_source", "python_source",
            "registered_routes", "scan", "tags", "text")
GRAMMARS = ("tree-sitter", "tree-sitter-python", "tree-sitter-javascript", "tree-sitter-typescript",
            "tree-sitter-go", "tree-sitter-ruby")

Packed = tuple  # an Artifact's fields, in order
Key = tuple[str, bytes, Any]  # (path, digest of its bytes, what it takes from other files)
# What a file yields, marshalled on its own (so a warm run re-writes the cache without re-encoding it):
# (language artifacts, client-route pairs, tags artifacts, tags documents, documents, module artifacts)
Entry = tuple[tuple[Packed, ...], tuple[tuple[str, str], ...], tuple[Packed, ...], tuple[Packed, ...],
              tuple[Packed, ...], tuple[Packed, ...]]


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def pack(art: Artifact) -> Packed:
    return (art.kind, art.name, art.path, art.line, art.snippet, art.words, art.context, art.side, art.method,
            art.route)


def unpack(part: tuple[Packed, ...]) -> list[Artifact]:
    """Artifacts from packed fields; TypeError or ValueError when they are not what `pack` writes."""
    arts = [Artifact(*packed) for packed in part]
    for art in arts[:1]:  # marshal gives back only what was written; a foreign file fails here or in the key
        if not (isinstance(art.words, frozenset) and isinstance(art.line, int) and isinstance(art.path, str)):
            raise TypeError("not an artifact")
    return arts


@lru_cache(maxsize=1)
def version() -> bytes:
    """What every entry depends on besides its file: the scanners' code and the grammars."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT} {sys.version_info[:2]}".encode())
    here = Path(__file__).parent
    for name in SCANNERS:
        h.update(name.encode())
        h.update(reader.read_capped(here / f"{name}.py", reader.OWN_DATA))
    try:
        from importlib import metadata

        for dist in GRAMMARS:
            try:
                h.update(f"{dist}={metadata.version(dist)}".encode())
            except metadata.PackageNotFoundError:
                h.update(f"{dist}=-".encode())
    except ImportError:
        pass
    return h.digest()


class IndexCache:
    def __init__(self, path: Path, purpose: str):
        self.path = path
        self._purpose = purpose

    @property
    def purpose(self) -> str:
        """What the seal binds this cache to (a test writes a sealed file of its own with it)."""
        return self._purpose

    @classmethod
    def for_repo(cls, root: Path) -> IndexCache | None:
        """The cache of the plan at `root`, or None: no plan folder there, a link, or turned off."""
        if os.environ.get(ENV, "1") == "0":
            return None
        plan = root / PLAN_DIR
        if plan.is_symlink() or not plan.is_dir():
            return None
        return cls(*cache_file(root, CACHE_NAME))

    def read(self) -> dict[Key, bytes]:
        payload = read_sealed(self.path, self._purpose)
        if not isinstance(payload, tuple) or len(payload) != 2 or payload[0] != version() \
                or not isinstance(payload[1], dict):
            return {}
        return payload[1]

    def write(self, entries: dict[Key, bytes]) -> None:
        if not write_sealed(self.path, self._purpose, (version(), entries), limit=MAX_BYTES):
            write_sealed(self.path, self._purpose, (version(), {}))  # too large: none rather than stale
