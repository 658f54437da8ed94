"""The domain layer is what the surfaces share: handlers are thin @command declarations over
commands/domain/, none imports another, and nothing but the registry imports a handler.

Also: every hint line is built by the typed builder (`ctx.cmd(name, *positional, **args)`), never
an f-string or a whole command line in one string, and no module writes Ctx's private fields.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from testkit import REPO, parsed

from leafwise.commands.command_params import PARAMS

HANDLERS = "leafwise.commands.handlers"


def _modules(*folders: str) -> Iterator[tuple[str, ast.Module]]:
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            if any(part.startswith(".") for part in path.relative_to(REPO / folder).parts):
                continue  # bench's checked-out evaluation repositories
            yield str(path.relative_to(REPO)), parsed(path.read_text(encoding="utf-8"))


def _imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every module an import statement names (`from a import b` names `a` and `a.b`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def _handler_imports(tree: ast.Module) -> list[str]:
    return sorted({f"{line}: {name}" for line, name in _imports(tree)
                   if name == HANDLERS or name.startswith(HANDLERS + ".")})


def test_no_handler_imports_another_handler() -> None:
    found = {where: names for where, tree in _modules("commands/handlers") if (names := _handler_imports(tree))}
    assert not found, f"a handler imports another handler module (move the shared code to commands/domain/): {found}"


def test_domain_surfaces_and_canvas_import_no_handler() -> None:
    found = {where: names for where, tree in _modules("commands/domain", "commands/surfaces", "canvas")
             if (names := _handler_imports(tree))}
    assert not found, f"imports commands.handlers (call commands/domain/ instead): {found}"


def _hint_calls(tree: ast.Module) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cmd" \
                and node.args:
            yield node


def _hand_written(call: ast.Call) -> bool:
    """A first argument built by formatting or concatenation, or a string that names no command
    (so it carries its arguments in it)."""
    first = call.args[0]
    if isinstance(first, (ast.JoinedStr, ast.BinOp)):
        return True
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value not in PARAMS


# click's own --help is no registry argument, so the builder cannot spell it
NOT_A_REGISTRY_LINE = {("commands/runner.py", "ctx.cmd(f'{command.name} --help')")}


def test_hints_are_built_from_typed_arguments() -> None:
    """`ctx.cmd(f"start {id}")` and `ctx.cmd("start X --agent a")` hand-write a command line: the
    builder cannot quote what it does not see. A lone string is fine when it names a command."""
    bad = [f"{where}:{call.lineno}: {ast.unparse(call)}"
           for where, tree in _modules("commands", "canvas") for call in _hint_calls(tree)
           if _hand_written(call) and (where, ast.unparse(call)) not in NOT_A_REGISTRY_LINE]
    assert not bad, "hint lines written by hand, not by ctx.cmd(name, *positional, **args):\n" + "\n".join(bad)


def test_the_check_sees_a_hand_written_hint() -> None:
    tree = parsed('ctx.cmd(f"show {x}")\nctx.cmd("show X --agent a")\nctx.cmd("next" + more)\n'
                     'ctx.cmd("show", x)\nctx.cmd("cycle tick")\nctx.cmd("start", agent=a, next=True)\n')
    assert [c.lineno for c in _hint_calls(tree) if _hand_written(c)] == [1, 2, 3]


def _private_writes(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Assignments to another object's `_paths` / `_plan` (a class setting its own is its business)."""
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in ("_paths", "_plan") \
                    and not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                yield node.lineno, ast.unparse(target)


def test_only_the_registry_writes_ctx_private_fields() -> None:
    """`ctx._paths = …` / `ctx._plan = …` reach into Ctx; `use_paths` and `use` are its public door."""
    bad = [f"{where}:{line}: {target}" for where, tree in _modules("commands", "canvas", "store", "bench")
           if Path(where) != Path("commands/registry.py") for line, target in _private_writes(tree)]
    assert not bad, f"writes Ctx's private fields (use Ctx.use_paths / Ctx.use): {bad}"


def test_the_check_sees_a_private_write() -> None:
    tree = parsed("ctx._paths = p\nself._paths = p\nstate.ctx._plan: Plan = plan\n")
    assert [line for line, _ in _private_writes(tree)] == [1, 3]
