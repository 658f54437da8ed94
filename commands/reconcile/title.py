"""What a backlog title asks the code for: its concepts, its main verb, and whether it needs a UI.

Actors ("users", "admins", whoever comes before an early "can") and vague verbs ("keep", "open")
are dropped; words after "on/in/at" (where it happens, not what) are marked as a place, words of a
"with ..." phrase as a detail. How much each concept weighs is `match.py`'s question.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.commands.reconcile.text import (
    ACTORS,
    GENERIC,
    NOISE,
    PHRASES,
    STOP,
    concept,
    noun_then_article,
    split_identifier,
    stem,
)

LOCATION_WORDS = frozenset({"on", "in", "at", "inside", "within", "across"})
MODALS = frozenset({"can", "could", "may", "must", "should", "will"})
SUBORDINATE = frozenset({"who", "which", "that", "when", "whenever", "once", "after", "before", "while", "if",
                         "so", "until"})
CLAUSE_BREAK = frozenset({"and", "or", "with", "by", "for", "to", "from", "as", "when", "once", "so", "that",
                          "who", "which", "without", "into", "of", "via", "using", "after", "before", "while"})
CRUD = frozenset(concept(w) for w in ("list", "create", "edit", "delete"))
HEADLESS = frozenset({"cli", "api", "endpoint", "webhook", "script", "command", "terminal", "cron", "job"})
_ACTOR_CONCEPTS = frozenset(concept(w) for w in ACTORS)
_GENERIC_CONCEPTS = frozenset(concept(w) for w in GENERIC)
_PHRASE_KEYS = {tuple(stem(w) for w in k.split()): v for k, v in PHRASES.items()}


@dataclass(slots=True)
class Term:
    """One concept of the title."""

    concept: str
    word: str  # as the title spells it, for messages
    location: bool = False
    attribute: bool = False  # named in a "with ..." phrase: a detail the tests must show


@dataclass
class Query:
    """What a backlog item asks the code for."""

    terms: list[Term]
    verb: str | None  # the main action's concept, when the title has a specific one
    headless: bool  # a CLI/API item: no UI needed
    verbs: frozenset[str] = frozenset()  # the main verb and the CRUD verbs coordinated with it

    @property
    def concepts(self) -> list[str]:
        return [t.concept for t in self.terms]

    @property
    def core(self) -> list[str]:
        """The concepts of what is done, without its "with ..." details (all of them if that leaves none)."""
        return [t.concept for t in self.terms if not t.attribute] or self.concepts

    def word(self, concept_: str) -> str:
        return next((t.word for t in self.terms if t.concept == concept_), concept_)


def parse_title(title: str, description: str = "") -> Query:
    """Concepts of a backlog title, its main verb, and whether it is a UI-less item."""
    words = split_identifier(title.replace("'s ", " "))
    stems = [stem(w) for w in words]
    # "<who> can <do what>": the words before an early modal name the actor, whatever they are.
    modal = next((k for k, w in enumerate(words[:5]) if w in MODALS), None)
    actor_words = set(range(modal)) if modal else set()
    terms: list[Term] = []
    verb: str | None = None
    after_actor = False
    location = False
    attribute = False
    subordinate = False
    verbs: set[str] = set()
    i = 0
    while i < len(words):
        size, value = 1, None
        for n in range(3, 1, -1):
            key = tuple(stems[i:i + n])
            if len(key) == n and key in _PHRASE_KEYS and not noun_then_article(words, i, n):
                size, value = n, _PHRASE_KEYS[key]
                break
        word = " ".join(words[i:i + size])
        position = i
        i += size
        if value is None and (word in LOCATION_WORDS or word in CLAUSE_BREAK or word in SUBORDINATE):
            location = word in LOCATION_WORDS
            attribute = word == "with" or (attribute and word in ("and", "or", "of"))
            subordinate = subordinate or word in SUBORDINATE
        if value is None and (word in STOP or word in NOISE or word.isdigit() or len(word) < 2):
            continue
        c = concept(value or word)
        if c in _ACTOR_CONCEPTS or position in actor_words:
            after_actor = True
            continue
        if after_actor and verb is None:
            after_actor = False
            if c not in _GENERIC_CONCEPTS:
                verb = c
                verbs.add(c)
        if c in CRUD and not subordinate:
            verbs.add(c)
        if c in _GENERIC_CONCEPTS or any(t.concept == c for t in terms):
            continue
        terms.append(Term(c, word, location, attribute))
    text_concepts = {concept(w) for w in split_identifier(f"{title} {description}")}
    headless = bool(text_concepts & {concept(w) for w in HEADLESS})
    return Query(terms, verb, headless, frozenset(verbs))
