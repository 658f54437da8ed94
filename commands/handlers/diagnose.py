"""Diagnostics: `diagnose` (why is this stuck?), `doctor` (is the install healthy?), `repair`
(commands/domain/diagnosis.py, doctor.py, repairing.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import diagnosis, doctor as health, repairing
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("diagnose", "Why a node (or the whole plan) is stuck: root cause, remediation, next step.",
         mutating=False, tool="diagnose", idempotent=True,
         params=(Param("node_id", "node id (default: the whole plan)", positional=True),
                 ACTING))
def diagnose(ctx: Ctx, node_id: str | None = None, agent: str | None = None) -> Result:
    return diagnosis.diagnose(ctx, node_id, agent)


@command("doctor", "Installation and plan health: versions, root, schema, cache, journal, watcher.",
         mutating=False, tool="doctor", idempotent=True, needs_plan=False)
def doctor(ctx: Ctx) -> Result:
    return health.doctor(ctx)


@command("repair", "Safe automatic repairs: cache, expired claims, temp files, id/file names, cascades.",
         mutating=True, tool="repair_plan", idempotent=True,
         params=(Param("dry_run", "list the repairs without applying them", type=bool), ACTING))
def repair(ctx: Ctx, dry_run: bool = False, agent: str | None = None) -> Result:
    return repairing.repair(ctx, dry_run)
