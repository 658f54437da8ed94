"""The `leafwise` console script: a remembered answer when the call has one, else the CLI.

An agent asks `leafwise next` again and again while the plan does not move. Such a call is answered
from `store/memo.py` (the exact bytes the CLI printed, while every file the run read is unchanged)
without importing the CLI at all; any other call, and a call whose memo misses, is `cli.main`
itself. A miss of a rememberable call runs the CLI under the memo's watch and remembers its output
when the run was a pure read. `LEAFWISE_MEMO=0` turns remembering off (the answer is then always
computed).
"""

from __future__ import annotations

import os
import sys

LOOP = frozenset({"next", "start", "complete", "heartbeat"})  # loop_client.LOOP: lines a loop server answers
REMEMBERED = frozenset({"next"})  # read-only commands whose whole answer is the plan's files
SWITCH = "LEAFWISE_MEMO"
HORIZON_NS = 3600 * 10**9  # the longest an answer is replayed without being computed again


def rememberable(words: list[str]) -> bool:
    """A read-only command, without waiting or help, whose output goes to files or pipes (a
    terminal's output may differ: colours, widths)."""
    if not words or words[0] not in REMEMBERED or os.environ.get(SWITCH, "1") == "0":
        return False
    if any(w in ("-h", "--help") or w == "--wait" or w.startswith("--wait=") for w in words):
        return False
    return not (os.isatty(1) or os.isatty(2))


def main(argv: list[str] | None = None) -> None:
    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] in LOOP:
        _served(words)
    if not rememberable(words):
        from leafwise.commands.surfaces import direct

        direct.run(words)  # a plain `start`/`complete` line is answered (and exits) without click
        from leafwise.commands.surfaces.cli import main as cli_main

        cli_main(words)
        return
    from leafwise.store import memo

    key = memo.call_key(words)
    hit = memo.replay(key)
    if hit is not None:
        out, err, code = hit
        _write(1, out)
        _write(2, err)
        sys.exit(code)
    sys.exit(_computed(words, key))


def _served(words: list[str]) -> None:
    """Answer a loop line through its loop server and exit; with no server there, start one for the
    calls after this one and return (this call runs itself)."""
    from leafwise.commands.surfaces import loop_client

    if not loop_client.wanted(words):
        return
    path = loop_client.address(words)
    if path is None:
        return
    answer = loop_client.call(path, words)
    if answer is None:
        loop_client.start(path, words)
        return
    code, out, err = answer
    _write(1, out)
    _write(2, err)
    sys.exit(code)


def _computed(words: list[str], key: str) -> int:
    """Run the CLI on `words` with its output captured, print it, and remember it if it may be."""
    import io

    from leafwise.store import memo
    from leafwise.store.config_dirs import cache_dir

    derived = (os.path.join(os.path.realpath(cache_dir()), ""), os.path.join(str(cache_dir()), ""))
    streams = sys.stdout, sys.stderr
    buffers = io.BytesIO(), io.BytesIO()
    wrappers = [io.TextIOWrapper(b, encoding=s.encoding, errors=s.errors, write_through=True)
                for b, s in zip(buffers, streams)]
    sys.stdout, sys.stderr = wrappers
    code: object = 0
    try:
        with memo.Watch(derived) as watch:
            try:
                from leafwise.commands.surfaces.cli import main as cli_main

                cli_main(words)
            except SystemExit as exc:
                code = exc.code
    finally:
        for wrapper in wrappers:  # kept until read: a wrapper that goes away closes its buffer
            wrapper.flush()
        out, err = buffers[0].getvalue(), buffers[1].getvalue()
        sys.stdout, sys.stderr = streams
        for wrapper in wrappers:
            wrapper.detach()
        _write(1, out)
        _write(2, err)
    code = 0 if code is None else code
    if not isinstance(code, int):
        print(code, file=sys.stderr)
        return 1
    root = _plan_folder(words)
    valid_until = _valid_until(root)
    memo.record(key, watch, [root] if root else [], out, err, code, valid_until)
    return code


def _plan_folder(words: list[str]) -> str | None:
    """The `.leafwise/` folder the call worked on, found as the CLI finds it; None without one."""
    from leafwise.store.paths import find_root

    root = next((w.split("=", 1)[1] for w in words if w.startswith("--root=")), None)
    if "--root" in words and words.index("--root") + 1 < len(words):
        root = words[words.index("--root") + 1]
    try:
        return str(find_root(None, root).dir)
    except Exception:  # no plan, or an unsafe one: the answer said so; only the folders above are inputs
        return None


def _valid_until(plan_dir: str | None) -> int:
    """When the remembered answer may turn by the clock alone: the first lease expiry still ahead
    (a held task is free for `next` from then on), at most HORIZON_NS from now."""
    import time

    now = time.time_ns()
    until = now + HORIZON_NS
    if plan_dir is None:
        return until
    from leafwise.store import claims
    from leafwise.store.paths import find_root

    import math

    try:
        held = claims.read_all(find_root(None, plan_dir)).values()
    except (OSError, ValueError, OverflowError):
        return now  # claims that cannot be read: never remembered
    for claim in held:
        try:
            # the plan's clock counts whole seconds (timestamps.utc_now): a lease ending at 20:27:52.05
            # still holds the task until 20:27:53 for the run, so the answer turns at the next second
            expires = math.ceil(claims.parse_time(claim.expires).timestamp()) * 10**9
        except (TypeError, ValueError, OverflowError):
            return now  # a lease whose expiry cannot be read: never remembered
        if expires > now:
            until = min(until, expires)
    return until


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:
        pass


if __name__ == "__main__":  # pragma: no cover
    main()
