"""A marked block in a person's text file (CLAUDE.md, AGENTS.md, a TOML config): Leafwise's lines
between a begin and an end marker, the person's text around them untouched.

The block goes at the end, after one newline: `remove` takes out the block and that newline, so the
file is again exactly what it was. Only the text between the markers is ever rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass


class Damaged(ValueError):
    """The markers are there but not as setup writes them (an end without a begin, two begins)."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Markers:
    begin: str  # the begin line's start (a version and words may follow on the line)
    end: str  # the whole end line

    def find(self, text: str) -> tuple[int, int] | None:
        """(start, end) of the block's lines in `text`, the end past its newline; None: no block."""
        lines = text.splitlines(keepends=True)
        starts, ends, offset = [], [], 0
        begins: list[int] = []
        for number, line in enumerate(lines, 1):
            bare = line.rstrip("\r\n")
            if bare.startswith(self.begin):
                starts.append(offset)
                begins.append(number)
            elif bare == self.end:
                ends.append((offset + len(line), number))
            offset += len(line)
        if not starts and not ends:
            return None
        if len(starts) != 1 or len(ends) != 1 or ends[0][0] <= starts[0]:
            line = begins[1] if len(begins) > 1 else ends[0][1] if ends and not starts else (begins or [1])[0]
            raise Damaged(f"the {self.begin.strip()} … {self.end.strip()} markers are not one block", line)
        return starts[0], ends[0][0]

    def wrap(self, header: str, body: str) -> str:
        """The block: the begin line (`header` after the marker), the body, the end line."""
        return f"{self.begin}{header}\n{body.rstrip(chr(10))}\n{self.end}\n"


def put(text: str | None, markers: Markers, block: str, fresh: str = "") -> str:
    """The file with `block` in it: replacing the block already there, else after the text (a new
    file starts with `fresh`, e.g. a rule file's front matter)."""
    if text is None:
        return fresh + block
    found = markers.find(text)
    if found is not None:
        return text[:found[0]] + block + text[found[1]:]
    return text + "\n" + block if text else block


def take(text: str, markers: Markers) -> str:
    """The file without the block and the newline `put` placed before it."""
    found = markers.find(text)
    if found is None:
        return text
    head, tail = text[:found[0]], text[found[1]:]
    if head.endswith("\n"):
        head = head[:-1]
    return head + tail
