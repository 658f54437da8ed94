"""Git merge conflicts in node files: split a conflicted file into its sides, report them as problems."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from leafwise.commands.contract import CommandLine
from leafwise.commands.text import plan_words
from leafwise.store import Plan, Problem, git
from leafwise.store.loader import Refused, check_node, parse_yaml, read_bounded

CONFLICT_MARKERS = ("<<<<<<<", "=======", ">>>>>>>")
_ABSENT = object()  # a key one side does not have


@dataclass(frozen=True, slots=True)
class MergeConflict:
    """A node file git left with conflict markers, split into its two sides."""

    ours: str
    theirs: str
    line: int  # of the first marker
    same_node: bool  # both sides are edits of one node (not two nodes sharing an id)
    fields: tuple[str, ...] = ()  # the top-level keys the two sides differ in, in ours' order



def conflict_sides(text: str) -> tuple[str, str, int] | None:
    """(ours, theirs, first marker line) of a text with git conflict markers, else None.

    Lines outside the hunks belong to both sides; a diff3 base section is dropped.
    """
    ours: list[str] = []
    theirs: list[str] = []
    state, first = "both", 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if line.startswith("<<<<<<<") and state == "both":
            state, first = "ours", first or number
        elif line.startswith("|||||||") and state == "ours":
            state = "base"
        elif line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
        elif line.startswith(">>>>>>>") and state == "theirs":
            state = "both"
        elif state in ("both", "ours"):
            ours.append(line)
            if state == "both":
                theirs.append(line)
        elif state == "theirs":
            theirs.append(line)
    if not first or state != "both":
        return None
    return "".join(ours), "".join(theirs), first



_ASK = object()  # merge_conflict's `base` not given: git is asked of this one file


def merge_conflict(raw: bytes, node_id: str, file: Path | None = None, base: object = _ASK) -> MergeConflict | None:
    """The two sides of a conflicted node file, when each is a valid node.

    Two edits of one node share a merge base; two nodes that took one id
    (add/add) do not. git knows which while the merge is unresolved (`file`);
    otherwise only an equal `created` and title make it one node: a wrong
    split keeps both versions, a wrong "resolve by hand" could lose one.
    """
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return None
    if not any(marker in text for marker in CONFLICT_MARKERS):
        return None
    sides = conflict_sides(text)
    if sides is None:
        return None
    ours, theirs, line = sides
    try:
        a = check_node(parse_yaml(ours), node_id)
        b = check_node(parse_yaml(theirs), node_id)
    except Exception:  # noqa: BLE001 - a side that does not parse: not splittable
        return None
    same = base if base is not _ASK else _has_merge_base(file) if file is not None else None
    if same is None:
        same = a.get("created") == b.get("created") and a.get("title") == b.get("title")
    fields = tuple(k for k in dict.fromkeys([*a, *b]) if a.get(k, _ABSENT) != b.get(k, _ABSENT))
    return MergeConflict(ours, theirs, line, same, fields)



def _has_merge_base(file: Path) -> bool | None:
    """Whether git's unresolved entry for `file` has a base version (None: git does not know).

    Asked of the plan's own repository through the one runner: git started in the node folder
    would take a repository planted there for the plan's.
    """
    try:
        out = git.run_git(file.parent, "ls-files", "-u", "-z", "--", git.pin(file.parent).rel(file))
    except git.GitError:
        return None
    # each entry: "<mode> <object> <stage>\t<path>"
    stages = {entry.split(b"\t", 1)[0].split()[-1] for entry in out.split(b"\0") if b"\t" in entry}
    return (b"1" in stages) if stages else None


def merge_bases(plan: Plan) -> dict[str, bool]:
    """Each unresolved node file (its path from the repository's top) -> whether git's entry has a base
    version, from one `ls-files -u` of the node folder: a clone of 30,000 conflicted node files costs one
    git process, not one each. {} when git does not know."""
    try:
        repo = git.pin(plan.paths.repo)
        out = git.run_git(plan.paths.repo, "ls-files", "-u", "-z", "--", repo.rel(plan.paths.nodes))
        top = repo.rel(plan.paths.repo)
    except git.GitError:
        return {}
    found: dict[str, bool] = {}
    for entry in out.split(b"\0"):
        head, tab, name = entry.partition(b"\t")
        if not tab or not head.split():
            continue
        path = name.decode("utf-8", "surrogateescape")
        rel = path if top == "." else path.removeprefix(top + "/")
        found[rel] = found.get(rel, False) or head.split()[-1] == b"1"
    return found



def with_merge_conflicts(plan: Plan, cmd: CommandLine) -> list[Problem]:
    """The plan's load problems, with git conflicts in node files named as such, and files git checks
    out in another encoding named with the attribute that does it (`checkout_encodings`).

    Two nodes given one id on different clones (an add/add conflict) become
    `duplicate_id`, fixed by `renumber`; two edits of one node become
    `merge_conflict`, resolved by hand.
    """
    return checkout_encodings(plan, _with_merge_conflicts(plan, cmd))


ENCODING_ATTRIBUTE = "working-tree-encoding"
MAX_ASKED = 200  # files one `check-attr` names: a plan of 30,000 broken files costs one git call


def checkout_encodings(plan: Plan, problems: list[Problem]) -> list[Problem]:
    """`problems`, each file that does not load because git writes it to the work tree in another encoding
    (a `.gitattributes` line `.leafwise/** working-tree-encoding=UTF-16LE`: the committed bytes stay UTF-8,
    the checked-out ones are UTF-16, and every clone's plan reads as NUL characters) named with that
    attribute, from one `git check-attr` of the failing files."""
    failing = [p for p in problems if p.code in ("yaml_error", "not_utf8") and p.file]
    if not failing:
        return problems
    files = list(dict.fromkeys(p.file for p in failing))[:MAX_ASKED]
    try:
        repo = git.pin(plan.paths.repo)
        rels = [repo.rel(plan.paths.repo / f) for f in files]
        out = git.run_git(plan.paths.repo, "check-attr", "-z", ENCODING_ATTRIBUTE, "--", *rels)
    except git.GitError:
        return problems
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    encoded = {path: value for path, _attr, value in zip(fields[0::3], fields[1::3], fields[2::3])
               if value not in ("unspecified", "unset", "set", "")}
    by_rel = dict(zip(files, rels))
    return [p if by_rel.get(p.file or "") not in encoded else
            Problem(p.code, p.severity, f"{p.message} — git writes this file to the work tree as "
                    f"{plan_words(encoded[by_rel[p.file]], 40)} ({ENCODING_ATTRIBUTE} in a .gitattributes file; "
                    "the committed file is UTF-8)", f"git check-attr {ENCODING_ATTRIBUTE} -- {by_rel[p.file]}",
                    node=p.node, file=p.file, line=p.line)
            for p in problems]


def _with_merge_conflicts(plan: Plan, cmd: CommandLine) -> list[Problem]:
    out: list[Problem] = []
    bases: dict[str, bool] | None = None
    for problem in plan.problems:
        found = None
        if problem.code == "yaml_error" and problem.node and problem.file:
            try:
                path = plan.paths.repo / problem.file
                raw = read_bounded(path)
                if bases is None and any(marker.encode() in raw for marker in CONFLICT_MARKERS):
                    bases = merge_bases(plan)  # asked once, on the first file with markers
                found = merge_conflict(raw, problem.node, path, (bases or {}).get(problem.file))
            except (OSError, Refused):  # gone, a link or not a file: the load problem stands as it is
                found = None
        if found is None:
            out.append(problem)
        elif found.same_node:
            out.append(Problem("merge_conflict", "error", _two_edits(found), f"git mergetool {problem.file}",
                               node=problem.node, file=problem.file, line=found.line))
        else:
            out.append(Problem("duplicate_id", "error",
                               f"two different nodes got the id {problem.node} on different branches",
                               cmd("renumber", problem.node), node=problem.node, file=problem.file,
                               line=found.line))
    return out


def _two_edits(found: MergeConflict) -> str:
    """What the conflict is: the fields the two edits set differently, as the markers leave them."""
    if not found.fields:
        return "git left conflict markers: two edits of this node"
    # a side's keys are a clone author's text (a newline and `Next:` in one): each named as plan words
    named = ", ".join(plan_words(field, 60) for field in found.fields[:8]) + (" …" if len(found.fields) > 8 else "")
    return (f"git left conflict markers: two edits of this node set {named} differently "
            "(keep one side of each <<<<<<< … >>>>>>> block, then git add the file)")
