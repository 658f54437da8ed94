"""Reading one plan file's YAML safely: bounded work, no anchors, no tags JSON cannot carry.

A plan file is untrusted input (docs/security.md). `screen` refuses what could make parsing
unbounded before PyYAML's C loader runs; `read_bounded` never reads through a symlink or past the
size limit; every failure becomes an error with a line. The checks of what the values mean are
the schema's (`node_files.check_node`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leafwise.store import reader
from leafwise.store.paths import UnsafePath
from leafwise.store.reader import Refused, SchemaError  # noqa: F401 - one refusal for every read and parse
from leafwise.store.schema import MAX_TEXT_CHARS

# Bounded work: a plan file is untrusted input (docs/security.md). The limits are
# checked before a file is parsed (size, anchors, nesting) and on every write
# (check_node runs on what a writer is about to write), so no path gets past them.
MAX_NODE_BYTES = 256 * 1024  # one node file (and project.yaml)
MAX_DEPTH = 32  # nested lists and mappings in one file
MAX_VALUES = 10_000  # scalars in one file
_SCREEN_FROM = 8 * 1024  # below this size nesting cannot reach a depth that hurts the parser
_REFUSED_TAGS = ("timestamp", "binary", "set", "omap", "pairs")  # values JSON cannot carry


class TooLarge(SchemaError, UnsafePath):
    """A value or file over a limit (refused on every write path, reported at load)."""


_LOADER = None
_STR_TAG = "tag:yaml.org,2002:str"


def _key_kind(key_node) -> str:
    """What a mapping key that is no text is, in a person's words: `a number (1)`, `a list`."""
    tag = str(getattr(key_node, "tag", "")).rsplit(":", 1)[-1]
    word = {"int": "a number", "float": "a number", "bool": "true/false", "null": "null",
            "seq": "a list", "map": "a mapping"}.get(tag, f"a {tag[:20]} value")
    value = getattr(key_node, "value", None)
    return f"{word} ({value[:20]!r})" if isinstance(value, str) else word


def plan_loader():
    """PyYAML's C safe loader, keeping timestamps and dates as the strings the file has.

    Built on first use: a warm `leafwise next` reads only the cache and never
    imports yaml.
    """
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        def construct_mapping(self, node, deep=False):
            # PyYAML keeps the last of two equal keys; ruamel (the writer) refuses them.
            # The loader refuses what the writer refuses.
            if isinstance(node, yaml.MappingNode):
                seen: set[tuple[str, str]] = set()
                for key_node, _value in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":  # `<<:` pastes keys no reader sees as set
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping", node.start_mark,
                            "merge keys (<<) are not allowed in a plan file (write the keys out)",
                            key_node.start_mark)
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR_TAG:
                        # `1:`, `true:`, `null:`, `[a]:` … : no reader takes such a key for a field, Python
                        # takes `1` and `true` for one key (a silent last-wins), and every reader that
                        # writes `key + ":"` or formats it fails on it; keys are text, as JSON's are
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping", node.start_mark,
                            f"a key must be text, not {_key_kind(key_node)} (quote the key)",
                            key_node.start_mark)
                    if isinstance(key_node, yaml.ScalarNode):
                        key = (key_node.tag, key_node.value)
                        if key in seen:
                            raise yaml.constructor.ConstructorError(
                                "while constructing a mapping", node.start_mark,
                                f"found duplicate key {key_node.value!r}", key_node.start_mark)
                        seen.add(key)
            return base.construct_mapping(self, node, deep)

        def refused(self, node):
            raise yaml.constructor.ConstructorError(
                None, None, f"the tag {node.tag} is not allowed in a plan file (write plain text)",
                node.start_mark)

        _LOADER = type("PlanLoader", (base,), {"construct_mapping": construct_mapping})
        _LOADER.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
        _LOADER.yaml_constructors = dict(base.yaml_constructors)
        for tag in _REFUSED_TAGS:
            _LOADER.yaml_constructors[f"tag:yaml.org,2002:{tag}"] = refused
    return _LOADER


def screen(raw: bytes) -> None:
    """Raise `Refused` for a file whose parsing could be unbounded work.

    Anchors and aliases (`&a`, `*a`: a 556-byte alias bomb expands to gigabytes
    in anything that walks it) are refused outright, like nesting deeper than
    MAX_DEPTH (libyaml's composer recurses: 30,000 `[` crash the process) and
    more than MAX_VALUES values. The event scan runs only when the bytes could
    hold any of it: small files without `&` or `*` cost nothing.
    """
    if len(raw) > MAX_NODE_BYTES:
        # read_bounded stops one byte past the limit: the size beyond it is not known, only that it is over
        raise Refused(f"the file is over the limit of {MAX_NODE_BYTES:,} bytes ({MAX_NODE_BYTES // 1024} KiB)",
                      1, "too_large")
    if len(raw) < _SCREEN_FROM and b"&" not in raw and b"*" not in raw:
        return
    import yaml

    depth = values = 0
    try:
        for event in yaml.parse(raw, Loader=plan_loader()):
            line = event.start_mark.line + 1 if event.start_mark else None
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise Refused("YAML anchors and aliases (&name, *name) are not allowed in plan files "
                              "(write the value out)", line, "yaml_alias")
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise Refused(f"values nest deeper than {MAX_DEPTH} levels", line, "too_deep")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent):
                values += 1
                if values > MAX_VALUES:
                    raise Refused(f"more than {MAX_VALUES:,} values in one file", line, "too_large")
    except yaml.YAMLError as exc:
        if "nesting depth" in str(exc):  # PyYAML >= 6.0.4 stops deep nesting itself, in the scanner
            mark = getattr(exc, "problem_mark", None)
            raise Refused(f"values nest deeper than {MAX_DEPTH} levels", mark.line + 1 if mark else None,
                          "too_deep") from None
        return  # the real parse reports it, with its line


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def safe_load(raw: bytes) -> Any:
    """Parse one plan file's bytes: screened first, then the safe loader.

    UTF-8 only: PyYAML also reads bytes that open with a UTF-16 byte order mark, which git and every
    review tool show as a binary file ("Bin 0 -> 136 bytes"), so a pull request could add or change a
    node nobody reviewing it could read. (Any other byte that is no UTF-8 PyYAML refuses itself.)"""
    if raw[:2] in _UTF16_BOMS:
        raise Refused("the file is UTF-16 text, not UTF-8 (git and reviews show it as binary)", 1, "not_utf8",
                      "save the file as UTF-8")
    screen(raw)
    return _construct(raw)


def read_bounded(path: Path, limit: int = MAX_NODE_BYTES) -> bytes:
    """A plan file's bytes through the one reader (`reader.read_bytes`): never through a link, never
    a device or FIFO, never more than `limit` + 1 bytes."""
    return reader.read_bytes(path, reader.NODE, cap=limit)


def error_line(exc: BaseException, raw: bytes) -> int | None:
    """The 1-based line a parse or construction error points at (None if unknown)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    opened = getattr(exc, "context_mark", None)
    if opened is not None and "end" in str(getattr(exc, "problem", "")) and "stream" in str(exc.problem):
        # An unclosed quote or bracket is found out at the end of the file; where it opened is the line to fix.
        return opened.line + 1
    if mark is not None:
        return mark.line + 1
    if isinstance(exc, Refused):
        return exc.line
    # A ValueError out of a constructor (`!!int abc`, a 4,301-digit number) carries no mark:
    # construct each top-level value alone to find the one that fails (error path only).
    try:
        loader = plan_loader()(raw)
        try:
            root = loader.get_single_node()
            import yaml

            if not isinstance(root, yaml.MappingNode):
                return 1
            for key, value in root.value:
                try:
                    loader.construct_object(value, deep=True)
                except Exception:  # noqa: BLE001 - any failure is the one we look for
                    return key.start_mark.line + 1
        finally:
            loader.dispose()
    except Exception:  # noqa: BLE001
        return None
    return None


def describe_error(exc: BaseException) -> str:
    """One line saying why a file did not load."""
    import yaml

    if isinstance(exc, Refused):
        return str(exc)
    if isinstance(exc, yaml.YAMLError):
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return f"YAML does not parse: {problem}"
    if isinstance(exc, RecursionError):
        return "YAML does not parse: values nest too deeply"
    return f"a value cannot be read: {str(exc)[:200]}"


def check_size(data: dict[str, Any]) -> None:
    """Raise TooLarge when a text value is over MAX_TEXT_CHARS (nested values included)."""
    stack: list[tuple[str, Any, int]] = [(str(k), v, 1) for k, v in data.items()]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_TEXT_CHARS:
                raise TooLarge(f"{key} is {len(value):,} characters; the limit is {MAX_TEXT_CHARS:,} "
                               f"({MAX_TEXT_CHARS // 1024} KiB of text per value)", key,
                               f"shorten {key}, or put the long text in a doc under .leafwise/docs/")
        elif depth > MAX_DEPTH:
            raise TooLarge(f"{key} nests deeper than {MAX_DEPTH} levels", key, f"flatten {key}")
        elif isinstance(value, dict):
            stack.extend((key, v, depth + 1) for v in value.values())
            stack.extend((key, str(k), depth + 1) for k in value)
        elif isinstance(value, list):
            stack.extend((key, v, depth + 1) for v in value)


def digest_bytes(raw: bytes) -> str:
    import hashlib  # only when a file is parsed: a warm read takes digests from the cache

    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def parse_yaml(text: str | bytes) -> Any:
    """Any caller's safe parse: screened (see `screen`), and every failure a `yaml.YAMLError`
    with a line, so a caller that catches YAML errors never meets a ValueError from `!!int abc`."""
    import yaml

    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    try:
        return safe_load(raw)
    except yaml.YAMLError as exc:
        # the problem first: a caller showing the first line of the error (`edit --set`) says what is
        # wrong ("a key must be text …"), not only where PyYAML was ("while constructing a mapping")
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        raise yaml.constructor.ConstructorError(None, None, describe_error(exc), mark) from exc
    except Exception as exc:  # noqa: BLE001 - construction errors, limits, recursion
        line = error_line(exc, raw)
        mark = yaml.error.Mark("<plan file>", 0, (line or 1) - 1, 0, None, None)
        raise yaml.constructor.ConstructorError(None, None, describe_error(exc), mark) from exc


def _construct(raw: bytes) -> Any:
    import yaml

    return yaml.load(raw, Loader=plan_loader())


def line_of_key(raw: bytes, key: str | None) -> int | None:
    """1-based line of a top-level key; only computed on the error path."""
    if key is None:
        return 1
    import yaml

    try:
        root = yaml.compose(raw, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if isinstance(root, yaml.MappingNode):
        for k, _v in root.value:
            if getattr(k, "value", None) == key:
                return k.start_mark.line + 1
    return 1


def load_yaml(raw: bytes, kind: reader.Kind) -> Any:
    """YAML parsed by the safe loader behind the alias, depth and size screen (`safe_load`);
    any failure a `Refused` with its line."""
    reader.check_cap(raw, kind)
    try:
        return safe_load(raw)
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - every parse or construction failure is this file's
        raise Refused(describe_error(exc), error_line(exc, raw), "yaml_error",
                      "fix the YAML") from None


def read_yaml(path: Path | str, kind: reader.Kind, *, under: Path | None = None) -> Any:
    return load_yaml(reader.read_capped(path, kind, under=under), kind)
