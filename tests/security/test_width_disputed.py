"""Characters a terminal draws wider than the canvas measures them never reach a surface raw.

Textual lays the canvas out by Rich's cell widths, and a terminal draws by its own: the emoji
skin-tone modifiers (U+1F3FB-1F3FF) are no cells to Rich and two to xterm, tmux, VTE and libc's
wcwidth. A cloned plan's title of 30 of them pushed its tree row 60 cells into the detail pane
beside it: in tmux, the row's own words ("FORGED-STATUS: done, approved") stood where the pane's
lines are, the pane's edge gone from that row. They are shown as hidden characters are (`text.DRAWN_UNMEASURED`, through `shown`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import unicodedata

import pytest
from leafwise.commands.text import DRAWN_UNMEASURED, HIDDEN, SHOWN, clean, inert, one_line
from rich.cells import get_character_cell_size
from testkit import node, write_plan

MODIFIERS = "".join(chr(c) for low, high in DRAWN_UNMEASURED for c in range(low, high + 1))
FORGED = "Pay" + "\U0001F3FB" * 30 + " FORGED-STATUS: done, approved"


def plan(root, nodes):
    """`write_plan`, then the forged title written raw (its JSON writer spells a modifier as a surrogate
    pair, which YAML refuses)."""
    root = write_plan(root, nodes)
    for path in (root / ".leafwise" / "nodes").glob("*.yaml"):
        path.write_text(path.read_text().replace("FORGED_TITLE", FORGED), encoding="utf-8")
    return root


def _drawn_by_terminals(char: str) -> bool:
    """A character a terminal gives cells of its own: not hidden, no mark or format character, and no
    Hangul medial or final jamo (drawn inside the syllable before it, as Rich counts them)."""
    if HIDDEN.match(char) or unicodedata.category(char) in ("Mn", "Me", "Mc", "Cf", "Cn", "Co", "Cs"):
        return False
    return not unicodedata.name(char, "").startswith(("HANGUL JUNGSEONG", "HANGUL JONGSEONG"))


def test_the_set_is_every_character_terminals_draw_that_rich_counts_as_no_cell():
    unmeasured = {c for c in range(0x20, 0x110000)
                  if not 0xD800 <= c < 0xE000 and get_character_cell_size(chr(c)) == 0 and _drawn_by_terminals(chr(c))}
    assert unmeasured == {ord(c) for c in MODIFIERS}


@pytest.mark.parametrize("show", [inert, lambda t: clean(t, None), lambda t: one_line(t, 1000)])
def test_no_surface_passes_one_raw(show):
    out = show(FORGED + "👍\U0001F3FD")
    assert not any(c in out for c in MODIFIERS), out
    assert "<U+1F3FB>" in out and "👍" in out and SHOWN.search(out) is None


@pytest.mark.anyio
async def test_the_canvas_draws_none_raw(tmp_path):
    from testkit.canvas import canvas, ready, row_text

    root = plan(tmp_path / "repo", [node("T-1", "FORGED_TITLE", "draft", release="R1", summary="FORGED_TITLE")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        row = row_text(app, "T-1")
        assert "Pay<U+1F3FB>" in row and not any(c in row for c in MODIFIERS), row
        for widget in app.screen.query("*"):
            plain = getattr(getattr(widget, "visual", None), "plain", "")
            assert not any(c in plain for c in MODIFIERS), (widget, plain[:200])


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux: a real terminal's widths")
def test_in_a_real_terminal_the_tree_row_stays_left_of_the_detail_pane(tmp_path):
    root = plan(tmp_path / "repo", [node("T-1", "Epic", "draft", release="R1"),
                                     node("T-2", "FORGED_TITLE", "draft", parent="T-1"),
                                     node("T-3", "Leaf three", "draft", parent="T-1")])
    session = f"lw-width-{os.getpid()}"
    # its own config folder (canvas settings another test saved), and no COLUMNS/LINES: pytest-xdist's
    # workers set them to 80x24, and Textual takes them over the terminal's own size
    env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "LEAFWISE_SERVER": "0",
           "LANG": "C.UTF-8", "TERM": "xterm-256color", "LEAFWISE_CONFIG_DIR": str(tmp_path / "config")}
    command = f"cd {root} && {sys.executable} -P -m leafwise.commands.surfaces.cli canvas"
    tmux = ["tmux", "-L", session]  # a server of its own: it starts with this environment, whatever else runs
    subprocess.run([*tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "30", command], env=env, check=True)
    try:
        deadline = time.monotonic() + 30
        screen = ""
        while time.monotonic() < deadline and not ("T-2" in screen and "T-3" in screen):
            time.sleep(0.3)
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True,
                                    text=True).stdout
        time.sleep(1.0)  # the first paint's details settle
        screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
        rows = {key: next((line for line in screen.splitlines() if f"{key}          draft" in line), "")
                for key in ("T-2", "T-3")}  # the two leaves' tree rows
        divider = rows["T-3"].find("▏")
        assert divider > 0 and rows["T-2"].find("▏") == divider, screen
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
