"""Markdown for plan text: a doc's code is shown as written, never highlighted.

Textual's fence highlights its code with Pygments, on the UI thread, with the lexer the doc's own
info string names (or guesses one when it names none). Pygments' lexers are backtracking regular
expressions, and many are quadratic or worse: a planted ```make fence of 12,000 characters held
the canvas for 19 s, keys and quit included. A doc is untrusted text, so no lexer ever sees it.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownFence


class PlainFence(MarkdownFence):
    """A fence or indented code block, its text as plain content."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return Content(code)


class PlanMarkdown(Markdown):
    """The Markdown widget for plan text."""

    BLOCKS = {**Markdown.BLOCKS, "fence": PlainFence, "code_block": PlainFence}
