"""Driven with Pilot: the command palette's node entries cost time linear in the plan's titles.

Textual's fuzzy search tries every way a query's letters can be picked out of a text: a cloned plan's
24 titles of 's s s s s e e e e e t t t …' (each tagged `settings`, so the substring filter passes)
took the canvas 17.7 CPU s, frozen, while a person typed "settings" into the palette.
"""

from __future__ import annotations

import time

import pytest
from testkit import node, write_plan
from testkit.canvas import canvas, ready, until
from textual.command import CommandList, CommandPalette

pytestmark = pytest.mark.anyio


def spread(word: str, slots: int = 44) -> str:
    """Each letter of `word` again and again, spaced: the most ways to pick the word out."""
    return "".join((c + " ") * (slots // len(word)) for c in word)


@pytest.mark.parametrize("word", ["settings", "release", "aaaaaa"])
async def test_typing_a_query_over_spread_titles_costs_little(tmp_path, word):
    nodes = [node(f"T-{i}", spread(word), "draft", release="R1", tags=[word]) for i in range(1, 25)]
    app = canvas(write_plan(tmp_path / "repo", nodes), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        cpu = time.process_time()
        for char in word:
            await pilot.press(char)
        listing = app.screen.query_one(CommandList)
        def node_entries() -> int:
            return sum("open: T-" in str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count))

        await until(pilot, lambda: node_entries() >= 20, timeout=60, what="the node entries")
        spent = time.process_time() - cpu
        assert spent < 3.0, f"{spent:.1f} CPU s to type {word!r}"


async def test_a_node_entry_still_shows_where_the_query_stands(tmp_path):
    app = canvas(write_plan(tmp_path / "repo", [node("T-1", "Payment settings page", "draft", release="R1")]), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        for char in "settings":
            await pilot.press(char)
        listing = app.screen.query_one(CommandList)
        await until(pilot, lambda: listing.option_count and "T-1" in str(listing.get_option_at_index(0).prompt))
        prompt = listing.get_option_at_index(0).prompt
        prompt = getattr(prompt, "renderable", prompt)
        styled = [prompt.plain[span.start:span.end] for span in getattr(prompt, "spans", [])]
        assert "settings" in " ".join(styled).casefold() or "settings" in str(prompt)
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette))
