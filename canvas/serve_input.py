"""What a browser tab may send its canvas: textual.js's envelopes, bounded in size, in events per message
and in events per second.

Each key event costs the canvas about a millisecond of work (a 100,000-key message kept one busy for two
minutes), so a tab's input is metered in events: a key, a mouse report or any other escape sequence is
one; a bracketed paste (one Paste event to the canvas) is one per `PASTE_CHARS` characters. Reading a
message costs this server too (the JSON of a quarter megabyte of brackets held the server's one loop,
every tab's, 0.3 s), and a paste costs the canvas's input parser about a microsecond a character, so
every message is first charged one event per `METER_BYTES` of its size, before it is read; its events
are charged beyond that. A message over `MAX_EVENTS` is dropped
whole, and so is any input beyond the tab's budget (`RATE` events a second, `BURST` at once): typing,
key repeat and mouse moves stay far below both.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import WSMsgType, web
from leafwise.store import reader

MAX_CELLS = 1000  # columns or rows a tab may ask for
MAX_MESSAGE = 256 * reader.KiB  # bytes of one websocket message; aiohttp closes a tab that sends more
TAB_MESSAGE = reader.Kind("browser tab message", MAX_MESSAGE, 4)  # a key press, a paste, a resize
MAX_EVENTS = 256  # input events in one message (textual.js sends one key or one mouse report per message)
RATE, BURST = 200.0, 400.0  # input events a second a tab may send, and at once
RESIZE_COST = 10  # a resize lays the whole screen out again
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
PASTE_CHARS = 4096  # characters of a bracketed paste that count as one event
METER_BYTES = 1024  # bytes of a message that count as one event before it is read (a paste's ~1 ms of canvas)
SEQUENCE = 64  # characters an escape sequence may span before its next character counts on its own


def sequence_end(text: str, start: int) -> int:
    """Where the escape sequence at `start` ends: CSI (ESC [ params intermediates final), SS3 (ESC O x)
    or ESC with one character (Alt+key); bounded by `SEQUENCE`."""
    end = min(len(text), start + SEQUENCE)
    i = start + 1
    if i < end and text[i] == "[":
        i += 1
        while i < end and "\x20" <= text[i] <= "\x3f":
            i += 1
        return i + 1 if i < end and "\x40" <= text[i] <= "\x7e" else i
    if i < end and text[i] == "O":
        return min(i + 2, end)
    return min(i + 1, end)


def events(text: str, cap: int = MAX_EVENTS) -> int:
    """The input events in `text`, counted up to `cap + 1` (the work stops there)."""
    count = i = 0
    while i < len(text) and count <= cap:
        if text.startswith(PASTE_START, i):
            close = text.find(PASTE_END, i)
            stop = len(text) if close < 0 else close + len(PASTE_END)
            count += 1 + (stop - i) // PASTE_CHARS
            i = stop
        elif text[i] == "\x1b":
            i = sequence_end(text, i)
            count += 1
        else:
            i += 1
            count += 1
    return count


class Budget:
    """A tab's input budget: `RATE` events a second, at most `BURST` saved up."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.left, self.at = burst, time.monotonic()

    def take(self, cost: int) -> bool:
        now = time.monotonic()
        self.left = min(self.burst, self.left + (now - self.at) * self.rate)
        self.at = now
        if cost > self.left:
            return False
        self.left -= cost
        return True


def cells(value: Any, default: int) -> int:
    """A terminal size a tab asks for, within what a screen can be."""
    try:
        return min(MAX_CELLS, max(1, int(value)))
    except (TypeError, ValueError):
        return default


async def relay(websocket: web.WebSocketResponse, service: Any) -> None:
    """The tab's messages to its canvas (["stdin", text], ["resize", {width, height}], ["ping", x],
    ["blur"], ["focus"]); anything else, and input over the limits, is dropped."""
    budget = Budget()
    async for message in websocket:
        paid = len(message.data) // METER_BYTES if message.type == WSMsgType.TEXT else 0
        if message.type != WSMsgType.TEXT or not budget.take(paid):
            continue
        try:  # a tab's message is untrusted input: bounded size and depth, as every read
            envelope = reader.load_json(message.data, TAB_MESSAGE)
        except ValueError:
            continue
        if not isinstance(envelope, list) or not envelope:
            continue
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            cost = events(data)
            if cost <= MAX_EVENTS and budget.take(max(0, cost - paid)):  # its size is paid already
                await service.send_bytes(data.encode("utf-8", "replace"))
        elif kind == "resize" and isinstance(data, dict) and budget.take(RESIZE_COST):
            if isinstance(data.get("width"), int) and isinstance(data.get("height"), int):
                await service.set_terminal_size(cells(data["width"], 80), cells(data["height"], 24))
        elif kind not in ("ping", "blur", "focus") or not budget.take(1):
            continue
        elif kind == "ping":
            await websocket.send_json(["pong", data if isinstance(data, (str, int)) else None])
        elif kind == "blur":
            await service.blur()
        else:
            await service.focus()
