"""Weighing the code against one backlog item: which artifacts are evidence, and
whether together they say shipped, partial or nothing.

The rules, in order (docs/reconcile.md explains them with examples):

1. The title becomes *concepts* (`title.py`). Actors ("users", "admins")
   and vague verbs ("keep", "open") are dropped; words after "on/in/at" (where
   it happens, not what) count half; the rest weigh by rarity in this
   repository (IDF over artifacts), so "task" in a task tracker counts little.
2. The *crux* is the heaviest concept. If the code names it nowhere, nothing
   is shipped: "two-factor" in a repo that only has a `discount_factor` is a
   missing concept, not a match (whole words only).
3. An artifact is evidence only when it names the crux, two concepts, or the
   title's specific verb (sort, assign): one generic word in common is never
   evidence.
4. Shipped needs an entry point (route, page, component, CLI command) that
   carries the title's main verb (`see` → GET, `add` → POST ...), a test, and
   together they must cover most of the title's weight and the crux; where
   the repository has a UI, a user-facing item needs UI evidence too.
5. Anything less, with evidence on the crux, is partial, and says what exists
   and what is missing.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from leafwise.commands.reconcile.artifacts import SURFACES, Artifact, Index
from leafwise.commands.reconcile.text import identifier_concepts, split_identifier
from leafwise.commands.reconcile.title import CRUD, Query, parse_title

SHIP_COVERAGE = 0.70  # share of the title's weight the entry points and tests must cover
PARTIAL_COVERAGE = 0.40
LOCATION_WEIGHT = 0.5
PRIMARY_COVERAGE = 0.5


@dataclass
class Stats:
    """Document frequencies of concepts over the index's artifacts."""

    total: int
    df: Counter
    top: frozenset[str] = frozenset()  # the repository's most named concepts: its background

    @classmethod
    def of(cls, index: Index) -> "Stats":
        df: Counter = Counter()
        for art in index.artifacts:
            df.update(art.words)
        top = frozenset(c for c, _ in df.most_common(12)) | project_names(index)
        return cls(len(index.artifacts), df, top)

    @cached_property
    def by_key(self) -> tuple[Counter, frozenset[str]]:
        """Document frequency by matching key (installation, installed, install: one key), and the top keys."""
        from leafwise.commands.reconcile.retrieve import key

        kdf: Counter = Counter()
        for c, n in self.df.items():
            kdf[key(c)] += n
        return kdf, frozenset(key(c) for c in self.top)

    def background(self, concept_: str) -> bool:
        """On many named things, or one of the most named, under any of its forms."""
        from leafwise.commands.reconcile.meaning import BACKGROUND_SHARE
        from leafwise.commands.reconcile.retrieve import key

        kdf, top = self.by_key
        k = key(concept_)
        df = max(self.df.get(concept_, 0), kdf.get(k, 0))
        return bool(self.total) and (df / self.total > BACKGROUND_SHARE or concept_ in self.top or k in top)

    def idf(self, concept_: str) -> float:
        return math.log((self.total + 1) / (self.df.get(concept_, 0) + 0.5))


def project_names(index: Index) -> frozenset[str]:
    """The project's own name (its folder, go.mod module, pyproject or package.json name): background."""
    import re

    names = [index.root.name]
    for rel, pattern in (("go.mod", r"^module\s+(\S+)"), ("pyproject.toml", r"^name\s*=\s*[\"']([^\"']+)"),
                         ("package.json", r'^\s*"name"\s*:\s*"([^"]+)"')):
        m = re.search(pattern, index.texts.get(rel, ""), re.M)
        if m:
            names.append(m.group(1).rsplit("/", 1)[-1])
    return frozenset().union(*(identifier_concepts(n) for n in names))


@dataclass
class Found:
    """One artifact that counts as evidence, and the concepts it names."""

    art: Artifact
    matched: frozenset[str]
    coverage: float
    rank: float = 0.0  # coverage of its own name alone, to list the clearest evidence first
    focus: float = 0.0  # how much of its own name the title explains (`POST /tasks` over `POST /tasks/:id/x`)


@dataclass
class Assessment:
    verdict: str  # shipped | partial | none
    confidence: float
    evidence: list[Found] = field(default_factory=list)
    exists: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def weights_for(query: Query, stats: Stats) -> dict[str, float]:
    """IDF weights; a CRUD verb (list, add, edit, delete) no route does yet still weighs as a common one."""
    common = math.log((stats.total + 1) / (stats.total / 10 + 0.5))  # as if one artifact in ten did it
    return {t.concept: (common if t.concept in CRUD and not stats.df.get(t.concept) else stats.idf(t.concept))
            * (LOCATION_WEIGHT if t.location else 1.0) for t in query.terms}


def _candidates(by_concept: dict[str, list[Artifact]], weights: dict[str, float], keep: set[str]
                ) -> list[Artifact]:
    """Artifacts that can be evidence: those naming a kept concept (crux, action) or two concepts.

    The longest list of the other concepts is skipped: an artifact naming it and another
    concept is in that other list too, and naming it alone is no evidence.
    """
    lists = {c: by_concept.get(c, ()) for c in weights}
    others = [c for c in lists if c not in keep]
    skip = max(others, key=lambda c: len(lists[c])) if others and len(lists) > 1 else None
    seen: dict[int, Artifact] = {}
    for c, arts in lists.items():
        if c != skip:
            for art in arts:
                seen.setdefault(id(art), art)
    return list(seen.values())


def _found(query: Query, by_concept: dict[str, list[Artifact]], weights: dict[str, float], crux: str,
           cov: Callable[[frozenset[str]], float]) -> list[Found]:
    """The artifacts that name the crux (or enough of the title), most of the title first."""
    action = query.verb if query.verb not in CRUD else None  # a specific verb is as telling as the crux
    arts = _candidates(by_concept, weights, {crux, action} if action else {crux})
    keys = frozenset(weights)
    single = len(weights) == 1
    found: list[Found] = []
    for art in arts:
        own = art.words & keys
        if not (crux in own or len(own) >= 2 or (single and own) or (action and action in own)):
            continue
        # Tests also count the words of their file and describe block (what they test).
        matched = own | (art.context & keys) if art.kind == "test" else own
        found.append(Found(art, matched, cov(matched), cov(own), len(own) / len(art.words)))
    # Most of the title first; among equals, the artifact whose name is most about this item.
    found.sort(key=lambda f: (-f.coverage, -f.focus, -f.rank, f.art.path, f.art.line))
    return found


def assess(query: Query, by_concept: dict[str, list[Artifact]], stats: Stats, has_ui: bool) -> Assessment:
    """The verdict on one item, from the index's artifacts by concept."""
    weights = weights_for(query, stats)
    total = sum(weights.values())
    if not weights or total <= 0:
        return Assessment("none", 0.0, missing=["the title names nothing specific to look for"])
    absent = [c for c in query.concepts if stats.df.get(c, 0) == 0 and c not in CRUD]
    # The crux is the rarest word the code names: a word it never names is rarest of all, and made the title
    # `none` whatever named the rest ("Retry depending on the value the function returned").
    named = {c: w for c, w in weights.items() if c not in absent}
    crux = _heaviest(named or weights, stats)
    if crux in absent:
        return Assessment("none", 0.0, missing=[f"nothing in the code names {query.word(c)!r}" for c in
                                                [crux] + [c for c in absent if c != crux]])
    cov = _coverage(weights, total)
    found = _found(query, by_concept, weights, crux, cov)
    roles = _Roles.of(query, found, weights, stats, has_ui)
    ship_cov = cov(roles.bundle)
    if roles.primary and roles.tests_tied and crux in roles.bundle and ship_cov >= SHIP_COVERAGE \
            and (roles.ui or not roles.needs_ui):
        return _shipped(query, roles, ship_cov)
    everything = set().union(*(f.matched for f in found)) if found else set()
    if not any(crux in f.matched for f in found) or cov(everything) < PARTIAL_COVERAGE:
        return Assessment("none", 0.0, missing=[f"no evidence names {query.word(crux)!r} with the rest of the title"])
    return _partial(query, roles, crux, absent, everything, ship_cov >= SHIP_COVERAGE, cov(everything))


def _coverage(weights: dict[str, float], total: float) -> Callable[[frozenset[str] | set[str]], float]:
    """The share of the title's weight a set of concepts carries (asked often for the same sets)."""
    memo: dict[frozenset[str], float] = {}

    def cov(concepts: frozenset[str] | set[str]) -> float:
        key = frozenset(concepts)
        if key not in memo:
            memo[key] = sum(weights[c] for c in key) / total
        return memo[key]

    return cov


@dataclass
class _Roles:
    """The evidence by the part it plays: entry points, tests, logic and UI; the primary entry points
    (those that answer the title); and what is tied to the lead one (its resource's entry points and tests)."""

    surfaces: list[Found]
    tests: list[Found]
    logic: list[Found]
    ui: list[Found]
    primary: list[Found]
    needs_ui: bool
    tied: list[Found]
    bundle: set[str]  # the concepts the lead entry point and what is tied to it name
    tests_tied: list[Found]

    @classmethod
    def of(cls, query: Query, found: list[Found], weights: dict[str, float], stats: Stats,
           has_ui: bool) -> "_Roles":
        core = {c: weights[c] for c in query.core}
        core_crux = _heaviest(core, stats)
        surfaces = [f for f in found if f.art.kind in SURFACES]
        tests = [f for f in found if f.art.kind == "test"]
        logic = [f for f in found if f.art.kind not in SURFACES and f.art.kind != "test"]
        primary = [f for f in surfaces if _primary(f, query, core_crux,
                                                   sum(core[c] for c in f.matched & core.keys()) / sum(core.values()))]
        needs_ui = has_ui and not query.headless and not any(f.art.side == "cli" for f in primary)
        ui = sorted((f for f in found if f.art.side == "ui"), key=lambda f: (-f.coverage, f.art.path, f.art.line))
        tied = _tied(primary[0], surfaces, tests, query) if primary else []
        bundle = set().union(*(f.matched for f in [primary[0], *tied])) if primary else set()
        return cls(surfaces, tests, logic, ui, primary, needs_ui, tied, bundle,
                   [f for f in tied if f.art.kind == "test"])


def _tied(lead: Found, surfaces: list[Found], tests: list[Found], query: Query) -> list[Found]:
    """The same resource as the lead entry point: entry points of its file that share a concept with it
    and do one of the title's verbs, and the tests that name what the lead names."""
    tied = [s for s in surfaces if s is not lead and s.art.path == lead.art.path
            and s.matched & lead.matched and _carries(s, query.verbs)]
    return tied + [t for t in tests if t.matched & lead.matched]


def _shipped(query: Query, roles: _Roles, ship_cov: float) -> Assessment:
    """Shipped: the primary entry points first, then what is tied to the lead, the UI and the logic."""
    by_rank = sorted(roles.tied, key=lambda f: (-f.rank, f.art.path, f.art.line))
    evidence = _pick(roles.primary[:3] + [f for f in by_rank if f.art.kind != "test"]
                     + [f for f in by_rank if f.art.kind == "test"] + roles.ui + roles.logic)
    confidence = round(min(0.97, 0.45 + 0.5 * ship_cov + 0.03 * min(len(roles.tests_tied), 2)), 2)
    return Assessment("shipped", confidence, evidence,
                      missing=[f"the evidence does not show {query.word(c)!r}" for c in query.concepts
                               if c not in roles.bundle])


def _partial(query: Query, roles: _Roles, crux: str, absent: list[str], everything: set[str],
             covers_enough: bool, coverage: float) -> Assessment:
    """Partial: what exists, and each thing shipped would still need."""
    evidence = _pick(roles.surfaces + roles.tests + roles.ui + roles.logic)
    exists = [f"{_label(f.art)} {f.art.name} ({f.art.path}:{f.art.line})" for f in evidence[:4]]
    missing = [f"nothing in the code names {query.word(c)!r}" if c in absent else f"no evidence shows {query.word(c)!r}"
               for c in query.concepts if c not in everything]
    if not roles.primary:
        missing.append("no route, page or command " + (f"that does {query.word(query.verb)!r}" if query.verb
                                                          else "that names it"))
    if not roles.tests_tied:
        missing.append("no test" if not roles.tests else "no test of the entry point")
    if roles.needs_ui and not roles.ui:
        missing.append("no UI (page or component) for it")
    if roles.primary and roles.tests_tied and crux not in roles.bundle:
        missing.append(f"the entry points and tests do not cover {query.word(crux)!r}")
    elif roles.primary and roles.tests_tied and not covers_enough:
        missing.append("the entry points and tests cover only part of the title")
    confidence = round(min(0.6, 0.2 + 0.5 * coverage), 2)
    return Assessment("partial", confidence, evidence, exists, missing)


def _carries(found: Found, verbs: frozenset[str]) -> bool:
    """Does this entry point do one of the title's verbs (a GET route is `see`, a POST `add` ...)?"""
    return not verbs or bool(verbs & found.art.words)


def _primary(found: Found, query: Query, crux: str, core_coverage: float) -> bool:
    """The entry point that answers the title: it does what the title says, and says what about.

    A CRUD verb is cheap (every POST route "adds"), so it needs the crux or half the
    title's weight beside it; a specific verb (sort, assign, export) stands on its own.
    """
    if not _carries(found, query.verbs):
        return False
    specific_verb = query.verb is not None and query.verb not in CRUD and query.verb in found.art.words
    return specific_verb or crux in found.matched or core_coverage >= PRIMARY_COVERAGE


def _heaviest(weights: dict[str, float], stats: Stats) -> str:
    """The crux: the rarest concept; a CRUD verb nothing does yet only when there is nothing else."""
    pool = {c: w for c, w in weights.items() if c not in CRUD or stats.df.get(c)} or weights
    return max(pool, key=lambda c: (pool[c], c))


def _pick(items: list[Found], limit: int = 8) -> list[Found]:
    """The first `limit` distinct pieces of evidence; a file's module entry only if nothing else names it."""
    seen: set[tuple[str, int]] = set()
    paths = {f.art.path for f in items if f.art.kind != "module"}
    out = []
    for f in items:
        key = (f.art.path, f.art.line)
        if key not in seen and not (f.art.kind == "module" and f.art.path in paths):
            seen.add(key)
            out.append(f)
        if len(out) >= limit:
            break
    return out


def _label(art: Artifact) -> str:
    return {"route": "route", "page": "page", "component": "component", "cli": "command", "test": "test",
            "model": "model", "field": "field", "symbol": "symbol", "module": "module"}.get(art.kind, art.kind)


# ---- meaning-based matching: definitions, options, flags and entry points of any kind ----------

LEAD_KINDS = frozenset({"definition", "option", "flag", "route", "cli", "page", "component", "symbol", "model",
                        "field"})
MEANING_SHIP = 0.7  # measured on the tune half: 0.5 gave precision 0.76
MEANING_OWN = 0.35
MEANING_PARTIAL = 0.35
MEANING_ABSENT = 0.3


@dataclass
class Weighed:
    """A title's concepts with meaning weights, and why each weighs what it does."""

    weights: dict[str, float]
    why: dict[str, str]
    words: dict[str, str]
    soft: dict[str, frozenset[str]]
    lexical: dict[str, frozenset[str]] = field(default_factory=dict)  # WordNet's related words (weaker)
    action: str | None = None  # the title's first concept when it is a verb ("Save stories ..." → save)

    @property
    def total(self) -> float:
        return sum(self.weights.values())


def weigh(title: str, description: str, stats: Stats) -> Weighed:
    from leafwise.commands.reconcile.meaning import (
        ABSENT_FACTOR,
        BACKGROUND_FACTOR,
        is_verb,
        lexical,
        related,
        specificity,
        title_words,
    )

    words = title_words(title)
    query = parse_title(" ".join(words), description)
    weights: dict[str, float] = {}
    why: dict[str, str] = {}
    soft: dict[str, frozenset[str]] = {}
    lex: dict[str, frozenset[str]] = {}
    for t in query.terms:
        w = specificity(t.word)
        lex[t.concept] = lexical(t.word) - {t.concept} - soft.get(t.concept, frozenset())
        reasons = [f"specificity {w:.1f}"]
        df = stats.df.get(t.concept, 0)
        soft[t.concept] = frozenset(c for c in related(t.concept) if stats.df.get(c))
        lex[t.concept] -= soft[t.concept]
        if df == 0 and not soft[t.concept] and not any(stats.df.get(c) for c in lex[t.concept]):
            w *= ABSENT_FACTOR
            reasons.append("the code never names it (half weight, no veto)")
        elif stats.background(t.concept):
            w *= BACKGROUND_FACTOR
            reasons.append(f"on {df} of {stats.total} named things: the repository's background")
        if t.location:
            w *= LOCATION_WEIGHT
            reasons.append("a place, not the thing")
        weights[t.concept] = round(w, 3)
        why[t.concept] = "; ".join(reasons)
    # What the title asks to do: its first concept when that is a verb ("Save stories …", "Users can
    # write …"), or stands for the verb the title begins with ("Sign in with GitHub" → login).
    first = query.terms[0] if query.terms else None
    opening = split_identifier(title)[:1]
    action = first.concept if first is not None and (
        is_verb(first.word) or (words[:1] == [first.word] and bool(opening) and is_verb(opening[0]))) else None
    return Weighed(weights, why, {t.concept: t.word for t in query.terms}, soft, lex, action)


@dataclass
class Scored:
    art: Artifact
    score: float
    own: float  # share of the weight the artifact's own name carries
    matched: frozenset[str]
    via_path: frozenset[str]
    via_soft: frozenset[str]


def score_artifact(art: Artifact, w: Weighed, path_words: frozenset[str]) -> Scored:
    total = w.total or 1.0
    own = art.words & w.weights.keys()
    soft = frozenset(c for c in w.weights if c not in own and w.soft[c] & art.words)
    by_path = frozenset(c for c in w.weights if c not in own and c not in soft
                        and c in path_words)
    own_w = sum(w.weights[c] for c in own)
    score = (own_w + 0.6 * sum(w.weights[c] for c in soft) + 0.5 * sum(w.weights[c] for c in by_path)) / total
    return Scored(art, round(score, 3), round((own_w + 0.6 * sum(w.weights[c] for c in soft)) / total, 3),
                  frozenset(own), by_path, soft)


def meaning_candidates(w: Weighed, by_concept: dict[str, list[Artifact]], paths: dict[str, frozenset[str]]
                       ) -> list[Scored]:
    seen: dict[int, Artifact] = {}
    for c in w.weights:
        for cc in (c, *w.soft[c]):
            for art in by_concept.get(cc, ()):
                seen.setdefault(id(art), art)
    scored = [score_artifact(a, w, paths.get(a.path, frozenset())) for a in seen.values() if a.kind in LEAD_KINDS]
    scored.sort(key=lambda s: (-s.score, -s.own, s.art.path, s.art.line))
    return scored


def assess_meaning(w: Weighed, by_concept: dict[str, list[Artifact]], paths: dict[str, frozenset[str]]
                   ) -> tuple[str, float, list[Scored], list[str]]:
    """(verdict, confidence, evidence, reasons): the best-covering definition decides."""
    if not w.weights or w.total <= 0:
        return "none", 0.0, [], ["the title names nothing to look for"]
    ranked = meaning_candidates(w, by_concept, paths)
    if not ranked:
        return "none", 0.0, [], ["no definition names any of the title's words"]
    best = ranked[0]
    heavy = max((c for c in w.weights if "never names" not in w.why[c]), key=lambda c: w.weights[c], default=None)
    covered = best.matched | best.via_path | best.via_soft
    reasons = [f"best: {best.art.kind} {best.art.name} ({best.art.path}:{best.art.line}) covers {best.score:.2f} "
               f"of the title's weight, {best.own:.2f} by its own name"]
    ok_heavy = heavy is None or heavy in covered
    absent = sum(v for c, v in w.weights.items() if "never names" in w.why[c]) / w.total
    if absent > MEANING_ABSENT:
        reasons.append(f"words the code never names carry {absent:.2f} of the weight (> {MEANING_ABSENT})")
    from leafwise.commands.reconcile.retrieve import one_word

    single = one_word(w.weights, covered)
    if single:
        reasons.append("it names one word of the title: one word is not the feature")
    if best.score >= MEANING_SHIP and best.own >= MEANING_OWN and ok_heavy and absent <= MEANING_ABSENT and not single:
        return "shipped", round(min(0.95, 0.5 + 0.5 * best.score), 2), ranked[:5], reasons
    if not ok_heavy:
        reasons.append(f"it does not name {w.words.get(heavy, heavy)!r}, the title's most specific word")
    if best.score < MEANING_SHIP:
        reasons.append(f"coverage {best.score:.2f} < {MEANING_SHIP}")
    if best.own < MEANING_OWN:
        reasons.append(f"its own name carries {best.own:.2f} < {MEANING_OWN}")
    if best.score >= MEANING_PARTIAL:
        return "partial", round(min(0.6, 0.2 + 0.5 * best.score), 2), ranked[:5], reasons
    return "none", 0.0, [], reasons
