"""The person's own Leafwise folders, outside every repository: settings, approvals, caches.

Where the platform keeps them (platformdirs: `$XDG_CONFIG_HOME/leafwise` or `~/.config/leafwise`
on Linux, `~/Library/Application Support/leafwise` on macOS, `%LOCALAPPDATA%\\leafwise` on
Windows). `LEAFWISE_CONFIG_DIR` names another config folder, and `LEAFWISE_CACHE_DIR` another
cache folder: tests and sandboxes use them, so nothing touches a real home folder.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "leafwise"
CONFIG_ENV = "LEAFWISE_CONFIG_DIR"
CACHE_ENV = "LEAFWISE_CACHE_DIR"


def outside(folder: Path, root: Path | str) -> bool:
    """Whether the person's `folder` lies outside the tree at `root` (real paths): a folder inside a
    plan's repository (HOME or XDG_CONFIG_HOME set to the work tree, as in some sandboxes) holds files
    the repository's author wrote, so no approval or key is taken from it."""
    real, top = os.path.realpath(str(folder)), os.path.realpath(str(root))
    return os.path.commonpath([real, top]) != top


def inside_a_plan(folder: Path) -> bool:
    """Whether `folder` or a folder above it holds a plan (`.leafwise/`), or it lies in a work tree of
    the repository worked in (`in_a_clones_tree`): then a repository's author may have written what is
    in it (a sandbox whose HOME is the work tree), so no key is read from it."""
    current = os.path.realpath(str(folder))
    while True:
        if os.path.lexists(os.path.join(current, ".leafwise")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return in_a_clones_tree(folder)
        current = parent


def work_trees(path: Path | str) -> list[str]:
    """The work trees holding `path`, as git finds them but without starting git: the nearest folder at or
    above it holding `.git`, and, when that `.git` is a file naming a git dir under `<top>/.git/` (a
    submodule's `.git/modules/…`, a linked worktree's `.git/worktrees/…`), that `<top>` too; [] outside
    every repository. A dotfiles repository at HOME is not one of them for a plan in its own clone."""
    current = os.path.realpath(str(path))
    while not os.path.lexists(os.path.join(current, ".git")):
        parent = os.path.dirname(current)
        if parent == current:
            return []
        current = parent
    found = [current]
    dot = os.path.join(current, ".git")
    if os.path.isfile(dot) and not os.path.islink(dot):
        from leafwise.store import reader

        try:
            text = reader.read_text(Path(dot), reader.POINTER).strip()
        except (OSError, ValueError):
            return found
        if text.startswith("gitdir:"):
            parts = Path(os.path.realpath(os.path.join(current, text[len("gitdir:"):].strip()))).parts
            if ".git" in parts[:-1]:
                found.append(str(Path(*parts[:parts.index(".git")])))
    return found


_WORKED: list[str] = []  # every plan root found and repository pinned by this process, in order


def worked_in(root: Path | str) -> None:
    """Note a folder this process works in (a plan found with `--root` from another folder): its
    repository's work trees count for `in_a_clones_tree` as the working folder's do."""
    real = os.path.realpath(str(root))
    if real not in _WORKED:
        _WORKED.append(real)


def worked() -> tuple[str, ...]:
    """The folders `worked_in` noted (a cache of an answer of `in_a_clones_tree` keys on them)."""
    return tuple(_WORKED)


def in_a_clones_tree(folder: Path, root: Path | str | None = None) -> bool:
    """Whether `folder` lies in a work tree of the repository holding `root` (default: LEAFWISE_ROOT, the
    working folder and every folder `worked_in` noted): a clone brought what is in it (a monorepo whose top
    is HOME ships `.config/leafwise/` beside a plan in a subfolder, where no `.leafwise/` lies above it;
    `--root` names that plan from another folder). No process."""
    starts = [root] if root else [os.environ.get("LEAFWISE_ROOT") or os.getcwd(), *_WORKED]
    real = os.path.realpath(str(folder))
    return any(os.path.commonpath([real, top]) == top for start in starts for top in work_trees(start))


def git_global_files() -> list[str]:
    """The global config files git reads: the one GIT_CONFIG_GLOBAL names (a project's `.mcp.json` or
    `.envrc` may set it too), else `~/.gitconfig` and `$XDG_CONFIG_HOME/git/config` (git's own rule)."""
    named = os.environ.get("GIT_CONFIG_GLOBAL")
    if named:
        return [named]
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git/config")]


def config_dir() -> Path:
    """The folder of the person's settings and approvals (not created here)."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs  # only when a command reads or writes the person's files

    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def cache_dir() -> Path:
    """The folder of the person's derived, deletable files (not created here)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP, appauthor=False))
