"""An agent's verdict on a draft leaf, in words: who verified it, the quotes Leafwise checked against
the last commit, what is missing, and a person's word on it (the reconcile view and the detail pane).

A verdict file is plan content (a clone's author may have written it): every string is cut to one
line and goes into `Content` as plain text, never as markup.
"""

from __future__ import annotations

from leafwise.commands.text import one_line
from leafwise.store.verdicts import Verdict
from textual.content import Content

VERDICT_LOOK = {"shipped": ("✓ shipped", "bold $status-done"), "partial": ("◑ partial", "bold $warning"),
                "absent": ("✗ absent", "bold $text-muted")}
STATE_WORDS = {"pending": ("waiting for a person", "bold $warning"), "closed": ("closed", "$status-done"),
               "recorded": ("recorded", "$text-muted"), "rejected": ("rejected by a person", "$status-blocked")}
DECIDED_WORD = {"closed": "confirmed", "rejected": "rejected"}
# pending first (a person's turn), then what the agents found, then what is settled
STATE_ORDER = {"pending": 0, "recorded": 1, "rejected": 2, "closed": 3}
VERDICT_ORDER = {"shipped": 0, "partial": 1, "absent": 2}


def order_key(v: Verdict) -> tuple[int, int, str]:
    return STATE_ORDER.get(v.state, 9), VERDICT_ORDER.get(v.verdict, 9), v.node


def label(v: Verdict) -> Content:
    """`✓ shipped  waiting for a person`: the verdict and where it stands."""
    text, style = VERDICT_LOOK.get(v.verdict, (one_line(v.verdict, 20), "bold"))
    state, state_style = STATE_WORDS.get(v.state, (one_line(v.state, 20), "$text-muted"))
    return Content.assemble((f"{text:<10}", style), "  ", (state, state_style))


def decided_line(v: Verdict) -> Content | None:
    """`rejected by Pat: the route is a stub`, when a person decided the verdict."""
    if not v.decided_by:
        return None
    word = DECIDED_WORD.get(v.state, "decided")
    return Content.assemble((f"{word} by {one_line(v.decided_by, 80)}", "bold"),
                            (f": {one_line(v.note, 300)}" if v.note else "", ""))


def verdict_content(v: Verdict, *, quotes: int = 8, heading: bool = True) -> Content:
    """The verdict in full: by whom and when, each checked quote, what is missing, a person's word."""
    lines: list[Content] = []
    if heading:
        lines.append(Content.styled("Verified by an agent", "bold $text-muted"))
    lines.append(Content.assemble(label(v), (f"   by {one_line(v.agent, 80)}", "bold")))
    lines.append(Content.styled(f"{one_line(v.at, 40)} · quotes checked at commit {one_line(v.head[:10], 12)}",
                                "$text-muted"))
    for q in v.quotes[:quotes]:
        lines.append(Content.assemble((f"  {one_line(q.kind, 6):<6} ", "$accent"), (one_line(q.place, 200), "$secondary")))
        lines.append(Content.styled(f"      “{one_line(q.text, 300)}”", "$text-muted"))
    if len(v.quotes) > quotes:
        lines.append(Content.styled(f"  … {len(v.quotes) - quotes} more quote(s): leafwise verify {v.node}",
                                    "$text-muted"))
    if v.missing:
        lines.append(Content.assemble(("Missing: ", "bold $warning"), one_line(v.missing, 400)))
    decided = decided_line(v)
    if decided is not None:
        lines.append(decided)
    return Content("\n").join(lines)
