"""Where a plan lives: finding `.leafwise/`, and keeping every path inside it."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

# The formats live in store/ids.py; the patterns are importable from here too (watch, diagnose, tests use them).
from leafwise.store.ids import ID_PATTERN, PREFIX_PATTERN, RELEASE_PATTERN, id_problem, prefix_problem  # noqa: F401
from leafwise.store.reader import UnsafePath  # noqa: F401 - its home is the reader; raised here too

PLAN_DIR = ".leafwise"
ROOT_ENV = "LEAFWISE_ROOT"
# The only folders of `.leafwise/` a node's doc and diagram links may point into;
# everything else there (project.yaml, nodes/, journal, claims, cycles, caches) is Leafwise's own.
LINK_ROOTS = ("docs", "diagrams")
# What Leafwise reads and writes in `.leafwise/` by name: each is a regular file or a real folder, or
# absent. `confinement_problem` checks every one at plan discovery, before anything is read or written.
OWN_FILES = ("project.yaml", "journal.jsonl", ".gitignore", ".gitattributes")
OWN_FOLDERS = ("nodes", "claims", "cycles", "docs", "diagrams", ".locks", ".cache")
# Derived or local state Leafwise makes again when it is gone: `repair` may replace a link there by an
# empty file or folder (the link's target is never touched); anything else is the person's to look at.
RECREATED = ("journal.jsonl", "claims", ".cache", ".locks")


class PlanNotFound(Exception):
    """No `.leafwise/` above the starting folder."""

    def __init__(self, start: Path):
        super().__init__(f"no {PLAN_DIR}/ found in {start} or any parent folder")
        self.start = start


class PlanUnsafe(PlanNotFound, UnsafePath):
    """The plan folder, or one of its own files or folders, is a link, a FIFO, a device or the wrong
    kind: no command reads or writes that plan until it is fixed (see `confinement_problem`).

    A PlanNotFound so that every surface that looks for a plan stops there (there is no usable plan),
    with this message; `rel` is the path as shown (relative to the repository), `repairable` whether
    `leafwise repair` may replace it (`RECREATED`), `step` the person's manual step otherwise.
    """

    def __init__(self, repo: Path, rel: str, what: str, repairable: bool):
        kind = "folder" if rel == PLAN_DIR or rel.rpartition("/")[2] in OWN_FOLDERS else "file"
        self.step = (f"leafwise repair replaces {rel} by an empty {kind} (what it points at is not touched)"
                     if repairable else f"remove it (rm {rel}; git rm --cached {rel} if it is committed), then "
                     f"make a real {kind} there, or delete this clone")
        ValueError.__init__(self, f"{rel} is {what}; Leafwise never reads or writes a plan through a link or a "
                                  f"special file, so this plan is not used until it is fixed: {self.step}")
        self.start, self.rel, self.what, self.repairable = repo, rel, what, repairable


class SymlinkRefused(UnsafePath, OSError):
    """A plan folder or file that is a symbolic link: never followed (it could point anywhere)."""


@dataclass(frozen=True, slots=True)
class PlanPaths:
    """The folders and files of one plan; `repo` is the folder holding `.leafwise/`."""

    repo: Path

    @property
    def dir(self) -> Path:
        return self.repo / PLAN_DIR

    @property
    def project_file(self) -> Path:
        return self.dir / "project.yaml"

    @property
    def nodes(self) -> Path:
        return self.dir / "nodes"

    @property
    def journal(self) -> Path:
        return self.dir / "journal.jsonl"

    @property
    def cache(self) -> Path:
        return self.dir / ".cache"

    @property
    def locks(self) -> Path:
        return self.dir / ".locks"

    @property
    def claims(self) -> Path:
        return self.dir / "claims"

    @property
    def cycles(self) -> Path:
        return self.dir / "cycles"

    def confined(self) -> PlanPaths:
        """These paths, once `confinement_problem` finds nothing wrong (PlanUnsafe otherwise)."""
        if (problem := confinement_problem(self.repo)) is not None:
            raise problem
        return self

    def node_file(self, node_id: str) -> Path:
        check_id(node_id)
        return self.own_folder(self.nodes) / f"{node_id}.yaml"

    def inside(self, rel: str) -> Path:
        """Resolve a doc or diagram path relative to `.leafwise/`, refusing escapes."""
        return resolve_inside(self.dir, rel)

    def own_folder(self, folder: Path) -> Path:
        """`folder` (journal's, claims', cycles', locks', cache's), refused if it or `.leafwise/` is a symlink.

        A committed `claims -> ~/somewhere` would otherwise receive our writes.
        """
        for item in (self.dir, folder):
            if item.is_symlink():
                raise SymlinkRefused(f"{relative(item, self.repo)} is a symbolic link; Leafwise never follows "
                                     "links in its own folders (remove the link)")
        return folder


def _kind(mode: int) -> str:
    return ("a symbolic link" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a folder" if stat.S_ISDIR(mode) else "a file")


def _described(path: Path, mode: int) -> str:
    """What a wrong entry is, for the message (a link names its target, cut short)."""
    what = _kind(mode)
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        shown = "".join(c if c.isprintable() else "?" for c in target[:120])
        what += f" (to {shown})" if os.path.exists(path) else f" (to {shown}, which does not exist)"
    return what


def confinement_problem(repo: Path) -> PlanUnsafe | None:
    """The first of `.leafwise/` and its own entries (`OWN_FILES`, `OWN_FOLDERS`) that is not what
    Leafwise keeps there, or None.

    The one rule: `.leafwise/` is a real folder (a link is never followed, wherever it points: a plan
    elsewhere is named with --root or LEAFWISE_ROOT, the person's choice, never by a committed link),
    each own folder is a real folder and each own file a regular file, or absent. lstat only: nothing
    is opened, so a FIFO or a device never blocks. Files inside the folders are each reader's and
    writer's (node files are read with O_NOFOLLOW and a link there is that file's problem; lock and
    claim files are replaced, never written through).
    """
    plan = repo / PLAN_DIR
    try:
        mode = os.lstat(plan).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return PlanUnsafe(repo, PLAN_DIR, f"unreadable ({exc.strerror})", False)
    if not stat.S_ISDIR(mode):
        return PlanUnsafe(repo, PLAN_DIR, _described(plan, mode), False)
    for name, folder in [(n, False) for n in OWN_FILES] + [(n, True) for n in OWN_FOLDERS]:
        path = plan / name
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            return PlanUnsafe(repo, f"{PLAN_DIR}/{name}", f"unreadable ({exc.strerror})", False)
        if not (stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode)):
            # unlinking a link, FIFO or socket removes a name only: nothing anyone wrote is lost
            repairable = name in RECREATED and (stat.S_ISLNK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))
            return PlanUnsafe(repo, f"{PLAN_DIR}/{name}", _described(path, mode), repairable)
    return None


def check_id(node_id: str) -> str:
    if problem := id_problem(node_id):
        raise UnsafePath(problem)
    return node_id


def resolve_inside(base: Path, rel: str) -> Path:
    """`rel` resolved under `base`, refusing escapes (symlinks resolved first).

    Under a plan folder (`base` named `.leafwise`) a link must land in one of
    `LINK_ROOTS` (docs/, diagrams/): never on project.yaml, a node file, the
    journal, claims, cycles or a cache, whatever `..` or symlinks it uses.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise UnsafePath("empty path")
    if any(ord(c) < 32 or ord(c) == 127 for c in rel):
        raise UnsafePath(f"{rel!r} holds control characters")
    if os.path.isabs(rel) or rel.startswith("~"):
        raise UnsafePath(f"{rel!r} is absolute; paths are relative to {PLAN_DIR}/")
    base_resolved = base.resolve()
    target = (base / rel).resolve()
    if target != base_resolved and base_resolved not in target.parents:
        raise UnsafePath(f"{rel!r} leaves {PLAN_DIR}/")
    if base.name == PLAN_DIR:
        roots = [base_resolved / name for name in LINK_ROOTS]
        if not any(root in target.parents for root in roots):
            raise UnsafePath(f"{rel!r} is not under {PLAN_DIR}/docs/ or {PLAN_DIR}/diagrams/ "
                             "(links never point at Leafwise's own files)")
    return target


def relative(path: Path, repo: Path) -> str:
    """`path` as messages show it: relative to the repository when it is inside, else whole."""
    try:
        return str(path.relative_to(repo))
    except ValueError:
        return str(path)


def check_prefix(prefix: str) -> str:
    if problem := prefix_problem(prefix):
        raise UnsafePath(problem)
    return prefix


def _plan_here(folder: Path) -> bool:
    """Whether `folder` holds a `.leafwise` that is a folder or anything but a regular file (a link,
    a FIFO: found, so it is refused by name instead of a plan further up being used)."""
    try:
        return not stat.S_ISREG(os.lstat(folder / PLAN_DIR).st_mode)
    except OSError:
        return False


def find_root(start: Path | None = None, explicit: str | os.PathLike | None = None, *,
              confined: bool = True) -> PlanPaths:
    """The plan for `explicit` (or $LEAFWISE_ROOT), else the nearest one above `start`; PlanUnsafe when
    its folder or one of its own entries is a link or a special file (`confinement_problem`).

    `explicit` may name the repository folder or the `.leafwise/` folder itself. A `.leafwise` that is
    a link (or any other non-folder) is found, so that it is refused by name rather than skipped for a
    plan further up. `confined=False` is for doctor and repair only, which name and fix the problem.
    """
    chosen = explicit or os.environ.get(ROOT_ENV)
    if chosen:
        path = Path(chosen).expanduser().absolute()
        if path.name == PLAN_DIR:
            path = path.parent
        if not _plan_here(path):
            raise PlanNotFound(path)
        from leafwise.store.config_dirs import worked_in

        worked_in(path)  # a clone named from another folder: what its trees hold is its author's
        found = PlanPaths(path)
    else:
        here = (start or Path.cwd()).absolute()
        found = next((PlanPaths(f) for f in (here, *here.parents) if _plan_here(f)), None)
        if found is None:
            raise PlanNotFound(here)
    return found.confined() if confined else found
