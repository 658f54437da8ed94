"""The console script reads a plain `start`/`complete` line without click (commands/surfaces/direct.py):
for every line of a generated set, its answer (stdout, stderr, exit code) and the files it leaves are
what click's CLI (`cli.main`) answers and leaves on a copy of the same plan; a line it does not read
(help, `--`, unknown options, a missing value, repeats, extra words) is left to click untouched."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import node, run_cli_in_process, write_plan

from leafwise.commands.surfaces import direct

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
SEAL = re.compile(r'"seal": "[0-9a-f]{64}"')  # a lease's seal covers its times, which the runs may not share


def _plan(root: Path) -> Path:
    write_plan(root, [node("T-1", "Payments"), node("T-2", "Charge cards", parent="T-1"),
                      node("T-3", "Refund cards", parent="T-1", depends_on=["T-2"]),
                      node("T-4", "Stripe docs", parent="T-1", status="done", summary="written")])
    return root


def _captured(fn, words: list[str], cwd: Path) -> tuple[int, str, str, bool]:
    """(exit code, stdout, stderr, whether `fn` answered) of `fn(words)` in `cwd`, UTF-8 pipes as streams."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(out, encoding="utf-8", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", write_through=True))
    saved, here = (sys.stdout, sys.stderr), os.getcwd()
    os.chdir(cwd)
    sys.stdout, sys.stderr = streams
    code, answered = 0, True
    try:
        answered = fn(list(words)) is not False
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    finally:
        sys.stdout, sys.stderr = saved
        os.chdir(here)
    return code, out.getvalue().decode(), err.getvalue().decode(), answered


def _files(root: Path) -> dict[str, str]:
    """The plan's files after a call, timestamps and seals masked (the two runs may straddle a second)."""
    folder = root / ".leafwise"
    return {str(p.relative_to(folder)): SEAL.sub('"seal": S', STAMP.sub("T", p.read_text()))
            for p in sorted(folder.rglob("*"))
            if p.is_file() and ".locks" not in p.parts and ".cache" not in p.parts}


def _lines() -> list[list[str]]:
    starts = [["start", *a, *b, *c, *d] for a, b, c, d in itertools.product(
        [[], ["T-2"], ["t-3"], ["T-9"]], [[], ["--next"]], [[], ["--agent", "a"], ["--agent=b"], ["--agent="]],
        [[], ["--json"], ["--ttl", "30"], ["--ttl=x"], ["--root", "."]])]
    completes = [["complete", *a, *b, *c, *d] for a, b, c, d in itertools.product(
        [[], ["T-2"], ["T-4"], ["T-3"]], [[], ["--summary", "charged"], ["--summary="]],
        [[], ["--agent", "a"], ["--agent", "b"]], [[], ["--json"], ["--force"]])]
    odd = [["start", "--next", "--agent"], ["start", "--next", "--agent", "--json"], ["start", "--help"],
           ["start", "-h"], ["start", "--next", "--agent", "a", "--", "T-2"], ["start", "--nxt", "--agent", "a"],
           ["start", "T-2", "T-3", "--agent", "a"], ["start", "--next", "--next", "--agent", "a"],
           ["start", "--next", "--agent", "a", "--agent", "b"], ["start", "--next=1", "--agent", "a"],
           ["complete", "T-2", "--summary", "-x"], ["complete", "T-2", "--summary", "s", "--json", "--json"],
           ["complete", "T-2", "--summary", "a\u001b[31mred"], ["complete", "T-2", "-s", "x"]]
    return starts + completes + odd


@pytest.mark.slow
def test_every_generated_line_answers_as_click_does(tmp_path: Path) -> None:
    pristine = _plan(tmp_path / "pristine")
    run_cli_in_process("start", "T-2", "--agent", "a", cwd=pristine)  # a task in progress, with its lease
    from leafwise.commands.surfaces.cli import main as click_main

    read = 0
    for i, words in enumerate(_lines()):
        a, b = tmp_path / f"a{i}", tmp_path / f"b{i}"
        shutil.copytree(pristine, a)
        shutil.copytree(pristine, b)
        mine = _captured(direct.run, words, a)
        if not mine[3]:  # left to click: nothing done, nothing said
            assert mine[:3] == (0, "", "") and _files(a) == _files(pristine), words
            continue
        read += 1
        theirs = _captured(click_main, words, b)
        assert [STAMP.sub("T", x) if isinstance(x, str) else x for x in mine[:3]] == \
            [STAMP.sub("T", x) if isinstance(x, str) else x for x in theirs[:3]], words
        assert _files(a) == _files(b), words
        shutil.rmtree(a)
        shutil.rmtree(b)
    assert read > 150  # most lines are plain ones: the generated set tests the reader, not only click


def test_a_plain_line_is_read_as_click_places_it() -> None:
    line = direct.read(["complete", "T-2", "--summary=x y", "--agent", "a", "--json", "--root", "r", "--force"])
    assert line is not None
    spec, given, root, as_json = line
    assert (spec.name, given, root, as_json) == ("complete", {"node_id": "T-2", "summary": "x y", "agent": "a",
                                                              "force": True}, "r", True)
    for words in (["complete", "T-2", "--summary"], ["start", "--next", "--agent", "a", "--bogus"],
                  ["next"], ["cycle", "start"], ["start", "--next", "--agent", "-a"]):
        assert direct.read(words) is None, words


def test_plain_echo_prints_what_click_echo_prints_to_a_pipe() -> None:
    import click

    texts = ["plain", "", "a\u001b[31mred\u001b[0m b", "\u001b[1;2;3m\u001b[?25l x \u001b[", "\u00e9\u2192 \u001b[K"]
    for text, nl, err in itertools.product(texts, (True, False), (True, False)):
        printed = []
        for echo in (direct.plain_echo, click.echo):
            out, errs = io.BytesIO(), io.BytesIO()
            saved = sys.stdout, sys.stderr
            wrappers = (io.TextIOWrapper(out, encoding="utf-8", write_through=True),
                        io.TextIOWrapper(errs, encoding="utf-8", write_through=True))
            sys.stdout, sys.stderr = wrappers
            try:
                echo(text, nl=nl, err=err)
            finally:
                sys.stdout, sys.stderr = saved
            printed.append((out.getvalue(), errs.getvalue()))
            for wrapper in wrappers:
                wrapper.detach()
        assert printed[0] == printed[1], (text, nl, err)


def test_console_script_starts_without_click(tmp_path: Path) -> None:
    """A fresh console script on `start --next`: no click module loaded, the answer click gives."""
    root = _plan(tmp_path / "p")
    probe = ("import atexit, sys\natexit.register(lambda: sys.stderr.write('\\n[click]' if 'click' in sys.modules"
             " else '\\n[direct]'))\nfrom leafwise.commands.surfaces.entry import main\nmain()\n")
    env = {**os.environ, "LEAFWISE_AGENT": "", "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("LEAFWISE_ROOT", None)
    proc = subprocess.run([sys.executable, "-c", probe, "start", "--next", "--agent", "a", "--json"], cwd=root,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.rpartition("\n")[2] == "[direct]"
    assert json.loads(proc.stdout)["result"]["task"]["id"] == "T-2"
    again = subprocess.run([sys.executable, "-c", probe, "start", "--next", "--agent", "a", "--bogus"], cwd=root,
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert again.stderr.rpartition("\n")[2] == "[click]"  # an unknown option: click's usage answer
    assert again.returncode != 0
