"""Where a plan lives: finding `.leafwise/`, and keeping every path inside it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

PLAN_DIR = ".leafwise"
ROOT_ENV = "LEAFWISE_ROOT"
# `\Z`, never `$`: `$` also matches before a trailing newline, and `"P-9\n"` is no id.
ID_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*-[0-9]+\Z")
RELEASE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
PREFIX_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,31}\Z")
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
                raise SymlinkRefused(f"{_show(item, self.repo)} is a symbolic link; Leafwise never follows "
                                     "links in its own folders (remove the link)")
        return folder


def check_id(node_id: str) -> str:
    if not isinstance(node_id, str) or not ID_PATTERN.match(node_id):
        raise UnsafePath(
            f"{node_id!r} is not a node id (expected LETTERS-NUMBER, e.g. SHOP-7)"
        )
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


def _show(path: Path, repo: Path) -> str:
    try:
        return str(path.relative_to(repo))
    except ValueError:
        return str(path)


def check_prefix(prefix: str) -> str:
    if not isinstance(prefix, str) or not PREFIX_PATTERN.match(prefix):
        raise UnsafePath(f"id_prefix {prefix!r} must be letters and digits, starting with a letter (e.g. SHOP)")
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
