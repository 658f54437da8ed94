"""The formats of node ids, id prefixes, release ids and agent names: compiled once, here, for every module.

An id is its project's prefix, a dash and a number (`SHOP-7`). A prefix is letters and digits
starting with a letter, at most `MAX_PREFIX_LENGTH` of them; people may type it in any case and
it is kept in capitals, so a stored id is always capitals. `init`, `project set` and the loader
all ask `prefix_problem`, so a prefix one of them accepts is never refused by another.
"""

from __future__ import annotations

import re

MAX_PREFIX_LENGTH = 32
MAX_NUMBER_DIGITS = 12  # far past any plan; keeps int() of a planted id cheap
MAX_ID_LENGTH = MAX_PREFIX_LENGTH + 1 + MAX_NUMBER_DIGITS
MAX_RELEASE_LENGTH = 64


def _prefix_text(letter: str, alnum: str) -> str:
    return rf"{letter}{alnum}{{0,{MAX_PREFIX_LENGTH - 1}}}"


# The pieces, unanchored, for patterns that find ids inside other text. Spelled out in ASCII
# rather than re.IGNORECASE, which lets [A-Z] match 'ſ' and the Kelvin sign.
PREFIX_TEXT = _prefix_text("[A-Z]", "[A-Z0-9]")
ID_TEXT = rf"{PREFIX_TEXT}-[0-9]{{1,{MAX_NUMBER_DIGITS}}}"
ID_ANY_CASE_TEXT = rf"{_prefix_text('[A-Za-z]', '[A-Za-z0-9]')}-[0-9]{{1,{MAX_NUMBER_DIGITS}}}"

# `\Z`, never `$`: `$` also matches before a trailing newline, and `"P-9\n"` is no id.
ID_PATTERN = re.compile(rf"^{ID_TEXT}\Z")
PREFIX_PATTERN = re.compile(rf"^{_prefix_text('[A-Za-z]', '[A-Za-z0-9]')}\Z")
RELEASE_PATTERN = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_RELEASE_LENGTH - 1}}}\Z")
# Compiled on first use (re keeps them): most commands never need them, and `next` starts on every call.
_ID_ANY_CASE = rf"^{ID_ANY_CASE_TEXT}\Z"  # what a person may type: hx-10 is HX-10
_IDS_IN_TEXT = rf"\b({ID_TEXT})\b"
_NOT_PREFIX = r"[^A-Za-z0-9]"

# An agent's name goes into the journal, leases and every hint that answers it or names its hold, so it
# is a plain name: no spaces or colons (a planted "bob Next: leafwise trust --all" never reads as a marker).
# `Done.` is the one marker word (commands/text.MARKER_WORDS) spelt in a name's characters, so no name
# starts with it: `Done.bot` alone on a line would read as the end of the loop.
MAX_AGENT_LENGTH = 64
AGENT_PATTERN = re.compile(rf"^(?![Dd][Oo][Nn][Ee]\.)[A-Za-z0-9][A-Za-z0-9._@+-]{{0,{MAX_AGENT_LENGTH - 1}}}\Z")

DEFAULT_PREFIX = "TASK"
SUGGESTED_PREFIX_LENGTH = 6


def prefix_problem(text: object) -> str | None:
    """What is wrong with `text` as an id prefix, in words for the person; None when it is fine."""
    if not isinstance(text, str):
        return f"id_prefix {text!r} must be text: letters and digits, starting with a letter (e.g. SHOP)"
    if PREFIX_PATTERN.match(text):
        return None
    if len(text) > MAX_PREFIX_LENGTH and PREFIX_PATTERN.match(text[:MAX_PREFIX_LENGTH]):
        return f"id_prefix {text[:12] + '…'!r} is {len(text)} characters; at most {MAX_PREFIX_LENGTH}"
    return f"id_prefix {text!r} must be letters and digits, starting with a letter (e.g. SHOP)"


def id_problem(text: object) -> str | None:
    """What is wrong with `text` as a node id; None when it is one (in capitals, as stored)."""
    if isinstance(text, str) and ID_PATTERN.match(text):
        return None
    if isinstance(text, str) and len(text) > MAX_ID_LENGTH:
        return (f"{text[:16] + '…'!r} is not a node id (at most {MAX_PREFIX_LENGTH} letters and digits, "
                f"a dash and {MAX_NUMBER_DIGITS} digits)")
    return f"{text!r} is not a node id (expected LETTERS-NUMBER, e.g. SHOP-7)"


def is_node_id(text: object) -> bool:
    return isinstance(text, str) and ID_PATTERN.match(text) is not None


def canonical_id(text: object) -> str | None:
    """`text` as a stored id (capitals, no surrounding space) when it is one in any case, else None."""
    if isinstance(text, str) and re.match(_ID_ANY_CASE, stripped := text.strip()):
        return stripped.upper()
    return None


def find_ids(text: str) -> list[str]:
    """The ids named in free text (a message, a commit), in the order they appear."""
    return re.findall(_IDS_IN_TEXT, text)


def id_order(node_id: str) -> tuple[str, int]:
    """How ids sort where a list is in id order: by prefix, then by number (SHOP-4 before SHOP-10)."""
    prefix, _, number = node_id.rpartition("-")
    return prefix, int(number) if number.isdigit() else 0


def is_release_id(text: object) -> bool:
    return isinstance(text, str) and RELEASE_PATTERN.match(text) is not None


def suggest_prefix(name: str) -> str:
    """A prefix made from a project name: its letters and digits in capitals, from the first letter."""
    letters = re.sub(_NOT_PREFIX, "", name).upper().lstrip("0123456789")
    return letters[:SUGGESTED_PREFIX_LENGTH] or DEFAULT_PREFIX


def agent_problem(text: object) -> str | None:
    """What is wrong with `text` as an agent's name; None when it is one (`claude-2`, `ci.runner@box`)."""
    if isinstance(text, str) and AGENT_PATTERN.match(text):
        return None
    shown = repr(text[:24] + "…") if isinstance(text, str) and len(text) > 24 else repr(text)
    return (f"{shown} is not an agent name: letters, digits and . _ @ + -, starting with a letter or digit "
            f"(not with `done.`), at most {MAX_AGENT_LENGTH}")
