"""Every hint line the builder makes reads back, through the CLI's own parser, as the command and the
arguments it was built from: for every registry command, with hostile text in every text argument.

A hint is a line an agent pastes into a shell: `shlex.split` stands for the shell, then
`surfaces.cli.parse` is what `leafwise` itself would read (click, `--root` handling included).
"""

from __future__ import annotations

import shlex
import subprocess
from typing import Any

import pytest
from leafwise.commands.contract import CommandError, placeholder
from leafwise.commands.registry import Command, Ctx, Param, command_line, load_all
from leafwise.commands.surfaces.cli import parse

REGISTRY = load_all()
HOSTILE = (
    "plain",
    "two words",
    'say "hi"',
    "it's",
    "$(touch /tmp/owned)",
    "`id`",
    "${HOME}",
    "a\\b",
    "!!",
    "-x",
    "--summary",
    "--root",
    "--",
    "-5",
    "--tag=two words",
    "<summary>",
    "semi; colon | pipe & amp > out",
    "ünïcødé ✓",
)
ROOTS = (None, "/tmp/plan dir", "/tmp/it's $(x)")


def sample(p: Param, text: str) -> Any:
    """One value of `p`'s type, `text` for a text argument."""
    if p.type is bool:
        return True
    if p.name == "agent":  # a plain name on every surface (ids.agent_problem; tests/security/test_hint_plan_text.py)
        return "bot-1"
    if p.choices:
        value: Any = p.choices[-1]
    elif p.type is int:
        value = -3 if text.startswith("-") else 7
    elif p.type is float:
        value = 1.5
    else:
        value = text
    return [value, "second"] if p.multiple and p.type is str and not p.choices else [value] if p.multiple else value


def build(spec: Command, text: str, root: str | None) -> tuple[str, dict[str, Any]]:
    """The hint line for `spec` with every argument set, and the arguments it stands for."""
    spelled = [p for p in spec.params if not p.person_only]  # a person's own act is never a hint
    args = {p.name: sample(p, text) for p in spelled}
    positional = [args.pop(p.name) for p in spelled if p.positional]
    ctx = Ctx(root=root)
    line = ctx.cmd(spec.name, *positional, **args)
    expected = {p.name: sample(p, text) for p in spelled}
    return line, {k: tuple(v) if isinstance(v, list) else v for k, v in expected.items()}


def read_back(line: str) -> tuple[str, dict[str, Any], str | None]:
    words = shlex.split(line)
    assert words[0] == "leafwise", line
    spec, args, root = parse(words[1:])
    return spec.name, args, root


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_hint_line_reads_back_as_built(name: str):
    for text in HOSTILE:
        for root in ROOTS:
            line, expected = build(REGISTRY[name], text, root)
            assert read_back(line) == (name, expected, root), line


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_real_shell_reads_every_hint_line_as_shlex_does(name: str, tmp_path):
    """`shlex.split` expands nothing; a POSIX shell does (`$(…)`, `${…}`, backquotes inside double quotes).
    Each line, its `leafwise` swapped for the shell's own printf, must print the very words shlex reads:
    with no PATH and a HOME no value names, an expansion shows as a changed word, and runs nothing."""
    lines = [build(REGISTRY[name], text, root)[0] for text in HOSTILE for root in ROOTS]
    script = "".join(f"printf '%s\\0' {line.removeprefix('leafwise ')}; printf '\\1\\0'\n" for line in lines)
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True, env={"PATH": str(tmp_path), "HOME": "/nowhere"},
                         timeout=60).stdout.decode("utf-8", "surrogateescape")
    said = [chunk.split("\0")[:-1] for chunk in out.split("\1\0")[:-1]]
    assert len(said) == len(lines)
    for line, words in zip(lines, said):
        assert words == shlex.split(line)[1:], line


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_left_out_values_are_not_on_the_line(name: str):
    """None and False leave nothing; the line is the command alone (with its --root)."""
    spec = REGISTRY[name]
    args = {p.name: (False if p.type is bool else None) for p in spec.params}
    line = Ctx(root="/r").cmd(name, **args)
    assert line == f"leafwise {name} --root /r"
    if not any(p.required for p in spec.params):
        assert read_back(line) == (name, {}, "/r")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_placeholder_is_quoted_once(name: str):
    """A text placeholder reads back as `<name>`; a number's is the bare word `<name>`."""
    spec = REGISTRY[name]
    params = [p for p in spec.params if not p.person_only]  # a person's own act is never a hint
    texts = {p.name: placeholder(p.name) for p in params if p.type is str and not p.choices}
    others = {p.name: sample(p, "") for p in params if p.required and p.name not in texts}
    positional = [texts.pop(p.name) for p in params if p.positional and p.name in texts]
    line = command_line(name, *positional, **texts, **others)
    expected = {p.name: (f"<{p.name}>",) if p.multiple else f"<{p.name}>"
                for p in params if p.type is str and not p.choices} | others
    assert read_back(line) == (name, expected, None), line
    assert "'" not in line and '""' not in line, line
    for p in params:
        if p.type in (int, float):
            assert command_line(name, **{p.name: placeholder("N")}).endswith(f"{p.cli_flag} <N>")


def test_the_documented_example():
    line = Ctx().cmd("complete", "SHOP-7", summary=placeholder("summary"), agent="mcp-1")
    assert line == 'leafwise complete SHOP-7 --summary "<summary>" --agent mcp-1'


def test_a_text_that_reads_as_an_option_goes_after_the_end_of_options():
    line = Ctx(root="/r").cmd("add", "--force", parent="E-1")
    assert line == "leafwise add --parent E-1 --root /r -- --force"
    assert read_back(line) == ("add", {"title": "--force", "parent": "E-1"}, "/r")


def test_a_value_on_two_lines_reads_back_as_one():
    """Hidden characters and line breaks are made visible (`contract.clean`), never sent raw."""
    line = command_line("block", "T-1", reason="one\ntwo\x1b[31m")
    assert read_back(line) == ("block", {"node_id": "T-1", "reason": "one two␛[31m"}, None)


def test_an_empty_text_reads_back_as_not_given():
    """On every surface "" is no value: a required one is missing (see test_argument_messages.py)."""
    line = command_line("block", "T-1", reason="")
    assert line == 'leafwise block T-1 --reason ""'
    with pytest.raises(CommandError, match="missing 'reason'"):
        read_back(line)


@pytest.mark.parametrize("call", [
    lambda: command_line("no-such-command", "x"),
    lambda: command_line("complete", "T-1", sumary="typo"),
    lambda: command_line("complete", "T-1", "T-2"),
    lambda: command_line("complete", "T-1", node_id="T-1"),
    lambda: command_line("add", "t", tag=3.5j),
    lambda: command_line("add", "t", force="yes"),
    lambda: command_line("complete", "T-1", summary=["a", "b"]),
])
def test_a_wrong_call_is_a_programming_error(call):
    with pytest.raises(ValueError):
        call()


def test_the_one_string_form_still_works():
    ctx = Ctx(root="/r")
    assert ctx.cmd('complete T-1 --summary "<summary>"') == 'leafwise complete T-1 --summary "<summary>" --root /r'
    assert ctx.cmd("add -- -x") == "leafwise add --root /r -- -x"
    assert ctx.cmd("next") == "leafwise next --root /r"
    assert ctx.cmd("cycle start") == "leafwise cycle start --root /r"
