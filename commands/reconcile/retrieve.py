"""Many sources of evidence searched together: is a backlog item shipped, by what the code,
its tests, its UI text and its docs say?

Every named thing (`artifacts`) and every document in words (`documents.py`: docstrings,
help texts, UI strings, locale files, docs paragraphs, changelog entries, test names) is a
small document with a file and a line. A title's concepts weigh by what they mean
(`match.weigh`: general-English specificity, background words light, words the code never
uses half). Words match on their stems (the light stemmer, then Snowball, British → American
spelling); a shared 5-letter prefix or a related word counts less than the word itself.

The verdict (docs/reconcile.md, "Many sources"):

- **shipped** needs a *code* document (a definition with its docstring, a route, a flag with
  its help, an option, a component) that names the title's head concept *and* covers most
  of its weight there, in one place (so "export" and "paprika" in two different files
  prove nothing), and a second, independent source (a test, a UI string, a docs paragraph,
  another code document in the same file) that names the head concept and agrees.
- or a definition whose own name is made of the title's words (the head concept and the verb the
  title begins with among them: `saveStory` for "Save stories to read later") and one source agreeing.
- docs or UI text alone, or one weak name match, is **partial** at most.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from leafwise.commands.reconcile.artifacts import Artifact, Index
from leafwise.commands.reconcile.text import identifier_concepts

SOFT = 0.6  # a related word or a shared prefix counts this much of the word itself
LEX = 0.4  # a WordNet synonym or derived form (meaning.lexical) counts less
# Measured on the tune half only (bench/reconcile_eval/probe.py): at these, 2 wrong of 36.
NAME_SHIP = 0.85  # a named definition (name + docstring), a route, a flag: share of the title it must cover
NAME_AGREE = 0.3  # ... with another source naming part of the same
CODE_SHIP = 0.55  # or any code document (a function body too) covering this much
AGREE = 0.6  # ... and SOURCES other kinds of source (tests, UI text, docs, messages) naming this much of it
SOURCES = 2
PARTIAL = 0.4
# What a `shipped` of these rules is worth: the share that was right on repositories the engine was
# never tuned on (the held-out half, fresh2 + fresh3: 28 of 41, Laplace-smoothed
# (28 + 1) / (41 + 2)). The coverage scores rank documents, but there they did not tell right from
# wrong (a shipped at 0.93 or more was right 2 times in 4), so every rule reports this one number,
# below `reconcile --apply`'s default 0.8: a person confirms these (RESULTS.md, "Confidence").
MEASURED = 0.67
# Or the docs say it: a docs paragraph (README, docs page, changelog; affirmative sentences only)
# names DOCS_SHIP of the title, and a code document that names the head concept names
# DOCS_CODE of the title (bound: in its name or docstring, not only loose in a body) and DOCS_AGREE
# of it in common with that paragraph.
DOCS_SHIP = 0.9
DOCS_CODE = 0.4
DOCS_AGREE = 0.4
DOCS_UI = 0.3  # ... and, for a user-facing item in a repository with a UI, UI text or a page naming this much
BODY = 0.85  # a function's body names things less directly than its name and docstring
BODY_B = 0.0  # BM25 length normalisation of bodies: measured at b = 0.3 and 0.5 on the tune half, it cost recall and removed no wrong proposal
LOOSE_EXTRA = 1  # an unbound body lead needs this many more agreeing sources
UNBOUND = 0.9  # a body whose definition (name, docstring) does not name the head
# One word is not a feature: in a title of MANY concepts or more, the lead code document must name
# at least two of them (e.g. "Timestamps in the server's local time zone" is not `timestamp`,
# "Search PyPI for applications" is not `valid_pypi_name`). DOCS_TWO: the docs rule's code and
# paragraph must also have two in common.
MANY = 3
DERIVED = True  # a derived word of the same Snowball stem counts SOFT
DOCS_TWO = True


def one_word(weights: dict[str, float], covered: frozenset[str] | set[str]) -> bool:
    """Does a document name only one of a title of MANY or more concepts?"""
    return len(weights) >= MANY and len(set(covered) & weights.keys()) < 2
CODE_KINDS = frozenset({"body", "definition", "symbol", "option", "flag", "route", "cli", "page", "component", "model",
                        "field"})


def category(doc: Artifact) -> str:
    if doc.kind == "test":
        return "test" if is_test_case(doc) else "other"
    if doc.kind == "doc":
        return "docs"
    if doc.kind == "string":
        return "ui" if doc.side == "ui" else "text"
    if doc.kind in CODE_KINDS:
        return "code"
    return "other"


AGREEING = ("test", "ui", "docs", "text")  # the kinds of source that may agree with a code document


def is_test_case(doc: Artifact) -> bool:
    """A test, not a helper of the tests: a Python fixture or helper in a test file (`pipx_temp_env`
    in conftest.py) says how the tests are set up, not what behaviour they check."""
    if not doc.path.endswith(".py"):
        return True
    last = doc.name.rsplit(".", 1)[-1]
    return last.startswith(("test", "Test")) or last.endswith("_test")


@lru_cache(maxsize=1)
def _stemmer():
    try:
        import snowballstemmer
    except ImportError:
        return None
    return snowballstemmer.stemmer("english")


_UK = [(re.compile(r"is(at|er|e|ing|ed)?$"), r"iz\1"), (re.compile(r"our$"), "or"), (re.compile(r"ogue$"), "og")]


@lru_cache(maxsize=65536)
def key(c: str) -> str:
    """The matching key of a concept: British → American spelling, then the Snowball stem."""
    w = c
    if len(w) > 5:
        for pattern, repl in _UK:
            w = pattern.sub(repl, w)
    s = _stemmer()
    return s.stemWord(w) if s is not None else w


def prefix(k: str) -> str | None:
    return k[:5] if len(k) >= 5 else None


@dataclass
class RIndex:
    """Every document by matching key, and by 5-letter prefix for the soft match."""

    docs: list[Artifact]
    by_key: dict[str, list[int]]
    by_prefix: dict[str, set[str]]
    keys: list[frozenset[str]]
    files: dict[str, list[int]] = field(default_factory=dict)
    body_len: float = 1.0  # the average number of concepts in a function body
    own: dict[int, frozenset[str]] = field(default_factory=dict)  # body → keys of its definition's name + docstring

    @classmethod
    def of(cls, index: Index) -> RIndex:
        docs = [a for a in index.artifacts if a.kind != "module"] + index.docs
        by_key: dict[str, list[int]] = {}
        keys: list[frozenset[str]] = []
        files: dict[str, list[int]] = {}
        for i, d in enumerate(docs):
            ks = frozenset(key(w) for w in d.words)
            keys.append(ks)
            for k in ks:
                by_key.setdefault(k, []).append(i)
            if category(d) == "code":
                files.setdefault(d.path, []).append(i)
        by_prefix: dict[str, set[str]] = {}
        for k in by_key:
            p = prefix(k)
            if p:
                by_prefix.setdefault(p, set()).add(k)
        bodies = [i for i, d in enumerate(docs) if d.kind == "body"]
        body_len = sum(len(keys[i]) for i in bodies) / len(bodies) if bodies else 1.0
        own = {i: frozenset(key(w) for w in docs[i].context) for i in bodies}
        return cls(docs, by_key, by_prefix, keys, files, body_len, own)


@dataclass
class Hit:
    doc: Artifact
    score: float
    exact: frozenset[str]  # title concepts it names
    soft: frozenset[str]  # title concepts it names through a related word or a prefix
    derived: frozenset[str] = frozenset()  # ... of which only through a derived word of the same stem

    @property
    def category(self) -> str:
        return category(self.doc)

    @property
    def covered(self) -> frozenset[str]:
        return self.exact | self.soft


@dataclass
class Retrieval:
    verdict: str
    confidence: float
    head: str | None
    evidence: list[Hit]
    reasons: list[str]
    best: dict[str, Hit]
    missing: str | None = None  # a partial's gap in a person's words (the rules stay in `reasons`)


def _title_keys(weights: dict[str, float], soft: dict[str, frozenset[str]], rindex: RIndex
                ) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Title concept → its key; and title concept → the keys that count softly for it."""
    exact = {c: key(c) for c in weights}
    softer: dict[str, set[str]] = {}
    for c, k in exact.items():
        ks = {key(r) for r in soft.get(c, ())}
        p = prefix(k)
        if p and len(k) >= 5:
            ks |= {o for o in rindex.by_prefix.get(p, ()) if o != k}
        softer[c] = ks - {k}
    return exact, softer


def retrieve(weights: dict[str, float], why: dict[str, str], soft: dict[str, frozenset[str]],
             rindex: RIndex, needs_ui: bool = False, lexical: dict[str, frozenset[str]] | None = None,
             action: str | None = None) -> Retrieval:
    """The verdict of many sources; `needs_ui`: a user-facing item in a repository with a UI; `action`:
    the verb the title begins with, if any (match.Weighed.action)."""
    total = sum(weights.values())
    if not weights or total <= 0:
        return Retrieval("none", 0.0, None, [], ["the title names nothing to look for"], {})
    exact, softer = _title_keys(weights, soft, rindex)
    lexer = {c: {k for k in (key(r) for r in (lexical or {}).get(c, ())) if k in rindex.by_key}
             - softer[c] - {exact[c]} for c in weights}
    present = {c for c in weights if exact[c] in rindex.by_key or any(k in rindex.by_key for k in softer[c])
               or lexer[c]}
    pool = [c for c in weights if c in present] or list(weights)
    head = max(pool, key=lambda c: (weights[c], c))
    # only documents holding one of the head's keys can pass the head test below
    candidates: set[int] = set(rindex.by_key.get(exact[head], ()))
    for k in softer[head] | lexer[head]:
        candidates.update(rindex.by_key.get(k, ()))
    hits: list[Hit] = []
    unbound: set[int] = set()
    for i in sorted(candidates):  # ties below keep the documents' order: fixed, richer kinds first
        ks = rindex.keys[i]
        ex = frozenset(c for c in weights if exact[c] in ks)
        derived: frozenset[str] = frozenset()
        if DERIVED:
            words = rindex.docs[i].words
            derived = frozenset(c for c in ex if c not in words and not _inflected(c, exact[c], words))
            ex -= derived
        sf = frozenset(c for c in weights if c not in ex and (softer[c] & ks or exact[c] in ks))
        lx = frozenset(c for c in weights if c not in ex and c not in sf and lexer[c] & ks)
        if head not in ex and head not in sf and head not in lx:
            continue
        score = (sum(weights[c] for c in ex) + SOFT * sum(weights[c] for c in sf)
                 + LEX * sum(weights[c] for c in lx)) / total
        if rindex.docs[i].kind == "body":
            # a long body covers many titles a little (BM25's length normalisation), and words
            # that meet only in the body, not in what the definition is called, are not bound
            score *= BODY * min(1.0, 1.0 / (1 - BODY_B + BODY_B * len(ks) / rindex.body_len))
            own = rindex.own.get(i, frozenset())
            if exact[head] not in own and not (softer[head] & own):
                score *= UNBOUND
                unbound.add(id(rindex.docs[i]))
        hits.append(Hit(rindex.docs[i], round(score, 3), ex, sf | lx, derived))
    hits.sort(key=lambda h: (-h.score, h.doc.path, h.doc.line))
    best: dict[str, Hit] = {}
    for h in hits:
        best.setdefault(h.category, h)
    return _decide(weights, head, hits, best, needs_ui, unbound, action)


def _inflected(c: str, k: str, words: frozenset[str]) -> bool:
    """Does the document name `c` in another inflection (not only a derived word of the same stem)?

    Snowball gives "requirements" and "required", "installation" and "installed" one stem; a
    derived word means something else, so it counts as a related word (SOFT), not as the word."""
    return any(abs(len(w) - len(c)) <= 2 and key(w) == k for w in words)


def _common(weights: dict[str, float], a: Hit, b: Hit) -> float:
    """The weight of the title's concepts two documents both name; a concept one of them names only
    through a derived word ("required" for "requirements") counts SOFT."""
    return sum(weights[c] * (SOFT if c in a.derived or c in b.derived else 1.0) for c in a.covered & b.covered)


def _docs_led(weights: dict[str, float], hits: list[Hit], needs_ui: bool, unbound: set[int] = frozenset()
              ) -> tuple[Hit, Hit] | None:
    """A docs paragraph that says nearly all of the title, and code naming the same: (paragraph, code)."""
    total = sum(weights.values())
    paragraphs = [h for h in hits if h.category == "docs" and h.score >= DOCS_SHIP][:5]
    if not paragraphs:
        return None
    if needs_ui and not any((h.category == "ui" or h.doc.kind in ("page", "component")) and h.score >= DOCS_UI
                            for h in hits):
        return None
    # the code must name the head concept in what it is called (a body counts when its definition does)
    codes = [h for h in hits if h.category == "code" and h.score >= DOCS_CODE and id(h.doc) not in unbound][:10]
    for para in paragraphs:
        for code in codes:
            if DOCS_TWO and one_word(weights, para.covered & code.covered):
                continue
            if _common(weights, para, code) / total >= DOCS_AGREE:
                return para, code
    return None


@lru_cache(maxsize=65536)
def _name_keys(name: str) -> frozenset[str]:
    """The matching keys of what a definition is called (the last dotted part of its name:
    `RecipeController.save_story` → save, stori); none for a route or a switch branch."""
    name = name.rsplit(".", 1)[-1]
    if not name or " " in name or "/" in name:
        return frozenset()
    return frozenset(key(c) for c in identifier_concepts(name))


def _titled(weights: dict[str, float], head: str, hits: list[Hit], best: dict[str, Hit], action: str | None = None
            ) -> tuple[Hit, Hit] | None:
    """A definition (or its body) whose own name is made of the title's words, two or more and the head
    concept among them (`saveStory` for "Save stories to read later"), covering PARTIAL of the title,
    and a test, UI text, docs paragraph or message agreeing with it on AGREE: (definition, source)."""
    total = sum(weights.values())
    title = {key(c) for c in weights}
    must = {key(head)} | ({key(action)} if action else set())
    for h in hits:  # best first
        if h.score < PARTIAL:
            break
        if h.category != "code":
            continue
        names = _name_keys(h.doc.name)
        if len(names) >= 2 and names <= title and must <= names:
            for cat in AGREEING:
                other = best.get(cat)
                if other is not None and other.doc is not h.doc and _common(weights, other, h) / total >= AGREE:
                    return h, other
    return None


def _is_case(doc: Artifact) -> bool:
    """A switch branch's document (tags._cases): all its words are its own, bound in a few lines."""
    return doc.kind == "body" and bool(doc.context) and doc.context == doc.words


def _decide(weights: dict[str, float], head: str, hits: list[Hit], best: dict[str, Hit], needs_ui: bool,
            unbound: set[int] = frozenset(), action: str | None = None) -> Retrieval:
    code = best.get("code")
    total = sum(weights.values())
    reasons = [f"head concept: {head!r} (the title's most specific word the repository names)"]
    for cat in ("code", "test", "ui", "docs", "text"):
        h = best.get(cat)
        reasons.append(f"best {cat}: " + (f"{h.doc.kind} {h.doc.name!r} ({h.doc.path}:{h.doc.line}) covers "
                                          f"{h.score:.2f}" if h else "none names the head concept"))
    if code is None:
        top = hits[0] if hits else None
        if top and top.score >= PARTIAL:
            return Retrieval("partial", round(min(0.6, 0.2 + 0.4 * top.score), 2), head, hits[:3],
                             reasons + ["no code names the head concept: words alone are not a shipped feature"], best)
        return Retrieval("none", 0.0, head, [], reasons, best)
    # named: a definition, route, flag ... or one branch of a switch (what one key or message does)
    named = next((h for h in hits if h.category == "code" and (h.doc.kind != "body" or _is_case(h.doc))), None)
    if named is not None and one_word(weights, named.covered):
        named = None
    # A source agrees when it names what the code document names (its overlap with it).
    overlap = {cat: _common(weights, h, code) / total for cat, h in best.items() if cat in AGREEING}
    agreeing = sorted((cat for cat, o in overlap.items() if o >= AGREE), key=lambda c: -overlap[c])
    by_name = named is not None and named.score >= NAME_SHIP and max(overlap.values(), default=0) >= NAME_AGREE
    loose = id(code.doc) in unbound  # the head concept is only somewhere in a function's body
    by_sources = code.score >= CODE_SHIP and len(agreeing) >= SOURCES + (LOOSE_EXTRA if loose else 0) \
        and not one_word(weights, code.covered)
    on_screen = "ui" in agreeing or any(h.doc.kind in ("page", "component") and h.score >= AGREE for h in hits)
    if (by_name or by_sources) and needs_ui and not on_screen:
        reasons.append("the repository has a UI and nothing on it (page, component, UI text) names this")
        return Retrieval("partial", round(min(0.6, 0.2 + 0.4 * code.score), 2), head,
                         [code] + [best[c] for c in agreeing[:2]], reasons, best)
    if by_name or by_sources:
        lead = named if by_name else code
        evidence = [lead] + [best[c] for c in agreeing[:3]]
        why = (f"{lead.doc.kind} {lead.doc.name!r} names {lead.score:.2f} of the title (>= {NAME_SHIP})" if by_name
               else f"code covers {code.score:.2f} (>= {CODE_SHIP}) and {len(agreeing)} sources agree "
                    f"({', '.join(agreeing)}; >= {SOURCES} needed)")
        return Retrieval("shipped", MEASURED, head, evidence, reasons + [why], best)
    titled = _titled(weights, head, hits, best, action)
    if titled is not None and (not needs_ui or on_screen or titled[1].category == "ui"):
        lead, agree = titled
        why = (f"{lead.doc.kind} {lead.doc.name!r} is named by the title's own words ({lead.score:.2f}) and "
               f"{agree.category} agrees")
        return Retrieval("shipped", MEASURED, head, [lead, agree], reasons + [why], best)
    by_docs = _docs_led(weights, hits, needs_ui, unbound)
    if by_docs is not None:
        para, lead = by_docs
        why = (f"docs {para.doc.path}:{para.doc.line} say {para.score:.2f} of the title (>= {DOCS_SHIP}) and "
               f"{lead.doc.kind} {lead.doc.name!r} names the same ({lead.score:.2f})")
        return Retrieval("shipped", MEASURED, head, [lead, para] + [h for h in (best.get("test"), best.get("ui"))
                                                                  if h is not None][:1], reasons + [why], best)
    reasons.append(f"not by docs: no docs paragraph says >= {DOCS_SHIP} of the title with code that names it")
    reasons.append(f"not by name: the best named definition covers {named.score if named else 0:.2f} < {NAME_SHIP}")
    reasons.append(f"not by sources: code covers {code.score:.2f} (needs {CODE_SHIP}) and {len(agreeing)} "
                   f"source(s) agree ({', '.join(agreeing) or 'none'}; needs {SOURCES} with overlap >= {AGREE})")
    if max(h.score for h in best.values()) >= PARTIAL:
        return Retrieval("partial", round(min(0.6, 0.2 + 0.4 * code.score), 2), head,
                         [code] + [best[c] for c in agreeing[:2]], reasons, best,
                         _short_of(code, agreeing, one_word(weights, code.covered)))
    return Retrieval("none", 0.0, head, [], reasons, best)


SOURCE_NAMES = {"test": "a test", "ui": "UI text", "docs": "the docs", "text": "a message"}


def _short_of(code: Hit, agreeing: list[str], only_one_word: bool) -> str:
    """What a partial row tells a person: what it lacks to ship first (a row is cut at its width), then
    where the code names the item."""
    where = f"{code.doc.kind} {code.doc.name} ({code.doc.path}:{code.doc.line}) names {code.score:.0%} of the title"
    if only_one_word:
        return f"only one of the title's words is there: {where}"
    if code.score < CODE_SHIP:
        return f"too little of the title in the code: {where}"
    if not agreeing:
        return f"no test, UI text or docs say the same: {where}"
    verb = "says" if len(agreeing) == 1 and agreeing[0] != "docs" else "say"  # "a test says", "the docs say"
    return (f"only {' and '.join(SOURCE_NAMES[c] for c in agreeing)} {verb} the same, one more kind of source "
            f"(a test, UI text or docs) would make it shipped: {where}")
