"""`leafwise demo`: the bundled web-shop plan in a temporary folder, a simulated agent, the canvas."""

from __future__ import annotations

import shutil
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
    """The simulated agent as a background process (its own session, so ctrl+c stays with the canvas)."""
    log = open(log_path, "w")
    return subprocess.Popen(
        [sys.executable, "-m", "leafwise.canvas.demo.agent", "--root", str(root), "--speed", str(speed),
         "--delay", str(delay)],
        cwd=root, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)


def stop_agent(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_demo(speed: float = 1.0, agent: bool = True) -> int:
    from leafwise.canvas.app import make_canvas

    root = prepare()
    log_path = root.parent / "agent.log"
    proc = start_agent(root, speed, log_path) if agent else None
    try:
        app = make_canvas(root)
        app.run()
    finally:
        if proc is not None:
            stop_agent(proc)
    print(f"The demo plan stays in {root}" + (f" (agent log: {log_path})" if agent else ""))
    print(f"Next: leafwise --root {root}")
    return app.return_code or 0
