"""`commands/command_params.py` is the registry's params as hint lines spell them, generated.

The hint builder reads it for a command whose handler module is not loaded, so `leafwise next`
imports no other handler module to name `validate` or `decide` in a hint. This test proves the
table equal to the registry; regenerate it with `python tests/contract/test_command_params.py`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from leafwise.commands import command_params
from leafwise.commands.registry import load_all

TABLE = Path(command_params.__file__)
HEAD = '''"""Each registry command's params as a hint's command line spells them: (name, type, CLI flag or
None for a positional, multiple), in param order.

Generated from the registry by `python tests/contract/test_command_params.py`, which as a test proves
this table equal to the registry. `registry.command_line` reads it only for a command whose handler
module is not loaded, so a hint names any command without importing its module.
"""

from __future__ import annotations

PARAMS: dict[str, tuple[tuple[str, str, str | None, bool], ...]] = {
'''


def rows() -> dict[str, tuple[tuple[str, str, str | None, bool], ...]]:
    return {name: tuple((p.name, p.type.__name__, None if p.positional else p.cli_flag, p.multiple)
                        for p in spec.params)
            for name, spec in sorted(load_all().items())}


def literal(value: object) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def render() -> str:
    lines = [HEAD]
    for name, params in rows().items():
        if not params:
            lines.append(f"    {literal(name)}: (),\n")
            continue
        lines.append(f"    {literal(name)}: (\n")
        lines += [f"        ({', '.join(map(literal, row))}),\n" for row in params]
        lines.append("    ),\n")
    lines.append("}\n")
    return "".join(lines)


def test_the_table_is_the_registry():
    assert command_params.PARAMS == rows(), "run: python tests/contract/test_command_params.py"


def test_the_file_is_as_generated():
    assert TABLE.read_text() == render(), "run: python tests/contract/test_command_params.py"


if __name__ == "__main__":
    TABLE.write_text(render())
    sys.exit(0)
