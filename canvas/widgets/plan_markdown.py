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

Nor tables past what a person reads (`MAX_TABLE_COLUMNS` a table, `MAX_TABLE_CELLS` in all the text
parsed at once): Textual lays out widgets per cell, ~1.6 ms each, so one doc whose preview was a table
of 3,900 empty columns cost the canvas 7.1 CPU s and 224 MB, four docs of 2,900 columns 22.9 CPU s and
512 MB, four of 32 x 62 cells 12.6 s, keys answered seconds late. Such a table is shown as written, as
a code block (`bounded_tables`).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownFence


class PlainFence(MarkdownFence):
    """A fence or indented code block, its text as plain content."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return Content(code)


MAX_TABLE_COLUMNS = 32
MAX_TABLE_CELLS = 600  # in all the tables of one text: a node's docs are one text in the pane


def bounded_tables(state: StateCore) -> None:
    """Each table over `MAX_TABLE_COLUMNS` columns, or past `MAX_TABLE_CELLS` cells with the tables
    before it, as a code block of its source lines (a core rule: after the blocks and their inline text
    are parsed)."""
    tokens, out, lines, used = state.tokens, [], None, 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type != "table_open":
            out.append(token)
            i += 1
            continue
        end, cells, columns, row = i, 0, 0, 0
        while end < len(tokens) and tokens[end].type != "table_close":  # tables do not nest
            kind = tokens[end].type
            if kind == "tr_open":
                row = 0
            elif kind in ("th_open", "td_open"):
                cells, row = cells + 1, row + 1
                columns = max(columns, row)
            end += 1
        if columns <= MAX_TABLE_COLUMNS and used + cells <= MAX_TABLE_CELLS or token.map is None:
            out.extend(tokens[i:end + 1])
            used += cells
        else:
            lines = state.src.split("\n") if lines is None else lines
            code = Token("code_block", "code", 0, block=True, map=token.map, level=token.level)
            code.content = "\n".join(lines[token.map[0]:token.map[1]]) + "\n"
            out.append(code)
        i = end + 1
    state.tokens = out


def plan_parser() -> MarkdownIt:
    """Textual's own parser ("gfm-like") without the linkify rule, tables bounded: linear on any text."""
    parser = MarkdownIt("gfm-like").disable("linkify")
    parser.core.ruler.push("bounded_tables", bounded_tables)
    return parser


class PlanMarkdown(Markdown):
    """The Markdown widget for plan text."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("parser_factory", plan_parser)
        super().__init__(*args, **kwargs)

    BLOCKS = {**Markdown.BLOCKS, "fence": PlainFence, "code_block": PlainFence}
