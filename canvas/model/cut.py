"""Cutting text short for one line or a notice: at a word boundary, with one "…" at the very end."""

from __future__ import annotations

WORD_ROOM = 2 / 3  # a word boundary is used when the words before it fill this much of the room


def cut(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its head cut after a whole word (when one ends in
    the last third of the room; a long path or id is cut where it must), ending with a single "…"."""
    if len(text) <= limit:
        return text
    if limit < 2:
        return "…"
    head = text[: limit - 1]
    if text[limit - 1] != " ":  # the cut falls inside a word
        space = head.rfind(" ")
        if space >= limit * WORD_ROOM:
            head = head[:space]
    return head.rstrip(" ,;:-—…") + "…"
