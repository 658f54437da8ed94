"""The console script's side of the loop server: its address, one call to it, and starting it.

An agent's loop (`next`, `start --next`, `complete`, `heartbeat`) is hundreds of short processes,
each of which would load the whole plan again (~0.1 s at 11,100 nodes, most of such a call). The
first plain loop call in a folder answers in its own process as always and then starts a server in
the background (`loop_server.py`); later calls hand their line to it over a Unix socket and print
what it answers: the same bytes and exit code, from a plan it keeps warm and in step with the files.

A server answers only calls it is the same process for: its address is a hash of the user, the
Python, this module's file, the working folder, `--root` and the whole environment (less a few
variables a shell changes by itself), so a call from any other setting finds no server and runs
itself. The socket's folder is the user's own (0700, checked without following a link); the server
checks each caller's uid (SO_PEERCRED) and the caller the server's. `LEAFWISE_SERVER=0` turns it off.
Only this module is imported by a call the server answers: nothing of the CLI.
"""

from __future__ import annotations

import os
import struct
import sys

SWITCH = "LEAFWISE_SERVER"
LOOP = frozenset({"next", "start", "complete", "heartbeat"})  # the commands the server answers
NOT_MINE = b"-"  # the server's first byte for a line it does not take: the caller runs it itself
TAKEN = b"+"  # its first byte for a line it runs: from here on the line may have run
# set by a shell or a terminal on its own, never read by Leafwise: a change must not start a server
VOLATILE = frozenset({"_", "PWD", "OLDPWD", "SHLVL", "COLUMNS", "LINES", "TERM_SESSION_ID", "WINDOWID",
                      "TMUX_PANE", "STY", "SSH_TTY", "PS1", "PS2", "PROMPT_COMMAND", "HISTFILE"})
HEADER = struct.Struct("!iII")  # after TAKEN: exit code, bytes of stdout, bytes of stderr
REQUEST_BYTES = 1 << 20
# A request: this tag, the two streams' error handlers, the umask in octal, then the words, each
# ended by a NUL (no argument can hold one); UTF-8 with surrogateescape, as the words came from the
# OS. The caller then shuts its side: the request is what came before the end of the stream.
TAG = b"leafwise-loop-1"
SUN_PATH = 104  # the shortest sockaddr_un path limit (macOS; Linux allows 108)


def wanted(words: list[str]) -> bool:
    """A loop command's line, not waiting and without help, printing to files or pipes, server on."""
    if not words or words[0] not in LOOP or os.environ.get(SWITCH, "1") == "0" or os.name != "posix":
        return False
    if any(w in ("-h", "--help") or w == "--wait" or w.startswith("--wait=") for w in words):
        return False
    return not (os.isatty(1) or os.isatty(2)) and utf8_streams()


def utf8_streams() -> bool:
    """Both streams UTF-8, as the server writes its answers (`direct.plain_streams`' rule: a call's
    own process writes another encoding's bytes, or click rewraps the stream)."""
    import codecs  # loaded by the interpreter at startup: free

    for stream in (sys.stdout, sys.stderr):
        try:
            if codecs.lookup(stream.encoding).name != "utf-8":
                return False
        except (AttributeError, LookupError, TypeError):
            return False
    return True


def root_word(words: list[str]) -> str | None:
    """The value of `--root` in the line, as the CLI reads it (the last one given wins nothing: a
    line with two is click's to refuse, and the server refuses it too)."""
    for i, word in enumerate(words):
        if word.startswith("--root="):
            return word[7:]
        if word == "--root" and i + 1 < len(words):
            return words[i + 1]
    return None


def folder() -> str | None:
    """The user's own folder for sockets (created 0700), or None when it is not safely ours."""
    uid = os.getuid()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = os.path.join(runtime, "leafwise") if runtime and os.path.isabs(runtime) else f"/tmp/leafwise-{uid}"
    try:
        os.mkdir(base, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(base)
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        return None  # a link, someone else's folder, or one others can write: no server
    return base


def address(words: list[str]) -> str | None:
    """The socket path of the server for this call's setting (None: no safe folder)."""
    import zlib  # not hashlib (3 ms to load OpenSSL): the key is no secret, only the user's settings apart

    base = folder()
    if base is None:
        return None
    try:
        here = os.stat(__file__)
        cwd = os.getcwd()
    except OSError:
        return None
    env = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE)
    key = repr((os.getuid(), sys.executable, sys.version, os.path.realpath(__file__),
                (here.st_ino, here.st_size, here.st_mtime_ns), cwd, root_word(words), env))
    raw = key.encode("utf-8", "surrogatepass")
    name = f"{zlib.crc32(raw):08x}{zlib.crc32(raw[::-1]):08x}{zlib.adler32(raw):08x}{len(raw) & 0xffffffff:08x}"
    path = os.path.join(base, name + ".sock")
    return path if len(path.encode()) < SUN_PATH else None  # a socket's path has a length limit


def request(words: list[str], errors: tuple[str, str], umask: int) -> bytes:
    return b"\0".join([TAG, *(e.encode() for e in errors), b"%o" % umask,
                       *(w.encode("utf-8", "surrogateescape") for w in words)]) + b"\0\n"


def parse(raw: bytes) -> tuple[list[str], list[str], int] | None:
    """(words, error handlers, umask) of a whole request (the caller shut its side after it); None
    for anything else."""
    if not raw.endswith(b"\0\n"):
        return None
    parts = raw[:-2].split(b"\0")
    if len(parts) < 5 or parts[0] != TAG:
        return None
    try:
        errors = [p.decode("ascii") for p in parts[1:3]]
        umask = int(parts[3].decode("ascii"), 8)
        if not 0 <= umask <= 0o777:
            return None
        return [p.decode("utf-8", "surrogateescape") for p in parts[4:]], errors, umask
    except (UnicodeDecodeError, ValueError):
        return None


def current_umask() -> int:
    """This process's umask (the files a served call writes get the caller's modes)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def peer_uid(sock: "socket.socket") -> int:
    import socket

    pid_uid_gid = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", pid_uid_gid)[1]


def call(path: str, words: list[str]) -> tuple[int, bytes, bytes] | None:
    """The server's answer to `words`: (exit code, stdout, stderr); None when no server took the
    line (none there, it answered NOT_MINE, or it closed before saying it took it): the caller runs
    it itself. Once the server said TAKEN the line may have run: it is never run a second time."""
    import socket  # here: a call with the server off never pays for it

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            sock.connect(path)
            if peer_uid(sock) != os.getuid():
                return None
        except OSError:
            return None
        try:
            sock.sendall(request(words, (sys.stdout.errors, sys.stderr.errors), current_umask()))
            sock.shutdown(socket.SHUT_WR)  # the request's end: the server reads it whole, never a prefix
            taken = _exactly(sock, 1)
        except OSError:
            taken = b""
        if taken != TAKEN:  # closed, or NOT_MINE: the line was not run
            return None
        try:
            head = _exactly(sock, HEADER.size)
            code, n_out, n_err = HEADER.unpack(head) if len(head) == HEADER.size else (0, 0, 0)
            out, err = (_exactly(sock, n_out), _exactly(sock, n_err)) if len(head) == HEADER.size else (b"", b"")
        except OSError:
            head, out, err, n_out, n_err = b"", b"", b"", 0, 0
        if len(head) < HEADER.size or len(out) < n_out or len(err) < n_err:  # it stopped half-way
            return 1, b"", stopped(words).encode("utf-8", "surrogateescape")
        return code, out, err
    finally:
        sock.close()


def stopped(words: list[str]) -> str:
    """The answer when the server took the line and stopped before its whole answer: the command
    may have run (a claim taken, a task done), so it is not run again; `next` says where it stands."""
    import shlex

    agent = next((w[8:] for w in words if w.startswith("--agent=")), None)
    if agent is None and "--agent" in words and words.index("--agent") + 1 < len(words):
        agent = words[words.index("--agent") + 1]
    tail = f" --agent {shlex.quote(agent)}" if agent else ""
    return (f"Error: the loop server stopped while answering `{words[0]}`; the command may have run.\n"
            f"Next: leafwise next{tail}\n")


def _exactly(sock: "socket.socket", size: int) -> bytes:
    parts: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


RESTART_SECONDS = 10  # a server started (or failed to start) this recently: no other is started
# Servers a user may have at once: each holds its plan (~60 MB at 11,100 nodes) for up to 10 minutes,
# and a caller whose environment differs on every call (a request id) would start one per call.
MAX_SERVERS = 8


def live_servers(base: str) -> int:
    """The servers alive in the socket folder: the pids their lock files hold (a dead one's pid may
    have been taken by another process since: counted, which only starts fewer servers)."""
    count = 0
    try:
        names = [n for n in os.listdir(base) if n.endswith(".lock")]
    except OSError:
        return MAX_SERVERS
    for name in names:
        try:
            fd = os.open(os.path.join(base, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                text = os.read(fd, 24)
            finally:
                os.close(fd)
            pid = int(text) if text.isdigit() else 0
            if pid > 0:
                os.kill(pid, 0)
                count += 1
        except (OSError, ValueError, OverflowError):
            continue
    return count


def start(path: str, words: list[str]) -> None:
    """Start a server for this call's setting in the background (it exits on its own when idle);
    not while one started in the last RESTART_SECONDS may still be loading the plan, or could not
    (a plan it cannot serve must not cost every call a process)."""
    import time

    try:
        if time.time() - os.stat(path[:-5] + ".lock").st_mtime < RESTART_SECONDS:
            return
    except OSError:
        pass
    if live_servers(os.path.dirname(path)) >= MAX_SERVERS:
        return  # this call and the next run themselves, as with LEAFWISE_SERVER=0
    import subprocess

    argv = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.loop_server", path]
    root = root_word(words)
    if root is not None:
        argv += ["--root", root]
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        pass  # no server: every call runs itself, as with LEAFWISE_SERVER=0
