"""The canvas parses a doc's Markdown in linear time (`canvas/widgets/plan_markdown.py` `plan_parser`).

Found in session 17's attack (h22c): Textual's Markdown widget parses with markdown-it's "gfm-like"
preset, whose linkify rule runs a regex over the whole paragraph read so far at every `://`. A doc
paragraph of `<http://` repeated cost its length squared: the pane's 12,000-character preview 0.6 CPU s,
20 such docs on one node held the canvas 10 s (a key answered after 3 s), 160 KB 65 s. Generated worst
cases for every inline and block rule, at two sizes, through the parser the canvas's widget uses; and
the 20-doc node through the real canvas (Pilot): a key is answered while the docs render.
"""

from __future__ import annotations

import asyncio
import gc
import time

import pytest
from leafwise.canvas.widgets.plan_markdown import PlanMarkdown, plan_parser
from markdown_it import MarkdownIt
from testkit import write_plan

UNITS = {  # one repeated unit per rule or pairing a parser may rescan
    "autolink": "<http://", "autolink_space": "<http:// ", "scheme": "a://", "www": "www.a",
    "brackets_open": "[", "links_open": "[a](", "images": "![", "nested_links": "[](", "emphasis": "*a_ ",
    "strong": "**a", "strike": "~~a*", "ticks": "a`", "entity": "&#", "html_open": "<", "tag_attr": "b='c' ",
    "comment": "<!--", "backslash": "\\", "email": "<a@b", "list": "1. a\n", "quote_nested": "> ",
    "heading": "# h\n", "table_cell": "a|", "hard_break": "a  \n", "setext": "a\n=\n",
}


def parser() -> MarkdownIt:
    """The parser the canvas's doc pane uses (`PlanMarkdown` passes it as its parser_factory)."""
    return plan_parser()


def cost(md: MarkdownIt, text: str) -> float:
    """The least CPU time of three parses, the collector off (its passes grow with the tokens alive,
    and a pass landing in one size's runs only made a linear rule look superlinear under load)."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            start = time.process_time()
            md.parse(text)
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


@pytest.mark.parametrize("name", sorted(UNITS))
def test_each_rule_is_linear_on_its_worst_case(name):
    md = parser()
    unit = UNITS[name]
    small = cost(md, unit * (8_000 // len(unit)))
    large = cost(md, unit * (32_000 // len(unit)))  # four times as long
    assert large < 1.0, f"{name}: {large:.2f} CPU s for 32,000 characters"
    if large > 0.05:
        assert large / max(small, 1e-3) < 8, f"{name}: x{large / max(small, 1e-3):.1f} for x4 the text"


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_canvas_answers_a_key_while_twenty_hostile_docs_render(tmp_path):
    from testkit.canvas import canvas, ready, tree

    docs = [f"docs/links{i}.md" for i in range(20)]
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1",
                                          "docs": docs},
                                         {"id": "T-2", "title": "Other", "status": "draft", "release": "R1"}])
    for rel in docs:
        (root / ".leafwise" / rel).write_text("<http://" * 1490 + "\n")
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        tree(app).move_cursor_to("T-1")
        await pilot.pause()
        await asyncio.sleep(1.0)  # the pane reads the docs once the cursor rests, then renders them
        started = time.monotonic()
        await pilot.press("down")
        await pilot.pause()
        assert time.monotonic() - started < 1.5
        assert app.is_running
