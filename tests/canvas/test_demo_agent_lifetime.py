"""The demo's simulated agent ends with the canvas, however the canvas ends: real processes, real signals.

A closed terminal (SIGHUP to the canvas) and a SIGKILL of the process that started the agent both
leave no agent writing to the demo plan on its own.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from testkit import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def agents_under(folder: Path) -> list[int]:
    """The pids of demo agents working on a plan under `folder`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [w.decode(errors="replace") for w in cmdline]
        if "leafwise.canvas.demo.agent" in words and any(w.startswith(str(folder)) for w in words):
            if alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def test_the_agent_stops_when_the_process_that_started_it_is_killed(demo_plan, tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from pathlib import Path
        from leafwise.canvas.demo.launch import start_agent
        proc = start_agent(Path({str(demo_plan)!r}), 0.2, Path({str(tmp_path / 'agent.log')!r}), delay=0)
        print(proc.pid, flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        agent = int(parent.stdout.readline())
        wait_until(lambda: (tmp_path / "agent.log").read_text().count("$ leafwise") >= 2, 30, what="the agent works")
        parent.kill()  # SIGKILL: no handler, no finally
        parent.wait()
        wait_until(lambda: not alive(agent), 8, what="the agent stops")
        assert "has ended (its pipe closed): stopping" in (tmp_path / "agent.log").read_text()
    finally:
        parent.kill()
        for pid in agents_under(demo_plan):
            os.kill(pid, signal.SIGKILL)


def test_closing_the_terminal_of_leafwise_demo_stops_its_agent(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    pid, master = pty.fork()
    if pid == 0:  # the child: the canvas, as in a terminal
        try:
            os.execve(sys.executable, [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "demo",
                                       "--speed", "0.2"], env)
        finally:
            os._exit(127)
    try:
        def drained():  # the terminal reads what the canvas draws
            while select.select([master], [], [], 0)[0]:
                try:
                    if not os.read(master, 65536):
                        break
                except OSError:
                    break
            return agents_under(tmp_path)

        agents = wait_until(drained, 60, what="the demo starts its agent")
        os.close(master)  # the terminal goes away: the kernel hangs up the canvas
        master = -1
        wait_until(lambda: not any(alive(a) for a in agents), 10, what="the agent stops")
        wait_until(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, 10, what="the canvas ends")
    finally:
        if master >= 0:
            os.close(master)
        for agent in agents_under(tmp_path):
            os.kill(agent, signal.SIGKILL)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
