"""What a backlog title is about, by what its words mean (not by their rarity in one repository).

A word's weight is its specificity in general English (the `wordfreq` package's Zipf
frequency, data shipped in its wheel): "backoff" and "jitter" say much, "time" and
"number" little. A word the repository's code never names still weighs (half), so it
lowers the coverage, but never vetoes a match by itself. A word nearly every named
thing in the repository carries ("retry" in a retry library) is the domain's
background and weighs little. Product phrases map to the words code uses
("give up" → stop, "switch off" → disable).

Its English list loads at first use (`word_frequency`); without wordfreq every word weighs the same.
"""

from __future__ import annotations

from functools import lru_cache

from leafwise.commands.reconcile import word_frequency
from leafwise.commands.reconcile.text import concept, noun_then_article, split_identifier, stem

MAX_WEIGHT = 5.0
MIN_WEIGHT = 0.4
ABSENT_FACTOR = 0.5
BACKGROUND_SHARE = 0.06  # a concept on more than this share of named things is the repository's background
BACKGROUND_FACTOR = 0.35

# Product phrases → the word code says (checked on stemmed words, longest first).
PRODUCT_PHRASES = {
    "give up": "stop", "switch off": "disable", "turn off": "disable", "switch on": "enable",
    "turn on": "enable", "look through": "list", "colour scheme": "theme", "color scheme": "theme",
    "line number": "linenumber", "front matter": "frontmatter", "web address": "url", "sign in": "login",
    "log in": "login", "back off": "backoff", "re raise": "reraise", "time out": "timeout",
}
# Related words, both directions (a small table: the product word and the code word).
RELATED = {
    "wait": ("sleep", "delay"), "random": ("jitter",), "combine": ("all", "any", "and", "or"),
    "attempt": ("try",), "chain": ("sequence",), "colour": ("color", "style"), "style": ("theme",),
    "pager": ("less",), "clipboard": ("copy",), "browse": ("list",), "filter": ("search",),
    "pipe": ("stdin",), "scroll": ("mouse",), "refresh": ("reload", "watch"), "hidden": ("all",),
    "backup": ("restore",), "invite": ("invitation",), "badge": ("badges",), "unlock": ("lock",),
    "statistic": ("stats",), "callback": ("hook",), "error": ("exception",), "exception": ("error",),
}
_PHRASES = {tuple(stem(w) for w in k.split()): v for k, v in PRODUCT_PHRASES.items()}


@lru_cache(maxsize=8192)
def specificity(word: str) -> float:
    """How much a word says, 0.4 (the, time) .. 5 (jitter): from general-English frequency."""
    if not word_frequency.available():
        return 2.0
    z = word_frequency.zipf(word.lower())
    if z <= 0:
        z = 2.0  # a made-up or technical word: specific
    return max(MIN_WEIGHT, min(MAX_WEIGHT, 6.5 - z))


def product_phrases(words: list[str]) -> list[str]:
    """The title's words with product phrases replaced by the words code uses."""
    stems = [stem(w) for w in words]
    out: list[str] = []
    i = 0
    while i < len(words):
        for n in (2,):
            key = tuple(stems[i:i + n])
            if len(key) == n and key in _PHRASES and not noun_then_article(words, i, n):
                out.append(_PHRASES[key])
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return out


def related(c: str) -> frozenset[str]:
    """Concepts that may stand for `c` in code (soft matches, half weight)."""
    out = set()
    for key, values in RELATED.items():
        if concept(key) == c:
            out.update(concept(v) for v in values)
    return frozenset(out)


LEXICON = "lexicon.json.gz"  # built from WordNet 3.0 by bench/reconcile_eval/build_lexicon.py


@lru_cache(maxsize=1)
def _tables() -> dict:
    import gzip
    import zlib
    from pathlib import Path

    from leafwise.store import reader

    try:
        packed = reader.read_capped(Path(__file__).with_name(LEXICON), reader.OWN_DATA)
        return reader.load_json(gzip.decompress(packed), reader.OWN_DATA)
    except (OSError, ValueError, EOFError, zlib.error):
        return {}


def _lexicon() -> dict[str, list[str]]:
    """WordNet's synonyms (first senses) and derivationally related forms, for common words."""
    return _tables().get("related", {})


@lru_cache(maxsize=1)
def _verbs() -> frozenset[str]:
    return frozenset(_tables().get("verbs", ()))


def is_verb(word: str) -> bool:
    """Can this word, as spelled, be a verb (WordNet's verb index, common words)? "save", "export",
    "search" and "sign in" can; "stories", "cookbooks", "threaded" cannot."""
    parts = word.lower().split()
    return bool(parts) and parts[0] in _verbs()


@lru_cache(maxsize=1)
def _opposite_concepts() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for verb, others in _tables().get("opposites", {}).items():
        mine = concept(verb)
        table.setdefault(mine, set()).update(c for c in map(concept, others) if c and c != mine)
    return {c: frozenset(os) for c, os in table.items() if os}


def opposites(action: str) -> frozenset[str]:
    """Concepts that mean the opposite of the concept `action`: WordNet's antonyms ("export" ↔
    "import", "enable" ↔ "disable") and the un- prefix ("follow" ↔ "unfollow", "lock" ↔ "unlock")."""
    prefixed = {action[2:]} if action.startswith("un") and len(action) > 4 else {"un" + action}
    return _opposite_concepts().get(action, frozenset()) | frozenset(prefixed)


def _lemmas(word: str) -> list[str]:
    w = word.lower()
    out = [w]
    if w.endswith("ies") and len(w) > 4:
        out.append(w[:-3] + "y")
    if w.endswith("es") and len(w) > 4:
        out.append(w[:-2])
    if w.endswith("s") and len(w) > 3:
        out.append(w[:-1])
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            base = w[:-len(suffix)]
            out += [base, base + "e"] + ([base[:-1]] if len(base) > 2 and base[-1] == base[-2] else [])
    return out


@lru_cache(maxsize=8192)
def lexical(word: str) -> frozenset[str]:
    """Concepts WordNet relates to `word` (a lexical resource: weaker than `related`)."""
    table = _lexicon()
    out: set[str] = set()
    for lemma in _lemmas(word):
        for r in table.get(lemma, ()):
            c = concept(r)
            if c:
                out.add(c)
    own = concept(word.lower())
    return frozenset(out - {own})


def title_words(title: str) -> list[str]:
    return product_phrases(split_identifier(title.replace("'s ", " ")))
