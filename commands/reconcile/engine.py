"""Reconcile's core: which draft leaves to look at, and a suggestion for each.

`suggest()` is pure reading (it never writes the plan); `commands/reconcile.py`
turns its report into the envelope and applies what is shipped.
"""

from __future__ import annotations

import gc
import string
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict

from leafwise.commands.reconcile import issue_links, transition
from leafwise.commands.reconcile.artifacts import Artifact, Index
from leafwise.commands.reconcile.closing_change import Budget, Standing, names, significant, standing
from leafwise.commands.reconcile.checks import CheckResult, Commit, commits_by_node, declared, run_checks
from leafwise.commands.reconcile.match import (
    Assessment,
    Found,
    Stats,
    Weighed,
    assess,
    assess_meaning,
    weigh,
)
from leafwise.commands.reconcile.meaning import opposites
from leafwise.commands.reconcile.documents import kind_of
from leafwise.commands.reconcile.retrieve import MEASURED, Hit, Retrieval, RIndex, one_word, retrieve
from leafwise.commands.reconcile.scan import build_index
from leafwise.commands.reconcile.text import ACTORS, GENERIC, STOP, concepts_of, identifier_concepts, split_identifier
from leafwise.commands.reconcile.title import parse_title
from leafwise.store import Node, Plan, Status
from leafwise.store.ids import id_order

DECLARED_WEIGHT = 1.0
# What may alone show a feature shipped by its name: an API definition, an option, a flag, an
# entry point. A model or a field alone is data, not a feature; an app with a UI needs the
# entry-point rules (UI evidence) instead.
MEANING_LEADS = frozenset({"definition", "symbol", "option", "flag", "route", "cli"})
CLOSING_COMMIT_WEIGHT = 0.8
MAX_CLOSING_READ = 3  # closing commits of one node whose code is compared at most (newest first)
MAX_STANDING_READS = 200  # closing commits compared in one run (each costs up to 19 git calls)
MENTION_COMMIT_WEIGHT = 0.3
# The bands. `shipped` is what measured at least 0.95 precision on the held-out half: a passing
# declared check, a commit that says it closes the node. Every lexical rule measured below that on
# the held-out half, so what they find is `likely`: a lead for `leafwise verify` or a person, reported
# at the share of the lexical rules' shipped answers that were right there (retrieve.MEASURED).
LIKELY = "likely"
LIKELY_CONFIDENCE = MEASURED
# A partial the search scored at LEAD_FLOOR or more is a lead too (what most shipped drafts score:
# the words are there, no rule's bar is met), when code names it: not only the docs, not a model or a
# field alone, more than one word of a long title. Chosen on the development half; LEAD_CONFIDENCE is
# the share of these leads that were right there. A rename not done, a failing check, code that does
# the opposite or a title word no code names stays partial.
LEAD_FLOOR = 0.4
LEAD_CONFIDENCE = 0.63  # 120 right of 190 on the development half
UNNAMED_CONFIDENCE = 0.4
# Inflections a title word may carry in the code and still be the same word (callback, callbacks).
ENDINGS = ("", "s", "es", "ed", "d", "ing", "er", "ers")
ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # keeps every index in place


class Evidence(TypedDict, total=False):
    """One piece of evidence: where (file and line; a commit has no line) and what it shows."""

    kind: str  # definition, symbol, route, test, doc, string, declared, commit, ...
    path: str
    line: int | None
    snippet: str
    weight: float
    name: str
    matched: list[str]


class Suggestion(TypedDict, total=False):
    """What reconcile says of one draft leaf: the `suggestions` items of its answer, on every surface."""

    id: str
    title: str
    verdict: str  # shipped | likely | partial | none
    confidence: float
    evidence: list[Evidence]
    missing: list[str]
    reason: str


@dataclass
class Report:
    suggestions: list[Suggestion]
    scanned_files: int
    indexed: int  # artifacts found in those files
    seconds: float
    in_git: bool
    off_limits: list[str] = field(default_factory=list)


def draft_leaves(plan: Plan, node_id: str | None = None, release: str | None = None) -> list[Node]:
    """Draft leaves, nearest release first (release order, then id); under `node_id` if given."""
    if node_id:
        root = plan.nodes[node_id]
        pool = [root] if not root.children else list(plan.descendants(node_id))
    else:
        pool = list(plan.nodes.values())
    rank = plan.project.release_rank()
    last = len(rank)
    leaves = [n for n in pool if n.status == Status.DRAFT and not n.children
              and (release is None or n.effective_release == release)]
    return sorted(leaves, key=lambda n: (rank.get(n.effective_release, last), id_order(n.id)))


def suggest(plan: Plan, nodes: list[Node], off_limits: list[str] | None = None,
            run_commands: bool = True, explain: bool = False) -> Report:
    """Suggestions for `nodes`; `off_limits` is only reported (reading is allowed, --apply checks writes)."""
    # the index is hundreds of thousands of small objects that live until the answer: the cyclic
    # collector would walk them again and again while they are built, and free none of them
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _suggest(plan, nodes, off_limits, run_commands, explain)
    finally:
        if collecting:
            gc.enable()


def _suggest(plan: Plan, nodes: list[Node], off_limits: list[str] | None,
             run_commands: bool, explain: bool) -> Report:
    started = time.perf_counter()
    index = build_index(Path(plan.paths.repo))
    stats = Stats.of(index)
    by_concept: dict[str, list[Artifact]] = {}
    for art in index.artifacts:
        for c in art.words:
            by_concept.setdefault(c, []).append(art)
    commits = commits_by_node(index.root, issues=_issues(nodes, index.root)) if nodes and index.in_git else {}
    paths = {f: identifier_concepts(f.rsplit(".", 1)[0]) for f in index.files}
    rindex = RIndex.of(index) if nodes else None
    code = _Code(index)
    suggestions = [_one(node, index, stats, by_concept, commits.get(node.id, []), run_commands, paths, explain,
                        rindex, code) for node in nodes]
    return Report(suggestions, len(index.files), len(index.artifacts), round(time.perf_counter() - started, 3),
                  index.in_git, list(off_limits or []))


def closed_by_commits(plan: Plan) -> list[Node]:
    """Draft leaves a commit message says are finished ("closes SHOP-7"): one `git log`, no scan.

    Cheap enough for `progress` to ask whether reconcile is worth running.
    """
    drafts = {n.id: n for n in plan.nodes.values() if n.status == Status.DRAFT and not n.children}
    if not drafts:
        return []
    root = Path(plan.paths.repo)
    commits = commits_by_node(root, limit=500, issues=_issues(drafts.values(), root))
    return [drafts[i] for i in sorted(drafts, key=id_order) if any(c.closes for c in commits.get(i, ()))]


def _issues(nodes: Iterable[Node], root: Path) -> dict[str, str]:
    """The GitHub issue references of the nodes imported from GitHub ({} when none was: no git call)."""
    nodes = list(nodes)
    if not any(isinstance(n.data.get("source"), dict) for n in nodes):
        return {}
    return issue_links.references(nodes, issue_links.remotes(root))


def _one(node: Node, index: Index, stats: Stats, by_concept: dict[str, list[Artifact]],
         commits: list[Commit], run_commands: bool, paths: dict[str, frozenset[str]] | None = None,
         explain: bool = False, rindex: RIndex | None = None, code: _Code | None = None) -> Suggestion:
    description = node.data.get("description")
    description = description if isinstance(description, str) else ""
    query = parse_title(node.title, description)
    found = assess(query, by_concept, stats, index.has_ui)
    weighed = weigh(node.title, description, stats)
    wanted = explain or (found.verdict != "shipped" and not (index.has_ui and not query.headless))
    meaning = assess_meaning(weighed, by_concept, paths or {}) if wanted else ("none", 0.0, [], ["not asked"])
    by_entry_points = found
    if found.verdict != "shipped" and meaning[0] == "shipped" and meaning[2][0].art.kind in MEANING_LEADS \
            and not _constant(meaning[2][0].art) \
            and not (index.has_ui and not query.headless):
        # A definition (function, class, option, flag, route ...) whose own name carries the
        # title's meaning: shipped, with its file and line as the evidence.
        found = Assessment("shipped", meaning[1],
                           [Found(s.art, s.matched | s.via_soft, s.score, s.own) for s in meaning[2][:3]],
                           [f"{s.art.kind} {s.art.name} ({s.art.path}:{s.art.line})" for s in meaning[2][:3]],
                           [f"the evidence does not show {weighed.words[c]!r}" for c in weighed.weights
                            if c not in meaning[2][0].matched | meaning[2][0].via_soft | meaning[2][0].via_path])
    searched = retrieve(weighed.weights, weighed.why, weighed.soft, rindex or RIndex.of(index),
                        needs_ui=index.has_ui and not query.headless, lexical=weighed.lexical,
                        action=weighed.action)
    if searched.verdict == "shipped" and (found.verdict != "shipped"
                                          or (found is not by_entry_points and _leads_better(searched, found))):
        # Many sources agree: a code document (definition, route, flag, function) covers the
        # title, and tests, UI text or docs say the same; each piece with its file and line.
        found = Assessment("shipped", searched.confidence, [_hit_found(h) for h in searched.evidence],
                           [f"{h.doc.kind} {h.doc.name} ({h.doc.path}:{h.doc.line})" for h in searched.evidence],
                           [f"the evidence does not show {weighed.words[c]!r}" for c in weighed.weights
                            if c not in searched.evidence[0].covered])
    elif searched.verdict == "partial":
        found = _searched_partial(found, searched, weighed)
    found = _opposite(found, weighed)
    change = transition.parse(node.title)
    judged = transition.judge(change, lambda part: weigh(part, "", stats).weights, rindex or RIndex.of(index),
                              Path(index.root)) if change else None
    if judged is not None:
        found = _transition(found, judged)
    checks = run_checks(declared(node.data), index, allow_commands=run_commands)
    combined = _combine(found, checks, commits, judged is None and _a_lead(found, weighed),
                        _closing_standing(Path(index.root), commits, code or _Code(index)) if not checks else None)
    verdict, confidence, missing, exists = _unnamed(node.title, combined, code or _Code(index))
    evidence = [_check_evidence(c) for c in checks if c.passed]
    evidence += [_commit_evidence(c) for c in commits[:3]]
    evidence += [_found_evidence(f) for f in found.evidence] if verdict != "none" else []
    return {
        "id": node.id, "title": node.title, "release": node.effective_release,
        "verdict": verdict, "confidence": confidence, "evidence": evidence,
        **({"lead": "commit" if not checks and any(c.closes for c in commits) else
            "rule" if found.verdict == "shipped" else "words"} if verdict == LIKELY else {}),  # what made it
        "missing": missing, "exists": exists,
        "checks": [{"check": c.label, "passed": c.passed, "path": c.path, "line": c.line, "detail": c.snippet}
                   for c in checks],
        "commits": [{"sha": c.sha[:12], "subject": c.subject, "closes": c.closes} for c in commits[:5]],
        **({"explain": _explain(query, weighed, meaning, by_entry_points, checks, searched, judged)}
           if explain else {}),
    }


def _searched_partial(found: Assessment, searched: Retrieval, weighed: Weighed) -> Assessment:
    """The entry-point search found nothing, or a partial that is no lead (one word of the title, the
    docs): the sources search's partial stands in when it is one ("Search bookmarks by keyword": an
    option `search` against the flag whose help says the whole title)."""
    if not (found.verdict == "none" or found.verdict == "partial" and not _a_lead(found, weighed)):
        return found
    second = Assessment("partial", searched.confidence, [_hit_found(h) for h in searched.evidence],
                        [f"{h.doc.kind} {h.doc.name} ({h.doc.path}:{h.doc.line})" for h in searched.evidence],
                        [searched.missing or searched.reasons[-1]])
    return second if found.verdict == "none" or _a_lead(second, weighed) else found


def _opposite(found: Assessment, weighed: Weighed) -> Assessment:
    """Code that does the opposite of what the title asks (an importer for "Export recipes", `disable_`
    for "Enable ...") is not evidence of it: shipped becomes partial, saying so."""
    action = weighed.action
    if found.verdict != "shipped" or not found.evidence or action is None:
        return found
    lead = found.evidence[0].art
    own = identifier_concepts(lead.name)
    against = (opposites(action) - set(weighed.weights)) & own
    if not against or action in own:
        return found
    verb = weighed.words.get(action, action)
    gap = f"the code does the opposite of {verb!r}: {lead.kind} {lead.name} ({lead.path}:{lead.line})"
    return Assessment("partial", 0.3, found.evidence, found.exists,
                      [gap] + [m for m in found.missing if m != f"the evidence does not show {verb!r}"])


def _transition(found: Assessment, judged: transition.Judgement) -> Assessment:
    """A rename or replacement ships only when the new thing is in the code and the old one is gone or
    deprecated; evidence of the old name is evidence that it has not happened."""
    new_at, old_at, deprecated_at = judged.new_at, judged.old_at, judged.deprecated_at
    if judged.happened and (found.verdict == "shipped" or deprecated_at is not None or judged.new_also is not None):
        pieces = [a for a in (new_at, deprecated_at, judged.new_also) if a is not None]
        evidence = [Found(a, a.words & judged.concepts, 1.0, 1.0) for a in pieces]
        evidence += [f for f in found.evidence if f.art not in pieces] if found.verdict == "shipped" else []
        confidence = found.confidence if found.verdict == "shipped" else (0.85 if deprecated_at else 0.8)
        return Assessment("shipped", confidence, evidence[:4],
                          [f"{a.kind} {a.name} ({a.path}:{a.line})" for a in pieces],
                          [] if deprecated_at or old_at is None else judged.reasons)
    exists = [f"{what}: {a.kind} {a.name} ({a.path}:{a.line})" for what, a in
              (("the new name", new_at), ("the old name", old_at)) if a is not None]
    if new_at is None and old_at is not None:
        return Assessment("none", 0.0, [], exists, judged.reasons)
    if new_at is None and found.verdict == "none":
        return found
    evidence = [Found(a, a.words & judged.concepts, 0.5, 0.5) for a in (new_at, old_at) if a is not None]
    return Assessment("partial", 0.5 if new_at is not None else 0.3, evidence, exists, judged.reasons)


def _unnamed(title: str, combined: tuple[str, float, list[str], list[str]], code: _Code
             ) -> tuple[str, float, list[str], list[str]]:
    """A title word the code never names counts against a lexical lead: partial, saying which word."""
    verdict, confidence, missing, exists = combined
    unnamed = unnamed_words(title, code) if verdict == LIKELY else []
    if not unnamed:
        return combined
    return ("partial", min(confidence, UNNAMED_CONFIDENCE),
            [f"no code file names the title's word(s): {', '.join(unnamed)}"] + missing, exists)


def _leads_better(searched: Retrieval, found: Assessment) -> bool:
    """Both the sources rule and the definition-name rule ship: the sources rule's lead wins when it covers
    more of the title (it names the head concept; a definition-name lead need not: `UUIDParameterType` for
    "Date and time parameter type", where the sources rule found `DateTime`)."""
    if not found.evidence or not searched.evidence:
        return bool(searched.evidence)
    return searched.evidence[0].score > found.evidence[0].coverage


def unnamed_words(title: str, code: _Code) -> list[str]:
    """The title's words that are no concept (left out as code structure: "async", "api") and that no code
    file names (docs left out): the word itself at a word's start, with at most an inflection after it.

    Only those: a concept the code does not name already weighs half and never vetoes alone, and on the
    development half vetoing every such word ("organise", "automatically") lost 16 right leads for 3 wrong."""
    words: list[str] = []
    for w in split_identifier(title):
        w = w.lower()
        if len(w) >= 3 and w.isascii() and w.isalpha() and w not in STOP | ACTORS | GENERIC and w not in words \
                and not concepts_of([w]):
            words.append(w)
    return [w for w in words if not any(_names(text, lowered, w) for text, lowered in code.texts)]


class _Code:
    """The index's code files (docs left out), each with its lower-cased text, made when first asked."""

    def __init__(self, index: Index):
        self.index = index
        self.standing_reads = 0  # closing commits compared so far (MAX_STANDING_READS)
        self.read_budget = Budget()  # committed bytes those comparisons may read

    @cached_property
    def texts(self) -> list[tuple[str, str]]:
        # str.lower is the same as the table on ASCII text (str.isascii costs nothing) and 2-3x faster
        return [(text, text.lower() if text.isascii() else text.translate(ASCII_LOWER))
                for rel, text in sorted(self.index.texts.items()) if kind_of(rel) != "docs"]

    @cached_property
    def lines(self) -> frozenset[str]:
        """Every significant line (closing_change.significant) of the code: where a closing commit's code went."""
        return frozenset(line for text, _ in self.texts for line in significant(text))

    @cached_property
    def names(self) -> frozenset[str]:
        """Every name in the code (closing_change.names)."""
        return frozenset(names(self.lines))


def _names(text: str, lowered: str, word: str) -> bool:
    """`word` in `text` as a word of its own or an identifier's part, with at most an inflection after it:
    `callbacks`, `DateTime`, `date_time` name callback and date; `asyncio` does not name async. Plain
    substring search, no pattern."""
    i = lowered.find(word)
    while i >= 0:
        before = text[i - 1] if i else " "
        if not before.isalnum() or (before.islower() and text[i].isupper()):
            end = i + len(word)
            while end < len(text) and text[end].islower():
                end += 1
            if text[i + len(word):end] in ENDINGS:
                return True
        i = lowered.find(word, i + 1)
    return False


def _constant(art: Artifact) -> bool:
    """A module constant (`ENVIRONMENT_VARIABLES = [...]`): data or a setting, not a feature on its own name."""
    return art.kind == "definition" and art.name.isupper() and len(art.name) > 2


def _hit_found(h: Hit) -> Found:
    return Found(h.doc, h.covered, h.score, h.score)


def _explain(query, weighed, meaning, found: Assessment, checks: list[CheckResult], searched: Retrieval,
             judged: transition.Judgement | None = None) -> dict[str, Any]:
    """The concepts, the candidate evidence and why each rule passed or failed."""
    return {
        "concepts": [{"concept": c, "word": weighed.words.get(c, c), "weight": w, "why": weighed.why[c],
                      "related": sorted(weighed.soft.get(c, ())),
                      "lexical": sorted(weighed.lexical.get(c, ()))} for c, w in weighed.weights.items()],
        "main_verb": query.verb,
        "candidates": [{"kind": s.art.kind, "name": s.art.name, "path": s.art.path, "line": s.art.line,
                        "score": s.score, "own": s.own, "matched": sorted(s.matched),
                        "by_path": sorted(s.via_path), "related": sorted(s.via_soft)} for s in meaning[2][:8]],
        "sources": [{"category": cat, "kind": h.doc.kind, "name": h.doc.name, "path": h.doc.path,
                     "line": h.doc.line, "score": h.score, "matched": sorted(h.exact), "related": sorted(h.soft)}
                    for cat, h in searched.best.items()],
        "rules": [f"sources: {searched.verdict}"] + [f"sources: {r}" for r in searched.reasons]
                 + [f"meaning: {meaning[0]}"] + [f"meaning: {r}" for r in meaning[3]]
                 + [f"entry points and tests: {found.verdict}"] + [f"entry points and tests: {m}" for m in found.missing]
                 + [f"declared check {'passes' if c.passed else 'fails (vetoes shipped)'}: {c.label}" for c in checks]
                 + ([f"rename/replace: {'happened' if judged.happened else 'not happened'}"]
                    + [f"rename/replace: {r}" for r in judged.reasons] if judged is not None else []),
    }


def _closing_standing(root: Path, commits: list[Commit], code: _Code) -> Standing | None:
    """The first of the newest closing commits whose code still stands, else why the newest does not;
    None when no commit closes the node."""
    closing = [c for c in commits if c.closes][:MAX_CLOSING_READ]
    first = None
    for commit in closing:
        code.standing_reads += 1
        if code.standing_reads > MAX_STANDING_READS:  # a history that closes thousands of nodes: each a lead
            return first or Standing(False, f"the closing commit {commit.sha[:12]} was not read (more than "
                                            f"{MAX_STANDING_READS} in one run)")
        found = standing(root, commit.sha, lambda: code.lines, lambda: code.names, code.read_budget)
        if found.stands:
            return found
        first = first or found
    return first


def _combine(found: Assessment, checks: list[CheckResult], commits: list[Commit], leads: bool = True,
             closing_stands: Standing | None = None) -> tuple[str, float, list[str], list[str]]:
    """Declared checks decide when present; a closing commit whose code still stands counts as shipped
    (one whose code is gone, or that changed none, is a lead); what the search finds shipped is only
    likely, and so is a partial it scored at LEAD_FLOOR or more (unless `leads` is off: a rename the
    transition rule judged)."""
    failed = [c for c in checks if not c.passed]
    passed = [c for c in checks if c.passed]
    exists = list(found.exists)
    closing = [c for c in commits if c.closes]
    if checks:
        if not failed:
            confidence = 0.95 if len(passed) >= 2 else 0.9
            return "shipped", confidence, [], [f"declared check passes: {c.label}" for c in passed]
        missing = [f"declared check fails: {c.label}" + (f" ({c.snippet})" if c.snippet else "") for c in failed]
        exists = [f"declared check passes: {c.label}" for c in passed] + exists
        if passed or found.verdict != "none" or commits:
            return "partial", round(min(0.6, 0.2 + 0.4 * len(passed) / len(checks)), 2), missing + \
                [m for m in found.missing if m not in missing], exists
        return "none", 0.0, missing, exists
    if closing and closing_stands is not None and closing_stands.stands:
        return "shipped", 0.85, found.missing, [f"commit {closing[0].sha[:12]} closes it: {closing[0].subject}"] + exists
    if closing:
        why = closing_stands.why if closing_stands is not None else "the closing commit's code was not read"
        return LIKELY, LIKELY_CONFIDENCE, [why] + found.missing, \
            [f"commit {closing[0].sha[:12]} says it closes it: {closing[0].subject}"] + exists
    if found.verdict == "shipped":  # a lexical rule's: below 0.95 where it was not tuned
        return LIKELY, LIKELY_CONFIDENCE, found.missing, exists
    if found.verdict == "partial" and leads:
        return LIKELY, LEAD_CONFIDENCE, found.missing, exists
    if found.verdict == "partial":
        return "partial", found.confidence, found.missing, exists
    if commits:
        return "partial", 0.3, ["no code evidence beyond commits that mention it"] + found.missing, \
            [f"commit {commits[0].sha[:12]}: {commits[0].subject}"]
    return "none", 0.0, found.missing, exists


def _a_lead(found: Assessment, weighed: Weighed) -> bool:
    """A partial worth verifying: scored at LEAD_FLOOR or more, led by code (not the docs, not a model or
    a field alone: data is not a feature) that names more than one word of a long title."""
    lead = found.evidence[0] if found.evidence else None
    return found.verdict == "partial" and found.confidence >= LEAD_FLOOR and lead is not None \
        and lead.art.kind not in ("doc", "model", "field") and kind_of(lead.art.path) != "docs" \
        and not one_word(weighed.weights, lead.matched)


def _found_evidence(f: Found) -> Evidence:
    return {"kind": f.art.kind, "path": f.art.path, "line": f.art.line, "snippet": f.art.snippet,
            "weight": round(f.coverage, 2), "name": f.art.name, "matched": sorted(f.matched)}


def _check_evidence(c: CheckResult) -> Evidence:
    return {"kind": "declared", "path": c.path, "line": c.line, "snippet": c.snippet or c.label,
            "weight": DECLARED_WEIGHT, "name": c.label}


def _commit_evidence(c: Commit) -> Evidence:
    return {"kind": "commit", "path": f"git:{c.sha[:12]}", "line": None, "snippet": c.subject,
            "weight": CLOSING_COMMIT_WEIGHT if c.closes else MENTION_COMMIT_WEIGHT, "name": c.sha[:12]}
