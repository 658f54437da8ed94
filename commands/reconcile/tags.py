"""Definitions read with tree-sitter tags queries (as aider's repository map does): the
functions, classes, methods and types a file defines, the options its public classes and
interfaces take, and the command-line flags it declares; for Python, JavaScript,
TypeScript/TSX, Go and Ruby.

The grammars (tree-sitter-python, -javascript, -typescript, -go, -ruby wheels) load on
first use only; a missing grammar means that language is skipped, never an error.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from leafwise.commands.reconcile.artifacts import Artifact, Index, Source
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import linear

LANG_OF = {".py": "python", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
           ".ts": "typescript", ".tsx": "tsx", ".go": "go", ".rb": "ruby"}
_LONG_FLAG = re.compile(r"--([A-Za-z][\w-]*)")
FLAG_FUNCS = ("Bool", "String", "Int", "Uint", "Float", "Duration", "StringSlice", "Count")

QUERIES = {
    "python": """
(class_definition name: (identifier) @def.class)
(function_definition name: (identifier) @def.function)
(function_definition name: (identifier) @init.name
  parameters: (parameters [(default_parameter name: (identifier) @option)
                           (typed_default_parameter name: (identifier) @option)]))
(call function: (attribute attribute: (identifier) @_f)
  arguments: (argument_list . (string) @flag) (#any-of? @_f "add_argument" "option"))
(call function: (attribute attribute: (identifier) @_c)
  arguments: (argument_list . (string) @command) (#eq? @_c "add_parser"))
(module (expression_statement (assignment left: (identifier) @def.constant)) (#match? @def.constant "^[A-Z][A-Z0-9_]{3,}$"))
""",
    "javascript": """
(class_declaration name: (identifier) @def.class)
(function_declaration name: (identifier) @def.function)
(method_definition name: (property_identifier) @def.method)
(variable_declarator name: (identifier) @def.function value: [(arrow_function) (function_expression)])
(call_expression function: (member_expression property: (property_identifier) @_f)
  arguments: (arguments . (string) @flag) (#any-of? @_f "option" "requiredOption"))
""",
    "typescript": """
(class_declaration name: (type_identifier) @def.class)
(function_declaration name: (identifier) @def.function)
(method_definition name: (property_identifier) @def.method)
(variable_declarator name: (identifier) @def.function value: [(arrow_function) (function_expression)])
(interface_declaration name: (type_identifier) @def.type)
(type_alias_declaration name: (type_identifier) @def.type)
(property_signature name: (property_identifier) @option)
(call_expression function: (member_expression property: (property_identifier) @_f)
  arguments: (arguments . (string) @flag) (#any-of? @_f "option" "requiredOption"))
""",
    "go": """
(function_declaration name: (identifier) @def.function)
(method_declaration name: (field_identifier) @def.method)
(type_spec name: (type_identifier) @def.type)
(const_spec name: (identifier) @def.constant)
(call_expression function: (selector_expression field: (field_identifier) @_f)
  arguments: (argument_list (interpreted_string_literal) @flag))
""",
    "ruby": """
(class name: (constant) @def.class)
(module name: (constant) @def.class)
(method name: (identifier) @def.method)
""",
}
QUERIES["tsx"] = QUERIES["typescript"]
# Text in the code: string literals (help texts, UI labels, messages) and JSX text.
STRINGS = {
    "python": "(string) @str",
    "javascript": "[(string) (template_string)] @str (jsx_text) @jsx",
    "typescript": "[(string) (template_string)] @str",
    "tsx": "[(string) (template_string)] @str (jsx_text) @jsx",
    "go": "[(interpreted_string_literal) (raw_string_literal)] @str",
    "ruby": "(string) @str",
}
# Definitions whose body is a document too: what a function calls and says, in one place.
BODY_TYPES = frozenset({"function_definition", "function_declaration", "method_definition", "method_declaration",
                        "method", "arrow_function", "function_expression"})
MAX_BODY = 6000
# The branches of a switch (a TUI's key handler, a reducer, a command dispatcher): each is a small
# document of its own, so what one key or one message does is bound together (retrieve.py).
CASES = {"python": "(case_clause) @case", "javascript": "(switch_case) @case", "typescript": "(switch_case) @case",
         "tsx": "(switch_case) @case", "go": "[(expression_case) (type_case) (communication_case)] @case",
         "ruby": "(when) @case"}
MAX_CASES = 400  # per file
CASE_WORDS = {"ruby": b"when"}  # the keyword every branch of CASES holds ("case" for the others)
MAX_CASE = 1500
_HUMAN = re.compile(r"^[A-Za-z][\w'’,.:;!?()\-/&%$+ ]*$")
_WORD = re.compile(r"[A-Za-z]{2,}")


@lru_cache(maxsize=None)
def _language(name: str) -> tuple[Any, Any] | None:
    """(parser, query) for a language, or None when its grammar is not installed."""
    try:
        import tree_sitter as ts

        if name == "python":
            import tree_sitter_python as grammar

            lang = ts.Language(grammar.language())
        elif name == "javascript":
            import tree_sitter_javascript as grammar

            lang = ts.Language(grammar.language())
        elif name in ("typescript", "tsx"):
            import tree_sitter_typescript as grammar

            lang = ts.Language(grammar.language_tsx() if name == "tsx" else grammar.language_typescript())
        elif name == "go":
            import tree_sitter_go as grammar

            lang = ts.Language(grammar.language())
        elif name == "ruby":
            import tree_sitter_ruby as grammar

            lang = ts.Language(grammar.language())
        else:
            return None
        return (ts.Parser(lang), ts.Query(lang, QUERIES[name]), ts.Query(lang, STRINGS[name]),
                ts.Query(lang, CASES[name]))
    except (ImportError, ValueError, OSError):
        return None


def available() -> bool:
    return _language("python") is not None


def scan(index: Index, sources: list[Source]) -> None:
    """Add `definition`, `option` and `flag` artifacts for every source tree-sitter reads."""
    try:
        import tree_sitter as ts
    except ImportError:
        return
    for src in sources:
        name = LANG_OF.get(src.path.suffix)
        text = src.text
        if src.path.suffix in (".vue", ".svelte"):
            name, text = "typescript", script_part(text)
        loaded = _language(name) if name and text else None
        if loaded is not None:
            _scan_source(index, src, ts.QueryCursor, name, text, loaded)


def _scan_source(index: Index, src: Source, cursor, name: str, text: str, loaded) -> None:
    """One source: its definitions, options, flags and commands, then its strings and its case branches."""
    parser, query, strings, cases = loaded
    bodies: list[tuple[int, int, str, str]] = []
    data = text.encode("utf-8", "replace")
    offsets = True if len(data) == len(text) else None  # multi-byte text: map byte offsets back per capture
    tree = parser.parse(data)
    for _, caps in cursor(query).matches(tree.root_node):
        for cap, nodes in caps.items():
            if not _wanted(cap, caps, name):
                continue
            for node in nodes[:1] if cap in ("flag", "command") else nodes:
                label = _capture_name(cap, node, name)
                words = identifier_concepts(label) if label is not None else frozenset()
                if not words:
                    continue
                start = node.start_byte if offsets else len(data[:node.start_byte].decode("utf-8", "replace"))
                if cap == "command":
                    # python_source.py names the subcommand; here it gets its help and description
                    line = src.line_of(start)
                    cmd = Artifact("cli", label, src.rel, line, src.snippet(line), words, side="cli")
                    _document(index, src, cmd, node, "cli", name, offsets, data)
                    continue
                kind = "test" if src.is_test and cap.startswith("def") else (
                    "definition" if cap.startswith("def") else "option" if cap == "option" else "flag")
                art = src.add(index, kind, label, start, words,
                              identifier_concepts(src.path.stem) if kind == "test" else frozenset(),
                              side="cli" if kind == "flag" else None)
                _document(index, src, art, node, kind, name, offsets, data, bodies)
    _strings(index, src, strings, tree, name, offsets, data)
    if CASE_WORDS.get(name, b"case") in data:  # no branch without its keyword: skip the query
        _cases(index, src, cases, tree, bodies, offsets, data)


def _wanted(cap: str, caps: dict, name: str) -> bool:
    """Whether a capture names something: not a helper capture, an option only in `__init__`, a Go flag
    only from the flag package."""
    if cap.startswith("_") or cap == "init.name":
        return False
    if cap == "option" and "init.name" in caps and caps["init.name"][0].text != b"__init__":
        return False
    return not (cap == "flag" and "_f" in caps and name == "go" and not _is_flag(caps["_f"][0].text))


def _capture_name(cap: str, node, name: str) -> str | None:
    """The name a capture gives its artifact: a flag by its long form; None for what names nothing."""
    text = node.text.decode("utf-8", "replace").strip("\"'`")
    if cap == "flag":
        if name != "go" and not text.startswith("-"):
            return None
        longs = _LONG_FLAG.findall(text)  # "-d, --debug <level>", "--dry-run/--no-dry-run"
        text = longs[0] if longs else text.lstrip("-")
        if not text or " " in text or len(text) > 40:
            return None
    elif cap == "command" and (not text or " " in text or len(text) > 40):
        return None
    return text


# RE2: with `re`, every `<script>` that no `</script>` follows would scan to the end of the file (quadratic)
_SCRIPT = linear.compile(r"<script\b[^>]*>(.*?)</script>", re.S | re.I)
_NOT_NEWLINE = linear.compile(r"[^\n]+")


def script_part(text: str) -> str:
    """The `<script>` parts of a .vue/.svelte file, everything else blanked (lines and offsets kept)."""
    spans = [m.span(1) for m in _SCRIPT.finditer(text)]
    if not spans:
        return ""
    pieces, at = [], 0
    for a, b in spans:  # joined once: splicing each span into the whole text copied it per span
        pieces += [_NOT_NEWLINE.sub(lambda m: " " * len(m.group(0)), text[at:a]), text[a:b]]
        at = b
    pieces.append(_NOT_NEWLINE.sub(lambda m: " " * len(m.group(0)), text[at:]))
    return "".join(pieces)


def _is_flag(func: bytes) -> bool:
    f = func.decode("ascii", "replace")
    base = f[:-1] if f.endswith("P") else f
    base = base[:-3] if base.endswith("Var") else base
    return base in FLAG_FUNCS


def _char(data: bytes, offsets, byte: int) -> int:
    return byte if offsets else len(data[:byte].decode("utf-8", "replace"))


def _doc_text(node, lang: str) -> str:
    """A definition's docstring (Python) or the comments just above it (the others)."""
    defn = node.parent
    if defn is None:
        return ""
    if lang == "python":
        body = defn.child_by_field_name("body")
        first = body.named_children[0] if body is not None and body.named_children else None
        if first is not None and first.type == "expression_statement" and first.named_children \
                and first.named_children[0].type == "string":
            return first.named_children[0].text.decode("utf-8", "replace")[:1500]
        return ""
    anchor = defn
    while anchor.parent is not None and anchor.parent.type in ("export_statement", "lexical_declaration",
                                                                "variable_declaration", "type_declaration"):
        anchor = anchor.parent
    comments = []
    prev = anchor.prev_sibling
    while prev is not None and not prev.is_named and prev.type in (",", ";"):
        prev = prev.prev_sibling  # an interface property after the separator of the one before
    while prev is not None and prev.type == "comment" and len(comments) < 12:
        comments.append(prev.text.decode("utf-8", "replace"))
        prev = prev.prev_sibling
    return " ".join(reversed(comments))[:1500]


def _document(index: Index, src: Source, art, node, kind: str, lang: str, offsets, data: bytes,
              bodies: list[tuple[int, int, str, str]] | None = None) -> None:
    """The definition (or flag) with the words of its docstring, comments or help text, as a document."""
    from leafwise.commands.reconcile.documents import affirmative

    if kind == "flag":
        args = node.parent
        help_text = " ".join(c.text.decode("utf-8", "replace").strip("\"'`") for c in (args.named_children if args else ())
                             if c is not node and c.type in ("string", "interpreted_string_literal", "raw_string_literal"))
        if args is not None and lang == "python":
            help_text += " " + " ".join(k.text.decode("utf-8", "replace") for k in args.named_children
                                        if k.type == "keyword_argument" and k.text.startswith(b"help"))
        text = help_text
    elif kind == "cli":
        # an argparse subcommand: its help= and description= when they are written out
        args = node.parent
        text = " ".join(v.text.decode("utf-8", "replace").strip("\"'") for k in (args.named_children if args else ())
                        if k.type == "keyword_argument" and (n := k.child_by_field_name("name")) is not None
                        and n.text in (b"help", b"description") and (v := k.child_by_field_name("value")) is not None
                        and v.type == "string")
        if not text:
            return
    elif kind in ("definition", "test"):
        text = _doc_text(node, lang)
    elif kind == "option":
        # what the option is for: the comment above it, without its JSDoc tags (@param, @typeParam …)
        text = " ".join(ln for ln in _doc_text(node, lang).splitlines() if not ln.lstrip(" */").startswith("@"))
    else:
        return
    text = affirmative(text) if text else ""
    words = identifier_concepts(text) if text else frozenset()
    if words or kind == "test":
        index.docs.append(Artifact(kind, art.name, art.path, art.line, art.snippet, art.words | words,
                                    art.context, art.side))
    defn = node.parent
    if kind == "definition" and defn is not None and defn.type in BODY_TYPES:
        body = data[defn.start_byte:min(defn.end_byte, defn.start_byte + MAX_BODY)].decode("utf-8", "replace")
        # context: what the definition itself says (name, docstring), to tell a bound match from
        # words that merely meet somewhere in a long body (retrieve.py)
        index.docs.append(Artifact("body", art.name, art.path, art.line, art.snippet,
                                   art.words | words | identifier_concepts(body), art.words | words, side=art.side))
        if bodies is not None:
            bodies.append((defn.start_byte, defn.end_byte, art.name, art.side))


def _cases(index: Index, src: Source, query, tree, bodies: list[tuple[int, int, str, str]], offsets,
           data: bytes) -> None:
    """A document for each innermost branch of a switch (an outer case that holds a whole inner
    switch says no more than the body), named by the definition around it."""
    import tree_sitter as ts

    nodes = sorted(ts.QueryCursor(query).captures(tree.root_node).get("case", ()), key=lambda n: n.start_byte)
    found = 0
    for k, node in enumerate(nodes[:MAX_CASES]):
        if k + 1 < len(nodes) and nodes[k + 1].start_byte < node.end_byte:
            continue  # holds an inner case
        around = [b for b in bodies if b[0] <= node.start_byte and node.end_byte <= b[1]]
        if not around:
            continue
        start, _, owner, side = max(around, key=lambda b: b[0])
        text = data[node.start_byte:min(node.end_byte, node.start_byte + MAX_CASE)].decode("utf-8", "replace")
        words = identifier_concepts(text)
        if len(words) >= 2:
            line = src.line_of(_char(data, offsets, node.start_byte))
            label = text.split(":", 1)[0].split("\n", 1)[0].strip()[:60]
            index.docs.append(Artifact("body", f"{owner}: {label}", src.rel, line, src.snippet(line), words, words,
                                       side=side))
            found += 1


def human_words(text: str) -> frozenset[str]:
    """The words of a literal that is human text (a label, a message, a help text: letters and spaces, no
    negation), or none: the one rule for strings of every language (generic_source.py's too)."""
    from leafwise.commands.reconcile.documents import NEGATION

    if not (6 <= len(text) <= 400) or " " not in text or len(_WORD.findall(text)) < 2:
        return frozenset()
    if not _HUMAN.match(text.replace("\n", " ")[:200]) or NEGATION.search(text):
        return frozenset()
    words = identifier_concepts(text)
    return words if len(words) >= 2 else frozenset()


def _strings(index: Index, src: Source, query, tree, lang: str, offsets, data: bytes) -> None:
    """Human-text string literals and JSX text: `ui` in UI files, `text` elsewhere; none from tests."""
    if src.is_test:
        return
    import tree_sitter as ts

    side = "ui" if src.side() == "ui" else "text"
    found = ts.QueryCursor(query).captures(tree.root_node)
    for cap, node in sorted(((cap, node) for cap, nodes in found.items() for node in nodes),
                            key=lambda c: c[1].start_byte):  # in the order of the file, run after run
        if True:
            if lang == "python" and node.parent is not None and node.parent.type == "expression_statement":
                continue  # a docstring: its definition's document has it
            raw = node.text.decode("utf-8", "replace")
            text = raw.strip().strip("\"'`").strip() if cap == "str" else raw.strip()
            words = human_words(text)
            if not words:
                continue
            line = src.line_of(_char(data, offsets, node.start_byte))
            index.docs.append(Artifact(
                "string", text[:80], src.rel, line, src.snippet(line), words, side=side))
