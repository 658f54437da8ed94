"""`leafwise demo`: the bundled web-shop plan in a temporary folder, a simulated agent, the canvas."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

DEMO_ROOT = Path(__file__).with_name("shop")  # the shop's code (backend/, frontend/) beside its plan
DEMO_PLAN = DEMO_ROOT / ".leafwise"
# Derived or local files never copied: caches, locks, bytecode, installed packages.
NOT_COPIED = (".cache", ".locks", "__pycache__", "*.pyc", "node_modules", ".pytest_cache")


def prepare(target: Path | None = None) -> Path:
    """Copy the demo shop (its plan and its code) into a fresh folder; returns the folder holding `.leafwise/`."""
    base = target or Path(tempfile.mkdtemp(prefix="leafwise-demo-"))
    root = base / "shop"
    shutil.copytree(DEMO_ROOT, root, ignore=shutil.ignore_patterns(*NOT_COPIED))
    return root


def start_agent(root: Path, speed: float, log_path: Path, delay: float = 1.5) -> subprocess.Popen:
    """The simulated agent as a background process (its own session, so ctrl+c stays with the canvas).

    Its stdin is a pipe only this process writes to: when this process ends, however it ends (SIGKILL
    included), the kernel closes the pipe and the agent, reading it (`--parent-pipe`), stops.
    """
    log = open(log_path, "w")
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "leafwise.canvas.demo.agent", "--root", str(root), "--speed", str(speed),
         "--delay", str(delay), "--parent-pipe"],
        cwd=root, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE, start_new_session=True)


def stop_agent(proc: subprocess.Popen, timeout: float = 10) -> None:
    """Close the agent's pipe and let it finish its step; SIGTERM, then SIGKILL, only if it does not.

    (Signalling at once raced the pipe: the agent's log could end with the pipe's line after "Stopped.")
    """
    if proc.stdin is not None and not proc.stdin.closed:
        try:
            proc.stdin.close()  # the agent stops on its own when the pipe closes
        except OSError:
            pass
    for ask in (lambda: None, proc.terminate, proc.kill):
        if proc.poll() is not None:
            return
        ask()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            continue


def stop_with_signals(proc: subprocess.Popen, app) -> dict[int, object]:
    """SIGHUP (the terminal closed) and SIGTERM stop the agent at once, before anything else.

    SIGHUP then ends this process as it would have (there is no terminal left to restore); SIGTERM asks
    the canvas to quit, so the terminal is put back as it was. Returns the handlers it replaced.
    """
    def handle(signum: int, _frame) -> None:
        stop_agent(proc, timeout=3)
        if signum == signal.SIGTERM:
            try:
                asyncio.get_running_loop().call_soon_threadsafe(app.exit)
                return
            except RuntimeError:  # the canvas is not running (yet, or any more)
                pass
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    return {sig: signal.signal(sig, handle) for sig in (signal.SIGHUP, signal.SIGTERM)}


def run_demo(speed: float = 1.0, agent: bool = True) -> int:
    from leafwise.canvas.app import make_canvas

    root = prepare()
    log_path = root.parent / "agent.log"
    proc = start_agent(root, speed, log_path) if agent else None
    previous: dict[int, object] = {}
    try:
        app = make_canvas(root)
        if proc is not None:
            previous = stop_with_signals(proc, app)
        app.run()
    finally:
        if proc is not None:
            stop_agent(proc)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"The demo plan stays in {root}" + (f" (agent log: {log_path})" if agent else ""))
    print(f"Next: leafwise --root {root}")
    return app.return_code or 0
