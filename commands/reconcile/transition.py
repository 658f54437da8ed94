"""Renames and replacements: "Rename X to Y", "Replace X with Y", "Migrate from X to Y".

Such a draft is about a change from an old thing to a new one, so evidence of the old name is
evidence that the change has *not* happened: "Rename wait_random_exponential to wait_full_jitter"
must not ship on the `wait_random_exponential` class (a real trial's trap). It is shipped only when
the new thing is in the code and the old one is gone or marked deprecated (docs/reconcile.md,
"Renames and replacements").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from leafwise.commands.reconcile.artifacts import Artifact
from leafwise.commands.reconcile.retrieve import RIndex, category, key
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import reader

_ARTICLE = r"(?:(?:the|a|an|our|my|its|their)\s+)?"
# old → new, in the order the title says them; group `old` and `new` in each alternative
_PATTERNS = [
    re.compile(rf"^\s*rename\s+{_ARTICLE}(?P<old>.+?)\s+(?:to|as|into)\s+(?P<new>.+?)\s*$", re.I),
    re.compile(rf"^\s*replace\s+{_ARTICLE}(?P<old>.+?)\s+(?:with|by)\s+(?P<new>.+?)\s*$", re.I),
    re.compile(rf"^\s*(?:migrate|move|switch|change|port|upgrade|convert|go)\s+(?:\w+\s+)?from\s+{_ARTICLE}"
               rf"(?P<old>.+?)\s+(?:to|onto|into)\s+(?P<new>.+?)\s*$", re.I),
    re.compile(rf"^\s*(?:deprecate|drop|retire|remove)\s+{_ARTICLE}(?P<old>.+?)\s+in\s+favou?r\s+of\s+"
               rf"(?P<new>.+?)\s*$", re.I),
    # not "use Y instead of X": that is often an option beside X ("use uv instead of pip"), not a change
]
_LEADING = re.compile(r"^(?:(?:the|a|an|our|my|its|their)\s+)+", re.I)
_QUOTES = "`'\"“”‘’"


@dataclass
class Transition:
    old: str
    new: str


def parse(title: str) -> Transition | None:
    """The old and the new thing of a rename or replacement title, or None for any other title."""
    for pattern in _PATTERNS:
        m = pattern.match(title)
        if m:
            old, new = (_LEADING.sub("", m.group(g)).strip(_QUOTES + " .") for g in ("old", "new"))
            if old and new:
                return Transition(old, new)
    return None


def _deprecation(ks: frozenset[str]) -> bool:
    return any(k.startswith(("deprec", "obsolet")) for k in ks)


@dataclass
class Judgement:
    """What the code says of a transition: where the new thing is, where the old one still is."""

    new_at: Artifact | None = None  # a named code document that names the new thing
    new_also: Artifact | None = None  # another source (test, docs, UI text, message) naming it
    old_at: Artifact | None = None  # code that still names the old thing
    deprecated_at: Artifact | None = None  # the old thing marked deprecated
    reasons: list[str] = field(default_factory=list)
    concepts: frozenset[str] = frozenset()  # the concepts of both parts, to show what the evidence names

    @property
    def happened(self) -> bool:
        return self.new_at is not None and (self.old_at is None or self.deprecated_at is not None)


def _where(a: Artifact) -> str:
    return f"{a.path}:{a.line}"


def judge(t: Transition, concepts_of_part, rindex: RIndex, root: Path | None = None) -> Judgement | None:
    """`concepts_of_part(text)`: the concepts a part of the title weighs (match.weigh's keys); `root`: the
    repository, to read whether the code that names the old thing marks it deprecated.

    None when the old or the new part names nothing the engine can look for."""
    old_concepts, new_concepts = frozenset(concepts_of_part(t.old)), frozenset(concepts_of_part(t.new))
    old = frozenset(key(c) for c in old_concepts)
    new = frozenset(key(c) for c in new_concepts)
    if not old or not new or old == new:
        return None
    j = Judgement(concepts=old_concepts | new_concepts)
    named: Artifact | None = None  # a code document whose own name names the new thing
    for i in _all_of(new, rindex):
        doc = rindex.docs[i]
        cat = category(doc)
        if cat == "code" and (doc.kind != "body" or new <= rindex.own.get(i, frozenset())):
            if named is None and new <= _name_keys(doc):
                named = doc
            if j.new_at is None:
                j.new_at = doc
        elif cat in ("test", "docs", "ui", "text") and j.new_also is None:
            j.new_also = doc
    j.new_at = named or j.new_at
    lines: dict[str, list[str]] = {}
    seen = 0
    for i in _all_of(old, rindex):
        doc = rindex.docs[i]
        cat = category(doc)
        ks = rindex.keys[i]
        if old < new and new <= ks:
            continue  # the new name holds the old one ("wait_exponential" in "wait_random_exponential")
        if cat != "code" or (doc.kind != "body" and not old <= _name_keys(doc)):
            continue  # a docstring that says the old words ("random, exponentially widening") is not the name
        if j.deprecated_at is None and (_deprecation(ks) or (root is not None and seen < MAX_READ
                                                              and _marked_deprecated(root, doc, lines))):
            j.deprecated_at = doc
        seen += 1
        if j.old_at is None:
            j.old_at = doc
    if j.new_at is None:
        j.reasons.append(f"nothing in the code names {t.new!r}, the new name")
    if j.old_at is not None and j.deprecated_at is None:
        j.reasons.append(f"{t.old!r} is still in the code ({_where(j.old_at)}) and not marked deprecated: "
                         f"the change to {t.new!r} has not happened")
    return j


MAX_READ = 40  # code documents naming the old thing whose source is read for a deprecation mark
_DEPRECATED = re.compile(r"deprecat|obsolete", re.I)
_ABOVE = re.compile(r"^\s*(@|#|//|/\*|\*)")  # decorators and comments just above a definition


def _marked_deprecated(root: Path, doc: Artifact, cache: dict[str, list[str]]) -> bool:
    """Does the code mark this definition deprecated: a decorator or comment just above it
    (`@deprecated`, `/** @deprecated */`), or a deprecation word in its own lines (a docstring, a
    `DeprecationWarning`)? Its own lines: from its line to the next line indented as little as it.

    Documents leave deprecated sentences out (they do not say what the project does), so the
    source is read here, only for the few definitions a rename names."""
    if doc.path not in cache:
        try:
            cache[doc.path] = reader.lines(reader.read_text(root / doc.path, reader.CODE, under=root))
        except (OSError, ValueError):  # gone, too large, a link or not a file (reader.Refused)
            cache[doc.path] = []
    text = cache[doc.path]
    at = doc.line - 1
    if not 0 <= at < len(text):
        return False
    above = at - 1
    while above >= 0 and at - above <= 8 and _ABOVE.match(text[above]):
        if _DEPRECATED.search(text[above]):
            return True
        above -= 1
    indent = len(text[at]) - len(text[at].lstrip())
    for k in range(at, min(len(text), at + 40)):
        line = text[k]
        if k > at and line.strip() and len(line) - len(line.lstrip()) <= indent and not line.lstrip().startswith(
                (")", "]", "}", '"""', "'''")):
            break
        if _DEPRECATED.search(line):
            return True
    return False


def _name_keys(doc: Artifact) -> frozenset[str]:
    return frozenset(key(c) for c in identifier_concepts(doc.name))


def _all_of(ks: frozenset[str], rindex: RIndex) -> list[int]:
    """Documents naming every key, in document order."""
    lists = sorted((rindex.by_key.get(k, []) for k in ks), key=len)
    if not lists or not lists[0]:
        return []
    common = set(lists[0])
    for other in lists[1:]:
        common &= set(other)
        if not common:
            return []
    return sorted(common)
