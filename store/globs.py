"""Matching paths against globs from plan files, in time linear in the path.

A glob comes from a plan file, which is untrusted (docs/security.md): a regex built from it can
backtrack for minutes (`**/**/**/…zz` against a long path). Here a glob is a list of tokens
matched by one pass over the path that keeps, per token, whether the path so far matches the
glob up to it, as the bits of one integer: a few integer operations per character of the path,
each over len(glob) bits, whatever the glob: a long glob costs machine words, not a Python loop
over its tokens for every character of every file.

Tokens: `**/` (zero or more whole folders), `**` (anything, `/` included), `*` (anything inside
one folder), `?` (one character but `/`); every other character stands for itself.
"""

from __future__ import annotations

from functools import lru_cache

MAX_GLOB = 1024  # characters: no real glob is longer (a path is at most 4,096 bytes); a longer one matches nothing
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


class _Glob:
    """The glob's tokens as bit masks: state j (bit j) is "the path so far matches tokens[:j]", and
    one step over a character is a few operations on Python integers, so a long glob costs its
    length in machine words per character, never a Python loop over its tokens."""

    __slots__ = ("final", "lit", "one", "star", "anything", "folder", "eps_all", "eps_start", "eps_top")

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self.final = 1 << len(tokens)
        self.lit: dict[str, int] = {}  # char -> the states a literal token of it leaves
        self.one = self.star = self.anything = self.folder = 0
        eps = 0
        for j, token in enumerate(tokens, 1):
            bit, before = 1 << j, 1 << (j - 1)
            if token == _ANY:
                self.anything |= bit
            elif token == _STAR:
                self.star |= bit
            elif token == _FOLDERS:
                self.folder |= before
            elif token == _ONE:
                self.one |= before
            else:
                self.lit[token] = self.lit.get(token, 0) | before
            if token in (_FOLDERS, _ANY, _STAR):
                eps |= bit
        # each run of tokens that match nothing: the state before it (start) and its top bit, for the
        # carry that fills a run upward from its lowest live state in one subtraction (Navarro-Raffinot)
        self.eps_all = eps
        self.eps_start = (eps & ~(eps << 1)) >> 1
        self.eps_top = eps & ~(eps >> 1)

    def close(self, row: int) -> int:
        """`row` with every state reachable through tokens that match nothing."""
        filled = row | self.eps_top
        return row | (self.eps_all & (~(filled - self.eps_start) ^ filled))


@lru_cache(maxsize=512)
def _compiled(glob: str) -> _Glob:
    return _Glob(_tokens(glob))


def _run(glob: str, path: str, below: bool) -> bool:
    """Whether `path` matches the glob whole (with `below`: or a folder the glob matches, then `/…`)."""
    g = _compiled(glob)
    final, lit, one, star, anything, folder = g.final, g.lit, g.one, g.star, g.anything, g.folder
    row = g.close(1)
    seen = row  # the states some row so far had (for `**/`'s `.*/`)
    for char in path:
        if char == "/":
            if below and row & final:
                return True  # the glob names a folder and the path is under it
            new = (row & lit.get(char, 0)) << 1 | row & anything | (seen & folder) << 1
        else:
            new = (row & (lit.get(char, 0) | one)) << 1 | row & (star | anything)
        row = g.close(new)
        if not row and not seen & folder:
            return False  # no prefix of the glob is still alive: nothing later can match
        seen |= row
    return bool(row & final)


def matches(glob: str, path: str) -> bool:
    """Git-style: the whole `path` matches `glob` (`**/` spans folders, `*` stays inside one)."""
    if len(glob) > MAX_GLOB:
        return False
    return _run(glob, path, below=False)


def ignore_matches(glob: str, path: str) -> bool:
    """Like .gitignore: a glob without `/` matches a name at any depth, a glob ending in `/` (or
    any glob naming a folder) covers everything under it."""
    text = glob.strip().removeprefix("./")
    if len(text) > MAX_GLOB:
        return False
    text = text + "**" if text.endswith("/") else text
    if "/" not in text.rstrip("/"):
        text = "**/" + text
    return _run(text, path.replace("\\", "/").removeprefix("./"), below=True)


def first_match(rel_path: str, globs: list[str]) -> str | None:
    """The first glob covering a repository-relative path (`ignore_matches`), or None."""
    return next((g for g in globs if ignore_matches(g, rel_path)), None)
