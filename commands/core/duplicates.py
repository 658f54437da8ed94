"""When a new title repeats an open node's work (the near-duplicate rule `add` refuses on).

Two titles name the same work when their words are the same once case, plurals, punctuation and little
words ("the", "to", "as", "via"…) are set aside, or when they differ only by one-letter slips in long words
(colour ~ color, remove ~ removed), or when they spell the same letters split differently (log in ~ login).
Any other differing word is the one that tells the work apart, so:

- a child that names its parent's (or any ancestor's) topic and adds to it ("Bash shell completion" under
  "Shell completion") is not its duplicate: "bash" is a word the ancestor does not have;
- siblings that differ in their distinguishing word ("Zsh …" / "Fish … shell completion", "Python 3.13" /
  "Python 3.14") are not duplicates;
- "Add CSV export" ~ "Add CSV exports" and "Export orders as CSV" ~ "Export orders to CSV" are.

Measured on hand-labelled pairs: tests/core/data/duplicate_pairs.json, tests/core/test_duplicates.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

# Words that carry no work of their own: "export as CSV" and "export to CSV" are one task.
LITTLE_WORDS = frozenset(
    "a an the to as for of in on at by via with into from and this that its".split())
SLIP_MIN_LENGTH = 5  # a one-letter difference in a shorter word is another word (bash ~ bast, zsh ~ ssh)
_WORD = re.compile(r"[^\W_]+")  # letters and digits; `flag_value` and `help-text` are two words each


@dataclass(frozen=True)
class Match:
    """The open node a new title repeats, and why it counts as the same work."""
    id: str
    title: str
    why: str


@dataclass(frozen=True)
class _Key:
    words: frozenset[str]  # the title's words that carry work, each in its singular form
    letters: str  # every word, joined: "log in with SSO" and "login with SSO" spell the same


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)  # `add` compares against every open title; a plan's titles repeat between calls
def _key(title: str) -> _Key:
    words = [_singular(w) for w in _WORD.findall(title.casefold())]
    carrying = frozenset(w for w in words if w not in LITTLE_WORDS) or frozenset(words)
    return _Key(carrying, "".join(words))


def _one_slip(a: str, b: str) -> bool:
    """`a` and `b` differ by one inserted, deleted or changed letter (Levenshtein distance 1)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
    return a[i + (len(a) == len(b)):] == b[i + 1:]


def _slips(left: frozenset[str], right: frozenset[str]) -> list[tuple[str, str]] | None:
    """Pair each word only one side has with a word of the other side it is a slip of; None if one is not."""
    if len(left) != len(right) or len(left) > 2:
        return None
    pairs: list[tuple[str, str]] = []
    rest = set(right)
    for word in sorted(left):
        if len(word) < SLIP_MIN_LENGTH or any(c.isdigit() for c in word):
            return None
        other = next((r for r in sorted(rest) if len(r) >= SLIP_MIN_LENGTH and _one_slip(word, r)), None)
        if other is None:
            return None
        rest.discard(other)
        pairs.append((word, other))
    return pairs


def same_work(new: str, existing: str) -> str | None:
    """Why `new` repeats `existing` (a few words a person can check), or None when it names other work."""
    a, b = _key(new), _key(existing)
    if a.words == b.words:
        return "the same words"
    if a.letters == b.letters:
        return "the same letters"
    pairs = _slips(a.words - b.words, b.words - a.words)
    if pairs:
        return "the same words but " + ", ".join(f"{x} ~ {y}" for x, y in pairs)
    return None


def _probes(title: str) -> list[tuple[str, str]]:
    """Each word of `title` that carries work, as its first and last three letters."""
    return [(w[:3], w[-3:]) for w in _key(title).words]


def _may_match(probes: list[tuple[str, str]], existing: str) -> bool:
    """A quick gate before the words are compared: every way of repeating work keeps all but at most two
    of the words (the slips), and a kept word keeps its first or last three letters in the other title."""
    low = existing.casefold()
    kept = sum(head in low or tail in low for head, tail in probes)
    return kept >= max(1, len(probes) - 2)


def find(title: str, candidates: Iterable[tuple[str, str]]) -> Match | None:
    """The first candidate `(id, title)` whose work `title` repeats, or None."""
    probes = _probes(title)  # `add` on an 11,000-node plan compares against every open title
    for node_id, existing in candidates:
        if not _may_match(probes, existing):
            continue
        why = same_work(title, existing)
        if why is not None:
            return Match(node_id, existing, why)
    return None
