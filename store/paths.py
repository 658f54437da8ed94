"""Where a plan lives: finding `.leafwise/`, and keeping every path inside it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# The formats live in store/ids.py; the patterns are importable from here too (watch, diagnose, tests use them).
from leafwise.store.ids import ID_PATTERN, PREFIX_PATTERN, RELEASE_PATTERN, id_problem, prefix_problem  # noqa: F401

PLAN_DIR = ".leafwise"
ROOT_ENV = "LEAFWISE_ROOT"
# The only folders of `.leafwise/` a node's doc and diagram links may point into;
# everything else there (project.yaml, nodes/, journal, claims, cycles, caches) is Leafwise's own.
LINK_ROOTS = ("docs", "diagrams")


class PlanNotFound(Exception):
    """No `.leafwise/` above the starting folder."""

    def __init__(self, start: Path):
        super().__init__(f"no {PLAN_DIR}/ found in {start} or any parent folder")
        self.start = start


class UnsafePath(ValueError):
    """A path that would leave `.leafwise/` or is not a valid id."""


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


def find_root(start: Path | None = None, explicit: str | os.PathLike | None = None) -> PlanPaths:
    """The plan for `explicit` (or $LEAFWISE_ROOT), else the nearest one above `start`.

    `explicit` may name the repository folder or the `.leafwise/` folder itself.
    """
    chosen = explicit or os.environ.get(ROOT_ENV)
    if chosen:
        path = Path(chosen).expanduser().absolute()
        if path.name == PLAN_DIR:
            path = path.parent
        if not (path / PLAN_DIR).is_dir():
            raise PlanNotFound(path)
        return PlanPaths(path)
    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        if (folder / PLAN_DIR).is_dir():
            return PlanPaths(folder)
    raise PlanNotFound(here)
