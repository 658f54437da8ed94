"""The canvas's looks: Textual `Theme` objects and the stylesheet beside this file.

Every theme sets the app's own variables (`$status-done`, `$status-blocked`,
…) so a status has one colour per theme, used by the tree, the detail pane,
the feed and the views alike.
"""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

STYLESHEET = Path(__file__).with_name("canvas.tcss")
DEFAULT_THEME = "leafwise-dark"

# Fallbacks for any theme (Textual's own included) that does not set them.
VARIABLE_DEFAULTS: dict[str, str] = {
    "status-done": "#6cc788",
    "status-active": "#61afef",
    "status-blocked": "#ef6b73",
    "status-draft": "#9aa3b5",
    "status-cancelled": "#5c6370",
    "status-decision": "#e5b454",
    "row-flash": "#e5b454 25%",
    "bar-empty": "#3a3f4b",
    "row-dim": "#7d8594",
}

THEMES: dict[str, Theme] = {
    theme.name: theme
    for theme in (
        Theme(
            name="leafwise-dark", dark=True,
            primary="#5fb87a", secondary="#61afef", accent="#e5b454",
            warning="#e5b454", error="#ef6b73", success="#6cc788",
            foreground="#d7dae0", background="#15171c", surface="#1b1e25", panel="#252a34",
            variables=dict(VARIABLE_DEFAULTS, **{
                "footer-key-foreground": "#5fb87a",
                "block-cursor-background": "#2f4a3a",
                "block-cursor-foreground": "#f2f4f7",
                "block-cursor-text-style": "bold",
            }),
        ),
        Theme(
            name="leafwise-light", dark=False,
            primary="#2f7d4f", secondary="#1f6fb2", accent="#b7791f",
            warning="#b7791f", error="#c8323e", success="#2e8b57",
            foreground="#1f2328", background="#f7f7f4", surface="#ffffff", panel="#e9ecef",
            variables={
                "status-done": "#2e8b57",
                "status-active": "#1f6fb2",
                "status-blocked": "#c8323e",
                "status-draft": "#5f6672",
                "status-cancelled": "#a0a6ad",
                "status-decision": "#a86400",
                "row-flash": "#f5c542 35%",
                "bar-empty": "#d8dce1",
                "row-dim": "#6b7280",
                "footer-key-foreground": "#2f7d4f",
                "block-cursor-background": "#cfe8d8",
                "block-cursor-foreground": "#1f2328",
                "block-cursor-text-style": "bold",
            },
        ),
        Theme(
            name="leafwise-contrast", dark=True,
            primary="#ffff00", secondary="#00d7ff", accent="#ffaf00",
            warning="#ffaf00", error="#ff4040", success="#00ff66",
            foreground="#ffffff", background="#000000", surface="#000000", panel="#1c1c1c",
            luminosity_spread=0.3, text_alpha=1.0,
            variables={
                "status-done": "#00ff66",
                "status-active": "#00d7ff",
                "status-blocked": "#ff4040",
                "status-draft": "#ffffff",
                "status-cancelled": "#a8a8a8",
                "status-decision": "#ffaf00",
                "row-flash": "#ffff00 40%",
                "bar-empty": "#4e4e4e",
                "row-dim": "#c6c6c6",
                "footer-key-foreground": "#ffff00",
                "block-cursor-background": "#ffff00",
                "block-cursor-foreground": "#000000",
                "block-cursor-text-style": "bold",
            },
        ),
    )
}

# What the palette and the settings call them.
THEME_LABELS = {"leafwise-dark": "Dark", "leafwise-light": "Light", "leafwise-contrast": "High contrast"}
