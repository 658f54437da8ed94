"""Answers remembered: a read-only call's exact output, replayed while nothing it read has changed.

An entry holds one call's output (stdout and stderr bytes, exit code) and a fingerprint of every
input of its run, seen by an audit hook while it ran (`Watch`): each file it opened, each folder it
listed (with every entry's lstat), the top of the plan's folder, `.leafwise` in every folder from
the working folder up to the plan's (where a plan is looked for), and the code that ran (every loaded module's file).

It is replayed only when all of these hold:

- the call is the same (`call_key`): its words, working folder, whole environment, interpreter,
  and which of stdin/stdout/stderr are terminals;
- every input lstats the same: (inode, size, mtime_ns, ctime_ns). No program can set a
  ctime back, so content rewritten in place with its size and mtime put back still differs; an
  atomic replace gives a new inode; a file added or removed changes its folder;
- the clock is before the entry's `valid_until` (the caller says when its answer turns: a lease's
  expiry).

It is recorded only for a pure read: the run spawned no process, wrote nothing but the caches, and
no input changed from RACY_NS before the run began (a change then or later has a later ctime: the
kernel stamps changes from a clock at most a tick behind, so a tick cannot hide a later write; the
rule of git's "racily clean" index entries). The entry is sealed like every cache
(`cache.write_sealed`): only bytes this machine's Leafwise wrote are ever replayed.

This module is on the path of every remembered call: it imports nothing the interpreter has not
loaded already but `marshal` and the seal.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

MEMO_FORMAT = 3
RACY_NS = 2_000_000_000  # inputs changed this close before the run are not remembered (2 s: coarse file systems)
FOLDER = "answers"
MAX_ENTRY = 8 << 20  # an answer and its fingerprint over 50,000 files fit well within this
MAX_ENTRIES = 64  # remembered calls kept (about 0.6 MB each at 11,100 nodes); the oldest go first
PLAN_DIR = ".leafwise"  # store/paths.py's name for it; not imported: that module loads the model's dataclasses
SKIPPED = (".cache", ".locks")  # under .leafwise/: derived files and lock files, never an answer's input
Stat = tuple[int, int, int, int]
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def stat_key(st: os.stat_result) -> Stat:
    """What tells a file's change: a chmod, a write or a replace all move its ctime or inode."""
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _lstat(path: str) -> Stat | None:
    try:
        return stat_key(os.lstat(path))
    except OSError:
        return None


def call_key(argv: list[str]) -> str:
    """The hex digest naming a call: argv, working folder, environment, interpreter and terminals."""
    from leafwise.store.cache import digest

    ttys = tuple(os.isatty(fd) for fd in (0, 1, 2))
    words = (tuple(argv), os.getcwd(), tuple(sorted(os.environ.items())), sys.executable, sys.version, ttys)
    return digest(repr(words).encode("utf-8", "surrogateescape"))  # repr: canonical (marshal marks interned strings)


def _entry_path(key: str):
    from leafwise.store.cache import memo_file

    return memo_file(FOLDER, key)


# ------------------------------------------------------------------ replay

def replay(key: str) -> tuple[bytes, bytes, int] | None:
    """The remembered output of call `key` when every input is unchanged, else None."""
    from leafwise.store.cache import read_sealed

    path, purpose = _entry_path(key)
    entry = read_sealed(path, purpose)
    if not isinstance(entry, tuple) or len(entry) != 7 or entry[0] != MEMO_FORMAT:
        return None
    _format, valid_until, out, err, code, singles, folders = entry
    if time.time_ns() >= valid_until or not unchanged(singles, folders):
        return None
    return out, err, code


def unchanged(singles: tuple, folders: tuple) -> bool:
    """Whether every recorded input lstats as it did."""
    for path, known in singles:
        if _lstat(path) != known:
            return False
    for folder, known, names, packed in folders:
        if _lstat(folder) != known:  # an entry added, removed or renamed changes its folder
            return False
        if names and _packed(folder, names.split("\n")) != packed:
            return False
    return True


def _packed(folder: str, names: list[str]) -> bytes | None:
    """The lstat keys of `names` in `folder`, flat (int64s): one compare for a folder of 50,000."""
    from array import array

    flat = array("q")
    add = flat.extend
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    st = os.lstat
    try:
        for name in names:  # stat_key, inlined: this loop runs once per node file on every hit
            s = st(name, dir_fd=fd)
            add((s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns))
    except (OSError, OverflowError):  # gone, or an inode past int64: no fingerprint, never a hit
        return None
    finally:
        os.close(fd)
    return flat.tobytes()


# ------------------------------------------------------------------ record

class Watch:
    """What a run touches, from the interpreter's audit events: opened files, listed folders, and
    whether it wrote outside `derived` folders or started a process (then nothing is remembered)."""

    active: Watch | None = None

    def __init__(self, derived: tuple[str, ...]):
        self.started = time.time_ns()
        self.opened: set[str] = set()
        self.listed: set[str] = set()
        self.impure: str | None = None
        self.derived = derived

    def __enter__(self) -> Watch:
        if not _HOOKED:
            sys.addaudithook(_audit)  # a hook cannot be removed: it only listens while a Watch is active
            _HOOKED.append(True)
        Watch.active = self
        return self

    def __exit__(self, *_exc: object) -> None:
        Watch.active = None

    def see(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):  # a descriptor already open: its opening was seen
                return
            full = _absolute(path)
            if full is None or not os.path.isabs(os.fsdecode(path)):  # relative: maybe to a folder's descriptor
                self.impure = f"opened {path!r}"
                return
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                (isinstance(flags, int) and flags & WRITE_FLAGS)
            if writes and not full.startswith(self.derived):
                self.impure = f"wrote {full}"
            elif not writes:
                self.opened.add(full)
        elif event in ("os.scandir", "os.listdir"):
            path = args[0] if args and args[0] is not None else "."
            full = _absolute(path)
            if full is None:
                self.impure = f"listed {path!r}"
            else:
                self.listed.add(full)
        elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork", "os.spawn",
                       "socket.connect"):
            self.impure = event
        elif event in ("os.rename", "os.replace", "os.remove", "os.unlink", "os.rmdir", "os.mkdir"):
            target = _absolute(args[1] if event in ("os.rename", "os.replace") else args[0])
            if target is None or not target.startswith(self.derived):
                self.impure = f"{event} {target}"


def _absolute(path: object) -> str | None:
    """An audit event's path as an absolute str (a Path, bytes or str); None for a folder descriptor's
    relative name or anything else (the run is then not remembered)."""
    try:
        text = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
    except TypeError:
        return None
    return os.path.abspath(text)


_HOOKED: list[bool] = []  # whether this process has the hook already


def _audit(event: str, args: tuple) -> None:
    watch = Watch.active
    if watch is not None:
        watch.see(event, args)


def fingerprint(watch: Watch, roots: list[str]) -> tuple[tuple, tuple, int] | None:
    """(singles, folders, the newest ctime/mtime seen) for what `watch` saw plus `roots` (folders
    whose entries are inputs: the plan's own folder); None when an input cannot be read."""
    derived = watch.derived
    folders: dict[str, None] = dict.fromkeys(f for f in (*roots, *sorted(watch.listed)) if not f.startswith(derived))
    singles: dict[str, None] = {}
    here = os.getcwd()
    top = os.path.dirname(roots[0]) if roots else None
    while True:  # a plan folder made between here and the plan's (or anywhere up) would be found first
        singles[os.path.join(here, PLAN_DIR)] = None
        up = os.path.dirname(here)
        if here == top or up == here:
            break
        here = up
    for path in sorted(watch.opened):
        if not path.startswith(derived) and os.path.dirname(path) not in folders:
            singles[path] = None
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            singles[file] = None
    newest = 0
    single_keys = []
    for path in singles:
        known = _lstat(path)
        single_keys.append((path, known))
        if known is not None:
            newest = max(newest, known[2], known[3])
    folder_keys = []
    for folder in folders:
        known = _lstat(folder)
        names: list[str] = []
        packed: bytes | None = b""
        if known is not None:
            try:
                names = sorted(n for n in os.listdir(folder) if not _skipped(folder, n))
            except OSError:
                return None
            if any("\n" in n for n in names):
                return None  # names are kept one a line
            packed = _packed(folder, names) if names else b""
            if packed is None:
                return None
            newest = max(newest, known[2], known[3], *_times(packed))
        folder_keys.append((folder, known, "\n".join(names), packed))
    return tuple(single_keys), tuple(folder_keys), newest


def _times(packed: bytes) -> list[int]:
    """Every mtime and ctime in packed lstat keys."""
    from array import array

    flat = array("q", packed)
    return [*flat[2::4], *flat[3::4], 0]


def _skipped(folder: str, name: str) -> bool:
    return name in SKIPPED and os.path.basename(folder) == PLAN_DIR


def record(key: str, watch: Watch, roots: list[str], out: bytes, err: bytes, code: int,
           valid_until: int) -> str | None:
    """Remember the output of call `key` when its run was a pure read on settled inputs; None when
    remembered, else why not (for tests and `--explain`-style diagnostics)."""
    from leafwise.store.cache import write_sealed

    if watch.impure:
        return watch.impure
    found = fingerprint(watch, roots)
    if found is None:
        return "an input could not be read"
    singles, folders, newest = found
    if newest >= watch.started - RACY_NS:
        return "an input changed just before the run"
    path, purpose = _entry_path(key)
    entry = (MEMO_FORMAT, valid_until, out, err, code, singles, folders)
    if not write_sealed(path, purpose, entry, limit=MAX_ENTRY):
        return "the cache folder is not writable"
    prune(path.parent.parent)
    return None


def prune(folder) -> None:
    """Keep the MAX_ENTRIES most recently written entries under `folder` (the answers folder)."""
    found = []
    try:
        for sub in os.scandir(folder):
            if sub.is_dir(follow_symlinks=False):
                found += [(e.stat(follow_symlinks=False).st_mtime_ns, e.path) for e in os.scandir(sub.path)
                          if e.is_file(follow_symlinks=False)]
    except OSError:
        return
    for _mtime, path in sorted(found)[:-MAX_ENTRIES]:
        try:
            os.unlink(path)
        except OSError:
            pass
