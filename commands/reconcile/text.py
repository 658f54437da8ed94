"""Words for reconcile: identifiers and backlog titles become the same concepts.

A backlog title ("Users can reset a forgotten password by email") and a piece
of code (`POST /auth/password-reset`, `test_password_reset_sends_email`) only
meet after both are split into words, stemmed, and folded through a small
table of product ↔ code synonyms (sign up ↔ register, remove ↔ delete ...).
Whole words only: `banner` never contains `ban`, `async` never contains `sync`.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CAMEL = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")  # URLs, IDs: one word
_WORDS = re.compile(r"[A-Za-z0-9]+")
_BRAND = re.compile(r"^(?:[A-Z][a-z]{1,2}|[a-z]{1,3})[A-Z]{2,}$")  # a name in mixed case whose camel parts are fragments

# Words that carry no meaning of their own in a backlog title or an identifier.
STOP = frozenset("""
a an the and or but nor of to in on at by for from with without into onto as via per than then
is are was were be been being am do does did done can could should would will shall may might must
i me my we our you your he she it its they them their this that these those there here who whom whose
what which when whenever where while once so such not no yes all any each every some other another
again also only just still even ever very too more most much many few less least own same both either
up out off over under about above below after before between through during until against among
want wants need needs needed longer straight away already yet soon later ones one two three s t
i e eg etc ie get gets got getting let lets able
""".split())

# Who does something: present in nearly every title, weak as evidence.
ACTORS = frozenset("""
user users visitor visitors shopper shoppers reader readers customer customers admin admins
administrator administrators staff people person someone anyone everyone operator operators
member members owner owners account-holder guest guests client clients
""".split())

# Verbs of looking or keeping: they say little about what was built.
GENERIC = frozenset("""
open opens make makes made keep keeps kept stay stays use uses receive receives saved
have has had know knows go goes come comes appear appears work works working thing things
screen app application feature info information way current time run runs able
""".split())

# Words of code structure: a path or a file name says them without meaning a feature.
NOISE = frozenset("""
test tests spec specs api v1 v2 v3 id ids uuid pk handler handlers controller controllers service services
router routes route util utils helper helpers index main src lib libs js jsx ts tsx py mjs cjs impl
internal base core common default module modules schema schemas req res ctx err cb fn async await
__init__ init dto serializer serializers
""".split())

# Multiword phrases that name one concept (checked on stemmed words, longest first).
PHRASES = {
    "sign up": "signup", "sign in": "login", "log in": "login", "sign out": "logout",
    "log out": "logout", "check out": "checkout", "e mail": "email", "due date": "duedate",
    "read only": "readonly", "two factor": "twofactor", "multi factor": "twofactor",
    "drag and drop": "drag", "command line": "cli", "real time": "realtime", "dark mode": "theme",
    "to do": "todo", "web socket": "websocket", "gift card": "giftcard", "wish list": "wishlist",
    "sub task": "subtask", "service worker": "serviceworker",
    # compounds code spells in either form (`line-numbers`, `showLineNumbers`, `frontmatter`)
    "line number": "linenumber", "front matter": "frontmatter", "time out": "timeout", "back off": "backoff",
}

# Product words and the code words that mean the same (first word names the group).
SYNONYMS = """
signup register registration enroll
login signin logon authenticate session
auth authentication authorization
logout signout
delete remove destroy erase purge del
edit update change modify rename patch alter
create add insert write submit new
list browse enumerate see view show display
search find lookup
export download dump
upload attachment attach
notify notification alert notice
email mail smtp mailer
reset forgot forgotten recover recovery
pay payment charge
coupon discount voucher promo
avatar picture photo image
rating star stars rate
stock availability available inventory
history activity audit changelog
recommend recommendation suggestion suggest
week weekly
day daily
month monthly
realtime live websocket socket sse eventsource
offline serviceworker
recur recurring recurrence repeat repeating rrule
assign assignee assignment
invite invitation
label tag
theme dark
switch toggle
note description
duedate due deadline
page paginate paginated pagination
subtask checklist
dashboard stats statistics overview
count counts total tally
csv spreadsheet
track tracking
ship shipping shipment dispatch shipped
cancel cancellation
refund refunds
complet complete finish tick
archive archived
comment comments
profile
checkout
twofactor 2fa mfa totp otp
giftcard
wishlist
drag draggable dnd droppable
""".split("\n")

# Verbs an HTTP method implies, so `DELETE /tasks/:id` answers "delete a task".
METHOD_VERBS = {"get": ("list",), "post": ("create",), "put": ("edit",), "patch": ("edit",),
                "delete": ("delete",)}


def split_identifier(text: str) -> list[str]:
    """`attachAuthUser` → attach auth user; `password-reset` → password reset; lower case."""
    out: list[str] = []
    for chunk in _WORDS.findall(text):
        out.extend(_parts(chunk))
    return out


@lru_cache(maxsize=131072)
def _parts(chunk: str) -> tuple[str, ...]:
    if _BRAND.match(chunk):  # PyPI, iOS, macOS: one name, not "py" + "pi"
        return (chunk.lower(),)
    return tuple(part.lower() for part in _CAMEL.findall(chunk))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer: plurals, -ed, -ing, a final -e, doubled consonants."""
    w = word.lower()
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and any(c in "aeiouy" for c in base):
            w = base
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousz" and (w[-1] != "l" or len(w) >= 6):
                w = w[:-1]
            break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    if w.endswith("ll") and len(w) >= 5:
        w = w[:-1]
    return w


def _build_synonyms() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in SYNONYMS:
        words = line.split()
        if words:
            head = stem(words[0])
            for word in words:
                table.setdefault(stem(word), head)
    return table


_SYN = _build_synonyms()
_PHRASE_KEYS = {tuple(stem(w) for w in k.split()): v for k, v in PHRASES.items()}
_PHRASE_MAX = max(len(k) for k in _PHRASE_KEYS)
_PHRASE_FIRST = frozenset(k[0] for k in _PHRASE_KEYS)


def concept(word: str) -> str:
    """The concept a single word stands for."""
    s = stem(word)
    return _SYN.get(s, s)


ARTICLES = frozenset({"a", "an", "the"})


def noun_then_article(words: list[str], i: int, size: int) -> bool:
    """"logs in a separate thread": a plural noun, then a preposition and an article, is no
    phrasal verb ("log in"), whatever their stems say."""
    return (size == 2 and words[i].lower().endswith("s") and not words[i].lower().endswith("ss")
            and i + 2 < len(words) and words[i + 2].lower() in ARTICLES)


def concepts_of(words: list[str]) -> list[str]:
    """Concepts of a word sequence, phrases joined, stop words dropped, order kept."""
    stems = [stem(w) for w in words]
    out: list[str] = []
    i = 0
    n = len(stems)
    while i < n:
        if stems[i] in _PHRASE_FIRST:
            for size in range(_PHRASE_MAX, 1, -1):
                key = tuple(stems[i:i + size])
                if len(key) == size and key in _PHRASE_KEYS and not noun_then_article(words, i, size):
                    out.append(concept(_PHRASE_KEYS[key]))
                    i += size
                    break
            else:
                c = _word_concept(words[i])
                if c:
                    out.append(c)
                i += 1
            continue
        c = _word_concept(words[i])
        if c:
            out.append(c)
        i += 1
    return out


@lru_cache(maxsize=131072)
def _word_concept(word: str) -> str | None:
    word = word.lower()
    if word in STOP or word in NOISE or word.isdigit() or len(word) <= 1:
        return None
    s = stem(word)
    return _SYN.get(s, s)


def identifier_concepts(*names: str) -> frozenset[str]:
    """Every concept an identifier, a path or a test title mentions."""
    found: set[str] = set()
    for name in names:
        if name:
            found.update(concepts_of(split_identifier(name)))
    return frozenset(found)


def is_actor(word: str) -> bool:
    return word.lower() in ACTORS


def is_generic(word: str) -> bool:
    return word.lower() in GENERIC
