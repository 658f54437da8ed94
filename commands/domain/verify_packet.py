"""The evidence packet: the few places an agent should read to decide whether a draft leaf shipped.

Built for recall, not for a verdict: reconcile's index of the repository (`reconcile/scan.py`
`build_index`, with its cache) and its matching index (`retrieve.RIndex`: every definition, route,
flag, test, UI string and docs paragraph by matching key), searched with the title's concepts and
what they expand to (`match.weigh`: related words, shared prefixes, the WordNet lexicon; irregular
verb forms and software's synonyms: `packet_words`) at their weights. The places are spread over files (the best place of each
file first), with room kept for tests, docs and a commit that names the node, and cut to at most `MAX_PLACES` places and about
`TOKEN_BUDGET` tokens. The agent reads them and decides; Leafwise checks what it quotes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from leafwise.commands.domain import packet_commits, packet_words
from leafwise.commands.domain.verify_quotes import CODE_EXT
from leafwise.commands.reconcile import docs_names, passages
from leafwise.commands.reconcile.artifacts import Artifact, Index
from leafwise.commands.reconcile.match import Stats, weigh
from leafwise.commands.reconcile.retrieve import RIndex, category, key
from leafwise.commands.text import clean as cut
from leafwise.store import Node, reader

MAX_PLACES = 10
TOKEN_BUDGET = 1500
CHARS_PER_TOKEN = 4
SNIPPET = 160
MAX_SPAN = 30  # lines a definition's place spans at most
DOC_SPAN = 6
# How many places each kind of source may take in the first pass (the best place of each file).
QUOTAS = {"code": 7, "test": 1, "docs": 1, "ui": 1, "commit": 1}
PER_FILE = 2
MIN_SCORE = 0.15
FILL_SCORE = 0.08  # below MIN_SCORE, a place only fills room the packet has left
ENTRY_KINDS = frozenset({"route", "cli"})
ENTRY_PLACES = 3
# Folders of generated or historical code: a migration names every model it touches, and is rarely the feature.
AFTERTHOUGHT_DIRS = frozenset({"migrations", "alembic", "versions", "vendor", "fixtures", "snapshots"})
AFTERTHOUGHT = 0.5
PATH_BOOST = 0.5  # a document in a file whose own name carries the title's words (`outdated.py`) counts more
PASSAGE = 0.8  # a few lines bind the title's words less than a definition (a body counts 0.85)
PASSAGES = 1  # passages a packet holds at most (1, 2 and 3 measured on the development half: 1 best)
KIND_RANK = {"body": 1, "passage": 2, "test": 2, "string": 3, "doc": 4, "module": 5}  # else 0: a definition, route, flag …
TOUCHED_FILES = 2  # places the packet adds at most for code files the issue's commit changed
# A class a route's line names as its handler (`'SubtaskController'`, `UserController::class`): an identifier that
# starts upper-case, ends with one of these; a linear pattern over a snippet of at most SNIPPET characters.
_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9_]{0,80}")
HANDLER_SUFFIXES = ("Controller", "Handler", "Resource", "Endpoint")
BOUNDARY_KINDS = frozenset({"definition", "symbol", "route", "cli", "test", "model", "component", "page", "option",
                            "flag", "field"})


@dataclass(frozen=True, slots=True)
class PacketPlace:
    path: str  # relative to the plan's folder; a commit is `git:<sha>`
    start: int
    end: int
    snippet: str
    why: str
    kind: str  # code | test | docs | ui | commit
    score: float

    def view(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Packet:
    places: list[PacketPlace]
    tokens: int
    head: str | None  # the title's heaviest concept the repository names
    unnamed: list[str] = field(default_factory=list)  # title words no file of the repository holds


def _plain_words(title: str, weighed) -> list[str]:
    """Title words the concept index leaves out ("async", "man": code-structure or short words)."""
    from leafwise.commands.reconcile.text import ACTORS, GENERIC, STOP, split_identifier

    known = {w.lower() for w in weighed.words.values()} | set(weighed.weights)
    words = []
    for w in split_identifier(title):
        w = w.lower()
        if len(w) >= 3 and w.isalpha() and w not in STOP | ACTORS | GENERIC and w not in known and w not in words:
            words.append(w)
    return words[:4]


def _raw_places(index: Index, words: list[str]) -> tuple[list[tuple[str, int, str]], list[str]]:
    """For each word: its first whole-word use in a source file (substring search, no pattern), or unnamed."""
    found: list[tuple[str, int, str]] = []
    unnamed: list[str] = []
    lowered = {rel: text.lower() for rel, text in index.texts.items()}
    for word in words:
        at = None
        for rel in sorted(lowered):
            text = lowered[rel]
            i = text.find(word)
            while i >= 0 and ((i > 0 and text[i - 1].isalnum()) or
                              (i + len(word) < len(text) and text[i + len(word)].isalpha())):
                i = text.find(word, i + 1)
            if i >= 0:
                at = (rel, text.count("\n", 0, i) + 1, word)
                break
        if at is None:
            unnamed.append(word)
        else:
            found.append(at)
    return found, unnamed


def _bodies(index: Index, rindex: RIndex) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line spans of the function bodies the index holds (to the next definition, at most
    MAX_SPAN lines): the passage search leaves them to the index's own documents."""
    texts = _Texts(index)
    spans: dict[str, list[tuple[int, int]]] = {}
    for doc in rindex.docs:
        if doc.kind == "body" and doc.line:
            bounds = texts.bounds.get(doc.path, [])
            after = bounds[bisect_right(bounds, doc.line):]
            end = min(doc.line + MAX_SPAN - 1, (after[0] - 1) if after else doc.line + MAX_SPAN - 1)
            spans.setdefault(doc.path, []).append((doc.line, max(doc.line, end)))
    out = {}
    for rel, found in spans.items():
        merged: list[tuple[int, int]] = []
        for a, b in sorted(found):
            if merged and a <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        out[rel] = merged
    return out


def _scores(weights: dict[str, float], expansions: dict[str, list[tuple[str, float]]], rindex: RIndex
            ) -> dict[int, tuple[float, list[str]]]:
    total = sum(weights.values()) or 1.0
    best: dict[int, dict[str, float]] = {}
    for c, keys in expansions.items():
        for k, factor in keys:
            for i in rindex.by_key.get(k, ()):
                seen = best.setdefault(i, {})
                if factor > seen.get(c, 0.0):
                    seen[c] = factor
    out: dict[int, tuple[float, list[str]]] = {}
    for i, named in best.items():
        score = sum(weights[c] * f for c, f in named.items()) / total
        if rindex.docs[i].kind == "body":
            score *= 0.85  # a body names things less directly than a name and its docstring
        out[i] = (round(score, 3), sorted(named, key=lambda c: -weights[c]))
    return out


def _modules(index: Index, weights: dict[str, float]) -> list[tuple[float, Artifact, list[str]]]:
    """Files whose own name carries the title's words (`zipfile.py` for "a zip file")."""
    total = sum(weights.values()) or 1.0
    wanted = {key(c): c for c in weights}
    out = []
    for art in index.artifacts:
        if art.kind != "module":
            continue
        named = {wanted[k] for k in (key(w) for w in art.words) if k in wanted}
        if named:
            out.append((round(sum(weights[c] for c in named) / total, 3), art, sorted(named)))
    return out


def _place_factor(path: str, by_path: dict[str, float]) -> float:
    """More for a file whose name carries the title's words, less for a migration or a vendored copy."""
    factor = 1 + PATH_BOOST * by_path.get(path, 0.0)
    folders = path.split("/")[:-1]
    late = AFTERTHOUGHT_DIRS.intersection(folders) or any("migration" in f or f == "migrate" for f in folders)
    return factor * AFTERTHOUGHT if late else factor


def _kind(doc: Artifact) -> str:
    if doc.kind != "doc" and _file_kind(doc.path) == "test":
        return "test"  # a flag or a helper in a test file is the tests' code, not the project's
    cat = "code" if doc.kind == "module" else category(doc)
    return {"text": "ui", "other": "code"}.get(cat, cat)


def _file_kind(rel: str) -> str:
    from leafwise.commands.domain.verify_quotes import file_kind

    kind = file_kind(rel)
    return kind if kind in ("code", "test", "docs") else "code"


def few_passages(ranked: list[tuple[float, Artifact, list[str]]]) -> list[tuple[float, Artifact, list[str]]]:
    """At most PASSAGES passages, each in a file no better document of the ranking holds: lines found by
    their words fill a gap the index leaves, they do not crowd out what it names. Passages of code in a
    language no scanner reads (Rust, PHP, Java …) are that file's only documents: they compete as any
    document does."""
    out, seen, passages_left = [], set(), PASSAGES
    for item in ranked:
        if item[1].kind == "passage" and not passages.is_unscanned_code(item[1].path, CODE_EXT):
            if passages_left <= 0 or item[1].path in seen or _is_test_file(item[1].path):
                continue  # a test file's tests are in the index by name
            passages_left -= 1
        elif item[1].kind == "passage" and _is_test_file(item[1].path):
            continue
        seen.add(item[1].path)
        out.append(item)
    return out


def _fill(chosen: list[tuple[float, Artifact, list[str]]], ranked: list[tuple[float, Artifact, list[str]]]
          ) -> list[tuple[float, Artifact, list[str]]]:
    """Places left empty take the next passages, then the places below MIN_SCORE (a file of each not
    chosen yet, best first): past the one passage that competes, they only fill room nothing else wanted."""
    files = {c[1].path for c in chosen}
    more = [t for t in ranked if t[1].kind == "passage" and not _is_test_file(t[1].path)]
    more += [t for t in ranked if t[1].kind != "passage" and t[0] < MIN_SCORE]
    for item in more:
        if len(chosen) >= MAX_PLACES:
            break
        if item[1].path not in files:
            chosen.append(item)
            files.add(item[1].path)
    return chosen


def _is_test_file(rel: str) -> bool:
    return _file_kind(rel) == "test" or passages.is_test(rel)


def _pick(ranked: list[tuple[float, Artifact, list[str]]]) -> list[tuple[float, Artifact, list[str]]]:
    """The best place of each file, kinds within their quotas; then second places, best first."""
    chosen: list[tuple[float, Artifact, list[str]]] = []
    files: dict[str, int] = {}
    taken = {k: 0 for k in QUOTAS}
    ranked = few_passages(ranked)
    for item in ranked:  # the entry points first: the route or command that does it is where to start reading
        if item[1].kind in ENTRY_KINDS and item[1].path not in files and len(chosen) < ENTRY_PLACES:
            chosen.append(item)
            files[item[1].path] = 1
            taken["code"] += 1
    for item in ranked:
        kind = _kind(item[1])
        if item[1].path in files or taken.get(kind, 0) >= QUOTAS.get(kind, 1):
            continue
        chosen.append(item)
        files[item[1].path] = 1
        taken[kind] = taken.get(kind, 0) + 1
        if len(chosen) >= MAX_PLACES:
            return chosen
    for item in ranked:
        if len(chosen) >= MAX_PLACES:
            break
        if item in chosen or files.get(item[1].path, 0) >= PER_FILE:
            continue
        if any(c[1].path == item[1].path and abs(c[1].line - item[1].line) <= MAX_SPAN for c in chosen):
            continue  # inside a place already chosen
        chosen.append(item)
        files[item[1].path] = files.get(item[1].path, 0) + 1
    return chosen


class _Texts:
    """The lines of the files the packet shows, through the one reader (sources come from the index)."""

    def __init__(self, index: Index):
        self.index = index
        self.lines: dict[str, list[str]] = {}
        self.bounds: dict[str, list[int]] = {}
        for art in index.artifacts:
            if art.kind in BOUNDARY_KINDS:
                self.bounds.setdefault(art.path, []).append(art.line)
        for lines in self.bounds.values():
            lines.sort()

    def of(self, rel: str) -> list[str]:
        if rel not in self.lines:
            text = self.index.texts.get(rel)
            if text is None:
                try:
                    root = Path(self.index.root)
                    text = reader.decode(reader.read_bytes(root / rel, reader.DOC, under=root)[:reader.DOC.cap],
                                         lone_cr=False)  # lines as git numbers them
                except (OSError, ValueError):
                    text = ""
            self.lines[rel] = reader.lines(text)
        return self.lines[rel]

    def span(self, art: Artifact) -> tuple[int, int]:
        lines = self.of(art.path)
        start = max(1, art.line or 1)
        if art.kind in ("doc", "string", "module", "passage"):
            end = start + DOC_SPAN - 1
        else:
            bounds = self.bounds.get(art.path, [])
            after = bounds[bisect_right(bounds, start):]
            end = min(start + MAX_SPAN - 1, (after[0] - 1) if after else start + MAX_SPAN - 1)
        return start, max(start, min(end, len(lines) or start))

    def snippet(self, rel: str, start: int, end: int, width: int) -> str:
        lines = [line.strip() for line in self.of(rel)[start - 1:end] if line.strip()]
        return cut(" ⏎ ".join(lines[:3]), width)


def _touched_first(ranked: list[tuple[float, Artifact, list[str]]], touched: list[str]
                   ) -> list[tuple[float, Artifact, list[str]]]:
    """The places in code files the issue's commit changed, ahead of the others at their own order (its
    tests stay where their score puts them)."""
    files = {f for f in touched if not _is_test_file(f)}
    return sorted(ranked, key=lambda t: t[1].path not in files)  # stable: each side keeps its order


def _touched_places(places: list[PacketPlace], touched: list[str], texts: _Texts) -> list[PacketPlace]:
    """A changed code file no place reached yet: its first lines, ahead of the weakest places."""
    have = {p.path for p in places}
    added = []
    for rel in touched:
        if rel in have or _is_test_file(rel) or Path(rel).suffix.lower() not in CODE_EXT or len(added) >= TOUCHED_FILES:
            continue
        end = min(MAX_SPAN, len(texts.of(rel)) or 1)
        added.append(PacketPlace(rel, 1, end, texts.snippet(rel, 1, end, SNIPPET),
                                 "a code file the issue's commit changed", "code", 0.9))
    return added + places if added else places


def _weighed(node: Node, stats: Stats):
    description = node.data.get("description")
    weighed = weigh(node.title, description if isinstance(description, str) else "", stats)
    return weighed, {c: w for c, w in weighed.weights.items() if w > 0}


def ranked_places(node: Node, index: Index, stats: Stats, rindex: RIndex
                  ) -> list[tuple[float, Artifact, list[str]]]:
    """Every document the title's words reach, best first: (score, document, the concepts it names)."""
    weighed, weights = _weighed(node, stats)
    return _ranked(weighed, weights, index, rindex, node.title)[0] if weights else []


def _ranked(weighed, weights: dict[str, float], index: Index, rindex: RIndex, title: str = ""
            ) -> tuple[list[tuple[float, Artifact, list[str]]], dict[int, float], str | None]:
    expansions = packet_words.expansions(weighed, rindex)
    for c, more in packet_words.acronyms(title, weighed, rindex).items():
        expansions.setdefault(c, []).extend(more)
    present = [c for c in weights if expansions.get(c)]
    head = max(present, key=lambda c: (weights[c], c)) if present else None
    modules = _modules(index, weights)
    by_path = {art.path: cov for cov, art, _named in modules}
    covers: dict[int, float] = {}  # what each document names of the title, before the file's factor
    ranked = []
    scores = _scores(weights, expansions, rindex)
    for i, (s, named) in scores.items():
        if s >= FILL_SCORE:
            covers[id(rindex.docs[i])] = s
            ranked.append((round(s * _place_factor(rindex.docs[i].path, by_path), 3), rindex.docs[i], named,
                           len(rindex.keys[i])))
    ranked += [(cov, art, named, 0) for cov, art, named in modules if cov >= FILL_SCORE]
    found = passages.search(index, packet_words.probes(weighed), weights, key, FILL_SCORE / PASSAGE, _bodies(index, rindex),
                            CODE_EXT)
    for s, art, named in found:
        covers[id(art)] = s
        ranked.append((round(s * PASSAGE * _place_factor(art.path, by_path), 3), art, named, len(art.words)))
    # ties: the more focused document first (fewer words besides the title's), then names before bodies, docs last
    ranked.sort(key=lambda t: (-t[0], t[3], KIND_RANK.get(t[1].kind, 1), t[1].path, t[1].line))
    return [t[:3] for t in ranked], covers, head


def build(node: Node, index: Index, stats: Stats, rindex: RIndex) -> Packet:
    """The packet for `node` over an index built already (`verify --next` shares one)."""
    weighed, weights = _weighed(node, stats)
    if not weights:
        return Packet([], 0, None)
    ranked, covers, head = _ranked(weighed, weights, index, rindex, node.title)
    issue = packet_commits.of_issue(Path(index.root), node, index) if index.in_git else None
    found = [issue[0]] if issue else packet_commits.naming(Path(index.root), node.id, weights, head) \
        if index.in_git else []
    commits = [PacketPlace(f"git:{sha[:12]}", 0, 0, cut(subject, SNIPPET), why, "commit", score)
               for sha, subject, why, score in found]
    if issue:
        ranked = _touched_first(ranked, issue[1])
    chosen = _fill(_pick([t for t in ranked if t[0] >= MIN_SCORE]), ranked)[:MAX_PLACES - len(commits[:1])]
    texts = _Texts(index)
    places = []
    for score, art, named in chosen:
        start, end = texts.span(art)
        words = ", ".join(weighed.words.get(c, c) for c in named[:4])
        what = "the file's name" if art.kind == "module" else f"{art.kind} {cut(art.name, 60)}"
        places.append(PacketPlace(art.path, start, end, texts.snippet(art.path, start, end, SNIPPET),
                                  f"{what} names {words} ({covers.get(id(art), score):.2f} of the title)", _kind(art),
                                  score))
    raw, unnamed = _raw_places(index, _plain_words(node.title, weighed))
    for rel, line, word in raw[:2]:
        start, end = max(1, line - 2), line + 3
        places.insert(min(len(places), 3), PacketPlace(rel, start, end, texts.snippet(rel, start, end, SNIPPET),
                                                       f"the title's word {word!r} is here (first use in the code)",
                                                       _file_kind(rel),
                                                       0.5))
    if issue:
        places = _touched_places(places, issue[1], texts)
    places = places[:MAX_PLACES - len(commits[:1])] + commits[:1]
    places = _handler(places, chosen, index, texts)
    packet = _within_budget(_bridged(places, node.title, ranked, index, texts), head)
    packet.unnamed = unnamed
    return packet


def _handler(places: list[PacketPlace], chosen: list[tuple[float, Artifact, list[str]]], index: Index,
             texts: _Texts) -> list[PacketPlace]:
    """The class a chosen route hands its requests to, when its line names one (`addRoute('subtask/:id',
    'SubtaskController', 'show')`, `[InvoiceController::class, 'refund']`): a route table names every feature, the
    controller is where one is done. In room left, else in place of the lowest place below the route's score."""
    routes = [(score, art) for score, art, _named in chosen if art.kind == "route"]
    if not routes:
        return places
    taken = {p.path for p in places}
    defined: dict[str, Artifact] | None = None
    for score, route in routes:
        for name in _CLASS_NAME.findall(route.snippet):
            if not name.endswith(HANDLER_SUFFIXES):
                continue
            if defined is None:
                defined = {a.name: a for a in index.artifacts if a.kind == "definition"}
            art = defined.get(name)
            if art is None or art.path in taken or art.path == route.path:
                continue
            start, end = texts.span(art)
            place = PacketPlace(art.path, start, end, texts.snippet(art.path, start, end, SNIPPET),
                                f"definition {cut(name, 60)}: the route {cut(route.name, 60)} hands it its requests",
                                _kind(art), score)
            if len(places) < MAX_PLACES:
                places = places + [place]
            else:
                low = min((i for i, p in enumerate(places) if p.kind != "commit"), key=lambda i: places[i].score,
                          default=None)
                if low is None or places[low].score >= score:
                    return places
                places = places[:low] + places[low + 1:] + [place]
            return places  # one handler: the best route's
    return places


def _bridged(places: list[PacketPlace], title: str, ranked: list[tuple[float, Artifact, list[str]]], index: Index,
             texts: _Texts) -> list[PacketPlace]:
    """Up to docs_names.BRIDGES places of the code the best docs paragraphs name as code (or the title's
    actor words name exactly), for code whose names do not use the title's words: in room left, in place
    of a second place of a file shown already, or, when several paragraphs name it, of the lowest place."""
    paragraphs = [(score, "\n".join(texts.of(art.path)[max(1, art.line or 1) - 1:][:docs_names.DOC_LINES]))
                  for score, art, _named in ranked if art.kind == "doc"][:docs_names.DOCS_READ]
    targets = docs_names.targets_of(index, _is_test_file)
    taken = {p.path for p in places}
    found = docs_names.title_names(docs_names.actor_words(title), targets, taken)
    found += docs_names.bridges(paragraphs, targets, taken | {b.art.path for b in found})
    places = list(places)
    for bridge in found[:docs_names.BRIDGES]:
        start, end = texts.span(bridge.art)
        what = "the file's name" if bridge.art.kind == "module" else f"{bridge.art.kind} {cut(bridge.art.name, 60)}"
        place = PacketPlace(bridge.art.path, start, end, texts.snippet(bridge.art.path, start, end, SNIPPET),
                            f"{what}: the docs that match the title name it as code ({', '.join(bridge.named[:3])})",
                            _kind(bridge.art), bridge.score)
        if len(places) < MAX_PLACES:
            places.insert(next((i for i, p in enumerate(places) if p.kind == "commit"), len(places)), place)
            continue
        again = [i for i, p in enumerate(places) if p.kind != "commit" and any(q.path == p.path for q in places[:i])]
        if not again and bridge.strong:
            code = (i for i, p in enumerate(places) if p.kind != "commit")
            again = sorted(code, key=lambda i: (-places[i].score, i))[-1:]
        if again:
            places[again[-1]] = place
    return places


def _tokens(places: list[PacketPlace]) -> int:
    return sum(len(p.path) + len(p.snippet) + len(p.why) + 24 for p in places) // CHARS_PER_TOKEN


def _within_budget(places: list[PacketPlace], head: str | None) -> Packet:
    tokens = _tokens(places)
    if tokens > TOKEN_BUDGET:
        places = [PacketPlace(p.path, p.start, p.end, cut(p.snippet, SNIPPET // 2), p.why, p.kind, p.score)
                  for p in places]
    while places and _tokens(places) > TOKEN_BUDGET:
        places = places[:-1]
    return Packet(places, _tokens(places), head)
