"""Docs that name code: the identifiers the project's own docs write as code where they speak of a
feature, resolved to the code that defines them, for the verify packet (never a verdict).

A title says "Jobs can check in by sending an email"; the code that does it is `smtpd.py`, and the
docs page that explains it says so ("Healthchecks comes with a `smtpd` management command").
The docs paragraphs that name the title's words best (`DOCS_READ`, in the packet's ranking) are
read again for their code spans (`` `x` ``, `<code>x</code>`); each identifier in them is looked up
among the index's definitions, flags, commands, routes and file names, and the code found competes
for a few places (`BRIDGES`), the identifiers weighed by how well the paragraphs naming them match.

Every step is bounded and linear: `str.find` over at most `DOCS_READ` paragraphs of
`DOC_LINES` lines, at most `MAX_SPANS` spans of at most `MAX_SPAN_CHARS` characters each.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.commands.reconcile.artifacts import Artifact, Index

DOCS_READ = 8  # the best-ranked docs paragraphs read for code spans
DOC_LINES = 6  # lines of a paragraph read (the packet's DOC_SPAN)
MAX_SPANS = 12  # code spans taken from one paragraph
MAX_SPAN_CHARS = 60  # a longer span is a code sample, not a name
MIN_NAME = 3  # shorter identifiers name too much
MAX_TARGETS = 4  # an identifier defined in more places than this names no one place
BRIDGES = 2  # places the docs' identifiers add to a packet at most
STRONG = 2  # paragraphs that must name an identifier for its code to take a place the packet had filled
OPENERS = (("`", "`"), ("<code>", "</code>"))
TARGET_KINDS = frozenset({"definition", "symbol", "flag", "option", "cli", "route", "model", "component", "page",
                          "module"})
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-./")


def code_spans(text: str) -> list[str]:
    """The short code spans of a paragraph, in order (linear: one `find` per delimiter)."""
    out: list[str] = []
    for opener, closer in OPENERS:
        i = text.find(opener)
        while i >= 0 and len(out) < MAX_SPANS:
            j = text.find(closer, i + len(opener))
            if j < 0:
                break
            span = text[i + len(opener):j].strip()
            if 0 < len(span) <= MAX_SPAN_CHARS and "\n" not in span:
                out.append(span)
            i = text.find(opener, j + len(closer))
    return out


def identifiers(span: str) -> list[str]:
    """The names a code span holds, lowered: `--limit-max-requests` → limit_max_requests, `pino.redact(`
    → pino.redact and redact, `/start` → /start, `lib/redaction.js` → lib/redaction.js and redaction."""
    out: list[str] = []
    for raw in span.lower().replace("(", " ").replace(")", " ").replace("=", " ").split():
        tok = "".join(ch for ch in raw if ch in _IDENT_CHARS).strip(".-")
        if tok.startswith("/") and len(tok) > MIN_NAME:
            out.append(tok.rstrip("/"))  # a route path
            continue
        tok = tok.lstrip("-/").replace("-", "_")
        if len(tok) < MIN_NAME:
            continue
        out.append(tok)
        last = tok.replace("/", ".").rsplit(".", 2)
        stem = last[-2] if len(last) >= 2 and last[-1] in _EXTENSIONS else last[-1]
        if stem != tok and len(stem) >= MIN_NAME:
            out.append(stem)
    return out


_EXTENSIONS = frozenset({"py", "js", "ts", "tsx", "jsx", "go", "rb", "mjs", "cjs", "vue", "svelte", "rs", "java"})


class Targets:
    """The index's definitions, flags, commands, routes and files by the name a doc would write."""

    def __init__(self, index: Index, is_test):
        self.by_name: dict[str, list[Artifact]] = {}
        self.routes: list[tuple[str, Artifact]] = []
        for art in index.artifacts:
            if art.kind not in TARGET_KINDS or is_test(art.path):
                continue
            if art.kind == "route" and art.route:
                self.routes.append((art.route.lower().rstrip("/"), art))
            for name in _names(art):
                self.by_name.setdefault(name, []).append(art)

    def find(self, ident: str) -> list[Artifact]:
        if ident.startswith("/"):
            found = [a for r, a in self.routes if r == ident or r.endswith(ident)]
        else:
            found = self.by_name.get(ident, [])
        return found if len(found) <= MAX_TARGETS else []


def _names(art: Artifact) -> list[str]:
    name = art.name.lower().strip()
    if art.kind == "module":
        base = name.rsplit("/", 1)[-1]
        return [name, base.rsplit(".", 1)[0]]
    name = name.lstrip("-").replace("-", "_")
    last = name.rsplit(".", 1)[-1]
    return [name] if last == name else [name, last]


def bridges(paragraphs: list[tuple[float, str]], targets: Targets, taken: set[str]
            ) -> list[Bridge]:
    """From (score, text) of the best docs paragraphs: the code their identifiers name, one place per
    file not in `taken`, best first."""
    mass: dict[str, float] = {}
    named_by: dict[str, int] = {}
    for score, text in paragraphs[:DOCS_READ]:
        for ident in {i for span in code_spans(text) for i in identifiers(span)}:
            mass[ident] = mass.get(ident, 0.0) + score
            named_by[ident] = named_by.get(ident, 0) + 1
    best: dict[str, Bridge] = {}
    for ident, m in sorted(mass.items(), key=lambda t: (-t[1], t[0])):
        for art in targets.find(ident):
            if art.path in taken:
                continue
            held = best.get(art.path)
            if held is None:
                best[art.path] = Bridge(round(m, 3), art, [ident], named_by[ident] >= STRONG)
            elif ident not in held.named:
                held.named.append(ident)
    return sorted(best.values(), key=lambda b: (-b.score, b.art.path, b.art.line))


def actor_words(title: str) -> list[str]:
    """The title's words the concept weighting leaves out as actors ("guest", "admin"): generic verbs
    (run, use, open) name too many things in code to lead anywhere."""
    from leafwise.commands.reconcile.text import ACTORS, split_identifier

    words = [w.lower() for w in split_identifier(title)]
    return [w for i, w in enumerate(words) if w in ACTORS and w not in words[:i]]


_targets: list = [None, None]  # the last index and its Targets: `verify --next` and the bench build many packets


def targets_of(index: Index, is_test) -> "Targets":
    """One lookup table of the index's names per index."""
    if _targets[0] is not index:
        _targets[:] = [index, Targets(index, is_test)]
    return _targets[1]


def title_names(words: list[str], targets: Targets, taken: set[str]) -> list[Bridge]:
    """Title words the concept weighting leaves out as actors ("guest", "admin") that the code
    names exactly, as a route's last segment or a definition or a file: there they name the feature."""
    out: list[Bridge] = []
    seen = set(taken)
    for word in words:
        for art in targets.find("/" + word) + targets.find(word):
            if art.path not in seen:
                seen.add(art.path)
                out.append(Bridge(1.0, art, [word], True))
    return out


@dataclass(slots=True)
class Bridge:
    score: float  # the summed score of the paragraphs naming it
    art: Artifact
    named: list[str]  # the identifiers that lead to it
    strong: bool  # named by STRONG paragraphs or more
