"""Evidence beyond names: small "documents", each with a file and a line, that say in words what
the project does.

- **docs**: paragraphs, bullets and headings of Markdown/reST pages, the README, changelogs
  and release notes (reno YAML). A sentence that says what the project does *not* do ("no
  longer performs automatic backups", "not supported") is left out.
- **ui**: what the product says to its users: English locale files (`en.json`, `en-US.json`:
  key and text), the text and labelled attributes of templates and components (`.html`,
  `.vue`, `.svelte`, JSX text), string literals of UI files.
- **code** (added by `tags.py` from the tree-sitter parse): a definition's name with its
  docstring or leading comment, a flag with its help text, human-text string literals.
- **test**: test names with their docstrings (also from `tags.py`).

Documents never show a feature shipped on their own (`retrieve.py` needs a code document);
they corroborate one. The words go through the same `concept()` as identifiers.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from leafwise.commands.reconcile.artifacts import Artifact, Index, Source
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import linear, reader

DOC_EXT = frozenset({".md", ".mdx", ".rst", ".markdown"})
MARKUP_EXT = frozenset({".html", ".htm", ".vue", ".svelte", ".jinja", ".jinja2", ".j2", ".hbs", ".erb"})
CHANGELOG = re.compile(r"^(changelog|changes|history|news|releases?)(\.|$)", re.I)
LOCALE = re.compile(r"^en([-_]us)?\.json$", re.I)
TEST_DIRS = frozenset({"tests", "test", "__tests__", "testdata", "fixtures", "__fixtures__", "spec", "e2e", "cypress"})
MAX_DOC_BYTES = 300_000
DOC = reader.Kind(reader.DOC.name, MAX_DOC_BYTES)
MAX_DOCS_PER_FILE = 2000
NEGATION = re.compile(
    r"\b(no longer|not (?:yet )?(?:supported|possible|available|implemented)|unsupported|doesn'?t|does not|"
    r"don'?t|do not|isn'?t|is not|aren'?t|are not|cannot|can'?t|won'?t|will not|never|deprecated|removed|"
    r"dropped|instead of|rather than|planned|roadmap|todo|coming soon|not \w+ed)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_MD_NOISE = linear.compile(r"```.*?```|<[^>]+>|\(https?://[^)]*\)|https?://\S+|\[!\[.*?\]\(.*?\)\]\(.*?\)", re.S)
_TEXT_NODE = re.compile(r">([^<>]{3,300})<")
_ATTR = re.compile(r"""\b(?:label|title|placeholder|alt|aria-label|hint|text|description|subtitle|tooltip|help)"""
                   r"""\s*=\s*["']([^"'{}<>]{3,200})["']""")
_TEMPLATE_TAGS = linear.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}|\{[^{}]*\}")
_JSON_PAIR = re.compile(r'^\s*"([^"\\]+)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_JSON_OPEN = re.compile(r'^\s*"([^"\\]+)"\s*:\s*\{')
_RENO_SECTION = re.compile(r"^(features|fixes|upgrade|other|deprecations|prelude|security|issues)\s*:", re.M)


# Pages about developing the project, not about what it does: how to contribute, report a
# vulnerability, release; issue and pull-request templates ("edit any notification integration" would
# be agreed by CONTRIBUTING.md's how-to-add-an-integration steps); licence and notice texts say what
# the project may be used for, never what it does.
PROCESS_DOC = re.compile(r"^(contributing|code_of_conduct|security|hacking|development|developing|releasing|"
                         r"release|maintainers|maintaining|governance|support|pull_request_template|"
                         r"issue_template|agents|claude|license|licence|copying|notice|authors)(\.|$)", re.I)
PROCESS_DIRS = frozenset({".github", ".gitlab", ".changeset"})


def _other_locale(part: str) -> bool:
    """A locale code with its region or script, not English: `fr_FR`, `pt-BR`, `sr_Latn_RS`, `de_DE_du` (not
    `en_US`, not `js`, not `my_app`)."""
    tokens = part.replace("-", "_").split("_")
    if len(tokens) < 2 or not (2 <= len(tokens[0]) <= 3 and tokens[0].isalpha() and tokens[0].islower()):
        return False
    if tokens[0] == "en" or not all(t.isalpha() and 2 <= len(t) <= 4 for t in tokens[1:]):
        return False
    return any(t.isupper() or (len(t) == 4 and t.istitle()) for t in tokens[1:])


# Languages a translated page names in its file name (`README.fa.md`, `README.pt-br.md`, `README.zh-tw.md`): ISO 639-1
# codes of the languages projects translate into, and the country codes used for them (`jp`, `kr`, `cn`).
LANGUAGES = frozenset("ar bg bn ca cs da de el es et fa fi fr he hi hu id it ja ko lt lv ms nl no pl pt ro ru sk sl sr "
                      "sv th tr uk vi zh jp kr cn tw ua br".split())


TRANSLATED_EXT = DOC_EXT | MARKUP_EXT | {".json", ".yml", ".yaml", ".txt", ".po"}  # never code: `user.id.ts`


def _language_part(part: str) -> bool:
    """A dotted part of a file name that names another language: `fa`, `pt-br`, `zh_TW`, `de-ch` (not `en`, `js`)."""
    head, _, region = part.replace("_", "-").partition("-")
    return head.lower() in LANGUAGES and (not region or (region.isalpha() and 2 <= len(region) <= 4))


def is_translation(rel: str) -> bool:
    """Another language's copy of what the English files say: a catalogue of UI text (`app/Locale/fr_FR/
    translations.php`, `i18n/de_DE.php`) or a translated page (`README.fa.md`, `README.pt-BR.md`). The index keeps
    only the English one, and passages none."""
    parts = rel.split("/")
    name = parts[-1]
    stem = name[:name.find(".")] if "." in name else name
    if any(_other_locale(part) for part in parts[:-1]) or _other_locale(stem):
        return True
    dotted = name.split(".")
    return len(dotted) >= 3 and "." + dotted[-1].lower() in TRANSLATED_EXT \
        and any(_language_part(part) for part in dotted[1:-1])


def kind_of(rel: str) -> str | None:
    """Which document source a file is, by its name: docs, locale, markup or None."""
    p = PurePosixPath(rel)
    name = p.name
    if PROCESS_DOC.match(name) or PROCESS_DIRS.intersection(p.parts[:-1]):
        return None
    if LOCALE.match(name):
        return "locale"
    if p.suffix.lower() in DOC_EXT or CHANGELOG.match(name):
        return "docs"
    if p.suffix in (".yaml", ".yml") and ("releasenotes" in p.parts or "changelog.d" in p.parts):
        return "docs"
    if p.suffix.lower() in MARKUP_EXT or name.endswith(".html-fragment"):
        return "markup"
    return None


def scan(index: Index, root, files: list[str]) -> None:
    """Add docs and ui documents for every file that is one (index.docs)."""
    for rel in files:
        kind = kind_of(rel)
        if kind is None or TEST_DIRS.intersection(rel.split("/")[:-1]) or is_translation(rel):
            continue
        text = index.texts.get(rel)
        if text is None:
            try:
                text = reader.read_text(Path(root) / rel, DOC, under=Path(root))
            except (OSError, ValueError):  # gone, too large, a link or not a file (reader.Refused)
                continue
        src = Source(rel, text)
        before = len(index.docs)
        if kind == "docs":
            _prose(index, src)
        elif kind == "locale":
            _locale(index, src)
        else:
            _markup(index, src, "docs" if {"docs", "doc"} & set(src.path.parts[:-1]) else "ui")
        if len(index.docs) - before > MAX_DOCS_PER_FILE:
            del index.docs[before + MAX_DOCS_PER_FILE:]


def add_doc(index: Index, src: Source, kind: str, name: str, offset: int, text: str,
            side: str, extra: frozenset[str] = frozenset()) -> Artifact | None:
    """One document: its words are the concepts of `text` (and `extra`)."""
    words = identifier_concepts(text) | extra
    if not words:
        return None
    line = src.line_of(offset)
    art = Artifact(kind, name[:120], src.rel, line, src.snippet(line), words, side=side)
    index.docs.append(art)
    return art


def affirmative(text: str) -> str:
    """The sentences of `text` that do not say what the project lacks."""
    return " ".join(s for s in _SENTENCE.split(text) if not NEGATION.search(s))


def _prose(index: Index, src: Source) -> None:
    """Paragraphs, list items and headings, each a document at its first line."""
    text = src.text
    if src.path.suffix in (".yaml", ".yml"):
        text = _RENO_SECTION.sub(lambda m: " " * len(m.group(0)), text)
    offset = 0
    block: list[str] = []
    start = 0
    for raw in text.splitlines(keepends=True):
        line = raw.strip()
        heading = line.startswith("#") or re.fullmatch(r"[=\-~^*]{3,}", line or "x") is not None
        item = bool(re.match(r"^([-*+]|\d+[.)])\s", line))
        if not line or heading or item:
            _flush(index, src, start, block)
            block = []
            start = offset
        if line and not re.fullmatch(r"[=\-~^*#]{3,}", line):
            if not block:
                start = offset
            block.append(line.lstrip("#-*+> ").strip())
            if heading:
                _flush(index, src, start, block)
                block = []
        offset += len(raw)
    _flush(index, src, start, block)


def _flush(index: Index, src: Source, start: int, block: list[str]) -> None:
    if not block:
        return
    text = _MD_NOISE.sub(" ", " ".join(block))
    text = affirmative(text)
    if len(text) >= 3:
        add_doc(index, src, "doc", text[:80], start, text[:1200], "docs")


def _locale(index: Index, src: Source) -> None:
    """`"key": "text"` pairs of an English locale file, with the parent key's words."""
    parents: list[str] = []
    offset = 0
    for raw in src.text.splitlines(keepends=True):
        m = _JSON_PAIR.match(raw)
        if m:
            key, value = m.group(1), m.group(2)
            parent = parents[-1] if parents else ""
            if not NEGATION.search(value):
                add_doc(index, src, "string", value[:80] or key, offset, f"{key} {value}", "ui",
                        identifier_concepts(parent))
        else:
            o = _JSON_OPEN.match(raw)
            if o:
                parents.append(o.group(1))
            elif raw.strip().startswith("}") and parents:
                parents.pop()
        offset += len(raw)


def _markup(index: Index, src: Source, side: str) -> None:
    """Text nodes and labelled attributes of templates and components."""
    text = src.text
    if src.path.suffix == ".vue":
        end = text.find("<script")
        text = text if end < 0 else text[:end] + " " * (len(text) - end)
    for pattern in (_TEXT_NODE, _ATTR):
        for m in pattern.finditer(text):
            words = _TEMPLATE_TAGS.sub(" ", m.group(1)).strip()
            if len(words) >= 3 and re.search(r"[A-Za-z]{3}", words) and not NEGATION.search(words):
                add_doc(index, src, "doc" if side == "docs" else "string", words[:80], m.start(1), words, side)
