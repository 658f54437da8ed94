"""`leafwise reconcile` (commands/domain/reconciling.py: the suggestions, --apply and a person's decisions)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import reconciling
from leafwise.commands.domain.reconciling import DEFAULT_LIMIT, DEFAULT_MIN_CONFIDENCE
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command(
    "reconcile", "Find draft leaves that already shipped, with file:line evidence; --apply closes them.",
    mutating=True, tool="reconcile",
    params=(Param("node", "only this node (a leaf, or a parent: its draft leaves)"),
            Param("release", "only draft leaves of this release"),
            Param("apply", "close shipped nodes (at or above --min-confidence) through complete", type=bool),
            Param("min_confidence", f"least confidence --apply acts on (default {DEFAULT_MIN_CONFIDENCE})",
                  type=float),
            Param("limit", f"most suggestions listed (default {DEFAULT_LIMIT})", type=int),
            Param("explain", "say why: the title's concepts and weights, the candidate evidence, each rule",
                  type=bool),
            Param("reject", "a person rejects this node's suggestion: hidden until its evidence changes"),
            Param("close", "a person closes this node anyway (e.g. a partial), with --note; journaled as theirs"),
            Param("note", "why: required with --close, optional with --reject"), ACTING),
    example="leafwise reconcile --release R1",
)
def reconcile(ctx: Ctx, node: str | None = None, release: str | None = None, apply: bool = False,
              min_confidence: float | None = None, limit: int | None = None, explain: bool = False,
              reject: str | None = None, close: str | None = None, note: str | None = None,
              agent: str | None = None) -> Result:
    return reconciling.reconcile(ctx, node, release, apply, min_confidence, limit, explain, reject, close, note)
