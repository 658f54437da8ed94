"""The files an agent leaves in its work tree when a step takes its task from it (a `complete` refused
because another clone took or finished the task): named, bounded, with what to do with them.

git is asked through the one runner (store/git.py), with its read-only subcommands: `ls-files` for the
work tree against the index (modified, deleted, untracked and not ignored), `ls-files --stage` against
`ls-tree -r HEAD` for what is staged. The plan's own folder is left out: Leafwise keeps it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from leafwise.commands.contract import CommandError, fix
from leafwise.commands.registry import Ctx
from leafwise.commands.text import clean, plan_words
from leafwise.store import git

CAP = 4 * 1024 * 1024  # bytes of each git answer: a tree past it is named as "many files"
SHOWN = 8  # names in the answer's lines
KEPT = 50  # names in its details
LOST = frozenset({"claim_held", "lease_lost", "status_changed"})  # the task is someone else's now
PAUSED = frozenset({"claim_missing", "claim_rewound", "claim_unreadable"})  # still the agent's once repaired


def _entries(out: bytes, sha_at: int) -> dict[str, str]:
    """NUL-separated `<words>\t<path>` lines -> path: the word at `sha_at` (the object's SHA)."""
    found = {}
    for line in out.split(b"\0"):
        head, tab, name = line.partition(b"\t")
        words = head.split()
        if tab and len(words) > sha_at:
            found[name.decode("utf-8", "surrogateescape")] = words[sha_at].decode("ascii", "replace")
    return found


def changed_files(root: Path, plan_dir: str) -> tuple[list[str], bool]:
    """The work tree's changes against HEAD, by path (`plan_dir`, the plan's folder relative to the top
    of the work tree, left out), and whether the list is whole (False: git answered too much or not)."""
    try:
        loose = git.run_git(root, "ls-files", "-z", "--modified", "--others", "--exclude-standard", limit=CAP)
        index = git.run_git(root, "ls-files", "-z", "--stage", limit=CAP)
    except git.GitError:
        return [], False
    try:
        head = git.run_git(root, "ls-tree", "-r", "-z", "HEAD", limit=CAP)
    except git.GitError:  # no commit yet: everything staged is new
        head = b""
    staged = _entries(index, 1)  # mode sha stage
    committed = _entries(head, 2)  # mode type sha
    names = {n.decode("utf-8", "surrogateescape") for n in loose.split(b"\0") if n}
    names |= {n for n in staged.keys() | committed.keys() if staged.get(n) != committed.get(n)}
    prefix = plan_dir.rstrip("/") + "/"
    return sorted(n for n in names if not (n + "/").startswith(prefix)), True


@contextmanager
def left_in_tree(ctx: Ctx, node_id: str, agent: str | None) -> Iterator[None]:
    """Within: a refusal that takes `node_id` from the agent (`LOST`) or pauses it (`PAUSED`) names the
    agent's changed files; for a lost task the one next action sets them aside (a stash keeps them, out
    of the branch) with the next task as its Or."""
    try:
        yield
    except CommandError as exc:
        if exc.code not in LOST | PAUSED:
            raise
        _name_files(ctx, exc, node_id, agent)
        raise


def _name_files(ctx: Ctx, exc: CommandError, node_id: str, agent: str | None) -> None:
    paths = ctx.paths()
    try:
        top = git.pin(paths.repo).work_tree
        plan_dir = paths.dir.resolve().relative_to(top).as_posix()
    except (git.GitError, ValueError, OSError):
        return
    names, whole = changed_files(paths.repo, plan_dir)
    if not names and whole:
        return
    count = f"{len(names)}{'' if whole else '+'}"
    shown = ", ".join(clean(n, 120) for n in names[:SHOWN]) + (" …" if len(names) > SHOWN or not whole else "")
    exc.details["changed_files"] = names[:KEPT]
    if exc.code in PAUSED:
        exc.text.append(f"  {count} changed file(s) stay in the work tree ({shown}): keep them; {node_id} is "
                        "still yours once the claim is repaired")
        return
    exc.text.append(f"  {count} changed file(s) of your work on {node_id} stay in the work tree: {shown}")
    if not ctx.for_agent:
        return
    message = f"leafwise: {node_id}, refused to {agent or 'the agent'}"
    line = f"git stash push --include-untracked -m {shlex.quote(message)} -- . {shlex.quote(':(exclude)' + plan_dir)}"
    other = exc.action.or_ or exc.action.command
    names_said = plan_words(", ".join(names[:3]), 160)
    exc.action = replace(fix(line, f"set aside your {count} changed file(s) ({names_said}): {node_id} is not yours "
                                   "any more, and the next task starts from a clean tree (git stash list keeps "
                                   "them)", or_=other))
