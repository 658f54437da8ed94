"""Definitions, CLI flags, routes and user-facing strings of languages no tree-sitter grammar of the index
reads: Rust, PHP, Java, Kotlin, Scala, C#, Swift, Dart (`GENERIC_EXT`).

One line-by-line pass, the same for every such language, since they share their shape: a definition is a
line of modifiers then a keyword (`pub async fn run`, `public static function index`, `data class User`,
`public sealed record Order`), or, in Java and C#, modifiers, a type and a name before `(`; a comment just
above it (`///`, `/** … */`, `//`, `#`) says what it is for; a function's body runs to its closing brace.
What the program answers is a route: an annotation or attribute before a handler (`@GetMapping("/users")`,
`#[get("/users")]`, `[HttpPost("orders")]`, `#[Route('/x')]`) or a call that registers one
(`Route::get('/x', …)`, `->addRoute('board/:id', 'BoardController', 'show')`, `.route("/x", get(list))`,
`app.MapGet("/x", …)`). A command-line flag is a clap argument (`Arg::new("warmup").long("warmup")` with its
`.help(…)`, `#[arg(long)]` on a field with its doc comment), a `"--name"` literal (picocli, System.CommandLine,
clikt) or a console command (`->setName('user:reset-2fa')`, Laravel's `$signature`).

The artifacts and documents are the kinds tags.py makes for the tree-sitter languages (`definition`, `test`,
`flag`, `cli`, `route`; documents `definition`, `body`, `flag`, `string`), so the engine and the packet read
them as they read Python's. Every pattern is matched on one line of at most `MAX_LINE` characters (or
anchored at its start), with bounded spans and no nested repetition: linear on untrusted text.
"""

from __future__ import annotations

import re

from leafwise.commands.reconcile.artifacts import Artifact, Index, Source, route_words
from leafwise.commands.reconcile.documents import affirmative, is_translation
from leafwise.commands.reconcile.tags import human_words
from leafwise.commands.reconcile.text import identifier_concepts

GENERIC_EXT = frozenset({".rs", ".php", ".java", ".kt", ".kts", ".scala", ".cs", ".swift", ".dart"})
MAX_LINE = 2000  # a longer line is data (a bundle, a table), not code anyone names a feature in
MAX_BODY = 6000  # as tags.MAX_BODY
MAX_DOCS = 3000  # documents one file may give
MAX_BODY_TEXT = 400_000  # body characters one file's functions may read in all (a file's size: each read once)
MAX_COMMENT = 12  # comment lines above a definition read as its document
SINGLE_QUOTED = frozenset({".php", ".dart"})  # languages whose '…' is a string, not a character
UI_DIRS = frozenset({"template", "templates", "view", "views", "layouts", "pages", "components", "ui"})

# modifiers, then the keyword that says a definition follows, then its name
_DEF = re.compile(r"^[ \t]{0,60}((?:[a-z]{2,12}(?:\([a-z]{1,8}\))?[ \t]{1,4}){0,6})(fn|func|function|fun|def|class|"
                  r"struct|enum|trait|interface|object|record|protocol|extension|mod|module|union|typealias|type)"
                  r"[ \t]{1,4}&?([A-Za-z_$][A-Za-z0-9_$]{0,80})")
MODIFIERS = frozenset({
    "pub", "public", "private", "protected", "internal", "static", "final", "abstract", "async", "unsafe", "const",
    "extern", "default", "export", "override", "open", "sealed", "data", "inline", "suspend", "partial", "virtual",
    "readonly", "enum", "annotation", "companion", "inner", "value", "case", "implicit", "lazy", "mutating",
    "fileprivate", "required", "convenience", "indirect", "actor", "external", "operator", "infix", "tailrec",
    "synchronized", "native", "strictfp", "new", "unsafe", "crate", "super", "self", "in"})
FUNCTION_KEYWORDS = frozenset({"fn", "func", "function", "fun", "def"})
# Java, C#, Dart methods: `public List<User> findAll(` (modifiers, a type, the name, a parenthesis)
ACCESS = frozenset({"public", "private", "protected", "internal", "static", "override", "final", "abstract",
                    "virtual", "async", "synchronized", "sealed", "partial"})
NOT_NAMES = frozenset({"if", "for", "while", "switch", "catch", "return", "new", "throw", "foreach", "using", "lock",
                       "when", "match", "else", "do", "try", "typeof", "sizeof", "nameof", "await", "yield", "base",
                       "this", "super", "function", "fn", "class", "fixed", "checked", "unchecked", "assert",
                       "synchronized", "else", "case", "default", "goto", "var", "val", "let", "const", "in", "is",
                       "as", "not", "and", "or"})
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,80}")
# routes: an annotation or attribute naming a path, then the handler defined below it
_ROUTE_MARK = re.compile(r"(?:@|#\[|\[)(GetMapping|PostMapping|PutMapping|PatchMapping|DeleteMapping|RequestMapping|"
                         r"HttpGet|HttpPost|HttpPut|HttpPatch|HttpDelete|Route|Path|get|post|put|patch|delete)"
                         r"\([ \t]{0,4}(?:(?:value|path|template)[ \t]{0,4}[=:][ \t]{0,4})?\{?[ \t]{0,4}[\"']"
                         r"([^\"'\n]{0,200})[\"']")
# routes: a call that registers one
_ROUTE_CALL = re.compile(r"(Route::|->|\.|\b)(get|post|put|patch|delete|any|match|resource|apiResource|addRoute|"
                         r"MapGet|MapPost|MapPut|MapPatch|MapDelete|route|Get|Post|Put|Delete)\([ \t]{0,4}[\"']"
                         r"([^\"'\n]{0,200})[\"'](.{0,300})")
ROUTE_METHODS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE",
                 "getmapping": "GET", "postmapping": "POST", "putmapping": "PUT", "patchmapping": "PATCH",
                 "deletemapping": "DELETE", "httpget": "GET", "httppost": "POST", "httpput": "PUT",
                 "httppatch": "PATCH", "httpdelete": "DELETE", "mapget": "GET", "mappost": "POST", "mapput": "PUT",
                 "mappatch": "PATCH", "mapdelete": "DELETE"}
# any name of a registration call (`Route::get`, `->addRoute`) takes any path; a plain `.get(` only a path
ANY_PATH_CALLS = frozenset({"Route::", "addRoute", "resource", "apiResource", "MapGet", "MapPost", "MapPut",
                            "MapPatch", "MapDelete"})
_METHOD_IN = re.compile(r"\b(get|post|put|patch|delete)\(")
PLUMBING = frozenset({"class", "get", "post", "put", "patch", "delete", "route", "function", "fn", "name", "middleware",
                      "Route", "this", "self", "new", "array", "App", "Http", "Controllers", "uses", "as", "to",
                      "web", "axum", "routing", "handler", "with", "state", "into", "service", "method", "any"})
# command-line flags
_ARG_NEW = re.compile(r"\bArg::(?:new|with_name)\([ \t]{0,4}\"([A-Za-z][\w-]{0,40})\"")
_LONG_CALL = re.compile(r"\.long\([ \t]{0,4}\"([A-Za-z][\w-]{0,40})\"")
_CLAP_ATTR = re.compile(r"^[ \t]{0,60}#\[(?:arg|clap|structopt|argh|option)\(([^\n]{0,600})\)\]")
_LONG_IN_ATTR = re.compile(r"\blong(?:[ \t]{0,4}=[ \t]{0,4}\"([A-Za-z][\w-]{0,40})\")?")
_FIELD = re.compile(r"^[ \t]{0,60}(?:pub(?:\([a-z]{1,8}\))?[ \t]{1,4})?([a-z_][a-z0-9_]{0,60})[ \t]{0,4}:")
_DASHED = re.compile(r"[\"']--([A-Za-z][\w-]{0,40})[\"']")
# (a console command's name; clap's `Command::new` only inside `.subcommand(`: the outer one names the program)
_CONSOLE = re.compile(r"(?:->setName\(|\$signature[ \t]{0,4}=[ \t]{0,4}|\bsubcommand\([ \t]{0,4}"
                      r"(?:(?:Command|App|SubCommand)::new\()?)[ \t]{0,4}[\"']([A-Za-z][\w:.-]{0,60})")
# strings: a literal on one line, escapes allowed (each branch starts with a different character)
_DQ = re.compile(r"\"((?:[^\"\\\n]|\\.){6,400})\"")
_SQ = re.compile(r"'((?:[^'\\\n]|\\.){6,400})'")
_STRING_ANY = re.compile(r"\"((?:[^\"\\]|\\.){0,800})\"")  # a flag's help, across the lines of its block
_CONTINUED = re.compile(r"\\\n[ \t]{0,80}")
_HELP_WORDS = re.compile(r"[A-Za-z]{2,}")


def is_tooling(rel: str) -> bool:
    """A file in a folder whose name starts with a dot (`.cargo/`, `.github/`): the tooling around the project,
    not read (as passages.py leaves such code out)."""
    return any(part.startswith(".") for part in rel.split("/")[:-1])


def is_test(src: Source) -> bool:
    """Tests by the conventions of these languages (`FooTest.java`, `FooTests.cs`, `foo_test.rs`, `src/test/`)."""
    stem = src.path.stem
    parts = {p.lower() for p in src.path.parts[:-1]}
    return src.is_test or stem.endswith(("Test", "Tests", "Spec", "_test", "_tests")) \
        or bool(parts & {"test", "tests", "spec", "specs", "testing", "__tests__"}) \
        or any(p.endswith(".tests") or p.endswith("tests") and p != "tests" for p in parts)


def _side(src: Source) -> str:
    if src.path.name.endswith((".blade.php", ".cshtml", ".razor")) or UI_DIRS.intersection(
            p.lower() for p in src.path.parts[:-1]):
        return "ui"
    return src.side()


def _comment(stripped: str) -> str | None:
    """A comment line's text, or None when the line is code."""
    if stripped.startswith(("///", "//!", "//")):
        return stripped.lstrip("/!").strip()
    if stripped.startswith(("/**", "/*")):
        return stripped.lstrip("/*").removesuffix("*/").strip()
    if stripped.startswith("*"):
        return stripped.lstrip("*/").strip()
    if stripped.startswith("#") and not stripped.startswith(("#[", "#!", "#if", "#endif", "#else", "#region",
                                                             "#endregion", "#define", "#include", "#pragma")):
        return stripped.lstrip("#").strip()
    return None


def _annotation(stripped: str) -> bool:
    return stripped.startswith(("@", "#[", "[")) and not stripped.startswith("[]")


class _Lines:
    """The file's lines with their offsets; lines over MAX_LINE are blank (never matched)."""

    def __init__(self, text: str):
        self.lines: list[str] = []
        self.offsets: list[int] = []
        offset = 0
        for line in text.split("\n"):
            self.lines.append(line if len(line) <= MAX_LINE else "")
            self.offsets.append(offset)
            offset += len(line) + 1


def _definition(line: str, stripped: str) -> tuple[str, str, int] | None:
    """(keyword, name, column of the name) of a definition on this line, or None."""
    m = _DEF.match(line)
    if m:
        mods = m.group(1).split()
        if all(mod.split("(")[0] in MODIFIERS for mod in mods):
            return m.group(2), m.group(3).lstrip("$"), m.start(3)
    first = stripped.split(" ", 1)[0]
    # with modifiers (`public List<User> findAll(`), or without them a type and a name opening a block on the
    # line (Java's package-private `void insert(Token t) {`, Dart's `Widget build(BuildContext context) {`)
    typed = stripped.endswith("{") and first[:1].isalpha() and len(stripped[:stripped.find("(")].split()) == 2
    if (first in ACCESS or typed) and "(" in stripped:
        head = stripped[:stripped.find("(")]
        if "=" in head or "." in head:
            return None  # an assignment or a call, not a definition
        head = head.rstrip()
        k = len(head)
        while k > 0 and (head[k - 1].isalnum() or head[k - 1] == "_"):
            k -= 1
        name = head[k:]
        words = head[:k].split()
        if name and not name[0].isdigit() and name not in NOT_NAMES and words and words[-1] not in NOT_NAMES:
            return "method", name, line.find(stripped) + k
    return None


def _body_end(lines: list[str], start: int) -> int:
    """The line after a function's body: where its braces close (an expression body or a declaration
    without one ends on its own line), at most MAX_BODY characters on."""
    depth, seen, size = 0, False, 0
    for k in range(start, len(lines)):
        line = lines[k]
        size += len(line) + 1
        opened = line.count("{")
        depth += opened - line.count("}")
        seen = seen or opened > 0
        if seen and depth <= 0:
            return k + 1
        if not seen and (line.rstrip().endswith(";") or "=>" in line):
            return k + 1
        if size > MAX_BODY:
            return k + 1
    return len(lines)


def scan_routes(index: Index, src: Source) -> None:
    """The routes and console commands one file registers (artifacts, as registered_routes.py adds Go's)."""
    if is_test(src):
        return
    text = src.text
    if not any(probe in text for probe in ("Mapping(", "Http", "Route", "oute(", "Path(", "#[get", "#[post", "Map",
                                           "get(", "post(", "Get(", "Post(", "setName(", "$signature",
                                           "subcommand(")):
        return
    lines = _Lines(text)
    pending: list[tuple[str, str, int]] = []  # annotations waiting for their handler: (method, path, offset)
    for k, line in enumerate(lines.lines):
        if not line:
            continue
        stripped = line.strip()
        offset = lines.offsets[k]
        if pending and not _annotation(stripped) and _comment(stripped) is None:
            found = _definition(line, stripped)
            handler = found[1] if found else ""
            for method, path, at in pending:
                _route(index, src, method, path, at, handler)
            pending = []
        if _annotation(stripped):
            m = _ROUTE_MARK.search(line)
            if m:
                method = ROUTE_METHODS.get(m.group(1).lower(), "ANY")
                pending.append((method, m.group(2), offset + m.start(2)))
                continue
        if _comment(stripped) is not None:
            continue
        for m in _ROUTE_CALL.finditer(line):
            call, name, path, tail = m.group(1), m.group(2), m.group(3), m.group(4)
            if call == "" and name not in ("get", "post", "put", "patch", "delete", "route"):
                continue
            if not (call in ANY_PATH_CALLS or name in ANY_PATH_CALLS) and not path.startswith("/"):
                continue
            method = ROUTE_METHODS.get(name.lower(), "ANY")
            if name == "route":
                verb = _METHOD_IN.search(tail)
                method = verb.group(1).upper() if verb else "ANY"
            names = [w for w in _WORDS.findall(tail[:200]) if w not in PLUMBING][:3]
            _route(index, src, method, path, offset + m.start(3), *names)
        m = _CONSOLE.search(line)
        if m and ("->setName(" not in line or "Command" in src.path.stem or "Command" in text[:4000]):
            label = m.group(1).split(" ", 1)[0]
            words = identifier_concepts(label.replace(":", " "))
            if words:
                src.add(index, "cli", label, offset + m.start(1), words, side="cli")


def _route(index: Index, src: Source, method: str, path: str, at: int, *names: str) -> None:
    shown = path if path.startswith("/") else "/" + path
    src.add(index, "route", f"{method} {shown}", at, route_words(method, shown, *names), side="server",
            method=method, route=shown)


def scan(index: Index, src: Source) -> None:
    """Definitions (with their comments and bodies), flags and human-text strings of one file (index.docs
    and index.artifacts, as tags.scan adds them for the tree-sitter languages)."""
    if is_translation(src.rel):
        return  # another language's catalogue of the same UI strings (the index keeps the English one)
    lines = _Lines(src.text)
    test_file = is_test(src)
    side = _side(src)
    comments: list[str] = []
    budget = [MAX_DOCS]
    body_text = MAX_BODY_TEXT  # overlapping bodies (`fn a() {` on every line) would read each line 6000 times
    in_tests = False
    stem_words = identifier_concepts(src.path.stem)
    for k, line in enumerate(lines.lines):
        if not line:
            comments = []
            continue
        stripped = line.strip()
        text = _comment(stripped)
        if text is not None:
            comments = (comments + [text])[-MAX_COMMENT:]
            continue
        if stripped.startswith("#[cfg(test)]"):
            in_tests = True
        if _annotation(stripped):
            if not (test_file or in_tests) and not _flag_attribute(index, src, lines, k, comments, budget):
                _flags(index, src, lines, k, line, budget)  # picocli's @Option(names = {"--verbose"}, …)
            continue  # a comment above an attribute is the definition's below it
        offset = lines.offsets[k]
        found = _definition(line, stripped)
        if found and budget[0] > 0:
            keyword, name, column = found
            words = identifier_concepts(name)
            if words:
                tested = test_file or in_tests
                kind = "test" if tested else "definition"
                art = src.add(index, kind, name, offset + column, words, stem_words if tested else frozenset())
                said = affirmative(" ".join(comments)) if comments else ""
                said_words = identifier_concepts(said) if said else frozenset()
                if said_words or tested:
                    index.docs.append(Artifact(kind, name, src.rel, art.line, art.snippet, words | said_words,
                                               art.context, art.side))
                    budget[0] -= 1
                if not tested and (keyword in FUNCTION_KEYWORDS or keyword == "method"):
                    body = ""
                    if body_text > 0:
                        end = _body_end(lines.lines, k)
                        body = "\n".join(lines.lines[k:end])[:min(MAX_BODY, body_text)]
                        body_text -= len(body)
                    index.docs.append(Artifact("body", name, src.rel, art.line, art.snippet,
                                               words | said_words | identifier_concepts(body), words | said_words,
                                               side=art.side))
                    budget[0] -= 1
        comments = []
        if not (test_file or in_tests):
            _flags(index, src, lines, k, line, budget)
            _strings(index, src, line, offset, side, budget)


def _flag(index: Index, src: Source, name: str, at: int, help_text: str, budget: list[int]) -> None:
    words = identifier_concepts(name)
    if not words or budget[0] <= 0:
        return
    art = src.add(index, "flag", name, at, words, side="cli")
    said = identifier_concepts(affirmative(help_text)) if help_text else frozenset()
    if said:
        index.docs.append(Artifact("flag", name, src.rel, art.line, art.snippet, words | said, art.context, art.side))
        budget[0] -= 1


def _flags(index: Index, src: Source, lines: _Lines, k: int, line: str, budget: list[int]) -> None:
    """clap's builder (`Arg::new("x")` … `.long("x")` … `.help("…")`) and `"--name"` literals."""
    offset = lines.offsets[k]
    m = _ARG_NEW.search(line)
    if m:
        end = k + 1
        while end < len(lines.lines) and end < k + 40 and not _ARG_NEW.search(lines.lines[end]):
            end += 1
        block = "\n".join(lines.lines[k:end])
        long = _LONG_CALL.search(block)
        name = long.group(1) if long else m.group(1)
        helps = [s for s in _STRING_ANY.findall(_CONTINUED.sub(" ", block)) if " " in s]
        _flag(index, src, name, offset + m.start(1), " ".join(helps), budget)
        return
    if ".long(" in line:
        return  # the builder's: named with its Arg::new above
    helps: str | None = None  # the line's help strings, read once (per flag, a line of 280 flags read it 280 times)
    for m in _DASHED.finditer(line):
        if helps is None:
            helps = " ".join(s for s in _DQ.findall(line) if " " in s)
        _flag(index, src, m.group(1), offset + m.start(1), helps, budget)


def _flag_attribute(index: Index, src: Source, lines: _Lines, k: int, comments: list[str], budget: list[int]) -> bool:
    """clap's derive: `#[arg(short, long)]` above a field; the doc comment above is its help. Whether the
    line is such an attribute."""
    m = _CLAP_ATTR.match(lines.lines[k])
    if not m or not _LONG_IN_ATTR.search(m.group(1)):
        return False
    named = _LONG_IN_ATTR.search(m.group(1))
    name = named.group(1) if named and named.group(1) else ""
    at = lines.offsets[k] + m.start(1)
    if not name:
        for j in range(k + 1, min(k + 6, len(lines.lines))):
            field = _FIELD.match(lines.lines[j])
            if field and not lines.lines[j].lstrip().startswith("#"):
                name, at = field.group(1).replace("_", "-"), lines.offsets[j] + field.start(1)
                break
    if name:
        helps = [s for s in _DQ.findall(m.group(1)) if " " in s]
        _flag(index, src, name, at, " ".join([*comments, *helps]), budget)
    return True


def _strings(index: Index, src: Source, line: str, offset: int, side: str, budget: list[int]) -> None:
    """Human-text literals on one line of code (tags.human_words decides what is human text)."""
    if '"' not in line and "'" not in line:
        return
    found = list(_DQ.finditer(line))
    if src.path.suffix in SINGLE_QUOTED:
        found += list(_SQ.finditer(line))
    for m in sorted(found, key=lambda f: f.start()):
        if budget[0] <= 0:
            return
        text = m.group(1).replace("\\'", "'").replace('\\"', '"').strip()
        words = human_words(text)
        if words:
            line_no = src.line_of(offset + m.start(1))
            index.docs.append(Artifact("string", text[:80], src.rel, line_no, src.snippet(line_no), words, side=side))
            budget[0] -= 1
