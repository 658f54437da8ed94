"""The one reader of plan and repository content: every byte Leafwise reads from a work tree comes
through here (tests/security/test_one_reader.py fails on any other read in store/, commands/, canvas/).

A cloned repository is hostile (docs/security.md), so a read:
- lstat()s first and opens nothing that is not a regular file: never a device (`/dev/zero`), a FIFO,
  a socket or a symbolic link (`O_NOFOLLOW`), and `O_NONBLOCK` so no open can wait on a writer;
  `fstat()` of the open file must be the same regular file the lstat saw (no swap in between);
- with `under=`, walks every folder from that trusted root to the file with `openat(O_NOFOLLOW)`:
  a symlinked folder on the way is refused too. No symlink is ever followed, not even one that
  resolves inside the tree: git records a link as a link and never lists files beyond one, so
  nothing the plan or reconcile needs lives behind one, and "resolves inside" can change between
  the check and the read. (Doc links are resolved by `paths.resolve_inside` first, which checks
  where they land; the reader then reads the real file.)
- reads at most the cap of its `Kind` (one byte past it says "too large");
- decodes, and parses JSON and YAML, with depth and size caps (`load_json`; YAML: `safe_yaml.load_yaml`).
Every refusal is a `Refused` (message, line, code, fix) that the caller turns into that file's
problem, never an internal error.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, Iterator, NamedTuple


class UnsafePath(ValueError):
    """A path that would leave `.leafwise/` or is not a valid id. Defined here, the store's lowest
    module, so a remembered answer's read (store/memo.py) loads no plan paths or dataclasses."""


class Kind(NamedTuple):
    """What is read, and the most of it a read takes (bytes) and a parse may nest."""

    name: str
    cap: int
    depth: int = 32


KiB, MiB = 1024, 1024 * 1024
NODE = Kind("node file", 256 * KiB)
PROJECT = Kind("project.yaml", 256 * KiB)
JOURNAL = Kind("journal", 64 * MiB)  # a read of new lines takes at most this much of the end
EVENT = Kind("journal line", MiB)
CLAIM = Kind("claim", 4 * KiB, 4)
CYCLE = Kind("cycle file", 256 * KiB)
LEDGER = Kind("cycle ledger", 64, 1)
SETTINGS = Kind("settings", 4 * MiB, 8)  # the person's files too (trust.json, canvas settings)
DOC = Kind("doc", MiB)  # a node's doc: read, written from a file, and before and after the person's editor
CODE = Kind("scanned code", 400_000)
MANIFEST = Kind("package manifest", MiB, 64)
CACHE = Kind("cache", 96 * MiB)
POINTER = Kind("git pointer", 4 * KiB)  # `.git` files, `commondir`, id counters
SYSTEM = Kind("system file", 64 * KiB)  # /proc
OWN_DATA = Kind("Leafwise's own data", 16 * MiB, 8)  # files shipped with Leafwise (the lexicon)
SCHEMA = Kind("JSON schema", 256 * KiB)  # the envelope's schema shipped in commands/ (6 KB today)
UPDATES = Kind("updates file", 16 * MiB)  # bulk's updates (a file or stdin): a few thousand commands
# Not a file: the `--json` answer of a Leafwise child process (the demo agent's CLI calls). Our own
# output, but parsed with the same size and depth caps, so a runaway answer is an error, not a crash.
ANSWER = Kind("command's answer", 64 * MiB, 64)
MODEL_ANSWER = Kind("model's answer", 256 * KiB, 8)  # a verdict a client's model wrote (MCP sampling)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


class SchemaError(ValueError):
    """A file's content the plan cannot hold; `key` where it is, `fix` what to do."""

    def __init__(self, message: str, key: str | None = None, fix: str = ""):
        super().__init__(message)
        self.key = key
        self.fix = fix


class Refused(SchemaError, UnsafePath):
    """A file the reader will not read or parse: a link, not a regular file, too large, too deep,
    not text. `code` names the class (symlink, unreadable_file, too_large, too_deep, not_utf8,
    json_error, yaml_alias ...), `line` is where it is when known."""

    def __init__(self, message: str, line: int | None = None, code: str = "refused", fix: str = ""):
        super().__init__(message, None, fix)
        self.line = line
        self.code = code


def _symlink(path: Path | str) -> Refused:
    return Refused(f"{Path(path).name} is a symbolic link; Leafwise never reads through links "
                   "(replace it with the real file)", None, "symlink", "replace the link with the real file")


def _not_regular(path: Path | str, mode: int) -> Refused:
    what = ("a folder" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return Refused(f"{Path(path).name} is {what}, not a regular file; it is not read", None, "unreadable_file",
                   "replace it with a regular file (or delete it)")


def _open_under(under: Path, path: Path) -> int:
    """`path` opened from the trusted folder `under`, no component followed if it is a link."""
    parts = path.relative_to(under).parts
    if not parts or ".." in parts:
        raise UnsafePath(f"{path} is not inside {under}")
    dfd = os.open(under, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts[:-1]:
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=dfd)
            except OSError as exc:
                if exc.errno in (40, 20) and stat.S_ISLNK(os.lstat(part, dir_fd=dfd).st_mode):  # ELOOP, ENOTDIR
                    raise _symlink(part) from exc
                raise
            os.close(dfd)
            dfd = nfd
        st = os.lstat(parts[-1], dir_fd=dfd)
        _check_mode(path, st.st_mode)
        fd = os.open(parts[-1], _FLAGS, dir_fd=dfd)
    finally:
        os.close(dfd)
    return _same_file(fd, path, st)


def _check_mode(path: Path | str, mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise _symlink(path)
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)


def _same_file(fd: int, path: Path | str, seen: os.stat_result) -> int:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino):
        os.close(fd)
        raise _not_regular(path, st.st_mode) if not stat.S_ISREG(st.st_mode) else \
            Refused(f"{Path(path).name} was replaced while it was read", None, "unreadable_file")
    return fd


def open_fd(path: Path | str, under: Path | None = None) -> int:
    """A descriptor of the regular file at `path` (see the module's rules); the caller closes it.

    FileNotFoundError (and other OSError) as the system says; `Refused` for what is never read."""
    if under is not None:
        return _open_under(Path(under), Path(path))
    st = os.lstat(path)
    _check_mode(path, st.st_mode)
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: replaced by a link after the lstat
            raise _symlink(path) from exc
        raise
    return _same_file(fd, path, st)


def read_bytes(path: Path | str, kind: Kind, *, under: Path | None = None, cap: int | None = None) -> bytes:
    """At most `cap` (the kind's) + 1 bytes of the file: one past the cap says it is over it."""
    return read_fd(open_fd(path, under), cap if cap is not None else kind.cap)


def read_fd(fd: int, limit: int) -> bytes:
    """Up to `limit` + 1 bytes from `fd`, which is closed."""
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_capped(path: Path | str, kind: Kind, *, under: Path | None = None) -> bytes:
    """The whole file, `Refused` (too_large) when it is over the kind's cap."""
    raw = read_bytes(path, kind, under=under)
    check_cap(raw, kind)
    return raw


def check_cap(raw: bytes | str, kind: Kind) -> None:
    if len(raw) > kind.cap:
        raise Refused(f"the {kind.name} is over the limit of {kind.cap:,} bytes", 1, "too_large",
                      "make it smaller")


def read_text(path: Path | str, kind: Kind, *, under: Path | None = None, strict: bool = False) -> str:
    """The file as text (universal newlines); undecodable bytes replaced, or `Refused` when `strict`."""
    return decode(read_capped(path, kind, under=under), strict=strict)


def decode(raw: bytes, *, strict: bool = False, lone_cr: bool = True) -> str:
    """UTF-8 text with CRLF as LF; a lone CR is a line end too (universal newlines), unless `lone_cr` is off:
    git, sed and editors end a line at LF only, so a committed file quoted by line keeps its lone CRs."""
    try:
        text = raw.decode("utf-8", "strict" if strict else "replace")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise Refused(f"not UTF-8 text (byte {exc.start})", line, "not_utf8", "save the file as UTF-8") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        text = text.replace("\r", "\n") if lone_cr else text
    return text


def lines(text: str) -> list[str]:
    """A decoded file's lines as git, sed and editors number them: split at newlines only. `str.splitlines`
    also ends a line at U+2028, U+2029, U+0085, \\x0b, \\x0c and \\x1c-\\x1e, and every line number after
    one would be off (a verify quote checked against the wrong line)."""
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


# a string, unrolled (runs of plain bytes between escapes): linear, and twice as fast as an alternation per byte
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(rb"[\[\]{}]")


_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(raw: bytes, stop: int | None = None) -> tuple[int, int]:
    """(deepest nesting, the line where it is first reached) of JSON text, without parsing it.

    With `stop`: whether it nests past `stop` is found at C speed (the brackets alone, innermost pairs
    taken off once per level: a megabyte of `[],` took a second of Python steps bracket by bracket);
    only text of several lines that nests past it is walked, to the first bracket past `stop`, for its line."""
    if b'"' not in raw:
        bare = raw
    elif b"\n" not in raw:  # one line (the lexicon): no string holds a line break to keep for the count
        bare = _STRING.sub(b"", raw)
    else:
        bare = _STRING.sub(lambda m: b"\n" * m.group().count(b"\n"), raw)
    if stop is not None:
        left, levels = bare.translate(None, _NOT_BRACKETS), 0
        while left and levels < stop:
            left, taken = _PAIR.subn(b"", left)
            if not taken:
                break
            levels += 1
        if not left or levels < stop and b"[" * (stop + 1) not in left.replace(b"{", b"["):
            return levels, 1  # within `stop`; or unmatched brackets (not JSON: the parser says so), no deeper
        if b"\n" not in bare:
            return stop + 1, 1  # past `stop`, on the one line there is
    depth = deepest = 0
    at = 0
    for m in _BRACKET.finditer(bare):
        depth += 1 if m.group() in b"[{" else -1
        if depth > deepest:
            deepest, at = depth, m.start()
            if stop is not None and depth > stop:
                break
    return deepest, bare[:at].count(b"\n") + 1


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a plan file may hold")


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when it is not finite: `1e999` parses to
    infinity without ever spelling `Infinity` (which `_no_constant` refuses)."""
    value = float(text)
    if value - value != 0:  # inf or nan
        raise ValueError(f"{text[:40]} is not a finite number (a plan file holds none other)")
    return value


def load_json(raw: bytes | str, kind: Kind) -> Any:
    """JSON text parsed within the kind's size and depth caps; NaN, Infinity and numbers too large to be
    finite (`1e999`) refused.

    Python's json recurses (3,000 nested brackets raise RecursionError), so the depth is
    measured first, by a scan that does not recurse."""
    import json

    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    check_cap(data, kind)
    opened = data.count(b"[") + data.count(b"{")  # fewer openings than the cap cannot nest past it
    deepest, line = json_depth(data, kind.depth) if opened > kind.depth else (0, 1)
    if deepest > kind.depth:
        raise Refused(f"the {kind.name} nests deeper than {kind.depth} levels", line, "too_deep",
                      "flatten it")
    try:
        # UTF-8 only (a leading BOM allowed): `json.loads` of bytes also takes UTF-16 and UTF-32, which
        # git and every review tool show as a binary file, so a planted claim or verdict went unseen
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Refused(f"the {kind.name} is not UTF-8 text (byte {exc.start})", data[:exc.start].count(b"\n") + 1,
                      "not_utf8", "save the file as UTF-8") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        raise Refused(f"the {kind.name} is not valid JSON: {str(exc)[:200]}", line, "json_error",
                      "fix the JSON") from None


def read_json(path: Path | str, kind: Kind, *, under: Path | None = None) -> Any:
    return load_json(read_capped(path, kind, under=under), kind)



def walk(root: Path | str, skip: frozenset[str] = frozenset(), limit: int = 100_000) -> Iterator[str]:
    """Paths of the regular files under `root`, relative to it with `/`, at most `limit`: no link
    followed (a linked folder is not entered, a linked file not listed), folders named in `skip`
    (and `*.egg-info`) left out."""
    count = 0
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as entries:
                found = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for entry in found:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in skip and not entry.name.endswith(".egg-info"):
                        stack.append(rel)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
            except OSError:
                continue
            yield rel
            count += 1
            if count >= limit:
                return
