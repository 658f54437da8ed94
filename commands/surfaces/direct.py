"""The agent loop's writing commands (`start`, `complete`) read without click, and every answer's printing.

An agent calls `start --next` and `complete` hundreds of times a session, and importing click and
building its command costs a fifth of such a call. A plain line of these commands (long options the
command has, each once, values that do not start with a dash, no `--`, no help) is read here into
what click would have given `cli`'s callback, and run through the same `runner.execute` and `emit`.
Any other line returns None from `read`, and the console script hands it to click (`cli.main`),
which answers usage mistakes as always.
"""

from __future__ import annotations

import codecs
import re
import sys
from typing import Any, Callable

DIRECT = frozenset({"start", "complete"})
HELP = ("-h", "--help")
# click's own pattern (click._compat._ansi_re): what click.echo strips when the stream is no terminal
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")

Echo = Callable[..., None]


def emit(env: dict[str, Any], body: list[str], *, as_json: bool, bare: str | None, echo: Echo) -> None:
    """Print an answer: the envelope as JSON, a document or a bare listing on stdout with the next
    action on stderr, or the text (`render_text`)."""
    from leafwise.commands.contract import action_lines, inert, inert_line, json_text, render_text

    if as_json:
        echo(json_text(env))
        return
    if bare == "document" and env["status"] == "ok":  # the document alone on stdout, saved as it is
        echo("\n".join(inert_line(line) for line in body))
        echo("\n".join(inert(line) for line in action_lines(env)), err=True)
        return
    if bare in ("array", "jsonl") and env["status"] == "ok":
        items = env["result"]["items"]
        if bare == "jsonl":
            for item in items:
                echo(json_text(item))
        else:
            echo(json_text(items))
        echo("\n".join(inert(line) for line in action_lines(env)), err=True)
        return
    out, err = render_text(env, body)
    if out:
        echo(out, nl=False)
    if err:
        echo(err, nl=False, err=True)


def plain_text(message: str, nl: bool = True) -> str:
    """What click.echo writes of a str to a stream that is no terminal: ANSI codes stripped."""
    return _ANSI.sub("", message + "\n" if nl else message)


def plain_echo(message: str, nl: bool = True, err: bool = False) -> None:
    """click.echo of a str to a stream that is no terminal (the only streams `read` accepts): written, flushed."""
    out = plain_text(message, nl)
    stream = sys.stderr if err else sys.stdout
    if out:
        stream.write(out)
    stream.flush()


def plain_streams() -> bool:
    """Both streams there, no terminal (click.echo keeps colours for one) and UTF-8 (click rewraps an
    ASCII stream)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "encoding", None) is None:
            return False
        try:
            if stream.isatty() or codecs.lookup(stream.encoding).name != "utf-8":
                return False
        except (LookupError, ValueError, OSError):
            return False
    return True


def read(words: list[str], served: frozenset[str] = DIRECT, *, streams: bool = True
         ) -> tuple[Any, dict[str, Any], str | None, bool] | None:
    """(the registry command, the values the line gave as click gives them, --root, --json) of a plain
    line of a `served` command (the loop server serves more than DIRECT, and checked its client's
    streams itself: `streams=False`); None for any other line (click reads it)."""
    if not words or words[0] not in served or (streams and not plain_streams()):
        return None
    from leafwise.commands.registry import REGISTRY, load_word

    if set(load_word(words[0])) != {words[0]}:
        return None
    spec = REGISTRY[words[0]]
    if spec.listing or spec.document:
        return None
    flags = {p.cli_flag: p for p in spec.params if not p.positional}
    positional = [p for p in spec.params if p.positional]
    given: dict[str, Any] = {}
    root: str | None = None
    as_json = False
    rest = iter(words[1:])
    for word in rest:
        if not word.startswith("-"):
            if not positional or positional[0].multiple:
                return None  # an extra word, or a list of them: click's to place
            given[positional.pop(0).name] = word
            continue
        flag, eq, value = word.partition("=")
        if word in HELP or flag == "--" or (flag not in flags and flag not in ("--json", "--root")):
            return None
        if flag == "--json":
            if eq or as_json:
                return None
            as_json = True
            continue
        param = flags.get(flag)
        if param is not None and param.type is bool:
            if eq or param.name in given:
                return None
            given[param.name] = True
            continue
        if not eq:
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None  # a missing value: click's usage answer
        if flag == "--root":
            if root is not None:
                return None
            root = value
        elif param.multiple:
            given[param.name] = given.get(param.name, ()) + (value,)
        elif param.name in given:
            return None
        else:
            given[param.name] = value
    return spec, given, root, as_json


def run(words: list[str]) -> bool:
    """Answer a plain line of a DIRECT command as `cli.main` would (same envelope, text and exit code);
    False, having done nothing, when click must read the line."""
    line = read(words)
    if line is None:
        return False
    spec, given, root, as_json = line
    from leafwise.commands.registry import Ctx
    from leafwise.commands.runner import execute

    try:
        outcome = execute(spec, Ctx(root=root), given, "cli", ())
        emit(outcome.envelope, outcome.text, as_json=as_json, bare=None, echo=plain_echo)
    except (EOFError, KeyboardInterrupt):
        sys.exit(1)  # click's Abort, as cli.main exits on it
    except BrokenPipeError:  # click's answer to a closed pipe: exit 1, and nothing flushed into it at exit
        import os

        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        sys.exit(1)
    sys.exit(outcome.exit_code)
