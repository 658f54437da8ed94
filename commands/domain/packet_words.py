"""The words of a draft leaf's title and what else names the same thing, for the evidence packet.

The packet (`verify_packet.py`) searches reconcile's matching index with each title concept and its
expansions: related words and shared prefixes (SOFT), WordNet's related words (LEX), irregular verb
forms the suffix rules of `retrieve.key` cannot reach (`IRREGULAR`), software's common synonyms
(`SYNONYMS`) and the initials of a run of title words (`acronyms`); the passage search gets the same as
substrings (`probes`).
"""

from __future__ import annotations

from leafwise.commands.reconcile import passages
from leafwise.commands.reconcile.retrieve import LEX, SOFT, RIndex, key, prefix

# Irregular verb forms the suffix rules of `key` cannot reach ("hide" is named `HiddenStory`), both ways.
FORMS = ("hide hidden hid", "send sent", "write written wrote", "choose chosen chose", "build built",
          "run ran", "find found", "get got gotten", "give given gave", "take taken took", "make made",
          "keep kept", "lose lost", "begin began begun", "break broken broke", "forget forgotten forgot",
          "freeze frozen froze", "hold held", "lead led", "leave left", "mean meant", "seek sought",
          "sell sold", "show shown", "speak spoken", "tell told", "think thought", "throw thrown",
          "bind bound", "draw drawn", "drive driven", "fall fallen", "grow grown", "know known",
          "see seen", "spin spun", "stand stood", "stick stuck", "tear torn", "wear worn", "win won",
          "pay paid", "say said", "lay laid", "buy bought", "bring brought", "catch caught", "feel felt",
          "meet met", "spend spent", "hang hung", "override overridden", "rewrite rewritten", "undo undone",
          "feed fed", "fly flown flew", "ride ridden rode", "rise risen rose", "shake shaken",
          "forbid forbidden", "weave woven", "dig dug", "light lit")
IRREGULAR = {w: frozenset(line.split()) - {w} for line in FORMS for w in line.split()}
# Words a product owner and the code use for one thing, which WordNet's first senses do not relate (each line a
# group, every word related to every other): general software vocabulary, not one repository's names.
GROUPS = ("language locale i18n translation translate", "hide redact mask censor conceal", "remember memory",
           "voice speech audio", "aloud speech", "twice duplicate", "again duplicate", "nested parent subfolder",
           "semantic embedding vector", "phone mobile", "overall total", "member participant",
           "podcast enclosure episode", "picture image photo avatar", "password credential secret",
           "schedule cron", "theme dark", "speed rate", "abort cancel", "remove delete", "upload attachment",
           "download export", "notification notify alert", "copy archive snapshot", "bulk batch", "tag label",
           "folder directory", "shortcut hotkey keybinding", "sign signin login", "account user profile",
           "permission role access", "trash bin", "draft unpublished", "star favorite favourite bookmark",
           "feed rss atom", "mail email smtp", "chart graph plot", "pin sticky", "expire expiry expiration",
           "limit quota throttle", "prompt ask question", "dashboard overview", "reply answer response")
SYNONYMS: dict[str, frozenset[str]] = {}
for _line in GROUPS:
    for _w in _line.split():
        SYNONYMS[_w] = SYNONYMS.get(_w, frozenset()) | (frozenset(_line.split()) - {_w})


def synonyms(word: str, c: str) -> frozenset[str]:
    """The words `SYNONYMS` relates to a title word (as written, its concept, without a plural's s/es)."""
    w = word.lower()
    forms = {w, c, w[:-1] if w.endswith("s") else w, w[:-2] if w.endswith("es") else w}
    return frozenset().union(*(SYNONYMS.get(f, frozenset()) for f in forms))


def expansions(weighed, rindex: RIndex) -> dict[str, list[tuple[str, float]]]:
    """Title concept -> (matching key, how much it counts): the word, related words and shared
    prefixes (SOFT), WordNet's related words (LEX)."""
    out: dict[str, list[tuple[str, float]]] = {}
    for c in weighed.weights:
        k = key(c)
        found = {k: 1.0}
        soft = {key(r) for r in weighed.soft.get(c, ())}
        p = prefix(k)
        if p and len(k) >= 5:
            soft |= rindex.by_prefix.get(p, set())
        for s in soft - {k}:
            found[s] = SOFT
        for w in weighed.lexical.get(c, ()):
            found.setdefault(key(w), LEX)
        for w in IRREGULAR.get(weighed.words.get(c, c).lower(), frozenset()) | IRREGULAR.get(c, frozenset()):
            found.setdefault(key(w), SOFT)
        for w in synonyms(weighed.words.get(c, c), c):
            found.setdefault(key(w), SOFT)
        out[c] = [(kk, f) for kk, f in found.items() if kk in rindex.by_key]
    return out


CONJUNCTIONS = frozenset({"and", "or", "nor", "but"})


def acronyms(title: str, weighed, rindex: RIndex) -> dict[str, list[tuple[str, float]]]:
    """Title concept -> (matching key, factor) for the initials of 3 or 4 consecutive title words that the
    index names as a word ("single sign on" -> `sso`, "text to speech" -> `tts`), to each concept of the run."""
    from leafwise.commands.reconcile.text import STOP, concept, split_identifier

    words = [w.lower() for w in split_identifier(title) if w.isalpha()]
    out: dict[str, list[tuple[str, float]]] = {}
    for n in (3, 4):
        for i in range(len(words) - n + 1):
            run = words[i:i + n]
            k = "".join(w[0] for w in run)
            if run[0] in STOP or CONJUNCTIONS.intersection(run) or key(k) != k or k not in rindex.by_key:
                continue  # "at a chosen" is no acronym, nor "pause and resume" (two things), nor a stem
            for w in run:
                c = concept(w)
                if c in weighed.weights:
                    out.setdefault(c, []).append((k, SOFT))
    return out


def probes(weighed) -> dict[str, list[tuple[str, str, float]]]:
    """Title concept -> (substring, matching key, how much it counts) for the passage search: the title's
    word, its related words (SOFT), WordNet's (LEX) and irregular forms (SOFT)."""
    out: dict[str, list[tuple[str, str, float]]] = {}
    for c in weighed.weights:
        word = weighed.words.get(c, c)
        forms = [(w, 1.0) for w in (c, word)] + [(w, SOFT) for w in weighed.soft.get(c, ())]
        forms += [(w, LEX) for w in weighed.lexical.get(c, ())]
        forms += [(w, SOFT) for w in IRREGULAR.get(word.lower(), frozenset()) | IRREGULAR.get(c, frozenset())]
        forms += [(w, SOFT) for w in synonyms(word, c)]
        found: dict[str, tuple[str, float]] = {}
        for w, factor in forms:
            k = key(w)
            p = passages.probe(w, k)
            if p is not None and factor > found.get(k, ("", 0.0))[1]:
                found[k] = (p, factor)
        out[c] = [(p, k, factor) for k, (p, factor) in found.items()]
    return out
