"""Attacks on the loop server's promise (h25srv): a served line prints and writes what the call's own
run would, and a line the server took is never run a second time.

Each test goes through the real console script (test_loop_server's probe) and a real server."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from testkit import wait_until
from testkit.watching import inotify_watches

_spec = importlib.util.spec_from_file_location("loop_server_tests", Path(__file__).with_name("test_loop_server.py"))
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
runtime = base.runtime  # the fixture: a runtime folder of the test's own, its servers stopped at the end
call, plan, serving, server_pids, PROBE = base.call, base.plan, base.serving, base.server_pids, base.PROBE

pytestmark = pytest.mark.slow


def raw_call(root: Path, *args: str, served: bool = True, env: dict[str, str] | None = None,
             umask: int | None = None) -> tuple[bytes, bytes, int]:
    """(stdout, stderr, exit code) of `leafwise ARGS` as bytes, in a process with this umask."""
    full = {**os.environ, "LEAFWISE_AGENT": "", "LEAFWISE_MEMO": "0", "LEAFWISE_SERVER": "1" if served else "0",
            **(env or {})}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=root, env=full, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120,
                          preexec_fn=None if umask is None else (lambda: os.umask(umask)))
    return proc.stdout, proc.stderr, proc.returncode


def status(root: Path, node_id: str) -> str:
    text = (root / ".leafwise" / "nodes" / f"{node_id}.yaml").read_text()
    return re.search(r'^status: "?([a-z_-]+)', text, re.M).group(1)


def socket_path(runtime: Path) -> Path:
    (path,) = (runtime / "leafwise").glob("*.sock")
    return path


def modes(root: Path) -> dict[str, int]:
    plan_dir = root / ".leafwise"
    return {str(p.relative_to(plan_dir)): p.stat().st_mode & 0o777 for p in sorted(plan_dir.rglob("*"))
            if p.is_file() and not {".cache", ".locks"} & set(p.parts)}


def test_a_served_call_writes_files_with_the_callers_umask(tmp_path, runtime):
    """The server's umask was its first caller's: a call under umask 077 wrote 0644 files (its own
    run writes 0600)."""
    served, own = plan(tmp_path / "served"), plan(tmp_path / "own")
    serving(served)
    for args in [("start", "T-1", "--agent", "a"), ("complete", "T-1", "--summary", "s", "--agent", "a")]:
        a, b = raw_call(served, *args, umask=0o077), raw_call(own, *args, served=False, umask=0o077)
        assert a[1].endswith(b"[served]") and b[1].endswith(b"[ran]")
        assert modes(served) == modes(own)
    assert modes(own)["nodes/T-1.yaml"] == 0o600


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_streams_that_are_not_utf8_get_the_bytes_of_their_own_run(tmp_path, runtime, encoding):
    """The server wrote UTF-8 whatever the caller's streams were: with PYTHONIOENCODING=latin-1 a
    served answer was other bytes than the call's own run prints."""
    root = plan(tmp_path / "p")
    env = {"PYTHONIOENCODING": encoding}
    raw_call(root, "next", env=env)
    deadline = time.monotonic() + 4  # a server, were one started, would be listening by then
    while time.monotonic() < deadline and not (server_pids(runtime) and list((runtime / "leafwise").glob("*.sock"))):
        time.sleep(0.2)
    for args in [("next", "--agent", "é☃"), ("start", "--next", "--agent", "é"),
                 ("complete", "T-1", "--summary", "☃ é", "--agent", "ö")]:
        assert raw_call(root, *args, env=env)[:3] == raw_call(root, *args, served=False, env=env)[:3], args


def test_a_request_is_read_to_its_end_not_to_a_word_that_ends_like_one(tmp_path, runtime):
    """A request ended at the first read that ended in NUL + newline: a word "\\n" landing at the end
    of a 64 KiB read cut the line there, so `complete T-1 --summary S "\\n" extra` (click refuses the
    extra words) ran as `complete T-1 --summary S`."""
    from leafwise.commands.surfaces import loop_client

    root = plan(tmp_path / "p")
    serving(root)
    assert call(root, "start", "T-1", "--agent", "a")[2:] == (0, "served")
    (pid,) = server_pids(runtime)
    mask = loop_client.current_umask()
    errors = tuple(subprocess.run([sys.executable, "-c", "import sys; print(sys.stdout.errors, sys.stderr.errors)"],
                                  capture_output=True, text=True, env={**os.environ, "LEAFWISE_MEMO": "0"},
                                  check=True).stdout.split())  # the streams' error handlers a call sends
    for shift in range(-2, 3):  # around the 64 KiB read
        words = ["complete", "T-1", "--agent", "a", "--summary", "", "\n", "extra"]
        head = loop_client.request(words, errors, mask).index(b"\0\n\0extra") + 2
        words[5] = "s" * (65536 - head + shift)
        os.kill(pid, signal.SIGSTOP)  # the whole request is queued before the server reads it
        try:
            result: dict[str, tuple] = {}
            worker = threading.Thread(target=lambda: result.update(served=call(root, *words)))
            worker.start()
            time.sleep(0.5)
        finally:
            os.kill(pid, signal.SIGCONT)
        worker.join()
        out, err, code, _how = result["served"]
        assert (code, "unexpected word" in err) == (2, True), (shift, out, err)
    assert status(root, "T-1") == "in-progress"


def test_a_server_killed_after_taking_a_line_never_has_the_caller_run_it_again(tmp_path, runtime):
    """A server killed while it ran `complete` (the claim released, the journal line not written)
    made the caller run the line itself, which answered 'T-1 is already done' and exit 0: the agent
    never learnt the command stopped half-way. The caller now says so, and runs nothing."""
    from leafwise.store.locks import locked
    from leafwise.store.paths import find_root

    root = plan(tmp_path / "p")
    serving(root)
    assert call(root, "start", "T-1", "--agent", "a")[2:] == (0, "served")
    claim = root / ".leafwise" / "claims" / "T-1.json"
    result: dict[str, tuple] = {}
    with locked(find_root(None, str(root)), "journal"):  # the served complete stops at the journal
        worker = threading.Thread(target=lambda: result.update(
            served=call(root, "complete", "T-1", "--summary", "s", "--agent", "a")))
        worker.start()
        wait_until(lambda: not claim.exists(), timeout=30, what="the served complete to release the claim")
        for pid in server_pids(runtime):
            os.kill(pid, signal.SIGKILL)
        worker.join(timeout=60)
    out, err, code, how = result["served"]
    assert (out, code, how) == ("", 1, "served"), result
    assert "may have run" in err and err.rstrip().endswith("Next: leafwise next --agent a")


def test_a_caller_that_connects_and_never_sends_holds_the_others_up_a_second_at_most(tmp_path, runtime):
    """The server waited 10 s for a silent caller's request, and every other call waited behind it."""
    root = plan(tmp_path / "p")
    serving(root)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        silent.connect(str(socket_path(runtime)))
        time.sleep(0.2)  # the server is now reading the silent caller's request
        started = time.monotonic()
        out, _err, code, how = call(root, "next", "--json")
        took = time.monotonic() - started
    finally:
        silent.close()
    assert (code, how) == (0, "served") and '"id": "T-1"' in out
    assert took < 5, took


def a_tree(folder: Path, count: int = 60) -> Path:
    for i in range(count):
        (folder / f"d{i}").mkdir(parents=True)
    return folder


def test_a_plan_holding_a_link_to_a_folder_gets_no_server(tmp_path, runtime):
    """A cloned plan's `docs/usr -> /usr` made the server's watch follow the link: 15,498 of the
    user's inotify watches (a link to / takes them all, and every other tool's watch fails)."""
    root = plan(tmp_path / "p")
    (root / ".leafwise" / "docs" / "elsewhere").symlink_to(a_tree(tmp_path / "tree"))
    for _ in range(3):
        assert call(root, "next", "--json")[2:] == (0, "ran")
        time.sleep(1)
    assert not server_pids(runtime)


def test_a_folder_with_a_link_made_under_a_served_plan_stops_its_server(tmp_path, runtime):
    """A folder made with a link to a folder inside (a checkout, an unpacked archive) is followed by
    the watch at once: the server stops serving and exits, the calls run themselves."""
    root = plan(tmp_path / "p")
    serving(root)
    (pid,) = server_pids(runtime)
    before = inotify_watches(pid)
    (root / ".leafwise" / "docs" / "sub").mkdir()
    (root / ".leafwise" / "docs" / "sub" / "elsewhere").symlink_to(a_tree(tmp_path / "tree"))
    assert call(root, "next", "--json")[2:] == (0, "ran")
    wait_until(lambda: not server_pids(runtime), timeout=30, what="the server to exit")
    assert before < 10  # what a plan's few folders take


def test_a_caller_whose_environment_moves_on_every_call_starts_at_most_eight_servers(tmp_path, runtime):
    """Every environment is its own server: an agent runner that sets a request id per call started
    one per call, each holding its plan (~60 MB at 11,100 nodes) for 10 minutes. A server that
    exits leaves no file behind."""
    from leafwise.commands.surfaces.loop_client import MAX_SERVERS

    root = plan(tmp_path / "p")
    for i in range(MAX_SERVERS + 3):
        assert call(root, "next", "--json", env={"REQUEST_ID": str(i)})[2] == 0
        if i < MAX_SERVERS:  # each started before the next call counts them
            wait_until(lambda: len(server_pids(runtime)) > i, timeout=60, what="a server", interval=0.1)
    time.sleep(2)
    assert len(server_pids(runtime)) == MAX_SERVERS
    for pid in server_pids(runtime):
        os.kill(pid, signal.SIGTERM)
    wait_until(lambda: not list((runtime / "leafwise").iterdir()), timeout=30, what="the servers' files to go")


def test_a_server_whose_watch_cannot_be_made_again_answers_as_the_own_run_then_stops(tmp_path, runtime):
    """The plan's cache folder (where the watch's fence is written) replaced by a file: the watch is
    lost and cannot be made again, and every served call answered 'Error: Not a directory' while
    the call's own run answered the task."""
    from leafwise.store.config_dirs import cache_dir

    root = plan(tmp_path / "p")
    serving(root)
    (pid,) = server_pids(runtime)
    (fence,) = Path(cache_dir()).rglob(f"watch-{pid}-*.fence")
    shutil.rmtree(fence.parent)
    fence.parent.write_text("not a folder")
    try:
        for _ in range(2):
            a, b = call(root, "next", "--json"), call(root, "next", "--json", served=False)
            assert a[:3] == b[:3] and '"id": "T-1"' in a[0]
        wait_until(lambda: not server_pids(runtime), timeout=30, what="the server to stop")
    finally:
        fence.parent.unlink()


def test_a_sigterm_while_a_line_runs_lets_it_finish_and_answer(tmp_path, runtime):
    """A SIGTERM (a person's kill, a logout, a test's or the bench's stop) exited the server at once,
    half-way through a `complete`: the claim released, the task not done, no journal line, and the
    caller told the command may have run. Now the line finishes and answers, then the server exits."""
    from leafwise.store.locks import locked
    from leafwise.store.paths import find_root

    root = plan(tmp_path / "p")
    serving(root)
    assert call(root, "start", "T-1", "--agent", "a")[2:] == (0, "served")
    claim = root / ".leafwise" / "claims" / "T-1.json"
    result: dict[str, tuple] = {}
    with locked(find_root(None, str(root)), "journal"):  # the served complete stops at the journal
        worker = threading.Thread(target=lambda: result.update(
            served=call(root, "complete", "T-1", "--summary", "s", "--agent", "a")))
        worker.start()
        wait_until(lambda: not claim.exists(), timeout=30, what="the served complete to release the claim")
        (pid,) = server_pids(runtime)
        os.kill(pid, signal.SIGTERM)
        time.sleep(0.5)
    worker.join(timeout=60)
    out, err, code, how = result["served"]
    assert (code, how) == (0, "served") and "T-1" in out, result
    assert status(root, "T-1") == "done"
    assert '"complete"' in (root / ".leafwise" / "journal.jsonl").read_text()
    wait_until(lambda: not server_pids(runtime), timeout=30, what="the server to exit")
