"""The canvas driven with Pilot on real plans: the tree, the detail, filtering, keys, views, themes."""

from __future__ import annotations

import json

import pytest
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.help import HelpScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.problems import ProblemsScreen
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.canvas.widgets.next_task import NextTaskBar
from leafwise.canvas.widgets.node_detail import NodeDetail
from leafwise.commands.core.progress import compute
from leafwise.store import PlanPaths, load_plan
from testkit import node, run_cli, write_plan
from testkit.canvas import (answer_prompt, canvas, idle, node_file, notices, open_blocked, open_view, ready,
                            row_text, tree, until)

pytestmark = pytest.mark.anyio



def palette_top(app) -> str:
    """The highlighted entry of the open command palette ("" until it has one)."""
    from textual.command import CommandList

    found = app.screen.query(CommandList)
    option = found.first().highlighted_option if found else None
    return str(option.prompt) if option is not None else ""


async def test_opens_on_the_next_task_with_releases_in_order(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        keys = tree(app).visible_keys()
        assert [k for k in keys if k.startswith("@")] == ["@R1", "@R2", "@R3"]
        next_id = app.screen.query_one(NextTaskBar).next_id
        assert next_id == run_cli("next", "--json", cwd=demo_plan).json["result"]["task"]["id"]
        await until(pilot, lambda: tree(app).cursor_key == next_id)
        await until(pilot, lambda: app.screen.query_one(NodeDetail).key == next_id)
        assert "71%" in row_text(app, "@R1")  # 24 of 34 R1 leaves done, as `progress` says
        assert "SHOP-1" in row_text(app, "SHOP-1") and "88%" in row_text(app, "SHOP-1")


async def test_no_release_group_comes_last(tmp_path):
    write_plan(tmp_path, [node("T-1", "Someday"), node("T-2", "Now", release="R1"),
                          node("T-3", "Child", parent="T-2")])
    app = canvas(tmp_path, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        keys = tree(app).visible_keys()
        assert keys.index("@R1") < keys.index("@") and keys[-1] == "T-1"
        assert "No release" in row_text(app, "@")


async def test_keys_move_expand_and_the_detail_follows(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        widget = tree(app)
        assert widget.move_cursor_to("SHOP-4")
        await pilot.pause()
        assert "SHOP-40" not in widget.visible_keys()
        await pilot.press("l")  # expand
        await until(pilot, lambda: "SHOP-40" in widget.visible_keys())
        await pilot.press("j")
        await until(pilot, lambda: app.screen.query_one(NodeDetail).key == widget.cursor_key != "SHOP-4")
        await pilot.press("k")
        assert widget.cursor_key == "SHOP-4"
        await pilot.press("h")  # collapse
        await until(pilot, lambda: "SHOP-40" not in widget.visible_keys())
        await pilot.press("h")  # to the parent: the release group
        assert widget.cursor_key == "@R1"


@pytest.mark.slow
async def test_detail_shows_the_blocked_reason_docs_and_history(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("SHOP-40")
        detail = app.screen.query_one(NodeDetail)
        await until(pilot, lambda: detail.key == "SHOP-40")
        await until(pilot, lambda: detail.query_one("#detail-history").display
                    and detail.query_one("#detail-docs").display)
        blocked = str(detail.query_one("#detail-blocked").render())
        assert "Should guest checkout be allowed in the MVP?" in blocked and "B: No" in blocked
        history = str(detail.query_one("#detail-history").render())
        assert "ask" in history
        markdown = detail.query_one("#detail-docs")
        assert markdown.display and "checkout" in markdown.source.lower()
        links = detail.query_one("#detail-links")
        assert links.get_option("go:SHOP-38")  # its dependency, to jump to
        links.focus()
        links.highlighted = links.get_option_index("go:SHOP-38")
        await pilot.press("enter")
        await until(pilot, lambda: tree(app).cursor_key == "SHOP-38")


@pytest.mark.slow
async def test_filter_as_you_type_and_escape_restores(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        widget = tree(app)
        before = widget.visible_keys()
        await pilot.press("slash", *"status:blocked")
        await until(pilot, lambda: widget.query_text == "status:blocked")
        leaves = [k for k in widget.visible_keys() if not k.startswith("@") and not app.state.nodes[k].children]
        assert sorted(leaves) == ["SHOP-32", "SHOP-40", "SHOP-52", "SHOP-62"]
        await until(pilot, lambda: "4 matches" in str(app.screen.query_one("#filter-count").render()))
        await until(pilot, lambda: widget.cursor_key in leaves)  # on the first match
        found = widget.cursor_key
        await pilot.press("escape")  # the whole tree again, opened where the match is
        await until(pilot, lambda: not widget.query_text and set(before) <= set(widget.visible_keys()))
        await until(pilot, lambda: widget.cursor_key == found)
        await pilot.press("slash", *"@claude-3")
        await until(pilot, lambda: widget.query_text == "@claude-3")
        assert [k for k in widget.visible_keys() if k.startswith("SHOP-5")] == ["SHOP-50"]
        await pilot.press("enter")  # keep the filter, back to the tree
        await until(pilot, lambda: widget.has_focus)
        assert widget.query_text == "@claude-3"
        await pilot.press("escape")
        await until(pilot, lambda: widget.query_text == "")


@pytest.mark.slow
async def test_unblock_from_the_blocked_view_changes_the_file(demo_plan, tmp_path):
    # SHOP-32's agent, claude-2, is still at work: it holds a live lease on SHOP-26, taken after the block.
    res = run_cli("start", "SHOP-26", "--agent", "claude-2", cwd=demo_plan)
    assert res.code == 0, res.stderr
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BlockedScreen))
        listing = app.screen.query_one("#blocked-list")
        await until(pilot, lambda: listing.option_count > 0)
        assert listing.highlighted_option.id == "SHOP-40"  # the decision comes first
        ids = [o.id for o in listing.options if o.id]
        assert set(ids) == {"SHOP-32", "SHOP-40", "SHOP-52", "SHOP-62"}
        listing.highlighted = listing.get_option_index("SHOP-32")
        await pilot.press("u")
        await answer_prompt(app, pilot, "")  # the optional note for the agent: none
        await until(pilot, lambda: "status: blocked" not in node_file(demo_plan, "SHOP-32").read_text())
        await until(pilot, lambda: "SHOP-32" not in [o.id for o in listing.options])
        # in progress when it was blocked (blocked_from), and its agent at work: back in progress to it
        # (lifecycle.unblocked_status)
        text = node_file(demo_plan, "SHOP-32").read_text()
        assert "status: in-progress" in text and "assignee: claude-2" in text, text
        assert app.state.nodes["SHOP-32"].status == "in-progress"


@pytest.mark.slow
async def test_answer_a_decision_by_option_number(demo_plan, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "SHOP-40")
        await pilot.press("2")  # asks to confirm first, showing the option, with a note
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        assert "answer" not in node_file(demo_plan, "SHOP-40").read_text()
        await pilot.press("escape")  # back: nothing written
        await idle(pilot)
        assert "answer" not in node_file(demo_plan, "SHOP-40").read_text()
        await pilot.press("2")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        await pilot.press(*"cards first", "enter")
        await until(pilot, lambda: "answer" in node_file(demo_plan, "SHOP-40").read_text())
        shown = run_cli("show", "SHOP-40", "--json", cwd=demo_plan).json["result"]
        assert shown["decision"]["answer"]["option"] == 2 and shown["status"] != "blocked"
        assert "cards first" in node_file(demo_plan, "SHOP-40").read_text()
        events = [json.loads(line) for line in (demo_plan / ".leafwise" / "journal.jsonl").read_text().splitlines()]
        decided = next(e for e in reversed(events) if e["command"] == "decide")
        assert decided["actor"] == "pat"  # the person (LEAFWISE_USER), never the assignee


@pytest.mark.slow
async def test_u_on_an_open_decision_is_refused_with_a_hint(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "SHOP-40")
        await pilot.press("u")
        await until(pilot, lambda: any("waits for a decision" in n for n in notices(app)))
        await idle(pilot)
        assert "status: blocked" in node_file(demo_plan, "SHOP-40").read_text()


@pytest.mark.slow
async def test_the_blocked_list_moves_with_j_k_home_end_without_wrapping(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot)
        listing = app.screen.query_one("#blocked-list")
        first = listing.highlighted_option.id
        await pilot.press("k")  # at the top: stays
        assert listing.highlighted_option.id == first
        await pilot.press("j")
        second = listing.highlighted_option.id
        assert second != first
        assert second in str(app.screen.query_one("#blocked-detail").render())  # the pane shows that row
        await pilot.press("end")
        last = listing.highlighted_option.id
        await pilot.press("j", "down")
        assert listing.highlighted_option.id == last
        await pilot.press("home")
        assert listing.highlighted_option.id == first


@pytest.mark.slow
async def test_cancel_with_a_reason_through_the_dialog(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "SHOP-52")
        await pilot.press("x")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        await pilot.press("enter")  # an empty reason is refused
        assert app.screen.query("#prompt-input")
        await pilot.press(*"Live mode moves to R3", "enter")
        await until(pilot, lambda: "status: cancelled" in node_file(demo_plan, "SHOP-52").read_text())
        assert "Cancelled: Live mode moves to R3" in node_file(demo_plan, "SHOP-52").read_text()


@pytest.mark.slow
async def test_edit_the_reason_and_reassign(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        listing = await open_blocked(app, pilot, "SHOP-62")
        await pilot.press("e")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        field = app.screen.query_one("#prompt-input")
        field.value = ""
        await pilot.press(*"Legal says yes: register for OSS", "enter")
        await until(pilot, lambda: "register for OSS" in node_file(demo_plan, "SHOP-62").read_text())
        assert "status: blocked" in node_file(demo_plan, "SHOP-62").read_text()
        await until(pilot, lambda: isinstance(app.screen, BlockedScreen))
        listing.highlighted = listing.get_option_index("SHOP-62")
        await pilot.press("w")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        app.screen.query_one("#prompt-input").value = ""
        await pilot.press(*"anna", "enter")
        await until(pilot, lambda: "assignee: anna" in node_file(demo_plan, "SHOP-62").read_text())


@pytest.mark.slow
async def test_a_decision_answered_elsewhere_is_not_answered_again(demo_plan, tmp_path):
    """The canvas re-reads the node before it answers (`Triage.decision_unchanged`): a decision answered
    meanwhile on the CLI is not answered twice, and the person is told to read it again."""
    app = canvas(demo_plan, tmp_path)  # the watcher is off: the canvas still thinks SHOP-40 asks
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        assert run_cli("decide", "SHOP-40", "--option", "1", cwd=demo_plan).code == 0
        answered = node_file(demo_plan, "SHOP-40").read_bytes()
        listing = await open_blocked(app, pilot)
        listing.highlighted = listing.get_option_index("SHOP-40")
        await pilot.press("1")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        await pilot.press("enter")  # confirm, no note
        await until(pilot, lambda: any("decision changed since it was shown" in n for n in notices(app)))
        assert node_file(demo_plan, "SHOP-40").read_bytes() == answered


@pytest.mark.slow
async def test_block_from_the_palette(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        target = tree(app).cursor_key
        await pilot.press("ctrl+p")
        await pilot.press(*f"task: block {target}")
        await until(pilot, lambda: palette_top(app).startswith(f"task: Block {target}"))
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        await pilot.press(*"Waiting for the GDPR review", "enter")
        await until(pilot, lambda: "Waiting for the GDPR review" in node_file(demo_plan, target).read_text())
        await until(pilot, lambda: app.state.nodes[target].status == "blocked")
        assert "Waiting for" in row_text(app, target) and "blocked" in row_text(app, target)


@pytest.mark.slow
async def test_theme_from_the_palette_is_remembered(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p", *"theme: light")
        await until(pilot, lambda: palette_top(app).startswith("theme: Light"))
        await pilot.press("enter")
        await until(pilot, lambda: app.theme == "leafwise-light")
    assert json.loads((tmp_path / "settings.json").read_text())["theme"] == "leafwise-light"
    again = canvas(demo_plan, tmp_path)
    assert again.theme == "leafwise-light"


@pytest.mark.slow
async def test_progress_view_matches_the_progress_command(demo_plan, tmp_path):
    assert run_cli("cycle", "start", "polish", "--kind", "refine-until-quality", "--max-iterations", "5",
                   "--token-cap", "20000", "--verify", "true", cwd=demo_plan).code == 0
    assert run_cli("cycle", "tick", "polish", "--tokens", "1200", cwd=demo_plan).code == 0
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await ready(app, pilot)
        listing = await open_view(app, pilot, "p", ProgressScreen, "progress-list")
        report = compute(load_plan(PlanPaths(demo_plan)))
        for tally in report.releases:
            text = str(listing.get_option(f"@{tally.id}").prompt)
            assert f"{tally.percent}%" in text and f"{tally.done}/{tally.total} done" in text
        # read from `cycle status` in a worker
        await until(pilot, lambda: "polish" in str(listing.get_option("!cycles").prompt))
        shown = str(listing.get_option("!cycles").prompt)
        assert "1/5" in shown and "1200/20000" in shown and "refine-until-quality" in shown
        listing.highlighted = listing.get_option_index("node:SHOP-4")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen) and tree(app).cursor_key == "SHOP-4")


async def test_problems_view_jumps_to_the_node(tmp_path):
    write_plan(tmp_path, [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1",
                                                                      depends_on=["T-99"])])
    app = canvas(tmp_path, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ProblemsScreen)
                    and app.screen.query_one("#problems-list").option_count > 0)
        listing = app.screen.query_one("#problems-list")
        assert "dangling_dependency" in str(listing.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen) and tree(app).cursor_key == "T-2")


async def test_help_lists_the_keys(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = "\n".join(str(s.render()) for s in app.screen.query("Static"))
        for words in ("Tree", "Plan view", "Everywhere", "Blocked", "Filter", "Quit", "status:blocked"):
            assert words in text
        await pilot.press("escape")
        assert isinstance(app.screen, PlanScreen)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_hide_closed_work(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        assert "SHOP-3" in tree(app).visible_keys()  # the done shopping cart epic
        await pilot.press("d")
        await until(pilot, lambda: "SHOP-3" not in tree(app).visible_keys())
        assert "SHOP-19" not in tree(app).visible_keys()  # cancelled
        await pilot.press("d")
        await until(pilot, lambda: "SHOP-3" in tree(app).visible_keys())


async def test_q_quits(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test() as pilot:
        await ready(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.parametrize("args", [(), ("canvas",)])
def test_launch_without_a_plan_says_how_to_fix_it(tmp_path, args):
    res = run_cli(*args, cwd=tmp_path)
    assert res.code == 5
    assert "Error: no .leafwise/ found" in res.stderr and "Fix: leafwise init" in res.stderr


def contrast(one: str, other: str) -> float:
    """WCAG contrast ratio of two "#rrggbb" colours (1 to 21)."""
    def luminance(colour: str) -> float:
        channels = [int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["leafwise-dark", "leafwise-light", "leafwise-contrast"])
def test_every_theme_tells_the_statuses_apart_and_keeps_them_readable(theme):
    """Each status has a colour of its own, readable on the theme's background (3:1, the contrast theme 4.5:1);
    cancelled may be dimmer, since it is meant to recede (but never below 2:1)."""
    from leafwise.store.model import STATUSES
    from leafwise.themes import THEMES, VARIABLE_DEFAULTS

    variables = THEMES[theme].variables
    assert set(VARIABLE_DEFAULTS) <= set(variables)
    colours = {status: variables[f"status-{status}".replace("in-progress", "active")] for status in STATUSES}
    assert len(set(colours.values())) == len(STATUSES), colours
    need = 4.5 if theme == "leafwise-contrast" else 3.0
    for status, colour in colours.items():
        ratio = contrast(colour, THEMES[theme].background)
        assert ratio >= (2.0 if status == "cancelled" and theme != "leafwise-contrast" else need), (status, ratio)
