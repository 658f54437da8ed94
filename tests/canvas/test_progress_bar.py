"""The canvas's progress bar: any progress shows, only complete work fills it, and every place draws it alike,
with the cells of the one rule (`commands.core.progress.filled_cells`) the CLI's bar uses too."""

from __future__ import annotations

from leafwise.canvas.look import BAR_STYLE, BAR_WIDTH, bar, bar_runs
from leafwise.canvas.widgets.tree_rows import RowPainter
from leafwise.commands.core.progress import bar as cli_bar
from leafwise.commands.core.progress import filled_cells
from rich.style import Style


def filled(runs) -> int:
    return sum(len(cells) for cells, role in runs if role == "done")


def test_a_little_progress_shows_and_only_complete_work_fills_the_bar():
    assert filled(bar_runs(1, 40, BAR_WIDTH)) == 1  # 2.5%: would round to no cell at all
    assert filled(bar_runs(39, 40, BAR_WIDTH)) == BAR_WIDTH - 1  # 97.5%: would round to a full bar
    assert filled(bar_runs(40, 40, BAR_WIDTH)) == BAR_WIDTH
    assert filled(bar_runs(0, 40, BAR_WIDTH)) == 0
    assert bar_runs(0, 0, 4) == (("····", "bar-empty"),)  # nothing to count: dotted, never "0%"


def test_the_tree_and_the_panes_draw_the_same_cells():
    styles = {"done": Style(color="green"), "bar-empty": Style(color="grey37"), "dim": Style(dim=True)}
    painter = RowPainter(lambda name: styles[name])
    for done, total in ((1, 40), (39, 40), (3, 8), (0, 5), (0, 0)):
        runs = bar_runs(done, total, BAR_WIDTH)
        tree = painter.progress(done, total)
        drawn = [(tree.plain[span.start:span.end], span.style) for span in tree.spans][:len(runs)]
        assert drawn == [(cells, styles[role]) for cells, role in runs], (done, total)
        pane = bar(done, total)
        assert [(pane.plain[s.start:s.end], s.style) for s in pane.spans] == \
            [(cells, BAR_STYLE[role]) for cells, role in runs], (done, total)


def test_the_canvas_and_the_cli_fill_the_cells_of_the_one_rule():
    for total in range(0, 45):
        for done in range(0, total + 1):
            for width in (4, BAR_WIDTH, 10, 20):
                rule = filled_cells(done, total, width)
                runs = bar_runs(done, total, width)
                text = cli_bar(done, total, width)
                if rule is None:
                    assert runs == (("·" * width, "bar-empty"),) and text == "·" * width
                    continue
                assert filled(runs) == text.count("█") == rule, (done, total, width)
                assert (rule == 0) == (done == 0) and (rule == width) == (done == total), (done, total, width)
