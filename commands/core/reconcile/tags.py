"""Definitions read with tree-sitter tags queries (as aider's repository map does): the
functions, classes, methods and types a file defines, the options its public classes and
interfaces take, and the command-line flags it declares; for Python, JavaScript,
TypeScript/TSX, Go and Ruby.

The grammars (tree-sitter-python, -javascript, -typescript, -go, -ruby wheels) load on
first use only; a missing grammar means that language is skipped, never an error.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from leafwise.commands.core.reconcile.artifacts import Index, Source
from leafwise.commands.core.reconcile.text import identifier_concepts

LANG_OF = {".py": "python", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
           ".ts": "typescript", ".tsx": "tsx", ".go": "go", ".rb": "ruby"}
FLAG_FUNCS = ("Bool", "String", "Int", "Uint", "Float", "Duration", "StringSlice", "Count")

QUERIES = {
    "python": """
(class_definition name: (identifier) @def.class)
(function_definition name: (identifier) @def.function)
(function_definition name: (identifier) @init.name
  parameters: (parameters [(default_parameter name: (identifier) @option)
                           (typed_default_parameter name: (identifier) @option)]))
(call function: (attribute attribute: (identifier) @_f)
  arguments: (argument_list . (string) @flag) (#eq? @_f "add_argument"))
""",
    "javascript": """
(class_declaration name: (identifier) @def.class)
(function_declaration name: (identifier) @def.function)
(method_definition name: (property_identifier) @def.method)
(variable_declarator name: (identifier) @def.function value: [(arrow_function) (function_expression)])
""",
    "typescript": """
(class_declaration name: (type_identifier) @def.class)
(function_declaration name: (identifier) @def.function)
(method_definition name: (property_identifier) @def.method)
(variable_declarator name: (identifier) @def.function value: [(arrow_function) (function_expression)])
(interface_declaration name: (type_identifier) @def.type)
(type_alias_declaration name: (type_identifier) @def.type)
(property_signature name: (property_identifier) @option)
""",
    "go": """
(function_declaration name: (identifier) @def.function)
(method_declaration name: (field_identifier) @def.method)
(type_spec name: (type_identifier) @def.type)
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
        return ts.Parser(lang), ts.Query(lang, QUERIES[name])
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
        loaded = _language(name) if name else None
        if loaded is None:
            continue
        parser, query = loaded
        data = src.text.encode("utf-8", "replace")
        if len(data) != len(src.text):
            offsets = None  # multi-byte text: map byte offsets back to characters per capture
        else:
            offsets = True
        tree = parser.parse(data)
        test = src.is_test
        for _, caps in ts.QueryCursor(query).matches(tree.root_node):
            for cap, nodes in caps.items():
                if cap.startswith("_") or cap == "init.name":
                    continue
                if cap == "option" and "init.name" in caps and caps["init.name"][0].text != b"__init__":
                    continue
                if cap == "flag" and "_f" in caps and name == "go" and not _is_flag(caps["_f"][0].text):
                    continue
                for node in nodes[:1] if cap == "flag" else nodes:
                    text = node.text.decode("utf-8", "replace").strip("\"'`")
                    if cap == "flag":
                        if name == "python" and not text.startswith("-"):
                            continue
                        text = text.lstrip("-")
                        if not text or " " in text or len(text) > 40:
                            continue
                    words = identifier_concepts(text)
                    if not words:
                        continue
                    start = node.start_byte if offsets else len(data[:node.start_byte].decode("utf-8", "replace"))
                    kind = "test" if test and cap.startswith("def") else (
                        "definition" if cap.startswith("def") else "option" if cap == "option" else "flag")
                    src.add(index, kind, text, start, words,
                            identifier_concepts(src.path.stem) if kind == "test" else frozenset(),
                            side="cli" if kind == "flag" else None)


def _is_flag(func: bytes) -> bool:
    f = func.decode("ascii", "replace")
    base = f[:-1] if f.endswith("P") else f
    base = base[:-3] if base.endswith("Var") else base
    return base in FLAG_FUNCS
