"""The page `leafwise serve` hands a browser, and the line above the canvas that says what it shows.

A served canvas shows the serving machine's checkout, which nobody may have pulled for a while: a
person watching it could take a stale plan for the team's. So the page's top line names the checkout's
branch and how many commits its upstream, as last fetched, is ahead (and when that fetch was), and
whether the claims are the team's live ones (`--follow`) or the checkout's. It is read again every
minute. Without `--follow` it is what git knows here (Leafwise never fetches the branch for the page);
with it, the default branch as the follow's own poll fetched it (commands/team/upstream.py), so the
line and the canvas's toasts say the same.

The page is our own (textual-serve's template loads its font from fonts.googleapis.com); it names no
host or port, so a forwarded port serves it too.
"""

from __future__ import annotations

import html
import os
import time
from pathlib import Path

from leafwise.commands.text import one_line
from leafwise.store import git

AHEAD_LIMIT = 10_000  # commits counted; more reads as "10000+"
NOTE_EVERY = 60  # seconds between two reads of the note by the page
PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="static/css/xterm.css">
<script src="static/js/textual.js"></script>
<style>
@font-face {{ font-family: "Roboto Mono"; src: url("static/fonts/RobotoMono-VariableFont_wght.ttf"); }}
body {{ background: #0c181f; margin: 0; color: rgba(255, 255, 255, 0.9); font: 13px "Roboto Mono", monospace; }}
#checkout {{ height: 22px; line-height: 22px; padding: 0 8px; overflow: hidden; white-space: nowrap;
  text-overflow: ellipsis; background: #12232d; }}
#checkout.behind {{ background: #5c3d00; }}
body .textual-terminal {{ height: calc(100vh - 22px); opacity: 0; }}
body.-first-byte .textual-terminal {{ opacity: 1; }}
.closed {{ display: none; padding: 32px; }}
body.-closed .closed {{ display: block; }}
#start {{ display: none; }}
</style></head>
<body>
<div id="checkout" class="{note_class}" role="status">{note}</div>
<div class="closed">Session ended. <button type="button" onclick="location.reload()">Open again</button></div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="ws" data-font-size="16"></div>
<button type="button" id="start">Start</button>
<script>
setInterval(async () => {{
  const answer = await fetch("checkout", {{cache: "no-store"}});
  if (!answer.ok) return;
  const note = await answer.json();
  const line = document.getElementById("checkout");
  line.textContent = note.text;
  line.className = note.behind ? "behind" : "";
}}, {every_ms});
</script>
</body></html>
"""
FULL_PAGE = """<!doctype html><meta charset="utf-8"><title>Leafwise: too many tabs</title>
<p>{tabs} tabs already show this canvas, the most this <code>leafwise serve</code> allows (each tab runs a
canvas process). Close one of them and reload this page, or stop the server and start it again with
<code>leafwise serve --max-tabs {more}</code>.</p>
"""


def page(title: str, repo: Path, follow: bool) -> str:
    text, behind = checkout_note(repo, follow)
    return PAGE.format(title=html.escape(title), note=html.escape(text), note_class="behind" if behind else "",
                       every_ms=NOTE_EVERY * 1000)


def full_page(tabs: int) -> str:
    return FULL_PAGE.format(tabs=tabs, more=tabs * 2)


def checkout_note(repo: Path, follow: bool) -> tuple[str, bool]:
    """(the line above the canvas, whether the upstream is ahead of the checkout)."""
    claims = (" Claims: the team's, live from its remote." if follow else
              " Claims: this checkout's (leafwise serve --follow shows the team's live claims).")
    try:
        branch = _git(repo, "rev-parse", "--abbrev-ref", "HEAD")
    except git.GitError:
        return "This machine's files (not a git checkout)." + claims, False
    followed = _followed(repo) if follow else None
    try:
        if followed is not None:  # the default branch as --follow's own poll fetched it (every few seconds)
            ref, upstream = followed
            fetched = "by --follow's last poll"
        else:
            ref = "@{upstream}"
            upstream = _git(repo, "rev-parse", "--abbrev-ref", "--symbolic-full-name", ref)
            fetched = _fetched(repo, upstream)
        ahead = len(_git(repo, "log", "--format=%h", f"-n{AHEAD_LIMIT}", f"HEAD..{ref}").split())
    except git.GitError:
        return f"This machine's checkout of {branch} (no upstream branch to compare with)." + claims, False
    shown = f"{AHEAD_LIMIT}+" if ahead >= AHEAD_LIMIT else str(ahead)
    if not ahead:
        return f"This machine's checkout of {branch}: level with {upstream} as last fetched ({fetched})." + claims, False
    return (f"This machine's checkout of {branch}: {upstream} as last fetched ({fetched}) is {shown} commit(s) "
            "ahead; git pull on this machine to show them." + claims), True


def _followed(repo: Path) -> tuple[str, str] | None:
    """(the ref, its name as a person says it: `origin/main`) of the remote's default branch as
    `--follow` fetches it with the claims (commands/team/upstream.py names both), or None before its
    first poll or without team mode."""
    from leafwise.commands.team import remote, upstream

    try:
        team = remote.load_team(repo)
        ref = upstream.copy_ref(team)
        _git(repo, "rev-parse", "--verify", "-q", ref)
    except (remote.TeamError, git.GitError):
        return None
    return ref, upstream.name(team)


def _git(repo: Path, *args: str) -> str:
    return one_line(git.run_git(repo, args[0], *args[1:], deadline=5).decode("utf-8", "replace").strip(), 120)


def _fetched(repo: Path, upstream: str) -> str:
    """When this clone last fetched, in words: the newer of FETCH_HEAD's time and the upstream ref's
    reflog's (a clone writes no FETCH_HEAD)."""
    times = []
    try:
        git_dir = git.pin(repo, 5).git_dir
    except git.GitError:
        return "at an unknown time"
    for path in (git_dir / "FETCH_HEAD", git_dir / "logs" / "refs" / "remotes" / upstream):
        try:
            times.append(os.stat(path).st_mtime)
        except (OSError, ValueError):
            continue
    if not times:
        return "at an unknown time"
    when = max(times)
    minutes = max(0, int((time.time() - when) // 60))
    if minutes < 1:
        return "under a minute ago"
    if minutes < 120:
        return f"{minutes} min ago"
    return f"{minutes // 60} h ago" if minutes < 48 * 60 else f"{minutes // (24 * 60)} days ago"
