"""The commit a verify packet shows: one whose message names the node (its id, or the GitHub issue it was
imported from, closing it or not), else one whose subject names the title's head concept. Each found is
(sha, subject, why, score); for an imported issue's commit, also the code files it changed (where the
feature was done), which the packet puts first."""

from __future__ import annotations

from pathlib import Path

from leafwise.commands.reconcile import issue_links
from leafwise.commands.reconcile.artifacts import Index
from leafwise.commands.reconcile.retrieve import key
from leafwise.store import Node, git
from leafwise.store.ids import find_ids

LOG_LIMIT = 2000  # commits whose subjects are searched for the title's words
TOUCHED = 40  # files of the issue's commit looked at

Found = tuple[str, str, str, float]  # sha, subject, why, score


def naming(root: Path, node_id: str, weights: dict[str, float], head: str | None) -> list[Found]:
    """Commits whose subject names the node, or the title's head concept and half its weight."""
    if head is None:
        return []
    try:
        out = git.run_git(root, "log", f"-n{LOG_LIMIT}", "--format=%H%x1f%s%x1e", "--", git.pin(root).rel(root))
    except git.GitError:
        return []
    from leafwise.commands.reconcile.text import identifier_concepts

    total = sum(weights.values()) or 1.0
    wanted = {key(c): c for c in weights}
    found: list[Found] = []
    for record in out.decode("utf-8", "replace").split("\x1e"):
        sha, _, subject = record.strip("\n").partition("\x1f")
        if not git.object_id(sha):  # none, or a record a message forged with the format's separators
            continue
        if node_id in find_ids(subject):  # the id itself: P1-2 is not P1-23
            return [(sha, subject, f"the commit names {node_id}", 1.0)]
        named = {wanted[k] for k in (key(w) for w in identifier_concepts(subject)) if k in wanted}
        score = sum(weights[c] for c in named) / total
        if head in named and score >= 0.5 and not found:
            found.append((sha, subject, f"the commit's subject names {', '.join(sorted(named))}", round(score, 3)))
    return found


def of_issue(root: Path, node: Node, index: Index) -> tuple[Found, list[str]] | None:
    """The newest commit that closes the GitHub issue the node was imported from (else the newest that
    names it; a reverted one never), and the indexed files it changed."""
    from leafwise.commands.reconcile.checks import commits_by_node

    if not isinstance(node.data.get("source"), dict):  # not imported: no git call
        return None
    refs = issue_links.references([node], issue_links.remotes(root))
    if not refs:
        return None
    found = commits_by_node(root, limit=LOG_LIMIT, issues=refs).get(node.id, [])
    commit = next((c for c in found if c.closes), found[0] if found else None)
    if commit is None:
        return None
    prefix = git.pin(root).rel(root)
    try:
        out = git.run_git(root, "log", "-n1", "--name-only", "--format=", commit.sha, "--", prefix)
    except git.GitError:
        out = b""
    prefix = "" if prefix in ("", ".") else prefix.rstrip("/") + "/"
    files = [line.removeprefix(prefix) for line in out.decode("utf-8", "replace").splitlines()[:200]
             if line.startswith(prefix)]
    code = [f for f in files if f in index.texts or f in index.files][:TOUCHED]
    why = f"the commit {'closes' if commit.closes else 'names'} the issue {node.id} was imported from"
    return (commit.sha, commit.subject, why, 1.0), code
