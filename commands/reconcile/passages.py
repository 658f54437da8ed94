"""Passages: a few lines of a file, for the verify packet's search only (never a verdict).

Reconcile's index holds what its scanners name: definitions, their bodies (up to `tags.MAX_BODY`), routes,
strings, docs paragraphs. Some features live where no scanner looks: a route table of top-level calls
(`config/routes.rb`, a Django `urls.py`, a function passed to a call as `withAuth(async function …)`), a
very long function's tail, or a file in no scanned language (`docker-compose.yml`, `nginx.conf`, a build
script, a stylesheet). The packet searches those too, as windows of `WINDOW` lines around the lines that
name the title's words.

It is a search, not an index: for each title word (and what it expands to) a plain substring probe
(`str.find`, linear) finds the lines that may name it; windows are scored by the words probed there, and
only the best `MAX_EXACT` are split into words (`identifier_concepts`, the index's own splitting) and
scored on whole words. Every step is bounded (`MAX_FILES`, `MAX_HITS`, `MAX_EXACT`).
"""

from __future__ import annotations

import heapq
import weakref
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from os.path import commonprefix
from pathlib import Path

from leafwise.commands.reconcile import documents, scan
from leafwise.commands.reconcile.artifacts import Artifact, Index, Source
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import reader

WINDOW = 6  # lines a passage spans (the packet's DOC_SPAN)
PROBE_MIN = 3  # a probe shorter than this finds too much to mean anything
MAX_FILES = 3000  # configuration files read for passages, per repository
MAX_HITS = 300  # lines one probe may mark in one file
MAX_EXACT = 400  # windows split into words per search
# Files in no scanned language whose text says how the project runs: configuration, build and deploy
# scripts, stylesheets, SQL.
CONFIG_EXT = frozenset({".yml", ".yaml", ".toml", ".conf", ".ini", ".cfg", ".sh", ".bash", ".zsh", ".css", ".scss",
                        ".less", ".sql", ".env", ".properties", ".tf", ".nginx",
                        ".prisma", ".graphql", ".gql", ".proto"})  # data schemas: a stored setting is a feature too
CONFIG_NAMES = frozenset({"dockerfile", "makefile", "procfile", "justfile", "caddyfile", "containerfile"})
TEXT = reader.Kind("passage source", reader.CODE.cap)
# Suffixes a scanner of the index reads: a file of these that the index does not hold was left out on purpose.
SCANNED = scan.PY_EXT | scan.JS_EXT | scan.OTHER_EXT


@dataclass(slots=True)
class _File:
    rel: str
    text: str  # lowered
    starts: list[int] | None = None  # offsets where each line begins, built on the first hit

    def line_of(self, offset: int) -> int:
        if self.starts is None:
            starts, i = [0], self.text.find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = self.text.find("\n", i + 1)
            self.starts = starts
        return bisect_right(self.starts, offset)

    def lines(self, start: int, end: int) -> str:
        self.line_of(0)
        assert self.starts is not None
        a = self.starts[start - 1] if start - 1 < len(self.starts) else len(self.text)
        b = self.starts[end] if end < len(self.starts) else len(self.text)
        return self.text[a:b]


_corpus: tuple[weakref.ref, list[_File], frozenset[str]] | None = None


def is_test(rel: str) -> bool:
    """A test file: reconcile's own rule, and RSpec's (`spec/`, `*_spec.rb`), whose files it reads as code."""
    folder, _, name = rel.rpartition("/")
    return Source(rel, "").is_test or name.endswith("_spec.rb") or bool({"spec", "specs"} & set(folder.split("/")))


def _tooling(folder: str) -> bool:
    """A folder whose name starts with a dot holds the tooling around the project (CI, an editor's)."""
    return any(part.startswith(".") for part in folder.split("/"))


def is_unscanned_code(rel: str, code_ext: frozenset[str]) -> bool:
    """Source code in a language no scanner of the index reads (Rust, PHP, Java, C …: `code_ext` is the
    quote check's list of code suffixes): its passages are the only documents the file gives."""
    folder, _, name = rel.rpartition("/")
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in code_ext and name[dot:].lower() not in SCANNED \
        and not _tooling(folder) and not is_config(rel) and documents.kind_of(rel) is None  # a template is a document


is_translation = documents.is_translation  # the rule lives with the scanners, which leave such files out too


def is_config(rel: str) -> bool:
    """A configuration, build or deploy file of the project (not a CI workflow or an editor's: a folder
    whose name starts with a dot holds the tooling around the project)."""
    folder, _, name = rel.rpartition("/")
    if _tooling(folder):
        return False
    name = name.lower()
    dot = name.rfind(".")
    return name in CONFIG_NAMES or name.startswith("dockerfile") or (dot > 0 and name[dot:] in CONFIG_EXT) \
        or (dot == 0 and name[dot:] in CONFIG_EXT)


def corpus(index: Index, code_ext: frozenset[str] = frozenset()) -> list[_File]:
    """The texts passages come from: the index's sources, the repository's configuration files and its code
    in languages no scanner reads (`code_ext`: see `is_unscanned_code`), read once per index through the one
    reader, at most MAX_FILES of them."""
    global _corpus
    if _corpus is not None and _corpus[0]() is index and _corpus[2] == code_ext:
        return _corpus[1]
    files = [_File(rel, text.lower()) for rel, text in sorted(index.texts.items())
             if not is_test(rel) and not is_translation(rel) and not scan.minified(rel, text)]
    root = Path(index.root)
    read = 0
    for rel in index.files:
        if read >= MAX_FILES:
            break
        if rel in index.texts or is_test(rel) or is_translation(rel) \
                or not (is_config(rel) or is_unscanned_code(rel, code_ext)):
            continue
        try:
            data = reader.read_bytes(root / rel, TEXT, under=root)
        except (OSError, ValueError):  # gone, a link, not a file (reader.Refused)
            continue
        read += 1
        if len(data) > TEXT.cap:
            continue
        text = reader.decode(data, lone_cr=False)  # lines as git numbers them (scan._text)
        if not scan.minified(rel, text) and not rel.endswith(".min.css"):  # a bundle names everything once
            files.append(_File(rel, text.lower()))
    _corpus = (weakref.ref(index), files, code_ext)
    return files


def probe(word: str, k: str) -> str | None:
    """What to look for in lowered text: the part a word and its matching key share ("stor" for
    story/stori), None when too short to mean anything."""
    p = commonprefix([word.lower(), k])
    return p if len(p) >= PROBE_MIN else None


def search(index: Index, probes: dict[str, list[tuple[str, str, float]]], weights: dict[str, float],
           key_of, floor: float, covered: dict[str, list[tuple[int, int]]], code_ext: frozenset[str] = frozenset()
           ) -> list[tuple[float, Artifact, list[str]]]:
    """Passages naming the title's words: (score, passage, the concepts it names), best first.

    `probes`: concept -> [(substring, matching key, how much it counts)]; `key_of`: a word's matching key;
    `floor`: the least share of the title a passage must name; `covered`: per file, the sorted, disjoint
    line spans the index's own documents hold (function bodies), which passages leave out; `code_ext`: the
    suffixes of code, whose files in no scanned language are searched too."""
    total = sum(weights.values()) or 1.0
    windows = heapq.nlargest(MAX_EXACT, _windows(corpus(index, code_ext), probes, weights, total, floor, covered),
                             key=lambda w: w[0])
    out: list[tuple[float, Artifact, list[str]]] = []
    for _pre, f, start in windows:
        text = f.lines(start, start + WINDOW - 1)
        keys = {key_of(w) for w in identifier_concepts(text)}
        named = {}
        for c, ps in probes.items():
            factor = max((fac for _p, k, fac in ps if k in keys), default=0.0)
            if factor:
                named[c] = factor
        if not named:
            continue
        score = sum(weights[c] * fac for c, fac in named.items()) / total
        if score < floor:
            continue
        words = frozenset(identifier_concepts(text))
        end = min(start + WINDOW - 1, len(f.starts or ()) or start)
        art = Artifact("passage", f"lines {start}-{end}", f.rel, start, "", words)
        out.append((score, art, sorted(named, key=lambda c: -weights[c])))
    out.sort(key=lambda t: (-t[0], t[1].path, t[1].line))
    return out


def _windows(files: list[_File], probes: dict[str, list[tuple[str, str, float]]], weights: dict[str, float],
             total: float, floor: float, covered: dict[str, list[tuple[int, int]]]
             ) -> Iterator[tuple[float, _File, int]]:
    """(pre-score, file, first line) of the windows whose lines the probes mark (at most MAX_HITS lines a
    probe in a file, so every file is searched however many the ones before it hold)."""
    for f in files:
        marks: dict[int, dict[str, float]] = {}  # line -> concept -> best factor probed there
        spans = covered.get(f.rel, ())
        firsts = [a for a, _b in spans]
        for c, ps in probes.items():
            for p, _k, fac in ps:
                i, n = f.text.find(p), 0
                while i >= 0 and n < MAX_HITS:
                    line = f.line_of(i)
                    at = bisect_right(firsts, line) - 1
                    if at < 0 or spans[at][1] < line:  # not in a document the index holds already
                        seen = marks.setdefault(line, {})
                        seen[c] = max(seen.get(c, 0.0), fac)
                    i, n = f.text.find(p, i + len(p)), n + 1
        lines = sorted(marks)
        for j, start in enumerate(lines):  # a window from each marked line: the words it gathers below
            named: dict[str, float] = {}
            for line in lines[j:j + WINDOW]:
                if line >= start + WINDOW:
                    break
                for c, fac in marks[line].items():
                    named[c] = max(named.get(c, 0.0), fac)
            pre = sum(weights[c] * fac for c, fac in named.items()) / total
            if pre >= floor:
                yield pre, f, start
