"""One entry of a client's JSON config, edited in place: every other byte of the file stays as it was.

A client's config is the person's file (their servers, their settings, their formatting). Setup
parses it only to check it and to find where its own entry goes, then splices text: adding puts
the entry after the last member (or element) with that member's indentation, removing takes out
exactly that span again, so `--remove` gives back the file as it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from leafwise.store import reader

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


class NotAnObject(ValueError):
    """A key setup writes under holds something else than it expects (a list where an object goes)."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


class Foreign(NotAnObject):
    """Another program's entry stands where setup's goes."""


@dataclass(frozen=True, slots=True)
class Span:
    """A member of an object (key set) or an element of an array (key None) in the text."""

    key: str | None
    start: int  # the key's first character (the value's, for an element)
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class Container:
    open: int  # index of "{" or "["
    close: int  # index of "}" or "]"
    items: tuple[Span, ...]


def parse(text: str) -> Any:
    """The config's data, or `reader.Refused` (with the line) when it is not JSON."""
    return reader.load_json(text, reader.SETTINGS) if text.strip() else {}


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def container(text: str, at: int) -> Container:
    """The object or array that starts at `at` (the text is valid JSON: `parse` said so)."""
    closing = "}" if text[at] == "{" else "]"
    items: list[Span] = []
    i = _skip(text, at + 1)
    while text[i] != closing:
        key = None
        start = i
        if closing == "}":
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, _skip(text, i) + 1)  # past the colon
        value_start = i
        _value, i = _DECODER.raw_decode(text, i)
        items.append(Span(key, start, value_start, i))
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return Container(at, i, tuple(items))


def top(text: str) -> Container:
    at = _skip(text, 0)
    if at >= len(text) or text[at] != "{":
        raise NotAnObject("the file's top level is not a JSON object", _line(text, at))
    return container(text, at)


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def member(text: str, obj: Container, key: str) -> Span | None:
    return next((s for s in obj.items if s.key == key), None)


def _indent(text: str, obj: Container) -> tuple[str, str]:
    """(the whitespace before an item, the indentation of the line that opens the container)."""
    line_start = text.rfind("\n", 0, obj.open) + 1
    base = text[line_start:obj.open][:len(text[line_start:obj.open]) - len(text[line_start:obj.open].lstrip())]
    if obj.items:
        first = obj.items[-1].start
        before = text[:first]
        return before[len(before.rstrip(_SPACE)):], base
    return "\n" + base + "  ", base


def render(value: Any, base: str) -> str:
    """A value as pretty JSON whose continuation lines sit under `base`."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + base)


def insert(text: str, obj: Container, key: str | None, value: Any) -> str:
    """`text` with `value` as the container's last member `key` (an element when key is None), laid
    out as the items before it are: on their own lines with their indentation, or on one line."""
    gap, base = _indent(text, obj)
    multiline = "\n" in gap
    shown = render(value, gap.rsplit("\n", 1)[-1]) if multiline else json.dumps(value, ensure_ascii=False)
    item = (json.dumps(key, ensure_ascii=False) + ": " if key is not None else "") + shown
    if obj.items:
        at = obj.items[-1].value_end
        return text[:at] + "," + (gap if multiline else " ") + item + text[at:]
    if obj.close == obj.open + 1:  # "{}": the new member on its own line, the brace on the next
        return text[:obj.open + 1] + gap + item + "\n" + base + text[obj.close:]
    return text[:obj.open + 1] + gap + item + text[obj.open + 1:]


def replace(text: str, span: Span, value: Any) -> str:
    base = text[text.rfind("\n", 0, span.start) + 1:span.start]
    base = base[:len(base) - len(base.lstrip())]
    return text[:span.value_start] + render(value, base) + text[span.value_end:]


def remove(text: str, obj: Container, index: int) -> str:
    """`text` without the container's item `index`: the span `insert` added for it."""
    items = obj.items
    if index > 0:
        return text[:items[index - 1].value_end] + text[items[index].value_end:]
    if len(items) > 1:
        return text[:items[0].start] + text[items[1].start:]
    return text[:obj.open + 1] + text[obj.close:]


Owned = Callable[[Any], bool]  # does Leafwise own this value (an entry or element it wrote)?
Named = Callable[[str | None, Any], bool]  # the same for an item under its key (None: an array's element)


def set_entry(text: str, path: tuple[str, ...], key: str, value: Any, ours: Owned) -> str:
    """`text` with `value` as member `key` of the object at `path` (made when missing). An existing
    member is replaced only when `ours` says Leafwise wrote it; else NotAnObject names its line."""
    obj = top(text)
    for i, name in enumerate(path):
        found = member(text, obj, name)
        if found is None:
            nested: Any = {key: value}
            for outer in reversed(path[i + 1:]):
                nested = {outer: nested}
            return insert(text, obj, name, nested)
        if text[found.value_start] != "{":
            raise NotAnObject(f"{'.'.join(path[:i + 1])} is not an object", _line(text, found.value_start))
        obj = container(text, found.value_start)
    existing = member(text, obj, key)
    if existing is None:
        return insert(text, obj, key, value)
    current = parse(text[existing.value_start:existing.value_end])
    if current == value:
        return text
    if not ours(current):
        raise Foreign(f"{'.'.join(path + (key,))} is another server's entry, not one setup wrote",
                          _line(text, existing.start))
    return replace(text, existing, value)


def add_element(text: str, path: tuple[str, ...], value: Any, ours: Owned) -> str:
    """`text` with `value` in the array at `path` (made when missing), replacing the element `ours`
    recognises; an array already holding `value` is left as it is."""
    obj = top(text)
    for i, name in enumerate(path):
        found = member(text, obj, name)
        if found is None:
            nested: Any = [value]
            for outer in reversed(path[i + 1:]):
                nested = {outer: nested}
            return insert(text, obj, name, nested)
        expected = "[" if i == len(path) - 1 else "{"
        if text[found.value_start] != expected:
            kind = "an array" if expected == "[" else "an object"
            raise NotAnObject(f"{'.'.join(path[:i + 1])} is not {kind}", _line(text, found.value_start))
        obj = container(text, found.value_start)
    for span in obj.items:
        current = parse(text[span.value_start:span.value_end])
        if current == value:
            return text
        if ours(current):
            return replace(text, span, value)
    return insert(text, obj, None, value)


def drop(text: str, path: tuple[str, ...], ours: Named,
         made: Callable[[tuple[str, ...]], bool] = lambda _path: True) -> str:
    """`text` without the items `ours` recognises under `path` (members of an object, elements of an
    array); a container left empty by it goes too when `made` says setup made it, up to the top."""
    chain = [top(text)]
    for name in path:
        found = member(text, chain[-1], name)
        if found is None or text[found.value_start] not in "{[":
            return text
        chain.append(container(text, found.value_start))
    target = chain[-1]
    for index in reversed(range(len(target.items))):
        span = target.items[index]
        if ours(span.key, parse(text[span.value_start:span.value_end])):
            text = remove(text, target, index)
            target = container(text, target.open)
    return _prune(text, path, made)


def _prune(text: str, path: tuple[str, ...], made: Callable[[tuple[str, ...]], bool]) -> str:
    """Remove the empty containers setup made at the end of `path`, deepest first."""
    while path and made(path):
        chain = [top(text)]
        for name in path[:-1]:
            chain.append(container(text, member(text, chain[-1], name).value_start))
        parent = chain[-1]
        index = next(i for i, s in enumerate(parent.items) if s.key == path[-1])
        if container(text, parent.items[index].value_start).items:
            break
        text = remove(text, parent, index)
        path = path[:-1]
    return text


def missing(text: str | None, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The prefixes of `path` the file does not have yet (what setting an entry there makes)."""
    if not text or not text.strip():
        return [path[:i] for i in range(1, len(path) + 1)]
    obj = top(text)
    for i, name in enumerate(path):
        found = member(text, obj, name)
        if found is None:
            return [path[:j] for j in range(i + 1, len(path) + 1)]
        if text[found.value_start] != "{":
            return []
        obj = container(text, found.value_start)
    return []
