"""Building the main views unseen, while the person reads the tree, so that their first visit is quick.

A Textual mode's screen is built on its first `switch_mode`: composed, styled, the whole app's CSS
refreshed, filled, laid out and drawn, all between the key and the frame (0.4-0.8 s on 11,100
nodes). Off by default (`CanvasApp(prebuild=True)` turns it on): while a view is built,
`app.screen` is that hidden view for code running beside the app's queue.
"""

from __future__ import annotations

import asyncio

from textual.app import ScreenStackError

PREBUILT_VIEWS = ("board", "blocked", "progress")  # built while the person reads the tree (see _prebuild_view)
PREBUILD_DELAY = 0.8  # seconds after the plan is shown: after the first frames and the validator's first run
PREBUILD_GAP = 0.05  # seconds between two views' background builds
PREBUILD_REFRESHES = 2  # refreshes awaited while a view is built unseen: it fills, then it is laid out and drawn
PREBUILD_WAIT = 1.0  # seconds one of those refreshes may take before the build gives up


class Prebuild:
    """The part of `CanvasApp` that builds views before their first visit (a mixin: `self` is the app)."""

    def _init_prebuild(self, prebuild: bool) -> None:
        self.prebuild = prebuild
        self.prebuilt: set[str] = set()  # views built in the background before their first visit
        self.entered: set[str] = set()  # the modes switched to so far, seen or built unseen: their screens exist

    def _mode_entered(self, mode: str) -> None:
        self.entered.add(mode)

    def _start_prebuild(self) -> None:
        """Once the plan is shown: the first view's build, after the first frames."""
        if self.prebuild:
            self.set_timer(PREBUILD_DELAY, self._prebuild_next)

    def _prebuild_next(self) -> None:
        """Build the next view not built yet (see `_prebuild_view`), from the app's own message queue."""
        self.call_later(self._prebuild_view)

    async def _prebuild_view(self) -> None:
        """Build one of the board, blocked and progress views unseen, so that its first visit costs what a
        return visit does (tens of ms instead of 0.4-0.8 s on 11,100 nodes); then schedule the next.

        This does the mode switch while the person reads the tree, inside `batch_update()` (no frame
        is shown while it lasts) and switches back at once: the view is composed, filled, laid out and
        drawn into its widgets' caches, unseen. It runs in the app's message queue, so a key pressed
        meanwhile waits for it (at most one view's build) and then goes to the screen the person sees.
        Public Textual calls only: `switch_mode`, `batch_update`, `wait_for_refresh`.
        """
        todo = [mode for mode in PREBUILT_VIEWS if mode not in self.prebuilt and mode not in self.entered]
        if not todo or not self.is_running:
            return
        if len(self.screen_stack) > 1:  # a dialog or the help is open: not now
            self.set_timer(PREBUILD_GAP * 4, self._prebuild_next)
            return
        mode, back = todo[0], self.current_mode
        try:
            with self.batch_update():
                await self.switch_mode(mode)
                screen = self.screen
                self.refresh_css(animate=False)  # styled as the app is now: no CSS refresh on the visit
                for _ in range(PREBUILD_REFRESHES):  # filled, then laid out and drawn (unseen)
                    if not screen.is_attached:
                        break
                    await asyncio.wait_for(screen.wait_for_refresh(), PREBUILD_WAIT)
                await self.switch_mode(back)
        except ScreenStackError:  # the app is closing
            return
        except asyncio.TimeoutError:  # never keep the person's keys waiting: back to the view they see
            await self.switch_mode(back)
            return
        self.prebuilt.add(mode)
        if len(todo) > 1:
            self.set_timer(PREBUILD_GAP, self._prebuild_next)  # keys and frames go first between two views
