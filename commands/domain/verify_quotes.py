"""The quote check: is this text in those lines of that file, as committed at HEAD?

An agent's verdict is only as good as what it quotes, and an agent may be wrong or lie. So every
quote is checked against git's own copy: the blob at `HEAD:<path>` (`git ls-tree` for its mode and
id, `git cat-file blob` for its bytes, both through `store/git.py`), never the work tree. That
refuses by construction a file that is not committed (untracked, edited since, written by the agent
a second ago), and the tree entry's mode refuses a symlink (120000) and a submodule. A path is read
as plain words relative to the plan's folder: absolute paths, `..`, `.git` and `.leafwise/` are
refused before git is asked; a file git ignores is refused even when it was committed by force.
Text is compared with whitespace collapsed (indentation and line breaks are not the agent's to
reproduce), by substring search: no pattern from anyone is ever compiled.
"""

from __future__ import annotations

import posixpath
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

from leafwise.commands.reconcile.artifacts import Source
from leafwise.commands.reconcile.documents import kind_of
from leafwise.commands.text import is_hidden
from leafwise.store import git, linear, reader
from leafwise.store.verdicts import Quote

MIN_QUOTE = 12  # characters, whitespace collapsed: "def x():" proves nothing
MAX_QUOTE = 600
MAX_RANGE = 400  # lines one piece of evidence may span
BLOB = reader.Kind("committed file", 2 * reader.MiB)  # a committed blob read (quotes, closing commits)
CODE_EXT = frozenset({
    ".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte", ".go", ".rb", ".rs", ".java",
    ".kt", ".kts", ".scala", ".swift", ".m", ".mm", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".php", ".ex",
    ".exs", ".erl", ".clj", ".lua", ".pl", ".pm", ".sh", ".bash", ".zsh", ".sql", ".dart", ".elm", ".hs", ".ml",
    ".r", ".jl", ".zig", ".nim", ".html", ".htm", ".jinja", ".jinja2", ".j2", ".hbs", ".erb", ".css", ".scss",
})
PLAN_DIR = ".leafwise"
COMMENTS = ("# ", "//", "/*", "* ", "*/", "-- ", "<!--", '"' * 3, "'" * 3)  # not `#[derive]`, `#include`, `*p = 1`
PROSE_WORDS = frozenset({"the", "a", "an", "of", "to", "that", "this", "these", "be", "are", "was", "were", "it",
                         "its", "you", "your", "which", "we", "will", "would", "should", "must", "than", "such",
                         "by"})
# Words prose holds and code holds too (`from x import y`, `a and b`): with a line's other words they count.
SHARED_WORDS = frozenset({"from", "when", "or", "and", "in", "is", "not", "for", "with", "on", "at", "as", "if",
                          "into", "only", "also", "instead", "like", "each", "every", "all", "any"})
# A line that starts as a statement or an assignment, a call or a key: code, whatever words follow.
_CODE_START = linear.compile(
    r"^(?:return|raise|throw|yield|await|if|elif|else|for|while|let|const|var|def|fn|func|pub|class|import|from|"
    r"assert|match|case|switch|do|try|catch|except|finally|with|new|delete|echo|print|puts)\b"
    r"|^(?i:select|insert|update|delete|create|alter|drop|group by|order by|where|join|having)\b"
    r"|^[\w.$@]+\s*(?:[(\[{=:]|->|=>)")
PUNCTUATION = ".,;:!?()'\"`"
EAST_ASIAN = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO"})
# Cyrillic and Greek letters drawn as Latin ones (Unicode's confusables for a-z, A-Z): a word of only these passes
# for a Latin word.
LOOKS_LATIN = frozenset("аеорсухіјѕһԁԛԝӏАВЕКМНОРСТХІЈЅοανικτυρΑΒΕΖΗΙΚΜΝΟΡΤΥΧ")


class QuoteRefused(Exception):
    """A piece of evidence that does not check out: `code` names why, the message says where."""

    def __init__(self, code: str, message: str, place: str):
        super().__init__(message)
        self.code = code
        self.message = message
        self.place = place


@dataclass(frozen=True, slots=True)
class Place:
    path: str
    start: int
    end: int

    @property
    def label(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"


def parse_place(text: str) -> Place:
    """`PATH:START-END` (or `PATH:LINE`) as given; QuoteRefused for anything else or a path out of bounds."""
    raw = (text or "").strip()
    path, sep, lines = raw.rpartition(":")
    start_s, dash, end_s = lines.partition("-")
    if not sep or not path or not start_s.isdigit() or (dash and not end_s.isdigit()):
        raise QuoteRefused("bad_place", f"evidence {raw[:120]!r} is not PATH:START-END (e.g. app/cli.py:40-52)", raw)
    start, end = int(start_s), int(end_s) if dash else int(start_s)
    if start < 1 or end < start or end - start >= MAX_RANGE:
        raise QuoteRefused("bad_place", f"lines {start}-{end} of {path[:120]}: a range from line 1 on, start <= end, "
                           f"at most {MAX_RANGE} lines", raw)
    return Place(_plain_path(path, raw), start, end)


def _plain_path(path: str, raw: str) -> str:
    if any(ord(c) < 32 or ord(c) == 127 for c in path) or "\\" in path:
        raise QuoteRefused("bad_place", f"{path[:120]!r}: a path has no control characters or backslashes", raw)
    if path.startswith("/") or path.startswith("~"):
        raise QuoteRefused("outside_tree", f"{path[:120]} is not a path inside the repository (give it relative "
                           "to the folder holding .leafwise/)", raw)
    norm = posixpath.normpath(path)
    parts = norm.split("/")
    if norm.startswith("..") or ".." in parts:
        raise QuoteRefused("outside_tree", f"{path[:120]} leads outside the repository", raw)
    if PLAN_DIR in parts or ".git" in parts:
        raise QuoteRefused("plan_file", f"{path[:120]} is the plan's or git's own file, not the project's code", raw)
    if any(is_hidden(c) for c in norm):
        raise QuoteRefused("look_alike_path", f"{ascii(path[:120])} holds an invisible character, as a file made to "
                           "look like another does; quote the project's own file", raw)
    if (why := _mixed_scripts(norm)) is not None:
        raise QuoteRefused("look_alike_path", f"a word of {ascii(path[:120])} {why}, as a file made to look like "
                           "another does; quote the project's own file", raw)
    return norm


def file_kind(rel: str) -> str:
    """code, test, docs or other: `shipped` needs a quote from code (not a test, not docs)."""
    if kind_of(rel) == "docs":
        return "docs"
    suffix = posixpath.splitext(rel)[1].lower()
    if suffix not in CODE_EXT:
        return "other"
    return "test" if Source(rel, "").is_test or "tests" in rel.split("/")[:-1] else "code"


def text_line(line: str) -> bool:
    """A comment, or a sentence of prose (a help string's: five words or more, most of them plain words, and
    English function words: two that no language has as a keyword, or one and two that code shares, `from`,
    `when`, `and` … counting half): a line of a code file that says, not does.
    Neither a quote of it nor a commit adding it is code. A line that starts as a statement does (`return
    value if value is not None else default`, `raise ValueError(f"{x} must be a number")`), and
    `#[derive(Debug)]` is code."""
    line = line.strip()
    if line.startswith(COMMENTS) or line in ("#", "//", "*", "--") or (line.startswith("#!") and "[" not in line[:3]):
        return True
    words = line.split()
    if len(words) < 5 or _CODE_START.match(line):
        return False
    plain = [w.strip(PUNCTUATION).lower() for w in words]
    said = sum(w in PROSE_WORDS for w in plain) + sum(w in SHARED_WORDS for w in plain) / 2
    return sum(w.isalpha() for w in plain) >= 0.7 * len(words) and said >= 1.5


def _folded(name: str) -> str:
    """A file name as a case-insensitive, normalisation-insensitive disk compares it."""
    return unicodedata.normalize("NFC", name).casefold()


def _mixed_scripts(path: str) -> str | None:
    """Why a word of the path passes for another, else None: it mixes scripts where one letter passes for
    another (`src/impоrt.rs`: a Cyrillic о among Latin letters), or it is Latin drawn in other letters
    (fullwidth or mathematical ones, NFKC's compatibility forms; a Cyrillic or Greek word made only of letters
    that look Latin, `арр`). A word is a run of letters, combining marks and invisible characters joining it
    (`данные.rs` is two words, each in one script); Han, kana and Hangul mix with Latin as written Japanese,
    Chinese and Korean do (Unicode's highly restrictive level, UTS #39)."""
    word = ""
    for c in path + "/":
        if c.isalpha() or unicodedata.category(c) in ("Mn", "Me", "Cf"):
            word += c
            continue
        if word and (why := _passes_for_another(word)):
            return why
        word = ""
    return None


def _passes_for_another(word: str) -> str | None:
    scripts = {_script(c) for c in word if c.isalpha()} - {None}
    if len(scripts) > 1 and not scripts <= EAST_ASIAN | {"LATIN"}:
        return f"mixes {' and '.join(sorted(scripts))} letters"
    folded = unicodedata.normalize("NFKC", word)
    if folded != word and folded.isascii() and not word.isascii():
        return "is Latin drawn in fullwidth or mathematical letters"
    if len(word) > 1 and all(c in LOOKS_LATIN for c in word):
        return "is Cyrillic or Greek letters that all look Latin"
    return None


def _script(c: str) -> str | None:
    """A letter's script from its Unicode name (Python has no script property): None for the letters of
    every script (MICRO SIGN, MODIFIER LETTER …)."""
    if c.isascii():
        return "LATIN"
    name = unicodedata.name(c, "UNKNOWN").split(" ")
    first = name[0]
    if first in ("MODIFIER", "MICRO", "FEMININE", "MASCULINE", "COMBINING"):
        return None
    if first in ("IDEOGRAPHIC", "KATAKANA-HIRAGANA") or (first == "HALFWIDTH" and "KATAKANA" in name):
        return "CJK"
    return first


def normalised(text: str) -> str:
    return " ".join(text.split())


class Committed:
    """HEAD of the repository holding the plan at `root`, asked through the one git runner."""

    def __init__(self, root: Path):
        self.root = root
        try:
            self.repo = git.pin(root)
            self.prefix = self.repo.rel(root)
            self.head = git.run_git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}").decode().strip()
        except git.GitError as exc:
            raise QuoteRefused("no_commit", f"quotes are checked against the last commit, and there is none: {exc}",
                               "HEAD") from None
        self._blobs: dict[str, bytes] = {}
        self._folders: dict[str, list[tuple[str, str]]] = {}

    def full(self, rel: str) -> str:
        return rel if self.prefix == "." else f"{self.prefix}/{rel}"

    def entries(self, rels: list[str]) -> dict[str, tuple[str, str, str]]:
        """rel -> (mode, type, id) of each that HEAD holds."""
        if not rels:
            return {}
        out = git.run_git(self.root, "ls-tree", "-z", "HEAD", "--", *[self.full(r) for r in rels])
        back = {self.full(r): r for r in rels}
        found: dict[str, tuple[str, str, str]] = {}
        for item in out.decode("utf-8", "surrogateescape").split("\0"):
            head, tab, name = item.partition("\t")
            fields = head.split()
            if tab and len(fields) == 3 and name in back:
                found[back[name]] = (fields[0], fields[1], fields[2])
        return found

    def folder(self, rel: str) -> list[tuple[str, str]]:
        """(name, object id) of each entry of the folder `rel` ("" for the plan's folder) at HEAD."""
        if rel not in self._folders:
            full = self.full(rel) if rel else self.prefix
            args = ("--", f"{full}/") if full not in ("", ".") else ()
            out = git.run_git(self.root, "ls-tree", "-z", "HEAD", *args)
            entries = []
            for item in out.decode("utf-8", "surrogateescape").split("\0"):
                head, tab, name = item.partition("\t")
                fields = head.split()
                if tab and len(fields) == 3:
                    entries.append((name.rpartition("/")[2], fields[2]))
            self._folders[rel] = entries
        return self._folders[rel]

    def twin(self, rel: str) -> str | None:
        """Another path HEAD holds that a case-insensitive or normalising disk (macOS, Windows) stores as
        `rel` with other content: what a person opens there is not what the quote was checked against."""
        folder = ""
        for name in rel.split("/"):
            key = _folded(name)
            mine = [oid for other, oid in self.folder(folder) if other == name]
            for other, oid in self.folder(folder):
                if other != name and _folded(other) == key and oid not in mine:
                    return f"{folder}/{other}" if folder else other
            folder = f"{folder}/{name}" if folder else name
        return None

    def blob_ids(self, rels: list[str]) -> dict[str, str]:
        """rel -> the blob id HEAD holds for it (regular files only)."""
        return {r: e[2] for r, e in self.entries(sorted(set(rels))[:200]).items() if e[1] == "blob"
                and e[0] in git.REGULAR_FILE_MODES}

    def tree(self) -> str:
        """The id of HEAD's whole tree: what an answer that found nothing to read was checked against."""
        return git.run_git(self.root, "rev-parse", "--verify", "-q", f"{self.head}^{{tree}}").decode().strip()

    def ignored(self, rel: str) -> bool:
        for which in ("-c", "-o"):
            if git.run_git(self.root, "ls-files", "-z", which, "-i", "--exclude-standard", "--", self.full(rel)):
                return True
        return False

    def text(self, blob: str, place: str) -> str:
        if blob not in self._blobs:
            data = git.run_git(self.root, "cat-file", "blob", blob, limit=BLOB.cap)
            self._blobs[blob] = data
        data = self._blobs[blob]
        if b"\0" in data[:8192]:
            raise QuoteRefused("not_text", f"{place} is not a text file", place)
        return reader.decode(data, lone_cr=False)  # lines as git numbers them


def check(committed: Committed, place: Place, quote: str) -> Quote:
    """The quote, verified; QuoteRefused saying what does not hold."""
    label = place.label
    said = normalised(quote or "")
    if len(said) < MIN_QUOTE or len(said) > MAX_QUOTE:
        raise QuoteRefused("bad_quote", f"the quote for {label} is {len(said)} characters; give {MIN_QUOTE} to "
                           f"{MAX_QUOTE} characters copied from those lines", label)
    entry = committed.entries([place.path]).get(place.path)
    if entry is None:
        ignored = committed.ignored(place.path)
        why = "it is ignored (.gitignore)" if ignored else "it is not in the last commit (untracked, new or missing)"
        raise QuoteRefused("ignored" if ignored else "not_committed",
                           f"{place.path} cannot be quoted: {why}; quotes are checked against HEAD {committed.head[:10]}",
                           label)
    mode, kind, blob = entry
    if mode == "120000":
        raise QuoteRefused("symlink", f"{place.path} is a symbolic link in the last commit; quote the real file", label)
    if kind != "blob" or mode not in git.REGULAR_FILE_MODES:
        raise QuoteRefused("not_a_file", f"{place.path} is not a file in the last commit ({kind})", label)
    if (twin := committed.twin(place.path)) is not None:
        raise QuoteRefused("look_alike_path", f"{place.path} and {twin} differ only in case or in how their letters "
                           "are composed: a case-insensitive disk holds one of them; quote a file that has no such twin",
                           label)
    if committed.ignored(place.path):
        raise QuoteRefused("ignored", f"{place.path} is committed but git ignores it; quote the project's own code",
                           label)
    lines = reader.lines(committed.text(blob, label))
    if place.end > len(lines):
        raise QuoteRefused("bad_range", f"{place.path} has {len(lines)} lines as committed; lines "
                           f"{place.start}-{place.end} are not all there", label)
    if said not in normalised("\n".join(lines[place.start - 1:place.end])):
        raise QuoteRefused("quote_not_found", f"the quote is not in lines {place.start}-{place.end} of {place.path} "
                           f"as committed at HEAD {committed.head[:10]}" + _elsewhere(lines, said), label)
    kind = file_kind(place.path)
    if kind == "code" and _says_only(lines[place.start - 1:place.end], said):
        kind = "comment"
    return Quote(place.path, place.start, place.end, said, blob, kind)


def _says_only(lines: list[str], said: str) -> bool:
    """Whether every line the quote's words come from (its span in the range, whitespace collapsed) is a
    comment or prose (`text_line`)."""
    spans, parts, offset = [], [], 0
    for line in lines:
        if words := normalised(line):
            spans.append((offset, offset + len(words), line))
            parts.append(words)
            offset += len(words) + 1
    at = " ".join(parts).find(said)
    taken = [line for start, end, line in spans if at >= 0 and start < at + len(said) and end > at]
    return bool(taken) and all(text_line(line) for line in taken)


def _elsewhere(lines: list[str], said: str) -> str:
    """Where in the committed file the quote is (an honest agent's off-by-some range), in one pass."""
    starts: list[int] = []  # offset of each line in the collapsed text
    parts: list[str] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        words = normalised(line)
        if words:
            parts.append(words)
            offset += len(words) + 1
    at = " ".join(parts).find(said)
    if at < 0:
        return " (nor anywhere else in that file)"
    first = bisect_right(starts, at)
    last = bisect_right(starts, at + len(said) - 1)
    return f" (it is at lines {first}-{last})"
