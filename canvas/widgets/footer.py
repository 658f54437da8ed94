"""The key footer, recomposed only when the keys it shows change.

Textual's `Footer` rebuilds all its key widgets whenever the screen's bindings may
have changed (a focus move, a highlight, `refresh_bindings`), 20-30 ms each time on
this app's stylesheet; a view's first visit asked for it five to seven times with
the same keys. This one compares what it would show with what it shows, and skips
the rebuild when they are the same. It looks exactly like `Footer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen


class KeysFooter(Footer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: object = None
        self._ready = False  # the screen has said its bindings once (before that, Footer draws no keys)

    def bindings_changed(self, screen: Screen) -> None:
        self._ready = True
        super().bindings_changed(screen)

    def _keys(self) -> object:
        """What `Footer.compose` would draw now: every shown binding with its state, and the palette key."""
        if not self._ready:
            return None
        return (self.compact, self.show_command_palette, tuple(
            (binding.key, binding.action, binding.description, binding.key_display, str(binding.group), enabled, tooltip)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING))

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys is not None and keys == self._shown:
            return
        self._shown = keys
        await super().recompose()
