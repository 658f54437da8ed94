"""The key footer: the keys that fit, the most useful first, `? Help` always; its key widgets are
shown and hidden in place, and composed again only for a key it has never shown.

Textual's `Footer` draws every shown binding in the binding chain's order (the focused widget's, the
screen's, then the app's) and lets the row run off the right edge: at 80 columns the plan view lost
everything after "v", "? Help" and "q Quit" included. This one keeps what fits its width, by rank:
help, quit, "back to plan", the view's own keys that apply now, the view switches, then the view's
keys greyed out here; what it keeps stays in the chain's order. Every key is still in the help
(`?`) and the palette.

`Footer` also rebuilds all its key widgets whenever the screen's bindings may have changed (a focus
move, a highlight, `refresh_bindings`), 20-30 ms each time on this app's stylesheet; a view's first
visit asked for it five to seven times with the same keys. This one compares what it would show with
what it shows, and skips the rebuild when they are the same. When they differ it reuses the key
widgets it has: focusing the filter takes the letter keys out of the binding chain (the field types
them) and Esc brings them back, so it hides those keys and shows them again rather than removing and
mounting them (each mount styles a widget; the screen is laid out once either way). Only a key it has
no widget for yet (another label, tooltip or greyed state) makes it compose. It looks exactly like
`Footer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from leafwise.canvas.widgets.quiet import show
from rich.cells import cell_len
from textual import events
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen

ALWAYS, QUIT, BACK, OWN, VIEWS, GREYED = range(6)  # ranks: what is dropped last comes first
PALETTE_FRAME = 2  # the palette key's left border and right padding (Footer's CSS, not compact)


def key_width(key: Widget, compact: bool) -> int:
    """The cells a footer key takes, as `FooterKey.render` and `Footer`'s CSS lay it out."""
    display, description = str(getattr(key, "key_display", "")), str(getattr(key, "description", ""))
    if not description:
        return cell_len(display) + (1 if compact else 0)
    if compact:  # "key description" and a margin
        return cell_len(display) + 1 + cell_len(description) + 1
    return 1 + cell_len(display) + 1 + cell_len(description) + 1  # " key " "description "


class KeysFooter(Footer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: object = None
        self._ready = False  # the screen has said its bindings once (before that, Footer draws no keys)

    def bindings_changed(self, screen: Screen) -> None:
        self._ready = True
        super().bindings_changed(screen)

    def _keys(self) -> object:
        """What `compose` would draw now: every shown binding with its state, the palette key, the width."""
        if not self._ready:
            return None
        return (self.size.width, self.compact, self.show_command_palette, tuple(
            (binding.key, binding.action, binding.description, binding.key_display, str(binding.group), enabled, tooltip)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING))

    @staticmethod
    def _rank(key: Widget, bindings: dict[str, Any]) -> int:
        """How long a key stays when the row is too narrow for all (see the module's docstring)."""
        active = bindings.get(str(getattr(key, "key", "")))
        if active is None:
            return VIEWS
        node, binding, enabled, _tooltip = active
        if binding.id == "app.help" or (isinstance(node, App) and binding.action == "help"):
            return ALWAYS
        if binding.id == "app.quit" or (isinstance(node, App) and binding.action == "quit"):
            return QUIT
        if binding.id == "view.back":
            return BACK
        if isinstance(node, App):
            return VIEWS
        return OWN if enabled else GREYED

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        palette = [k for k in keys if k.has_class("-command-palette")]
        others = [k for k in keys if not k.has_class("-command-palette")]
        width = self.size.width
        if width <= 0:  # not laid out yet: all of them (a resize composes again)
            yield from keys
            return
        room = width - sum(key_width(k, self.compact) + (0 if self.compact else PALETTE_FRAME) for k in palette)
        bindings = self.screen.active_bindings
        ranks = [self._rank(k, bindings) for k in others]
        kept: set[int] = set()
        full = False  # after the first key that does not fit, only help: no later key fills a gap
        for i in sorted(range(len(others)), key=lambda i: (ranks[i], i)):
            needed = key_width(others[i], self.compact)
            full = full or needed > room
            if not full or ranks[i] == ALWAYS:
                kept.add(i)
                room -= needed
        yield from (k for i, k in enumerate(others) if i in kept)
        yield from palette

    def on_resize(self, event: events.Resize) -> None:
        if self._ready and self.is_attached:
            self.call_after_refresh(self.recompose)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys is not None and keys == self._shown:
            return
        self._shown = keys
        if keys is not None and self._show_in_place(list(self.compose())):
            return
        await super().recompose()

    def _show_in_place(self, wanted: list[Widget]) -> bool:
        """Show `wanted` with the key widgets already mounted, in their order, and hide the others.

        False (nothing changed) when one of them has no mounted twin in that order: then compose.
        """
        mounted = list(self.children)
        picked: list[Widget] = []
        at = 0
        for key in wanted:
            like = twin(key)
            while at < len(mounted) and twin(mounted[at]) != like:
                at += 1
            if at == len(mounted):
                return False
            picked.append(mounted[at])
            at += 1
        keep = set(picked)
        for child in mounted:
            show(child, child in keep)
        return True


def twin(key: Widget) -> tuple[object, ...]:
    """What a footer key draws and does: two keys alike in this are interchangeable."""
    return (type(key), *(str(getattr(key, name, "")) for name in ("key", "key_display", "description", "action")),
            str(key.tooltip or ""), key.classes - {"-compact"})
