"""Regular expressions for untrusted text, in linear time: RE2 (google-re2), never backtracking.

A cloned repository's code and a plan's text are untrusted (docs/security.md): Python's `re`
backtracks, so one ambiguous repetition (`(?:\\\\.|.)*?` against 120 backslashes) holds the GIL for
minutes and freezes the canvas with it. RE2 runs in time linear in the text for every pattern it
accepts; a pattern it refuses (backreferences, lookaround) fails at import, not on a hostile file.
`re` flags are passed as RE2's inline flags. tests/security/test_linear_matching.py runs every
pattern compiled in store/ and commands/reconcile/ against generated worst cases under a budget.
"""

from __future__ import annotations

import re
from typing import Any

_INLINE = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))


def compile(pattern: str, flags: int = 0) -> Any:  # noqa: A001 - the name callers know from `re`
    """`pattern` compiled by RE2 (same matching API as `re`: search, finditer, sub, group ...)."""
    import re2

    inline = "".join(letter for flag, letter in _INLINE if flags & flag)
    options = re2.Options()
    options.max_mem = 64 << 20
    return re2.compile(f"(?{inline}){pattern}" if inline else pattern, options)
