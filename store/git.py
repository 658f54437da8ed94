# long: the one git runner (docs/security.md): every rule of every git call in one module, by design
"""Every git process Leafwise starts: one runner, `run_git`, and the person's name from git.

A cloned repository is hostile (docs/security.md, "the git runner"). git finds its repository
from its working directory, and any folder holding `HEAD`, `objects/` and `refs/` is a repository
to it: one committed inside `.leafwise/nodes/` brings its own `config`, and `core.fsmonitor`,
hooks, pagers, external diff and textconv drivers, gpg and ssh programs are commands git runs.
So the runner:

- pins the repository once per plan root: `rev-parse` run from the plan root (never from inside
  `.leafwise/`) with `safe.bareRepository=explicit`, so a planted bare repository is never the one
  found, and the answer is refused unless its git dir is the work tree's own `.git` or lies outside
  the work tree; every later call names both (`--git-dir`, `--work-tree`) and runs in the work tree;
- passes command-line config, which outranks every config file, turning off what config can make
  git run, and `--no-ext-diff --no-textconv` to the subcommands that take them;
- runs only the read-only subcommands in `SUBCOMMANDS` (none runs a hook; the one call that reads
  work-tree files' content, `ls-files --modified`, runs with every filter driver emptied: `READS_CONTENT`);
- keeps none of the caller's `GIT_*` variables but those naming the person's own config files (a
  git hook's `GIT_DIR` or `GIT_INDEX_FILE` would point git elsewhere);
- closes stdin, kills the process group at the deadline and stops reading past a byte cap.

The person's global and system config stay in force (they are the person's); the repository's own
config is read, and the overrides win over it.

Team mode talks to the shared remote through a second entry, `run_git_remote`: the same pinning,
overrides, environment, deadline and byte cap, with the transports `REMOTE_PROTOCOLS` allowed (never
`ext::` or `fd::`), only the subcommands in `REMOTE_SUBCOMMANDS`, ssh as plain `ssh` in batch mode (never
a `core.sshCommand` or `core.gitProxy` from config), the person's own credential helpers only (the
repository's are reset), and an answer that keeps the exit code and stderr: a refused push is an answer
to read, not an error. A local remote (a path or file://) is served by a git this machine starts in that
repository, which reads that repository's config and hooks and not the runner's `-c` settings (git clears
them for it): the runner names that program itself (`--receive-pack`/`--upload-pack`, `LOCAL_SERVICE`).
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

GIT = "git"
DEADLINE = 10.0  # seconds
MAX_OUTPUT = 64 * 1024 * 1024  # bytes of stdout (a 5,000-file `ls-files` is ~200 KB)
MAX_ERRORS = 64 * 1024  # bytes of stderr kept
PLAN_DIR = ".leafwise"

# What each setting stops: a command from the repository's (or anyone's) config.
OVERRIDES = (
    "core.fsmonitor=false",  # the hook every index read runs
    "core.hooksPath=/dev/null",  # hooks
    "core.pager=cat", "pager.log=false", "pager.config=false",  # a pager is a command
    "core.editor=false", "sequence.editor=false",
    "core.sshCommand=false", "core.askPass=false", "credential.helper=",  # network helpers: refused
    "protocol.allow=never",  # no transport at all (also a partial clone's lazy fetch)
    "diff.external=",  # an external diff command
    "log.showSignature=false", "gpg.program=false", "gpg.ssh.program=false", "gpg.x509.program=false",
    "core.untrackedCache=false",  # nothing written back into the repository
    "safe.bareRepository=explicit",  # never a bare repository git discovers by itself
)
# Global options before the subcommand: no pager, pathspecs are plain names (a file named
# ":(glob)**" is that file), no locks taken on the person's index.
GLOBAL_OPTIONS = ("--no-pager", "--literal-pathspecs", "--no-optional-locks")
# The subcommands Leafwise runs; each reads only. A new one is added here after checking that it
# runs no hook, no filter driver and no remote.
# `cat-file` and `ls-tree` read committed blobs and trees as stored (`cat-file blob`, never `--filters`
# or `--textconv`: the verify loop's quotes are checked against the file as committed). `check-attr`
# reads `.gitattributes` files and prints what they set: it runs no filter, hook or driver.
SUBCOMMANDS = frozenset({"ls-files", "log", "rev-parse", "config", "cat-file", "ls-tree", "check-attr"})
DIFF_OPTIONS = {"log": ("--no-ext-diff", "--no-textconv")}
# The options the read-only subcommands are called with, and no other (an allow-list, as
# REMOTE_OPTIONS is for the network entry): an option git reads that runs a filter or textconv
# (`cat-file --filters`), writes a file (`log --output=FILE`) or names a program is never one of them,
# however a value that reached an option's place was spelled or abbreviated. `-n<digits>` too; after a
# `--` every word is a path.
OPTIONS = frozenset({"--abbrev-ref", "--absolute-git-dir", "--show-toplevel", "--exclude-standard", "--format", "--get", "--get-regexp", "--git-common-dir",
                     "--glob", "--max-parents", "--modified", "--name-only", "--others", "--replace-all", "--stage",
                     "--symbolic-full-name", "--verify", "-c", "-co", "-i", "-n", "-o", "-q", "-r", "-u", "-z"})
# The caller's GIT_* variables that survive: where the person's own config files are.
KEPT_ENV = frozenset({"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"})
# GIT_NO_REPLACE_OBJECTS and GIT_GRAFT_FILE: a repository that arrives whole (a tarball, `cp -a`, a mirror)
# can carry refs/replace/ or info/grafts, which make every read see blobs and history the work tree lacks.
SET_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_LAZY_FETCH": "1",
           "GIT_PROTOCOL_FROM_USER": "0", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": os.devnull}


class GitError(Exception):
    """git did not answer: not installed, not a repository, refused, timed out, too much output or a
    non-zero exit (`code`)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Repo:
    """A pinned repository: its git dir and the top of its work tree, both absolute and resolved.

    `clone_global`: the person's global config file lies in a tree this clone brought (`trees`: HOME
    is the work tree's top, as in some sandboxes and devcontainers, and the clone ships `.gitconfig`);
    then git reads no global config for it (its credential helper, rewrites and proxies are the
    clone author's). `clone_system`: the same for the file GIT_CONFIG_SYSTEM names (a project's `.mcp.json`
    env or `.envrc` can set it): then git reads no system config for it."""

    git_dir: Path
    work_tree: Path
    clone_global: bool = False
    clone_system: bool = False

    @property
    def trees(self) -> tuple[Path, ...]:
        """The work trees a clone of this repository brought: its own, and the one whose `.git/` holds
        its git dir (a superproject's `.git/modules/…`, a main checkout's `.git/worktrees/…`)."""
        parts = self.git_dir.parts
        if ".git" in parts[:-1]:
            return self.work_tree, Path(*parts[:parts.index(".git")])
        return (self.work_tree,)

    def rel(self, path: Path) -> str:
        """`path` relative to the work tree, as git names it ("." for the top)."""
        try:
            rel = Path(os.path.realpath(path)).relative_to(self.work_tree)
        except ValueError:
            raise GitError(f"{path} is outside the repository at {self.work_tree}") from None
        return rel.as_posix() or "."


_PINNED: dict[str, Repo] = {}


def environment(repo: Repo | None = None) -> dict[str, str]:
    """The process environment without the caller's GIT_* variables, plus the runner's own (and no
    global config for a repository whose global config file it brought itself: `Repo.clone_global`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in KEPT_ENV}
    env.update(SET_ENV)
    env["PATH"] = outside_path()  # git finds ssh and the helpers' programs on PATH, as the runner finds git
    if repo is not None and repo.clone_global:
        env["GIT_CONFIG_GLOBAL"] = os.devnull
    if repo is not None and repo.clone_system:
        env.pop("GIT_CONFIG_SYSTEM", None)
        env["GIT_CONFIG_NOSYSTEM"] = "1"
    return env


def _global_files(start: Path) -> list[str]:
    """The global config files git reads (`config_dirs.git_global_files`), as real paths."""
    from leafwise.store.config_dirs import git_global_files

    return [os.path.realpath(os.path.join(start, path)) for path in git_global_files()]  # a relative one: from git's folder


def _system_file(start: Path) -> list[str]:
    """The system config file GIT_CONFIG_SYSTEM names (as a real path), else []: git's own lies outside
    every clone."""
    named = os.environ.get("GIT_CONFIG_SYSTEM")
    return [os.path.realpath(os.path.join(start, named))] if named else []


def _brought(tops: tuple[Path, ...], files: list[str]) -> bool:
    """Whether one of `files` is there and lies in one of the trees `tops`."""
    return any(os.path.lexists(path) and any(os.path.commonpath([path, str(top)]) == str(top) for top in tops)
               for path in files)


def program() -> str:
    """git's absolute path: the first `git` in an absolute folder of PATH outside the work trees of the
    repository worked in (GitError when there is none). A relative entry (`.`, or the empty entry a stray
    colon leaves) names the working folder, and every call runs in the clone's work tree: its committed,
    executable `git` would run; so would one in `<clone>/node_modules/.bin`, which JavaScript projects
    and direnv put on PATH as an absolute folder."""
    import shutil

    path = outside_path()
    if path not in _PROGRAM:
        _PROGRAM[path] = shutil.which(GIT, path=path) or ""
    if not _PROGRAM[path]:
        raise GitError("git could not start: no git in an absolute folder of PATH outside the repository")
    return _PROGRAM[path]


def outside_path() -> str:
    """PATH without its relative entries and the folders inside the work trees of the repositories worked
    in: where `program` finds git, and the PATH every git call gets (git runs `ssh` for an ssh remote, and a
    person's `!` credential helper, by name: `<clone>/node_modules/.bin/ssh` ran on `team init`)."""
    from leafwise.store.config_dirs import in_a_clones_tree, worked

    path = os.environ.get("PATH", os.defpath)
    # the trees of every repository pinned count (`--root` from another folder names a clone the working
    # folder is not in), besides the working folder's
    key = (path, os.environ.get("LEAFWISE_ROOT") or os.getcwd(), *worked())
    if key not in _OUTSIDE:
        _OUTSIDE[key] = os.pathsep.join(entry for entry in path.split(os.pathsep)
                                        if os.path.isabs(entry) and not in_a_clones_tree(Path(entry)))
    return _OUTSIDE[key]


_PROGRAM: dict[str, str] = {}
_OUTSIDE: dict[tuple[str, ...], str] = {}


def _argv(*head: str) -> list[str]:
    argv = [program()]
    for setting in OVERRIDES:
        argv += ["-c", setting]
    return [*argv, *GLOBAL_OPTIONS, *head]


def outside_plan(start: Path) -> Path:
    """`start`, or the folder holding `.leafwise/` when `start` is inside it: git never starts there."""
    path = Path(os.path.realpath(start))
    parts = path.parts
    if PLAN_DIR in parts:
        path = Path(*parts[:parts.index(PLAN_DIR)])
    return path


def pin(root: Path, deadline: float = DEADLINE) -> Repo:
    """The repository holding the plan root `root`, found once (GitError when there is none)."""
    start = outside_plan(root)
    key = str(start)
    found = _PINNED.get(key)
    if found is not None:
        return found
    from leafwise.store.config_dirs import worked_in

    worked_in(start)
    env = environment()

    if _brought((start,), _global_files(start)):
        env["GIT_CONFIG_GLOBAL"] = os.devnull  # found from a folder holding it: not read even to pin
    if _brought((start,), _system_file(start)):
        env.pop("GIT_CONFIG_SYSTEM", None)
        env["GIT_CONFIG_NOSYSTEM"] = "1"
    out = _spawn(_argv("rev-parse", "--absolute-git-dir", "--show-toplevel"), start, deadline, 64 * 1024, env)
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 2 or not all(lines):
        raise GitError(f"{start} is not in a git work tree")
    git_dir, top = (Path(os.path.realpath(line)) for line in lines)
    if not (start == top or top in start.parents):
        raise GitError(f"git named {top} as the work tree of {start}")
    if top in git_dir.parents and not (git_dir == top / ".git" or top / ".git" in git_dir.parents):
        raise GitError(f"{git_dir} is a repository inside the work tree {top}; Leafwise does not use it")
    trees = Repo(git_dir, top).trees
    repo = Repo(git_dir, top, _brought(trees, _global_files(start)), _brought(trees, _system_file(start)))
    _PINNED[key] = repo
    return repo


def _refused(args: tuple[str, ...]) -> str | None:
    """The first option in `args` that is not one of OPTIONS (before a `--`), else None."""
    for arg in args:
        if arg == "--":
            return None
        if arg.startswith("-") and arg.partition("=")[0] not in OPTIONS \
                and not (arg.startswith("-n") and arg[2:].isdigit()):
            return arg
    return None


def run_git(root: Path, subcommand: str, *args: str, deadline: float = DEADLINE,
            limit: int = MAX_OUTPUT) -> bytes:
    """git's stdout for `git <subcommand> <args>` on the repository holding the plan root `root`.

    Paths in `args` are relative to the work tree's top (`pin(root).rel(path)`). GitError on any
    failure, non-zero exits included.
    """
    if subcommand not in SUBCOMMANDS:
        raise ValueError(f"git {subcommand} is not one the runner allows (store/git.py SUBCOMMANDS)")
    if (refused := _refused(args)) is not None:
        raise ValueError(f"git {subcommand}: {refused[:40]!r} is not an option the runner allows (store/git.py OPTIONS)")
    end = time.monotonic() + deadline  # one deadline for finding the repository and the call
    repo = pin(root, deadline)
    pinned = (f"--git-dir={repo.git_dir}", f"--work-tree={repo.work_tree}")
    env = None
    if subcommand in READS_CONTENT and READS_CONTENT[subcommand] & set(args[:args.index("--")] if "--" in args
                                                                       else args):
        env = _without_filters(_filter_drivers(repo, pinned, end), repo)
    argv = _argv(*pinned, subcommand, *DIFF_OPTIONS.get(subcommand, ()), *args)
    return _spawn(argv, repo.work_tree, max(0.0, end - time.monotonic()), limit, env or environment(repo))


MERGE_FILE_BYTES = 8 * 1024 * 1024  # the merged text git may print back (the driver reads sides of at most that)


def merge_file(root: Path, ours: Path, base: Path, theirs: Path, labels: tuple[str, str, str],
               deadline: float = DEADLINE) -> tuple[int, bytes]:
    """git's own three-way text merge of three files, as its default merge driver does it (`git
    merge-file -p`): (how many conflicts, the merged text with git's markers). For a file a clone's
    `.gitattributes` hands to Leafwise's node-file driver that is no node file. merge-file runs no
    hook, filter, textconv or external diff; it reads and writes no file of the repository (-p)."""
    end = time.monotonic() + deadline
    repo = pin(root, deadline)
    argv = _argv(f"--git-dir={repo.git_dir}", f"--work-tree={repo.work_tree}", "merge-file", "-p",
                 *(word for label in labels for word in ("-L", label)),
                 *(os.path.abspath(p) for p in (ours, base, theirs)))  # absolute: no name reads as an option
    code, out, err = _spawned(argv, repo.work_tree, max(0.0, end - time.monotonic()), MERGE_FILE_BYTES,
                              env=environment(repo))
    if not 0 <= code < 128:
        raise GitError(f"git merge-file failed (exit {code}): {err.decode('utf-8', 'replace')[:200]}", code)
    return code, out


# The calls that read work-tree files' content, and so run the filter driver (`clean`, `process`) a
# `.gitattributes` line names for a file (`* filter=lfs`): `ls-files --modified` hashes a file whose
# stat data changed through it. A clone's author writes `.gitattributes`, and the person's own config
# defines the drivers (git-lfs, git-crypt, nbstripout …), so the attacker chooses which of the person's
# programs run on which of their files. For these calls every driver git's config names is emptied.
READS_CONTENT = {"ls-files": frozenset({"--modified"})}


def _filter_drivers(repo: Repo, pinned: tuple[str, ...], end: float) -> list[str]:
    """The filter drivers any config file in force names (`filter.<name>.*`), by name."""
    argv = _argv(*pinned, "config", "-z", "--get-regexp", r"^filter\.")
    code, out, _err = _spawned(argv, repo.work_tree, max(0.0, end - time.monotonic()), 1024 * 1024,
                               env=environment(repo))
    if code not in (0, 1):  # 1: none set
        raise GitError(f"git config failed (exit {code}) listing the filter drivers", code)
    names = []
    for entry in out.split(b"\0"):
        key = entry.partition(b"\n")[0].decode("utf-8", "surrogateescape")
        name = key[len("filter."):].rpartition(".")[0]
        if key.startswith("filter.") and name and name not in names:
            names.append(name)
    return names


def _without_filters(drivers: list[str], repo: Repo) -> dict[str, str]:
    """The runner's environment with each driver's commands emptied and none required, as command-line
    config (`GIT_CONFIG_COUNT`: a driver's name may hold `=` or spaces, which `-c` cannot spell)."""
    env = environment(repo)
    settings = [(f"filter.{name}.{key}", value) for name in drivers
                for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))]
    for i, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    return env


def _spawn(argv: list[str], cwd: Path, deadline: float, limit: int, env: dict[str, str] | None = None) -> bytes:
    """Run git in its own process group: stdin closed, stdout up to `limit`, killed at `deadline`."""
    code, out, err = _spawned(argv, cwd, deadline, limit, env=env)
    if code != 0:
        name = next((a for a in argv[1:] if a in SUBCOMMANDS), "git")
        first = err.decode("utf-8", "replace").strip().splitlines()[:1]
        raise GitError(f"git {name} failed (exit {code})" + (f": {first[0][:200]}" if first else ""), code)
    return out


def _spawned(argv: list[str], cwd: Path, deadline: float, limit: int, stdin: bytes | None = None,
             env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of git run in its own process group, killed at `deadline`.

    `stdin`: an input of at most `MAX_INPUT`, written as git reads it (in the same loop that reads its
    answer: git answering a long `cat-file --batch` query while it is still written never deadlocks),
    else closed."""
    name = next((a for a in argv[1:] if a in SUBCOMMANDS | REMOTE_SUBCOMMANDS), "git")
    if stdin is not None and len(stdin) > MAX_INPUT:
        raise GitError(f"git {name}: an input of {len(stdin)} bytes is more than {MAX_INPUT}")
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env or environment(),
                                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:  # no git on PATH, or cwd gone
        raise GitError(f"git could not start: {exc}") from exc
    pending = memoryview(stdin or b"")
    out, err = bytearray(), bytearray()
    end = time.monotonic() + deadline
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, out)  # type: ignore[arg-type]
            sel.register(proc.stderr, selectors.EVENT_READ, err)  # type: ignore[arg-type]
            if proc.stdin is not None:
                os.set_blocking(proc.stdin.fileno(), False)
                sel.register(proc.stdin, selectors.EVENT_WRITE, None)
            while sel.get_map():
                left = end - time.monotonic()
                if left <= 0:
                    raise GitError(f"git {name} took longer than {deadline:g} s and was stopped")
                for key, _ in sel.select(left):
                    if key.data is None:  # git's stdin has room
                        try:
                            pending = pending[os.write(key.fd, pending[:65536]):]
                        except BrokenPipeError:  # git ended without reading it all: its exit code says why
                            pending = pending[:0]
                        if not pending:
                            sel.unregister(key.fileobj)
                            key.fileobj.close()  # type: ignore[union-attr]
                        continue
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        sel.unregister(key.fileobj)
                    elif key.data is out or len(err) < MAX_ERRORS:
                        key.data.extend(chunk)
                if len(out) > limit:
                    raise GitError(f"git {name} answered more than {limit} bytes and was stopped")
        try:
            code = proc.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise GitError(f"git {name} took longer than {deadline:g} s and was stopped") from None
    finally:
        if proc.returncode is None:
            _kill(proc)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    return code, bytes(out), bytes(err)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group: whatever git started goes too
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


# The remote entry: what team mode runs against the shared remote (and the plumbing that makes a claim).
REMOTE_SUBCOMMANDS = frozenset({"push", "fetch", "ls-remote", "update-ref", "for-each-ref", "hash-object",
                                "mktree", "commit-tree", "cat-file"})
# The only options team mode passes before `--`, each as written: git takes any unambiguous prefix of a
# long option (`--upload-pa=…` is `--upload-pack`) and short forms (`ls-remote -u`), so a list of refused
# ones can never be complete; everything after `--` is a URL or a refspec.
REMOTE_OPTIONS = frozenset({"--no-tags", "--no-write-fetch-head", "--quiet", "--porcelain", "--no-verify", "--atomic",
                            "--force-with-lease", "--stdin", "--batch", "--batch-check", "--format", "--no-deref", "--symref", "-p",
                            "-w", "-m", "-d"})
REMOTE_PROTOCOLS = ("file", "git", "http", "https", "ssh")
REMOTE_OVERRIDES = (
    *(f"protocol.{name}.allow=always" for name in REMOTE_PROTOCOLS),  # `protocol.allow=never` stays for the rest
    "protocol.version=2",  # fetch asks only for the refs it names (ref-prefix)
    "gc.auto=0", "maintenance.auto=false",  # no background work after a fetch
    "fetch.recurseSubmodules=false", "submodule.recurse=false", "push.recurseSubmodules=no",
    "fetch.writeCommitGraph=false", "fetch.showForcedUpdates=false",
    "push.gpgSign=false", "commit.gpgSign=false",
)
# ssh is the person's `ssh`, never a program named by config; batch mode: no password prompt.
REMOTE_ENV = {"GIT_SSH_COMMAND": "ssh -o BatchMode=yes", "GIT_SSH_VARIANT": "ssh",
              "GIT_PROXY_COMMAND": ""}  # an empty GIT_PROXY_COMMAND: git reads no core.gitProxy
MAX_INPUT = 16 * 1024 * 1024  # bytes git reads on stdin (a claim's blob, a state branch's tree of every claim)
REMOTE_DEADLINE = 20.0  # seconds: a push to a hosted remote takes a few


@dataclass(frozen=True, slots=True)
class GitAnswer:
    """What a remote-entry git call answered: its exit code, stdout and (up to MAX_ERRORS) stderr."""

    code: int
    out: bytes
    err: bytes

    @property
    def text(self) -> str:
        """stdout and stderr as text, for reading a push's verdict."""
        return (self.out + b"\n" + self.err).decode("utf-8", "replace")


def _person_helpers(repo: Repo) -> tuple[str, ...]:
    """`-c` settings giving back the person's own credential helpers (global and system config; the
    repository's are reset by `credential.helper=`): a cloned repository cannot name a helper to run
    (nor a global or system config file it brought: `Repo.clone_global`, `Repo.clone_system`)."""
    found: list[str] = []
    scopes = [scope for scope, brought in (("--system", repo.clone_system), ("--global", repo.clone_global))
              if not brought]
    for scope in scopes:
        argv = _argv("--git-dir=/nonexistent/leafwise", "config", scope, "--get-all", "credential.helper")
        try:
            code, out, _ = _spawned(argv, Path("/"), 2, 64 * 1024, env=environment(repo))
        except GitError:
            continue
        if code == 0:
            found += [line for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
    return tuple(f"credential.helper={helper}" for helper in found)


# A local remote's own config and hooks (git starts `receive-pack`/`upload-pack` in it, on this machine,
# without the runner's `-c`): the overrides above, plus what a push into it could run or change.
LOCAL_SERVICE = (
    *OVERRIDES,
    "core.alternateRefsCommand=true",  # listing its alternates' refs: a command of its config
    "receive.denyCurrentBranch=refuse", "receive.denyDeleteCurrent=refuse",  # never its checked-out files
    "receive.autogc=false", "gc.auto=0", "maintenance.auto=false",  # no gc (its hook) after a push
)
SERVICES = {"push": "--receive-pack", "fetch": "--upload-pack", "ls-remote": "--upload-pack"}


REGULAR_FILE_MODES = ("100644", "100755")  # a tree entry that is a file's bytes (not a link, a submodule, a tree)


def object_id(text: str) -> bool:
    """Whether `text` is a full object id as git prints it (SHA-1 or SHA-256 hex): a field parsed out of
    `git log` output is one only then, since a commit message may hold the separator bytes of the format
    and forge a record whose "sha" is `--output=FILE`."""
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


# git's rule for a remote helper (transport.c): a scheme-like word at the very start, then `::`. A `::`
# anywhere else (`/srv/team::plan.git`) is part of a local path, served by that folder's own programs.
def _helper(url: str) -> bool:
    head, sep, _ = url.partition("::")
    return bool(sep and head) and head[0].isascii() and head[0].isalnum() and \
        all(c.isascii() and (c.isalnum() or c in "+-.") for c in head)


def local_transport(url: str) -> bool:
    """Whether git reaches `url` by starting a program on this machine in that folder: file://, or a
    path (git's rule: no `scheme://`, no `helper::`, and no colon before the first slash)."""
    scheme, sep, _ = url.partition("://")
    if sep and scheme and all(c.isalnum() or c in "+-." for c in scheme):
        return scheme.lower() == "file"
    if _helper(url):
        return False  # `<transport>::<address>`: a remote helper (refused unless its protocol is allowed)
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or 0 <= slash < colon


_REWRITES: dict[Path, tuple[tuple[str, str, str], ...]] = {}


def _rewrites(repo: Repo, root: Path) -> tuple[tuple[str, str, str], ...]:
    """The person's `url.<base>.insteadOf` / `pushInsteadOf` rules: (kind, prefix, base), read once."""
    if repo.git_dir not in _REWRITES:
        try:
            out = run_git(root, "config", "-z", "--get-regexp", r"^url\..*\.(push)?insteadof$", deadline=5)
        except GitError:  # exit 1: none
            out = b""
        found = []
        for entry in out.decode("utf-8", "surrogateescape").split("\0"):  # `<key>\n<value>`: a base may hold a space
            key, _, prefix = entry.partition("\n")
            if not key.startswith("url."):
                continue
            base, _, kind = key[4:].rpartition(".")
            found.append((kind.lower(), prefix, base))
        _REWRITES[repo.git_dir] = tuple(found)
    return _REWRITES[repo.git_dir]


def final_url(url: str, rewrites: tuple[tuple[str, str, str], ...], push: bool) -> str:
    """`url` as git will reach it: the longest matching pushInsteadOf (a push), else insteadOf."""
    for kinds in ((("pushinsteadof",), ("insteadof",)) if push else (("insteadof",),)):
        matches = [(len(prefix), base + url[len(prefix):]) for kind, prefix, base in rewrites
                   if kind in kinds and url.startswith(prefix)]
        if matches:
            return max(matches)[1]
    return url


def _service_options(repo: Repo, root: Path, subcommand: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """`--receive-pack=<git, hardened> receive-pack` (or upload-pack) when the URL is a local remote."""
    option = SERVICES.get(subcommand)
    if option is None or "--" not in args or args.index("--") + 1 >= len(args):
        return ()
    url = final_url(args[args.index("--") + 1], _rewrites(repo, root), subcommand == "push")
    if not local_transport(url):
        return ()
    words = [program(), *(word for setting in LOCAL_SERVICE for word in ("-c", setting)), option[2:]]
    return (f"{option}={' '.join(shlex.quote(word) for word in words)}",)


# The `http.*` settings of the repository's own config (a repository that arrives whole, `.git/` and
# all: a tarball, a shared folder, a devcontainer) that would send the person's credentials (their own
# helper answers for the host) or the claims through someone else, unchecked: a proxy with
# `sslVerify=false`, a CA, a pinned address, extra headers, a cookie file written back. The network entry
# takes each such key from the person's own config (system, global) when it sets one, else this value.
HTTP_NEUTRAL = {"proxy": "", "sslverify": "true", "sslcainfo": "", "sslcapath": "", "curloptresolve": "",
                "extraheader": "", "cookiefile": "", "savecookies": "false", "sslcert": "", "sslkey": "",
                "emptyauth": "false", "pinnedpubkey": "", "proxysslcert": "", "proxysslkey": "",
                "proxysslcainfo": "", "followredirects": "initial", "proxyauthmethod": "anyauth",
                "sslcertpasswordprotected": "false", "proxysslcertpasswordprotected": "false"}
MULTI_VALUED = frozenset({"extraheader", "curloptresolve"})  # an empty value resets the list
REPOSITORY_SCOPES = frozenset({"local", "worktree"})
NETWORK = frozenset({"push", "fetch", "ls-remote"})


def repository_http(pinned: tuple[str, ...], cwd: Path, end: float, repo: Repo | None = None) -> list[tuple[str, str]]:
    """(key, value) settings that put the person's own value (or HTTP_NEUTRAL's) over each `http.*` key
    the repository's own config sets."""
    argv = _argv(*pinned, "config", "-z", "--show-scope", "--get-regexp", r"^http\.")
    code, out, _err = _spawned(argv, cwd, max(0.0, end - time.monotonic()), 1024 * 1024, env=environment(repo))
    if code not in (0, 1):  # 1: none set
        raise GitError(f"git config failed (exit {code}) listing the http settings", code)
    fields = out.split(b"\0")
    entries = [(fields[i].decode(), *fields[i + 1].decode("utf-8", "surrogateescape").partition("\n")[::2])
               for i in range(0, len(fields) - 1, 2)]
    planted = {key for scope, key, _ in entries if scope in REPOSITORY_SCOPES}
    settings: list[tuple[str, str]] = []
    for key in sorted(planted):
        name = key.rpartition(".")[2]
        own = [value for scope, k, value in entries if k == key and scope in ("system", "global")]
        if name in MULTI_VALUED:
            settings += [(key, ""), *((key, value) for value in own)]
        elif own:
            settings.append((key, own[-1]))
        elif name in HTTP_NEUTRAL:
            settings.append((key, HTTP_NEUTRAL[name]))
    return settings


def run_git_remote(root: Path, subcommand: str, *args: str, stdin: bytes | None = None,
                   deadline: float = REMOTE_DEADLINE, limit: int = MAX_OUTPUT,
                   identity: tuple[str, str] | None = None) -> GitAnswer:
    """`git <subcommand> <args>` for team mode on the repository holding the plan root `root`, with the
    transports `REMOTE_PROTOCOLS` allowed; its answer whatever the exit code (GitError only when git
    could not run, ran too long or answered too much).

    `identity`: (name, email) for `commit-tree`, given as config so no environment decides it."""
    if subcommand not in REMOTE_SUBCOMMANDS:
        raise ValueError(f"git {subcommand} is not one the remote entry allows (store/git.py REMOTE_SUBCOMMANDS)")
    options = args[:args.index("--")] if "--" in args else args
    if any(arg.startswith("-") and arg.partition("=")[0] not in REMOTE_OPTIONS for arg in options) or any(
            arg.startswith(("ext::", "fd::")) for arg in args):
        raise ValueError(f"git {subcommand}: an option the remote entry does not allow (store/git.py REMOTE_OPTIONS)")
    end = time.monotonic() + deadline
    repo = pin(root, deadline)
    settings = [*REMOTE_OVERRIDES, *_person_helpers(repo)]
    if identity is not None:
        settings += [f"user.name={identity[0]}", f"user.email={identity[1]}"]
    argv = _argv(*(word for setting in settings for word in ("-c", setting)),
                 f"--git-dir={repo.git_dir}", f"--work-tree={repo.work_tree}", subcommand,
                 *_service_options(repo, root, subcommand, args), *args)
    env = {**environment(repo), **REMOTE_ENV}
    if subcommand in NETWORK:
        http = repository_http((f"--git-dir={repo.git_dir}", f"--work-tree={repo.work_tree}"), repo.work_tree, end, repo)
        for i, (key, value) in enumerate(http):  # as command-line config: it outranks the repository's
            env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
        env["GIT_CONFIG_COUNT"] = str(len(http))
    code, out, err = _spawned(argv, repo.work_tree, max(0.0, end - time.monotonic()), limit, stdin, env)
    return GitAnswer(code, out, err)


_PERSON: dict[str, str] = {}


def person_name(start: Path | None = None) -> str:
    """A person's name, the one rule: LEAFWISE_USER, else git's user.name, else the login name.

    `user.name` is read from the repository holding `start` when there is one (a person's
    `includeIf` rules may name them differently there), else from their own config alone.
    """
    named = printable(os.environ.get("LEAFWISE_USER") or "")  # a project's MCP or direnv settings may set it
    if named:
        return named[:80]
    key = str(start or "")
    if key not in _PERSON:
        _PERSON[key] = (printable(_git_user_name(start)) or _login_name())[:80]
    return _PERSON[key]


def printable(text: str) -> str:
    """`text` without the characters a terminal acts on or hides (C0/C1 controls, bidi and other format
    characters, line breaks): a `user.name` in the config of a repository that arrived whole is anyone's,
    and it goes into the journal and the author of every claim commit pushed to the team's remote."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def forget() -> None:
    """Drop the pinned repositories and names: a long-lived process (or a test) asks git again."""
    _PINNED.clear()
    _PERSON.clear()
    _REWRITES.clear()


def _git_user_name(start: Path | None) -> str:
    try:
        repo = pin(start, 2) if start is not None else None
    except GitError:
        repo = None
    try:
        if repo is not None and start is not None:
            return run_git(start, "config", "--get", "user.name", deadline=2).decode("utf-8", "replace").strip()
        # no repository: a git dir that does not exist makes git read the person's own config only
        argv = _argv("--git-dir=/nonexistent/leafwise", "config", "--get", "user.name")
        return _spawn(argv, Path("/"), 2, 64 * 1024).decode("utf-8", "replace").strip()
    except GitError:  # exit 1: no user.name set
        return ""


def _login_name() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (a container without a passwd entry)
        return "person"
