"""Progress by release and epic (commands.progress.compute), work in flight, and running cycles."""

from __future__ import annotations

from leafwise.canvas import bridge, look
from leafwise.canvas.bridge import Request
from leafwise.canvas.look import bar, clock, mark, percent
from leafwise.canvas.model.journal_tail import DoneLines
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.screens.view import ViewScreen
from leafwise.commands.core.forecast import MIN_DONE, MIN_HISTORY, ReleaseForecast, axis_labels, forecast, span_words
from leafwise.commands.core.progress import Tally, compute
from leafwise.commands.text import one_line
from leafwise.store.cycles import CycleRow
from textual import work
from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist
from textual_plotext import PlotextPlot

CYCLE_COMMAND = "cycle status"
CHART_POINTS = 120  # the burn-up's last points drawn
AXIS_TICKS = 6  # labels on the burn-up's time axis
EPICS_SHOWN = 200


def column(title: str, cells: int) -> Content:
    """A title in a column `cells` wide, cut and padded by the cells it takes (wide letters take two): a
    cloned plan's epic titled in 30 fullwidth letters pushed its own counts off the row, where the title
    could say '5/5 done' instead."""
    return Content(one_line(title, 2 * cells)).truncate(cells - 2, ellipsis=True, pad=True) + Content("  ")


def tally_line(label: Content, tally: Tally, width: int = 24) -> Content:
    counts = [(f"{tally.done}/{tally.total} done", "$text-muted")]
    if tally.in_progress:
        counts.append((f"  {tally.in_progress} active", "$status-active"))
    if tally.blocked:
        counts.append((f"  {tally.blocked} blocked", "$status-blocked"))
    if tally.cancelled:
        counts.append((f"  {tally.cancelled} cancelled", "$status-cancelled"))
    return Content.assemble(label, bar(tally.done, tally.total, width), f" {percent(tally.done, tally.total):>4}  ",
                            *counts)


def verdict_of(item: ReleaseForecast) -> str:
    """The forecast's verdict, without repeating the finish date the row already shows (`finish ~…`):
    a release with no target reads "no target" where the core says "finishes around … (no target)"."""
    if item.target is None and item.finish and item.remaining:
        return "no target"
    return item.verdict


def forecast_row(item: ReleaseForecast) -> Content:
    """One release's forecast: its rate and the window it is over, what is left (a later release's
    blockers it waits on counted), the finish and the target, and the verdict."""
    verdict_style = ("$status-done" if item.verdict in ("on track", "done")
                     else "$status-blocked" if item.verdict.startswith("late") else "$text-muted")
    rate = f"{item.rate.words}   " if item.rate and item.remaining else ""
    waits = f" (incl. {len(item.waits_on)} of a later release)" if item.waits_on else ""
    target = f"  target {item.target.isoformat()}" if item.target else ""
    finish = f"  finish ~{item.finish.isoformat()}" if item.finish and item.remaining else ""
    return Content.assemble((f"{item.release or '—':<6}", "bold $accent"),
                            (f"{rate}{item.remaining} left{waits}", ""),
                            (finish + target, "$text-muted"), "   ", (verdict_of(item), f"bold {verdict_style}"))


def cycle_line(row: CycleRow) -> Content:
    """One row of `cycle status` (the fields of `store.cycles.Cycle.row`, or a row saying it is unreadable)."""
    name = Content.styled(f"{row['name']:<18}", "bold")
    if row["status"] == "unreadable":
        return Content.assemble(name, Content.styled(f"unreadable: {one_line(row['error'], 200)}", "$error"))
    count, cap = row["count"], row["cap"]
    parts = [name, Content.styled(f"{row['kind']:<22}", "$text-muted"),
             bar(count or 0, cap, 12), Content(f" {count if count is not None else '?'}/{cap}"),
             Content.styled(f"   tokens {row['tokens_used']}/{row['token_cap']}", "$text-muted"),
             Content.styled(f"   {row['status']}", "$accent")]
    if row["stop_reason"]:
        parts.append(Content.styled(f": {one_line(row['stop_reason'], 200)}", "$text-muted"))
    return Content.assemble(*parts)


class ProgressScreen(ViewScreen):
    VIEW_TITLE = "Progress"
    AUTO_FOCUS = "#progress-list"
    VIEW_ID = "progress"
    BINDINGS = [Binding("o,enter", "open", "Open", id="progress.open", priority=True,
                        tooltip="Show the epic or task in the tree")]

    def __init__(self) -> None:
        super().__init__()
        self._forecasts: tuple[ReleaseForecast, ...] = ()
        self.axis: list[str] = []  # the burn-up's time-axis labels as last drawn

    @property
    def forecasts(self) -> tuple[ReleaseForecast, ...]:
        """Each release's forecast as last drawn (empty until the view has drawn once)."""
        return self._forecasts

    def on_mount(self) -> None:
        super().on_mount()
        self._done_lines = DoneLines(self.app.paths.journal)
        chart = PlotextPlot(id="forecast-chart")
        self.mount(chart, before=self.query_one("#progress-list"))

    def _draw_chart(self) -> None:
        """Each release's burn-up (done leaves by day, hour or minute: `forecast.burnup_step`) against its
        scope, from the journal; the axis reads `forecast.axis_labels`, no two alike."""
        found = self.query("#forecast-chart")
        if not found:
            return
        chart = found.first(PlotextPlot)
        plt = chart.plt
        plt.clear_data()
        plt.clear_figure()
        drawn = [item for item in self._forecasts if item.burnup and item.release is not None]
        if not drawn:
            plt.title("Burn-up: nothing done yet in the journal")
            chart.refresh()
            return
        longest = max(drawn, key=lambda item: len(item.burnup))
        points = longest.burnup[-CHART_POINTS:]
        labels = axis_labels(points)
        plt.title(f"Burn-up: done leaves by {span_words(longest.step).split()[-1]}")
        top = 0
        for item in drawn:
            counts = [n for _, n in item.burnup[-CHART_POINTS:]]
            # every release's burn-up ends now: align its points on the right of the shared axis
            xs = list(range(len(points) - len(counts), len(points)))
            plt.plot(xs, counts, label=f"{item.release} ({item.done}/{item.total})")
            top = max(top, *counts)
        ticks = sorted({round(i * (len(points) - 1) / (AXIS_TICKS - 1)) for i in range(AXIS_TICKS)}) \
            if len(points) > 1 else [0]
        self.axis = [labels[i] for i in ticks]
        plt.xticks(ticks, self.axis)
        step = max(1, -(-top // 5))  # whole leaves on the y axis, about five ticks
        plt.yticks(list(range(0, top + step, step)))
        chart.refresh()

    def redraw(self, state: PlanState) -> None:
        report = compute(state.plan)
        self.query_one("#progress-summary", Static).update(
            tally_line(Content.styled("Overall  ", "bold"), report.overall, 40))
        listing = self.query_one("#progress-list", OptionList)
        keep = listing.highlighted
        options: list[Option] = [self._header("Releases")]
        titles = {r.id: r.title for r in state.plan.project.releases}
        for tally in report.releases:
            label = Content.assemble((f"{tally.id or '—':<6}", "bold $accent"),
                                     column(titles.get(tally.id or '') or tally.title, 24))
            options.append(Option(tally_line(label, tally), id=f"@{tally.id or ''}"))
        self._done_lines.read()  # reads what the journal gained since the last redraw
        forecasts = forecast(state.plan, self._done_lines.events, look.display_now())
        self._forecasts = tuple(forecasts)
        options.append(self._header(f"Forecast  (rate → projected finish; a finish date once {MIN_DONE}+ leaves "
                                    f"are done over {span_words(MIN_HISTORY)}+)"))
        for item in forecasts:
            options.append(Option(forecast_row(item), id=f"forecast:{item.release or ''}"))
        self._draw_chart()
        options.append(self._header(f"Epics ({len(report.epics)})"))
        for tally in report.epics[:EPICS_SHOWN]:
            node = state.nodes.get(tally.id or "")
            symbol, style = mark(node) if node else ("·", "")
            label = Content.assemble((symbol, style), " ", (f"{tally.id:<10}", "$text-muted"),
                                     column(tally.title, 32))
            options.append(Option(tally_line(label, tally, 16), id=f"node:{tally.id}"))
        if report.in_flight:
            options.append(self._header(f"In progress ({len(report.in_flight)})"))
            for item in report.in_flight[:100]:
                # one_line() trims the text it is given: the spaces go outside it ("title  @agent")
                who = f"  @{one_line(item['assignee'], 40)}" if item["assignee"] else ""
                count = item["open_leaves_left"]
                left = "" if item["leaf"] else f"  {count} open lea{'f' if count == 1 else 'ves'} left"
                claim = state.claims.get(item["id"])
                held = (f"  held until {clock(claim.expires)}" if claim.expires else "  held, no lease") \
                    if claim else ""
                options.append(Option(Content.assemble(("◐ ", "$status-active"), (f"{item['id']:<10}", "$text-muted"),
                                                       one_line(item["title"], 120), (who, "bold"),
                                                       (left + held, "$text-muted")),
                                      id=f"flight:{item['id']}"))
        if report.reconcile_release:
            options.append(self._header("Suggestion"))
            options.append(Option(Content.styled(
                f"Release {report.reconcile_release} has only drafts left: press r to reconcile it with the code",
                "$accent"), id="!reconcile"))
        options.append(self._header("Cycles"))
        options.append(Option(Content.styled("checking…", "$text-muted"), id="!cycles", disabled=True))
        listing.set_options(options)
        if keep is not None and keep < listing.option_count:
            listing.highlighted = keep
        self._load_cycles()

    @staticmethod
    def _header(text: str) -> Option:
        return Option(Content.assemble("\n", (text, "bold $accent")), disabled=True)

    @work(thread=True, exclusive=True, group="cycles")
    def _load_cycles(self) -> None:
        outcome = bridge.run(self.app.paths.repo, Request(CYCLE_COMMAND, {}, "Cycle status"))
        if outcome.exit_code:
            rows = [Content.styled(bridge.error_text(outcome, self.app.paths.repo), "$error")]
        else:
            listing = outcome.envelope["result"]  # bounded: {items, total, limit, truncated}
            rows = [cycle_line(r) for r in listing["items"]] or [Content.styled("No cycle is running.", "$text-muted")]
        self.app.call_from_thread(self._show_cycles, rows)

    def _show_cycles(self, rows: list[Content]) -> None:
        listing = self.query_one("#progress-list", OptionList)
        try:
            index = listing.get_option_index("!cycles")
        except OptionDoesNotExist:  # redrawn meanwhile
            return
        listing.replace_option_prompt_at_index(index, Content("\n").join(rows))


    def action_open(self) -> None:
        option = self.query_one("#progress-list", OptionList).highlighted_option
        if option is None or not option.id:
            return
        if option.id == "!reconcile":
            self.app.action_view("reconcile")
        elif option.id.startswith("@"):
            state = self.app.state
            group = state.group(option.id[1:]) if state else None
            if group and group.tops:
                self.app.open_node(group.tops[0])
        elif ":" in option.id:
            self.app.open_node(option.id.split(":", 1)[1])
