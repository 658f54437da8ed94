"""Small shared pieces of the canvas's look: status marks, bars, ages, safe Content."""

from __future__ import annotations

from bisect import bisect_left
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from leafwise.commands.core.progress import filled_cells
from leafwise.commands.core.views import MARKS, status_word
from leafwise.commands.events import Piece
from leafwise.commands.text import SET_OFF, SHOWN, one_line, reads_as_marker, shown, visible
from leafwise.store import Node
from leafwise.store.timestamps import parse
from textual.content import Content, Span

# The CSS variable that colours each status (declared in themes/).
STATUS_VAR = {
    "draft": "$status-draft", "in-progress": "$status-active", "blocked": "$status-blocked",
    "done": "$status-done", "cancelled": "$status-cancelled",
}
DECISION_MARK = "?"
BAR_WIDTH = 8


def safe(text: Any, *, newlines: bool = True) -> str:
    """Text from a plan file, made inert: control and invisible characters shown, tabs as spaces.

    The one sanitiser of the canvas, with the CLI's rule and symbols (`commands.contract.shown`):
    ␛ for ESC, \\x9b for a C1 control, <U+202E> for a bidi override or a zero-width character.
    Its result still must not be parsed as markup: put it in a widget as `Content(...)` (or
    `Text`), never as a markup string.
    """
    out = str(text if text is not None else "").replace("\t", "    ").replace("\r\n", "\n")
    if not newlines:
        return shown(out.replace("\n", " "), "\n")
    # a line of it that reads as a marker is set off as on every other surface (commands.text.inert_line)
    return "\n".join(SET_OFF + line if reads_as_marker(line) else line for line in shown(out, "\n").split("\n"))


def inert_content(content: Content) -> Content:
    """Already built Content with every hidden character shown as `safe` shows it, spans kept.

    A replacement is longer than the character it stands for, so each span is moved to cover
    the same characters it covered before.
    """
    text = content.plain
    found = [m for m in SHOWN.finditer(text) if m.group() != "\n"]
    if not found:
        return content
    pieces: list[str] = []
    starts: list[int] = []  # where each replaced character was
    grown: list[int] = []  # how much longer the text is after it
    last, extra = 0, 0
    for match in found:
        at = match.start()
        char = match.group()
        shown_as = "    " if char == "\t" else visible(char)
        pieces += [text[last:at], shown_as]
        extra += len(shown_as) - 1
        starts.append(at)
        grown.append(extra)
        last = at + 1
    pieces.append(text[last:])

    def moved(offset: int) -> int:
        before = bisect_left(starts, offset)  # replaced characters strictly before `offset`
        return offset + (grown[before - 1] if before else 0)

    spans = [Span(moved(span.start), moved(span.end), span.style) for span in content.spans]
    return Content("".join(pieces), spans)


def plan_text(text: Any, style: str = "") -> Content:
    """Plan text as inert Content (never markup), optionally styled."""
    return Content.styled(safe(text), style) if style else Content(safe(text))


# How each role of a sentence's pieces (`commands.events.Piece`) is coloured; a status by its own variable.
ROLE_STYLE = {"": "", "verb": "$accent", "id": "$text-muted", "cascade": "$status-done"}


def sentence(pieces: Iterable[Piece]) -> Content:
    """Words from `commands.events` as Content: plan text made inert and cut, each role in its colour.

    Neighbouring pieces of one colour become one run, so a sentence is styled span by span as if
    written in one go.
    """
    runs: list[tuple[str, str]] = []
    for piece in pieces:
        text = one_line(piece.text, piece.limit) if piece.limit is not None else piece.text
        style = STATUS_VAR.get(piece.status or "", "") if piece.role == "status" else ROLE_STYLE.get(piece.role, "")
        if not text:
            continue
        if runs and runs[-1][1] == style:
            runs[-1] = (runs[-1][0] + text, style)
        else:
            runs.append((text, style))
    return Content.assemble(*[(text, style) if style else text for text, style in runs])


def mark(node: Node) -> tuple[str, str]:
    """(symbol, style) for a node's status; an open decision gets its own mark."""
    if node.status == "blocked" and node.open_decision is not None:
        return DECISION_MARK, "bold $status-decision"
    return MARKS.get(node.status, "·"), STATUS_VAR.get(node.status, "")


def status_content(status: str) -> Content:
    return Content.assemble((f"{MARKS.get(status, '·')} {status_word(status)}",
                             STATUS_VAR.get(status, "")))


BAR_STYLE = {"done": "$status-done", "bar-empty": "$bar-empty"}  # a bar's runs by role (`bar_runs`)


def bar_runs(done: int, total: int, width: int = BAR_WIDTH) -> tuple[tuple[str, str], ...]:
    """The canvas's progress bar as (text, role) runs, role "done" or "bar-empty": thin cells, as many
    filled as `commands.core.progress.filled_cells` says; nothing to count (all cancelled, or nothing yet)
    is dotted."""
    filled = filled_cells(done, total, width)
    if filled is None:
        return (("·" * width, "bar-empty"),)
    return tuple((cells, role) for cells, role in (("━" * filled, "done"), ("━" * (width - filled), "bar-empty"))
                 if cells)


def bar(done: int, total: int, width: int = BAR_WIDTH) -> Content:
    """`bar_runs` as Content, coloured by the theme's variables."""
    return Content.assemble(*[(cells, BAR_STYLE[role]) for cells, role in bar_runs(done, total, width)])


def percent(done: int, total: int) -> str:
    return f"{round(100 * done / total)}%" if total else "–"


def _system_now() -> datetime:
    return datetime.now(timezone.utc)


# The display clock: ages and "today" are measured against it (snapshot tests pin it).
display_now: Callable[[], datetime] = _system_now


def set_display_clock(now: Callable[[], datetime] | None) -> None:
    global display_now
    display_now = now or _system_now


def age(since: Any, now: datetime | None = None) -> str:
    """'3d', '5h', '12m', 'now' — how long ago `since` was."""
    moment = parse(since)
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
    moment = parse(value)
    try:  # year 1 in UTC is before year 1 in a zone west of it
        local = moment.astimezone() if moment is not None else None
    except OverflowError:
        local = None
    if local is None:
        return "--:--:--"
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
