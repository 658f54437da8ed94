"""Driven with Pilot: a doc's tables cost the canvas what a person reads, however a clone wrote them.

Textual lays out widgets per table cell (~1.6 ms each): one doc whose preview was a table of 3,900
empty columns cost the canvas 7.1 CPU s and 224 MB; four docs of 2,900 columns 22.9 CPU s and 512 MB;
four of 32 x 62 cells 12.6 CPU s, a key answered 1.9 s late.
"""

from __future__ import annotations

import time

import pytest
from leafwise.canvas.widgets.plan_markdown import MAX_TABLE_CELLS, MAX_TABLE_COLUMNS
from testkit import node, write_plan
from testkit.canvas import canvas, idle, ready, until
from textual.widgets import Markdown

pytestmark = pytest.mark.anyio


def table(columns: int, rows: int, cell: str = "a") -> str:
    return "|" + f"{cell}|" * columns + "\n|" + "-|" * columns + "\n" + ("|" + f"{cell}|" * columns + "\n") * rows


TABLES = {
    "3,900 empty columns": "|" * 3900 + "\n" + "|-" * 3899 + "|\n",
    "2,900 columns": table(2900, 0),
    "32 x 62 cells": table(32, 61),
    "many small tables": "\n".join(table(8, 7) for _ in range(40)),
}


def plan_with_docs(tmp_path, texts: list[str]):
    root = write_plan(tmp_path / "repo", [node("T-1", "Pay", "draft", release="R1",
                                               docs=[f"docs/d{i}.md" for i in range(len(texts))])])
    for i, text in enumerate(texts):
        (root / ".leafwise" / "docs" / f"d{i}.md").write_text(text)
    return root


def tables(docs: Markdown) -> list:
    return [w for w in docs.query("*") if type(w).__name__ == "MarkdownTable"]


async def shown_docs(app, pilot) -> Markdown:
    await ready(app, pilot)
    docs = app.screen.query_one("#detail-docs", Markdown)
    await until(pilot, lambda: docs.display and docs.source, timeout=120, what="the docs in the pane")
    await pilot.pause(0.3)
    await idle(pilot)
    return docs


@pytest.mark.parametrize("shape", sorted(TABLES))
async def test_planted_tables_cost_little_and_are_shown_as_written(tmp_path, shape):
    app = canvas(plan_with_docs(tmp_path, [TABLES[shape]] * 4), tmp_path)
    cpu = time.process_time()
    async with app.run_test(size=(140, 40)) as pilot:
        docs = await shown_docs(app, pilot)
        spent = time.process_time() - cpu
        cells = sum(len(t.query("*")) for t in tables(docs))
        assert spent < 4.0, f"{shape}: {spent:.1f} CPU s"
        assert "|-|" in docs.source or "|-" in docs.source  # the text is all there, as written
        assert cells < 4 * (MAX_TABLE_CELLS + 100), cells
        started = time.monotonic()
        await pilot.press("down")
        await pilot.pause()
        assert time.monotonic() - started < 1.0


async def test_a_doc_table_a_person_writes_is_still_a_table(tmp_path):
    app = canvas(plan_with_docs(tmp_path, [table(6, 12, "cell"), table(MAX_TABLE_COLUMNS, 3)]), tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        docs = await shown_docs(app, pilot)
        assert len(tables(docs)) == 2
