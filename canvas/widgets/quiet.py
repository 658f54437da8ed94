"""Updating a widget without a layout of the whole screen when its size stays the same.

Textual lays out the whole screen for any widget that asks for a layout (`Static.update` asks by
default, so does a changed `display`), and then repaints what moved: 20-100 ms on the plan view, more
with a rendered doc in the detail pane. A cursor move rewrites most of the detail pane, usually with
text of the same height, and a filter keystroke rewrites the count beside the filter. These calls
write only what differs and ask for a layout only when the widget's size would really change.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static


def show(widget: Widget, shown: bool) -> None:
    """Show or hide; `display` lays the screen out again only when it changes."""
    if widget.display != shown:
        widget.display = shown


def set_content(widget: Static, content: Content) -> None:
    """Put `content` in `widget`: nothing when it shows that already, a layout only on a new size.

    The size is the one the last layout gave the widget: its height at its width (the detail pane's
    sections are `height: auto`), and for a `width: auto` widget its width too. A widget not laid out
    yet (hidden, or just mounted) gets a layout.
    """
    old = widget.content
    if isinstance(old, Content) and old.is_same(content):
        return
    size = widget.size
    rules = widget.styles
    same = bool(size.width) and widget.display and content.get_height(rules, size.width) == size.height
    if same and rules.width is not None and rules.width.is_auto:
        parent_width = widget.parent.size.width if isinstance(widget.parent, Widget) else size.width
        same = isinstance(old, Content) and (content.get_optimal_width(rules, parent_width)
                                             == old.get_optimal_width(rules, parent_width))
    widget.update(content, layout=not same)
