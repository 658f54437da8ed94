"""Matching paths against globs from plan files, in time linear in the path.

A glob comes from a plan file, which is untrusted (docs/security.md): a regex built from it can
backtrack for minutes (`**/**/**/…zz` against a long path). Here a glob is a list of tokens
matched by one pass over the path that keeps, per token, whether the path so far matches the
glob up to it: O(len(path) · len(glob)) whatever the glob.

Tokens: `**/` (zero or more whole folders), `**` (anything, `/` included), `*` (anything inside
one folder), `?` (one character but `/`); every other character stands for itself.
"""

from __future__ import annotations

from functools import lru_cache

_FOLDERS, _ANY, _STAR, _ONE = "**/", "**", "*", "?"  # tokens; any other token is one literal character


@lru_cache(maxsize=512)
def _tokens(glob: str) -> tuple[str, ...]:
    out: list[str] = []
    i = 0
    while i < len(glob):
        for token in (_FOLDERS, _ANY, _STAR, _ONE):
            if glob.startswith(token, i):
                break
        else:
            token = glob[i]
        out.append(token)
        i += len(token)
    return tuple(out)


def _run(tokens: tuple[str, ...], path: str, below: bool) -> bool:
    """Whether `path` matches the tokens whole (with `below`: or a folder the tokens match, then `/…`)."""
    m = len(tokens)
    kinds = [(j, token) for j, token in enumerate(tokens, 1)]
    folders = [j for j, token in kinds if token == _FOLDERS]
    # row[j]: path[:i] matches tokens[:j]; seen[j]: some row so far had row[j] (for `**/`'s `.*/`)
    row = [True] + [False] * m
    for j, token in kinds:  # the empty path: only tokens that match nothing
        row[j] = row[j - 1] and token in (_FOLDERS, _ANY, _STAR)
    seen = list(row)
    for char in path:
        if below and row[m] and char == "/":
            return True  # the glob names a folder and the path is under it
        slash = char == "/"
        new = [False] * (m + 1)
        for j, token in kinds:
            if token == _ANY:
                new[j] = new[j - 1] or row[j]
            elif token == _STAR:
                new[j] = new[j - 1] or (row[j] and not slash)
            elif token == _FOLDERS:
                new[j] = new[j - 1] or (slash and seen[j - 1])
            elif token == _ONE:
                new[j] = row[j - 1] and not slash
            else:
                new[j] = row[j - 1] and char == token
        row = new
        alive = False
        for j in range(m + 1):
            if row[j]:
                seen[j] = alive = True
        if not alive and not any(seen[j - 1] for j in folders):
            return False  # no prefix of the glob is still alive: nothing later can match
    return row[m]


def matches(glob: str, path: str) -> bool:
    """Git-style: the whole `path` matches `glob` (`**/` spans folders, `*` stays inside one)."""
    return _run(_tokens(glob), path, below=False)


def ignore_matches(glob: str, path: str) -> bool:
    """Like .gitignore: a glob without `/` matches a name at any depth, a glob ending in `/` (or
    any glob naming a folder) covers everything under it."""
    text = glob.strip().removeprefix("./")
    text = text + "**" if text.endswith("/") else text
    if "/" not in text.rstrip("/"):
        text = "**/" + text
    return _run(_tokens(text), path.replace("\\", "/").removeprefix("./"), below=True)


def first_match(rel_path: str, globs: list[str]) -> str | None:
    """The first glob covering a repository-relative path (`ignore_matches`), or None."""
    return next((g for g in globs if ignore_matches(g, rel_path)), None)
