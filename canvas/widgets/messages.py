"""Messages several widgets send alike."""

from __future__ import annotations

from textual.message import Message


class NodeRequest(Message):
    """A request about one node; each widget nests its own subclass (`NextTaskBar.OpenNode`…)
    so handlers keep their widget-specific names (`on_next_task_bar_open_node`)."""

    def __init__(self, node_id: str) -> None:
        super().__init__()
        self.node_id = node_id
