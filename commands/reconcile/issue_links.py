"""Commit messages that close a GitHub issue a node was imported from.

`import github` gives a node `source: {tool: github, id: "owner/name#12"}` (or `id: "12"` when the
export named no repository). A commit message closes that node the way GitHub closes the issue when
the commit lands on the default branch: one of GitHub's nine closing keywords, an optional colon, then
`#12`, `owner/name#12` or the issue's URL. Every other spelling that names the number ("see #12",
"(#12)", "part of #12") only mentions it, and so does a keyword after a negation ("partially fixes
#12", "doesn't fix #12"). A revert's message, and a commit a later one reverts, close nothing.

A bare `#12` names an issue of the repository the commit lives in: the GitHub name of one of the
clone's remotes, or, when no remote is on GitHub, the one repository the plan's GitHub sources name
(several, and a bare number names none of them). A reference two nodes answer to names neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from leafwise.store import Node, git, linear

KEYWORDS = r"close|closes|closed|fix|fixes|fixed|resolve|resolves|resolved"
_REPO = r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}"
# group 1: a closing keyword or nothing; group 2: owner/name from a URL; group 3: owner/name before '#';
# group 4: the number. A number glued to a word or a path ("a#12", "x/y/z#12") is no reference.
REFERENCE = linear.compile(
    rf"(?im)(?:\b({KEYWORDS}):?[ \t]+|^|[^\w/#&])"
    rf"(?:https?://github\.com/({_REPO})/issues/|({_REPO})#|#)(\d{{1,9}})\b")
_NEGATION = linear.compile(r"(?i)(?:\bpartially|\bpartly|\bnot|\bnever|n't|\bno)[ \t]+$")
REVERTS = linear.compile(r"(?i)\bthis reverts commit ([0-9a-f]{7,40})\b")
_REPO_NAME = linear.compile(rf"^{_REPO}$")
_GITHUB_REMOTE = linear.compile(r"(?i)github\.com[:/]+(" + _REPO + r")$")
MAX_REFERENCES_PER_MESSAGE = 200  # a planted message naming thousands of issues links the first 200


def references(nodes: Iterable[Node], remotes: frozenset[str]) -> dict[str, str]:
    """{"owner/name#12" or "#12" (lower case): node id} for the nodes imported from GitHub issues."""
    sourced: list[tuple[str, str | None, str]] = []
    for node in nodes:
        found = _source(node.data.get("source"))
        if found is not None:
            sourced.append((node.id, *found))
    named = {repo for _, repo, _ in sourced if repo}
    # a fork's remotes name the fork: the one repository the sources name is the issues' home too
    here = remotes | (frozenset(named) if len(named) == 1 else frozenset())
    keys: dict[str, set[str]] = {}
    for node_id, repo, number in sourced:
        spelled = [f"{repo}#{number}"] if repo is not None else [f"{name}#{number}" for name in here]
        if repo is None or repo in here:  # a bare number is an issue of the repository the commit lives in
            spelled.append(f"#{number}")
        for key in spelled:
            keys.setdefault(key, set()).add(node_id)
    return {key: next(iter(ids)) for key, ids in keys.items() if len(ids) == 1}


def _source(source: object) -> tuple[str | None, str] | None:
    """(owner/name in lower case or None, number) of a `source: {tool: github, id: …}` mapping."""
    if not isinstance(source, Mapping) or source.get("tool") != "github":
        return None
    key = source.get("id")
    if not isinstance(key, str) or len(key) > 220:
        return None
    repo, _, number = key.rpartition("#")
    if not number.isdigit() or not number.isascii() or len(number) > 9:
        return None
    if repo and _REPO_NAME.match(repo) is None:
        return None
    return (repo.lower() or None), str(int(number))


def remotes(root: Path) -> frozenset[str]:
    """The GitHub names (owner/name, lower case) of this clone's remotes; none outside git."""
    try:
        out = git.run_git(root, "config", "-z", "--get-regexp", r"^remote\..*\.url$", deadline=10)
    except git.GitError:
        return frozenset()
    names = set()
    for entry in out.decode("utf-8", "replace").split("\0")[:100]:  # "key\nvalue\0": a value may hold spaces
        url = entry.partition("\n")[2].strip().removesuffix("/").removesuffix(".git")
        match = _GITHUB_REMOTE.search(url)
        if match:
            names.add(match.group(1).lower())
    return frozenset(names)


def named(message: str, refs: Mapping[str, str]) -> dict[str, bool]:
    """{node id: closes} for the nodes `message` names by their GitHub issue, in the order named."""
    found: dict[str, bool] = {}
    if not refs:
        return found
    for count, match in enumerate(REFERENCE.finditer(message)):
        if count >= MAX_REFERENCES_PER_MESSAGE:
            break
        repo = (match.group(2) or match.group(3) or "").lower()
        node_id = refs.get(f"{repo}#{int(match.group(4))}")
        if node_id is None:
            continue
        closes = bool(match.group(1)) and not negated(message, match.start())
        found[node_id] = found.get(node_id, False) or closes
    return found


def negated(message: str, at: int) -> bool:
    """Whether the words just before `at` deny the closing word there ("partially fixes", "doesn't close")."""
    return _NEGATION.search(message[max(0, at - 12):at]) is not None


def reverted(message: str) -> tuple[list[str], str | None] | None:
    """What a revert's message says it reverts: the shas (lower case) and the subject git quotes
    (`Revert "Add export"`); None when the message is no revert."""
    shas = [m.group(1).lower() for m in REVERTS.finditer(message)][:20]
    subject = message.partition("\n")[0]
    quoted = subject[8:-1] if subject[:8] in ('Revert "', "Revert '") and subject[-1:] == subject[7] else None
    return (shas, quoted) if shas or quoted is not None else None
