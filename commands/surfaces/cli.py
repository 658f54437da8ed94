"""The command line, generated from the registry (click).

`leafwise` alone opens the canvas; `demo` and `mcp` are launchers; everything
else is a registry command answering with the envelope (text or `--json`).
"""

from __future__ import annotations

import sys
from typing import Any

import click
from leafwise.commands.contract import EXIT_USAGE, CommandError, envelope, fix
from leafwise.commands.arguments import Mistake, check, missing, mistakes, refusal
from leafwise.commands.registry import LAUNCHERS, REGISTRY, Command, Ctx, Param, command_line, load_all, load_word
from leafwise.commands.runner import execute
from leafwise.commands.surfaces.direct import emit

CLOCK: list[Any] = []  # a simulation running the CLI in-process sets its clock here; empty: the wall clock


def _emit(env: dict[str, Any], body: list[str], *, as_json: bool, bare: str | None) -> None:
    emit(env, body, as_json=as_json, bare=bare, echo=click.echo)


METAVARS = {str: "TEXT", int: "INTEGER", float: "FLOAT"}
HELP = ["-h", "--help"]


def _click_command(spec: Command, leaf_name: str) -> click.Command:
    """The click command of a registry command. Click only places the words (every value a string,
    nothing required, unknown options and extra words kept aside); `arguments.check`, through
    `execute`, then reads them as on every surface: one check, one message per mistake."""
    params: list[click.Parameter] = []
    for p in spec.params:
        complete = _completer(p)
        if p.positional:
            params.append(click.Argument([p.name], required=False, nargs=-1 if p.multiple else 1,
                                         shell_complete=complete))
            continue
        if p.type is bool:
            params.append(click.Option([p.cli_flag, p.name], is_flag=True, default=False, help=p.help))
            continue
        metavar = f"[{'|'.join(p.choices)}]" if p.choices else METAVARS[p.type]
        params.append(click.Option([p.cli_flag, p.name], multiple=p.multiple, metavar=metavar,
                                   help=p.help + (" (required)" if p.required else ""), show_default=False,
                                   shell_complete=complete))
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="print the JSON envelope"))
    params.append(click.Option(["--root"], type=str, default=None, help="the plan's folder"))
    if spec.listing:
        params.append(click.Option(["--bare"], is_flag=True, help="a bare JSON array (hint on stderr)"))
        params.append(click.Option(["--jsonl"], is_flag=True, help="one JSON object per line (hint on stderr)"))

    def callback(as_json: bool, root: str | None, bare: bool = False, jsonl: bool = False, **kwargs: Any) -> None:
        ctx = Ctx(root=root, clock=CLOCK[0]) if CLOCK else Ctx(root=root)
        here = click.get_current_context()
        outcome = execute(spec, ctx, _given(here, kwargs), "cli", here.args)
        _emit(outcome.envelope, outcome.text, as_json=as_json,
              bare=("jsonl" if jsonl else "array" if bare else None) if spec.listing else
              "document" if spec.document else None)
        sys.exit(outcome.exit_code)

    return click.Command(leaf_name, params=params, callback=callback, help=spec.summary, short_help=spec.summary,
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True})


def _completer(p: Param) -> Any:
    """What the shell completes for a param: its choices, node ids, release names (the lookups live in
    `completion.py`, imported only when the shell asks), else nothing of ours."""
    if p.choices:
        return lambda _ctx, _param, incomplete: [c for c in p.choices if c.startswith(incomplete)]
    if p.name in ("node_id", "parent", "depends_on", "follows", "node"):
        return lambda ctx, param, incomplete: _completion().node_ids(ctx, param, incomplete)
    if p.name in ("release", "release_id", "after", "before"):
        return lambda ctx, param, incomplete: _completion().releases(ctx, param, incomplete)
    return None


def _completion() -> Any:
    from leafwise.commands.surfaces import completion

    return completion


def _given(here: click.Context, values: dict[str, Any]) -> dict[str, Any]:
    """The values the line gave (not click's defaults)."""
    return {name: value for name, value in values.items()
            if here.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE}


def _tree(specs: dict[str, Command], depth: int = 0) -> dict[str, Any]:
    """{word: Command | nested dict} from command names split into words."""
    tree: dict[str, Any] = {}
    for name, spec in sorted(specs.items()):
        words = name.split()
        node = tree
        for word in words[:-1]:
            node = node.setdefault(word, {})
        node[words[-1]] = spec
    return tree


def _click_node(word: str, node: Command | dict[str, Any]) -> click.Command:
    if isinstance(node, Command):
        return _click_command(node, word)
    group = click.Group(word, help=f"{word} commands")
    for sub, child in node.items():
        group.add_command(_click_node(sub, child))
    return group


def _launchers() -> dict[str, click.Command]:
    return {
        "canvas": click.Command("canvas", callback=_launch_canvas, help=LAUNCHERS["canvas"].summary,
                                params=[click.Option(["--root"], default=None),
                                        click.Option(["--follow"], is_flag=True,
                                                     help="follow the team's remote: other clones' claims live"),
                                        click.Option(["--every"], type=float, default=None,
                                                     help="seconds between polls of the remote (with --follow)")]),
        "demo": click.Command("demo", callback=_launch_demo, help=LAUNCHERS["demo"].summary,
                              params=[click.Option(["--speed"], type=float, default=1.0,
                                                   help="seconds between agent steps"),
                                      click.Option(["--no-agent"], is_flag=True, help="only open the demo plan")]),
        "mcp": click.Command("mcp", callback=_launch_mcp, help=LAUNCHERS["mcp"].summary,
                             params=[click.Option(["--root"], default=None),
                                     click.Option(["--http"], is_flag=False, flag_value="127.0.0.1:8765",
                                                  default=None, metavar="[HOST:PORT]",
                                                  help="streamable HTTP instead of stdio (default 127.0.0.1:8765)"),
                                     click.Option(["--allow-host"], multiple=True, metavar="NAME",
                                                  help="a host name clients may use besides loopback (with --http)"),
                                     click.Option(["--max-sessions"], type=int, default=None, metavar="N",
                                                  help="MCP sessions open at once (with --http; default 64)")]),
        "serve": click.Command("serve", callback=_launch_serve, help=LAUNCHERS["serve"].summary,
                               params=[click.Option(["--root"], default=None),
                                       click.Option(["--port"], type=int, default=8000, help="the port on 127.0.0.1"),
                                       click.Option(["--follow"], is_flag=True,
                                                    help="follow the team's remote in the served canvas"),
                                       click.Option(["--every"], type=float, default=None,
                                                    help="seconds between polls of the remote (with --follow)"),
                                       click.Option(["--max-tabs"], type=int, default=4,
                                                    help="browser tabs open at once (each runs a canvas)")]),
    }


class LazyGroup(click.Group):
    """The root group: builds only the command asked for, importing only its module."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({name.split()[0] for name in load_all()} | set(_launchers()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        launchers = _launchers()
        if cmd_name in launchers:
            return launchers[cmd_name]
        tree = _tree(load_word(cmd_name))
        return _click_node(cmd_name, tree[cmd_name]) if cmd_name in tree else None

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = closest_command(name, self.list_commands(ctx))
            raise click.UsageError(f"no command {name!r}" + (f"; did you mean {close}?" if close else ""))
        return super().resolve_command(ctx, args)


# Words other trackers use for what a Leafwise command does.
SYNONYMS = {"status": "context", "stat": "context", "search": "list", "ls": "list", "info": "show", "view": "show",
            "finish": "complete", "done": "complete"}


def closest_command(word: str, names: list[str]) -> str | None:
    """The command a mistyped word likely means: a synonym, else the closest name, where a command that
    changes the plan must be one slip away (`strat`, `compelte`), never a different word that looks
    alike (`state` is not `start`)."""
    import difflib

    if word in SYNONYMS:
        return SYNONYMS[word]
    matcher = difflib.SequenceMatcher(a=word)
    scored = []
    for name in names:
        matcher.set_seq2(name)
        spec = REGISTRY.get(name)
        if matcher.ratio() >= 0.6 and not (spec is not None and spec.mutating and _slips(word, name) > 1):
            scored.append((matcher.ratio(), name))
    return max(scored)[1] if scored else None


def _slips(a: str, b: str) -> int:
    """Edits from `a` to `b`: an insertion, a deletion, a change or two letters swapped count one each."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def build() -> click.Group:
    @click.pass_context
    def open_canvas(ctx: click.Context, root_opt: str | None = None) -> None:
        if ctx.invoked_subcommand is None:
            sys.exit(LAUNCHERS["canvas"].load()(root_opt))

    def show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            from importlib.metadata import PackageNotFoundError, version

            try:
                click.echo(f"leafwise {version('leafwise')}")
            except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
                click.echo("leafwise (source tree)")
            # the next action on stderr: `leafwise --version > VERSION` keeps only the version
            click.echo("Next: leafwise commands", err=True)
            ctx.exit(0)

    return LazyGroup("leafwise", invoke_without_command=True, callback=open_canvas,
                     context_settings={"help_option_names": HELP},
                     params=[click.Option(["--root", "root_opt"], default=None, help="the plan's folder"),
                             click.Option(["--version"], is_flag=True, expose_value=False, is_eager=True,
                                          callback=show_version, help="print the version")],
                     help="A project plan in YAML that AI coding agents drive and humans watch live.")


def _launch_canvas(root: str | None, follow: bool = False, every: float | None = None) -> None:
    if follow or every is not None:
        sys.exit(LAUNCHERS["canvas"].load()(root, follow=True, every=every))
    sys.exit(LAUNCHERS["canvas"].load()(root))


def _launch_demo(speed: float, no_agent: bool) -> None:
    sys.exit(LAUNCHERS["demo"].load()(speed=speed, agent=not no_agent))


def _launch_mcp(root: str | None, http: str | None = None, allow_host: tuple[str, ...] = (),
                max_sessions: int | None = None) -> None:
    if http is not None:
        import importlib  # by name, as the launchers: mcp_http imports mcp_server, which imports this module

        served = importlib.import_module("leafwise.commands.surfaces.mcp_http")
        cap = served.DEFAULT_MAX_SESSIONS if max_sessions is None else max_sessions
        sys.exit(served.serve_http(root, http, allow_host, cap))
    if allow_host or max_sessions is not None:
        raise click.UsageError("--allow-host and --max-sessions go with --http")
    LAUNCHERS["mcp"].load()(root)


def _launch_serve(root: str | None, port: int, follow: bool, every: float | None = None, max_tabs: int = 4) -> None:
    sys.exit(LAUNCHERS["serve"].load()(root, port=port, follow=follow or every is not None, every=every,
                                       max_tabs=max_tabs))


def _command_path(cli: click.Group, argv: list[str]) -> list[str]:
    """The words of argv that name a real (sub)command, e.g. ["cycle", "start"]."""
    path: list[str] = []
    current: click.Command | None = cli
    for word in argv:
        if word.startswith("-") or not isinstance(current, click.Group):
            break
        current = current.get_command(click.Context(current), word)
        if current is None:
            break
        path.append(word)
    return path


def _usage_error(cli: click.Group, argv: list[str], exc: click.ClickException) -> int:
    path = " ".join(_command_path(cli, argv))
    spec = REGISTRY.get(path)
    if spec is not None:  # an option without its value: the line again, a placeholder where it went wrong
        given, wrong = _given_leniently(spec, root_last(argv)[len(path.split()):], exc)
        right, _ = mistakes(spec, given, "cli")
        mistake = missing(wrong) if wrong else Mistake("usage", exc.format_message())
        err = refusal(spec, mistake, right, command_line)
    else:
        err = CommandError("usage", exc.format_message(),
                           fix(f"leafwise {path} --help" if path else "leafwise commands", "see the command's arguments"),
                           exit_code=EXIT_USAGE, category="usage", source=("command", path or None))
    env = envelope(f"leafwise {path}".strip(), err)
    _emit(env, [], as_json="--json" in argv, bare=None)
    return EXIT_USAGE


def _given_leniently(spec: Command, words: list[str], exc: click.ClickException) -> tuple[dict[str, Any], Param | None]:
    """What a line that click refused did give (the option it refused left out), and that option's Param."""
    flags = {p.cli_flag: p for p in spec.params}
    bad = getattr(exc, "option_name", None)
    words = [w for w in words if w != bad]
    try:
        with _click_command(spec, spec.name).make_context(spec.name, words, resilient_parsing=True) as here:
            given = _given(here, here.params)
    except click.ClickException:
        given = {}
    return given, flags.get(bad or "")


def root_last(argv: list[str]) -> list[str]:
    """`--root PATH` before or among the command's words (`leafwise --root P next`) moved after them,
    where the command itself takes it. Only the leading words are looked at: after the first other
    option or `--`, a `--root` is an option's value or a positional word, and stays as it is."""
    words: list[str] = []
    root: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--root" and i + 1 < len(argv):
            root = ["--root", argv[i + 1]]
            i += 2
        elif word.startswith("--root="):
            root = ["--root", word.split("=", 1)[1]]
            i += 1
        elif word.startswith("-"):
            break
        else:
            words.append(word)
            i += 1
    if not root:
        return argv
    rest = argv[i:]
    if not words and not [w for w in rest if not w.startswith("-")]:
        return root + rest  # `leafwise --root P`: the canvas on that plan
    cut = rest.index("--") if "--" in rest else len(rest)  # options go before the end-of-options mark
    return words + rest[:cut] + root + rest[cut:]


def parse(words: list[str]) -> tuple[Command, dict[str, Any], str | None]:
    """What the CLI reads in a command line's words after `leafwise`, without running it: the registry
    command, the arguments as its handler would get them (`arguments.check`), and the line's --root.
    Raises click.ClickException or the usage CommandError where `main` would report a usage error."""
    argv = root_last(list(words))
    cli = build()
    path = _command_path(cli, argv)
    spec = REGISTRY.get(" ".join(path))
    if spec is None:
        raise click.UsageError(f"no command in {words!r}")
    words = argv[len(path):]
    # resilient: click calls no callback, so `--help` prints nothing (on MCP's stdio too)
    with _click_command(spec, path[-1]).make_context(" ".join(path), list(words), resilient_parsing=True,
                                                     help_option_names=HELP) as here:
        given = _given(here, here.params)
        extra = list(here.args)
    values = {v for value in given.values() for v in (value if isinstance(value, tuple) else [value])}
    if any(w in HELP and w not in values for w in words):
        raise click.UsageError(f"{' '.join(path)} --help asks for help: it runs nothing")
    root = given.pop("root", None)
    given = {k: v for k, v in given.items() if k not in ("as_json", "bare", "jsonl")}
    return spec, check(spec, given, command_line, "cli", extra), root


def main(argv: list[str] | None = None) -> None:
    argv = root_last(list(sys.argv[1:] if argv is None else argv))
    cli = build()
    try:
        cli.main(args=argv, prog_name="leafwise", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:  # a bare group like `leafwise cycle`
        click.echo(exc.ctx.get_help() if exc.ctx else "")
        click.echo("Next: leafwise commands")
        sys.exit(0)
    except click.ClickException as exc:
        sys.exit(_usage_error(cli, argv, exc))
    except click.exceptions.Abort:
        sys.exit(1)
    sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
