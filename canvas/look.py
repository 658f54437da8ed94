"""Small shared pieces of the canvas's look: status marks, bars, ages, safe Content."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Callable

from leafwise.commands.core.views import MARKS
from leafwise.store import Node
from textual.content import Content

# The CSS variable that colours each status (declared in themes/).
STATUS_VAR = {
    "draft": "$status-draft", "in-progress": "$status-active", "blocked": "$status-blocked",
    "done": "$status-done", "cancelled": "$status-cancelled",
}
DECISION_MARK = "?"
STATUS_WORD = {"draft": "draft", "in-progress": "in progress", "blocked": "blocked", "done": "done",
               "cancelled": "cancelled"}
BAR_WIDTH = 8


# C0 and C1 controls (ESC, DEL…), zero-width characters, bidi embeddings, overrides and isolates,
# line/paragraph separators and the byte-order mark: never sent to the terminal as they are.
_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ for ESC, ␀ for NUL: the Unicode control pictures
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"⟨U+{code:04X}⟩"


def safe(text: Any, *, newlines: bool = True) -> str:
    """Text from a plan file, made inert: control and invisible characters shown, tabs as spaces.

    The one sanitiser of the canvas. Its result still must not be parsed as markup: put it in a
    widget as `Content(...)` (or `Text`), never as a markup string.
    """
    out = str(text if text is not None else "").replace("\t", "    ").replace("\r\n", "\n")
    if not newlines:
        out = out.replace("\n", " ")
    return _HIDDEN.sub(_visible, out)


# One visible character per hidden one, so styled Content keeps its spans (`inert`).
_ONE_FOR_ONE = {**{c: 0x2400 + c for c in range(0x20) if c not in (0x0A,)}, 0x7F: 0x2421,
                **{c: 0xFFFD for c in range(0x80, 0xA0)},
                **{c: 0x2E2E for c in (0x061C, *range(0x200B, 0x2010), *range(0x2028, 0x202F),
                                       *range(0x2060, 0x2070), 0xFEFF)}}


def inert(content: Content) -> Content:
    """Already built Content with any hidden character swapped for a visible one (same length, same spans)."""
    text = content.plain
    if not _HIDDEN.search(text):
        return content
    return Content(text.translate(_ONE_FOR_ONE), content.spans)


def plain(text: Any, style: str = "") -> Content:
    """Plan text as inert Content (never markup), optionally styled."""
    return Content.styled(safe(text), style) if style else Content(safe(text))


def has_open_decision(node: Node) -> bool:
    decision = node.data.get("decision")
    return isinstance(decision, dict) and bool(decision.get("question")) and not decision.get("answer")


def mark(node: Node) -> tuple[str, str]:
    """(symbol, style) for a node's status; an open decision gets its own mark."""
    if node.status == "blocked" and has_open_decision(node):
        return DECISION_MARK, "bold $status-decision"
    return MARKS.get(node.status, "·"), STATUS_VAR.get(node.status, "")


def status_content(status: str) -> Content:
    return Content.assemble((f"{MARKS.get(status, '·')} {STATUS_WORD.get(status, status)}",
                             STATUS_VAR.get(status, "")))


def bar(done: int, total: int, width: int = BAR_WIDTH) -> Content:
    """A thin progress bar; an empty denominator (all cancelled, or nothing yet) is dotted."""
    if total <= 0:
        return Content.styled("·" * width, "$bar-empty")
    filled, empty = bar_cells(done, total, width)
    return Content.assemble(("━" * filled, "$status-done"), ("━" * empty, "$bar-empty"))


def percent(done: int, total: int) -> str:
    return f"{round(100 * done / total)}%" if total else "–"


def _system_now() -> datetime:
    return datetime.now(timezone.utc)


# The display clock: ages and "today" are measured against it (snapshot tests pin it).
display_now: Callable[[], datetime] = _system_now


def set_display_clock(now: Callable[[], datetime] | None) -> None:
    global display_now
    display_now = now or _system_now


def parse_time(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def age(since: Any, now: datetime | None = None) -> str:
    """'3d', '5h', '12m', 'now' — how long ago `since` was."""
    moment = parse_time(since)
    if moment is None:
        return "?"
    seconds = max(0, int(((now or display_now()) - moment).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "now"


def ago(since: Any, now: datetime | None = None) -> str:
    """'3d ago', '5h ago', 'just now' (under a minute), 'at an unknown time' — never 'now ago'."""
    how_long = age(since, now)
    if how_long == "now":
        return "just now"
    if how_long == "?":
        return "at an unknown time"
    return f"{how_long} ago"


def clock(value: Any) -> str:
    """An event time as local HH:MM:SS (today) or 'Mon 12 14:03' (earlier)."""
    moment = parse_time(value)
    if moment is None:
        return "--:--:--"
    local = moment.astimezone()
    if local.date() == display_now().astimezone().date():
        return local.strftime("%H:%M:%S")
    return local.strftime("%b %d %H:%M")


def blocked_since(node: Node) -> tuple[str, bool]:
    """(when it was blocked, exact?) — `blocked_since` when recorded, else the last update."""
    if node.data.get("blocked_since"):
        return str(node.data["blocked_since"]), True
    return str(node.data.get("updated") or ""), False


def blocked_for(node: Node) -> str:
    """'for 3d', 'for ≥ 2h' (only the last update is known), or 'just now'."""
    since, exact = blocked_since(node)
    how_long = age(since)
    if how_long == "now":
        return "just now"
    return f"for {'' if exact else '≥ '}{how_long}"


def one_line(text: Any, limit: int = 400) -> str:
    """Plan text on one line, made inert (`safe`) and cut at `limit` characters."""
    out = " ".join(safe(text or "", newlines=False).split())
    return out if len(out) <= limit else out[: limit - 1] + "…"


def bar_cells(done: int, total: int, width: int = BAR_WIDTH) -> tuple[int, int]:
    """(filled, empty) cells: any progress shows, and only complete work fills the bar."""
    if total <= 0:
        return 0, width
    filled = round(width * done / total)
    if done and not filled:
        filled = 1
    if done < total and filled == width:
        filled = width - 1
    return filled, width - filled
