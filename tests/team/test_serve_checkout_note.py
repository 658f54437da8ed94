"""The line above a served canvas says what it shows: this machine's checkout, and how far its upstream
(as last fetched) is ahead, so a person watching a stale checkout is told so; with `--follow` the claims
are the team's live ones. Real clones of a real bare remote, the real page over HTTP."""

from __future__ import annotations

import aiohttp
import pytest
from leafwise.canvas import serve, serve_page
from testkit import gitserver

pytestmark = pytest.mark.anyio
NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"}]
TEAM_PROJECT = "settings:\n  team: {remote: origin}\n"


async def page_note(root, follow: bool) -> str:
    guard = serve.Guard()
    runner, port = await serve.start(serve.CanvasServer(root.resolve(), follow=follow), guard, 0)
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
            async with client.get(f"http://127.0.0.1:{port}/?token={guard.token}", allow_redirects=False) as entered:
                name, value = entered.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)
            headers = {"Cookie": f"{name}={value}"}
            async with client.get(f"http://127.0.0.1:{port}{guard.prefix}", headers=headers) as response:
                assert response.status == 200
                page = await response.text()
            async with client.get(f"http://127.0.0.1:{port}{guard.prefix}checkout", headers=headers) as response:
                note = await response.json()
        assert note["text"].replace("'", "&#x27;") in page
        return note["text"]
    finally:
        await runner.cleanup()


async def test_a_stale_checkout_says_how_far_behind_it_is(tmp_path):
    other, first = gitserver.joined_pair(tmp_path, NODES, TEAM_PROJECT)  # `first`: a clone, on origin/main
    level = await page_note(first, follow=False)
    assert "checkout of main: level with origin/main" in level and "leafwise serve --follow" in level
    for n in range(3):  # three commits land on the remote from the other clone
        (other / f"f{n}.txt").write_text(f"{n}\n")
        gitserver.git(other, "add", "-A")
        gitserver.git(other, "commit", "-qm", f"work {n}")
    gitserver.git(other, "push", "-q", "origin", "main")
    assert "level with origin/main" in await page_note(first, follow=False)  # not fetched here: git cannot know
    gitserver.git(first, "fetch", "-q", "origin")
    stale = await page_note(first, follow=True)
    assert "origin/main as last fetched (under a minute ago) is 3 commit(s) ahead; git pull" in stale
    assert "Claims: the team's, live from its remote." in stale
    text, behind = serve_page.checkout_note(first.resolve(), follow=False)
    assert behind and "3 commit(s) ahead" in text


async def test_a_checkout_without_upstream_says_so(tmp_path):
    _, first = gitserver.joined_pair(tmp_path, NODES, TEAM_PROJECT)
    gitserver.git(first, "checkout", "-qb", "local-only")
    assert "checkout of local-only (no upstream branch to compare with)" in await page_note(first, follow=False)


async def test_with_follow_the_line_reads_the_default_branch_as_the_follow_fetched_it(tmp_path):
    """`serve --follow`: the line compares the checkout with the default branch as the follow's own poll
    fetched it (refs/remotes-leafwise/<remote>/HEAD), the same commit the canvas's toasts count, not the
    person's `origin/main`, which only their own fetch moves (seen in a trial: "level with origin/main"
    above a toast saying this clone lacks 5 commits)."""
    from leafwise.commands.team import status

    other, first = gitserver.joined_pair(tmp_path, NODES, TEAM_PROJECT)
    gitserver.git(tmp_path / "origin.git", "symbolic-ref", "HEAD", "refs/heads/main")  # its default branch
    gitserver.git(first, "remote", "set-head", "origin", "main")  # as `git clone` sets it
    for n in range(2):
        (other / f"f{n}.txt").write_text(f"{n}\n")
        gitserver.git(other, "add", "-A")
        gitserver.git(other, "commit", "-qm", f"work {n}")
    gitserver.git(other, "push", "-q", "origin", "main")
    assert "level with origin/main" in await page_note(first, follow=True)  # no poll yet: what git knows
    status.followed(first.resolve(), fetch=True)  # one poll of canvas --follow (claims and the default branch)
    note = await page_note(first, follow=True)
    assert "origin/main as last fetched (by --follow's last poll) is 2 commit(s) ahead" in note, note
    assert "level with origin/main" in await page_note(first, follow=False)  # without --follow: git's own
