"""Does the code a closing commit added still stand? A commit that says it closes a node is the author's
word, and words outlive code: a flag added by "Closes #544" and removed two years later, a "Fixes #3121"
that only edited the docs, a "Fixes #795" that deleted the flag the issue was about.

A closing commit counts as `shipped` only when it added code (`verify_quotes.file_kind`: not tests, not
docs; in a code file, not comments or sentences of help text: `text_line`) and most of it is still there:
most of its added lines, in the same file at HEAD or, for a file gone since, anywhere in the code reconcile
indexed (code moves: ripgrep's flags went from src/app.rs to crates/core/flags/), or most of the names it
brought into those files (`line_number_width`, `--sort-files`: code is rewritten, names stay). The commit
is read through the one git runner from committed objects (its first parent, itself, and HEAD), within a
byte budget a run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from leafwise.store import git, linear, reader

MAX_FILES = 6  # code files of one commit compared at most
SURVIVES = 0.5  # the share of its added code lines HEAD must still hold
MIN_LINE = 6  # characters (stripped) a line needs to count: `}`, `end`, `pass` prove nothing
_NAME = linear.compile(r"\b[A-Za-z_][A-Za-z0-9_-]{3,60}")


@dataclass(frozen=True, slots=True)
class Standing:
    stands: bool
    why: str  # what was found, for `missing` when it does not stand
    added: int = 0
    kept: int = 0


@dataclass(slots=True)
class Budget:
    """The bytes of committed files one reconcile run may read to compare closing commits."""
    left: int = 16 * reader.MiB


def standing(root: Path, sha: str, elsewhere: Callable[[], Collection[str]] = frozenset,
             names_now: Callable[[], Collection[str]] = frozenset, budget: Budget | None = None) -> Standing:
    """Whether the code `sha` added is still at HEAD (see the module's docstring)."""
    from leafwise.commands.domain.verify_quotes import file_kind, text_line

    try:
        out = git.run_git(root, "log", "-n1", "-z", "--name-only", "--format=%P", sha, "--", deadline=10)
    except (git.GitError, ValueError) as exc:  # ValueError: the runner refused an argument
        return Standing(False, f"the closing commit {sha[:12]} could not be read: {exc}")
    head, _, listing = out.decode("utf-8", "surrogateescape").partition("\0")  # "%P\0\nfile\0file\0"
    parents = head.split()
    if len(parents) > 1:
        return Standing(False, f"the closing commit {sha[:12]} is a merge: what it changed is not read")
    if not parents and _has_parent(root, sha):
        return Standing(False, f"the closing commit {sha[:12]}'s parent is not in this clone (a shallow clone): what "
                               "it changed is not read")
    parent = parents[0] if parents else None  # a root commit: everything it holds is what it added
    changed = [n for n in listing.strip("\n").split("\0") if n]
    code = _regular(root, sha, [n for n in changed if file_kind(n) == "code"][:MAX_FILES])
    if not code:
        return Standing(False, f"the closing commit {sha[:12]} changed no code (only "
                               f"{', '.join(changed[:3]) or 'nothing'}{' …' if len(changed) > 3 else ''})")
    added = kept = 0
    new_lines: set[str] = set()
    known: set[str] = set()  # the names the changed files held before: not brought by the commit
    budget = budget if budget is not None else Budget()
    for path in code:
        if budget.left <= 0:
            return Standing(False, f"the closing commit {sha[:12]} was not read (this run read its "
                                   f"{Budget().left // reader.MiB} MiB of committed code for closing commits)")
        before = _lines(root, parent, path, budget) if parent else []
        old = set(before)
        known |= names(before)
        fresh = {line for line in _lines(root, sha, path, budget) if line not in old and not text_line(line)}
        if fresh:
            now = set(_lines(root, "HEAD", path, budget))
            added += len(fresh)
            # a line elsewhere counts only for a file gone since (moved): any file holds `return Ok(());`
            kept += sum(line in now or (not now and line in elsewhere()) for line in fresh)
            new_lines |= fresh
    brought = names(new_lines) - known
    if not added:
        return Standing(False, f"the closing commit {sha[:12]} added no line of code (it removed or moved code, "
                               "or changed only comments and help text)")
    if kept >= SURVIVES * added:
        return Standing(True, "", added, kept)
    named = sum(name in names_now() for name in brought)
    if brought and named >= SURVIVES * len(brought):
        return Standing(True, "", added, kept)
    return Standing(False, f"the code the closing commit {sha[:12]} added is mostly gone since ({kept} of "
                           f"{added} lines left" + (f"; {named} of {len(brought)} names it brought)" if brought
                                                    else ")"), added, kept)


def _has_parent(root: Path, sha: str) -> bool:
    """Whether the commit object names a parent: git reads a shallow clone's boundary commit (or one a
    graft cuts) as a root, which would make everything it holds look added by it."""
    try:
        raw = git.run_git(root, "cat-file", "commit", sha, deadline=10, limit=reader.MiB)
    except (git.GitError, ValueError):
        return True  # unreadable: not read as a root either
    header = raw.partition(b"\n\n")[0]
    return any(line.startswith(b"parent ") for line in header.split(b"\n"))


def _regular(root: Path, sha: str, paths: list[str]) -> list[str]:
    """The paths `sha` holds as regular files (a link's text or a submodule is no code), or gone in it."""
    if not paths:
        return []
    try:
        out = git.run_git(root, "ls-tree", "-z", sha, "--", *paths, deadline=10)
    except git.GitError:
        return []
    modes = {}
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        head, tab, name = item.partition("\t")
        if tab:
            modes[name] = head.split(" ")[0]
    # absent from the listing: the commit deleted it
    return [p for p in paths if modes.get(p, git.REGULAR_FILE_MODES[0]) in git.REGULAR_FILE_MODES]


def names(lines: Collection[str]) -> set[str]:
    """The compound names in code lines (`line_number_width`, `--sort-files`, `SortFiles`; a plain word of a
    help text is no name), spelled alike: `sort_files`, `--sort-files` and `SortFiles` are `sortfiles`."""
    return {_spelled(m.group(0)) for line in lines for m in _NAME.finditer(line) if _compound(m.group(0))}


def _compound(token: str) -> bool:
    bare = token.strip("-_")
    if len(bare) < 5:
        return False
    return "_" in bare or "-" in bare or (any(c.isupper() for c in bare[1:]) and any(c.islower() for c in bare))


def _spelled(token: str) -> str:
    return token.replace("-", "").replace("_", "").lower()


def significant(text: str) -> list[str]:
    return [s for line in reader.lines(text) if len(s := line.strip()) >= MIN_LINE]


def _lines(root: Path, rev: str, path: str, budget: Budget) -> list[str]:
    """The file's significant lines (stripped) as `rev` holds it; none when it does not."""
    try:
        from leafwise.commands.domain.verify_quotes import BLOB

        data = git.run_git(root, "cat-file", "blob", f"{rev}:{path}", deadline=10, limit=BLOB.cap)
    except (git.GitError, ValueError):
        return []
    budget.left -= len(data)
    return significant(reader.decode(data, lone_cr=False))
