"""Progress: done percentages by release and epic, the forecast, work in flight, and what comes next."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import NextAction, Result, clean, next_
from leafwise.commands.core.forecast import MIN_DONE, MIN_HISTORY, ReleaseForecast, forecast, span_words
from leafwise.commands.core.hints import pick_hint
from leafwise.commands.core.progress import PlanProgress, bar, compute
from leafwise.commands.core.views import task_view
from leafwise.commands.domain.holds import live_claims, pick_for
from leafwise.commands.plan_files import read_lines
from leafwise.commands.registry import Ctx
from leafwise.store import Plan


def progress(ctx: Ctx, agent: str | None = None) -> Result:
    """Done percentages by release and epic, the forecast, work in flight and the next task."""
    plan = ctx.plan()
    report = compute(plan)
    if not report.reconcile_release:
        from leafwise.commands.reconcile.engine import closed_by_commits  # one `git log`, no code scan

        closed = closed_by_commits(plan)
        if closed and closed[0].effective_release:
            report.reconcile_release = closed[0].effective_release
    chosen = pick_for(ctx, agent, plan)
    claims = live_claims(ctx)
    for item in report.in_flight:
        claim = claims.get(item["id"])
        item["claim"] = claim.as_dict() if claim else None
    # a node file that does not load is in no count: say so, or the plan looks smaller than it is
    unreadable = [p for p in plan.problems if p.node and p.node not in plan.nodes]
    forecasts = forecast(plan, read_lines(ctx.paths().journal), ctx.clock())
    lines = _report_lines(ctx, plan, report, forecasts, unreadable)
    if chosen.node:
        lines += ["", f"Next task: {chosen.node.id} {clean(chosen.node.title)}"]
    hint = _hint(ctx, report, pick_hint(ctx.cmd, chosen, agent), lines)
    return Result(
        {"overall": report.overall.as_dict(), "releases": [t.as_dict() for t in report.releases],
         "epics": [t.as_dict() for t in report.epics[:200]], "epics_total": len(report.epics),
         "in_progress": report.in_flight[:100], "next": task_view(plan, chosen.node) if chosen.node else None,
         "reconcile_suggested": report.reconcile_release,
         "forecast": [f.as_dict() for f in forecasts],
         "unreadable": [{"node": p.node, "file": p.file, "line": p.line, "message": p.message} for p in unreadable]},
        hint, lines)


def _hint(ctx: Ctx, report: PlanProgress, hint: NextAction, lines: list[str]) -> NextAction:
    """The picker's hint, unless a release's drafts look shipped: then reconcile it first."""
    if not report.reconcile_release:
        return hint
    lines.append(f"Release {report.reconcile_release}: drafts look shipped — reconcile checks the code")
    return next_(ctx.cmd("reconcile", release=report.reconcile_release),
                 f"drafts in release {report.reconcile_release} look shipped (only drafts remain "
                 "beside done work, or a commit says one is finished)",
                 or_=hint.command if hint.marker == "next" else None)


def forecast_line(f: ReleaseForecast) -> str:
    """One release's forecast: the rate and its window, what is left (a later release's blockers
    named), the finish and target, and the verdict."""
    rate = f"{f.rate.words}  " if f.rate and f.remaining else ""
    waits = f" (incl. {len(f.waits_on)} of a later release it waits on: {', '.join(f.waits_on[:3])}" \
        f"{', …' if len(f.waits_on) > 3 else ''})" if f.waits_on else ""
    finish = f" finish ~{f.finish.isoformat()}" if f.finish and f.remaining else ""
    target = f" target {f.target.isoformat()}" if f.target else ""
    return f"{rate}{f.remaining} left{waits}{finish}{target}: {f.verdict}"


def _report_lines(ctx: Ctx, plan: Plan, report: PlanProgress, forecasts: list[Any], unreadable: list[Any]) -> list[str]:
    lines = [f"{plan.project.name}: {report.overall.done}/{report.overall.total} leaves done "
             f"({report.overall.percent or 0}%)"]
    lines += [f"  warning: {len(unreadable)} node file(s) do not load and are not counted, e.g. "
              f"{unreadable[0].file}:{unreadable[0].line or 1} ({ctx.cmd('diagnose', unreadable[0].node)})"
              ] if unreadable else []
    lines += ["", "Releases"]
    for t in report.releases:
        lines.append(f"  {t.id or '-':6} {bar(t.done, t.total)} {t.percent if t.percent is not None else '-':>3}%  "
                     f"{t.done}/{t.total}  {t.in_progress} in progress, {t.blocked} blocked  {clean(t.title)}")
    lines += ["", f"Forecast (from the journal; a finish date once {MIN_DONE}+ leaves are done "
                  f"over {span_words(MIN_HISTORY)}+)"]
    lines += [f"  {f.release or '-':6} {forecast_line(f)}" for f in forecasts]
    lines += ["", "Epics"]
    for t in report.epics[:50]:
        lines.append(f"  {t.id:10} {bar(t.done, t.total, 10)} {t.percent if t.percent is not None else '-':>3}%  "
                     f"{t.done}/{t.total}  {clean(t.title)}")
    if report.in_flight:
        lines += ["", "In progress"]
        for item in report.in_flight[:30]:
            who = f" [{clean(item['assignee'], 80)}]" if item["assignee"] else ""
            n = item["open_leaves_left"]
            left = "" if item["leaf"] else f" — {n} open {'leaf' if n == 1 else 'leaves'} left"
            lines.append(f"  {item['id']:10} {clean(item['title'])}{who}{left}")
    return lines
