"""Markdown for plan text: a doc's code is shown as written, never highlighted.

Textual's fence highlights its code with Pygments, on the UI thread, with the lexer the doc's own
info string names (or guesses one when it names none). Pygments' lexers are backtracking regular
expressions, and many are quadratic or worse: a planted ```make fence of 12,000 characters held
the canvas for 19 s, keys and quit included. A doc is untrusted text, so no lexer ever sees it.

Nor markdown-it's linkify rule (bare URLs made links; the pane follows no link anyway): at every
`://` it runs a regex over the whole paragraph read so far, so a paragraph of `<http://` repeated
costs its length squared (12,000 characters, the pane's preview of one doc, 0.6 CPU s; 20 such docs
on a node held the canvas 10 s and a key waited 3 s; 160 KB, 65 s). Every other rule was measured
linear on generated worst cases (tests/security/test_markdown_linear.py).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownFence


class PlainFence(MarkdownFence):
    """A fence or indented code block, its text as plain content."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return Content(code)


def plan_parser() -> MarkdownIt:
    """Textual's own parser ("gfm-like") without the linkify rule: linear on any text."""
    return MarkdownIt("gfm-like").disable("linkify")


class PlanMarkdown(Markdown):
    """The Markdown widget for plan text."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("parser_factory", plan_parser)
        super().__init__(*args, **kwargs)

    BLOCKS = {**Markdown.BLOCKS, "fence": PlainFence, "code_block": PlainFence}
