"""No private API across a boundary: no module uses another module's private names, nor a library's.

An AST scan of the source, so it names file:line and needs nothing to run:

- everywhere (store/, commands/, bench/, canvas/, tests/): no import of a private module or name
  (`from x._y import z`, `import x._y`, `from x import _y`), and no `getattr`/`setattr`/`hasattr`/
  `delattr` of a private name spelled as a string (`setattr(ts, "_yaml", ...)`);
- ruamel and the MCP SDK: every name taken from them is in its module's `__all__` when it has one;
- tests: no `X._name` where X is not `self` or `cls` (a test reads what a user or a caller could),
  except the few standard-library calls in `STDLIB_PRIVATE`;
- store/, commands/, bench/, canvas/: no private attribute of another object (`ctx._paths`,
  `screen._x`, `super()._x`), and no `self._x` / `cls._x` unless that folder's own code defines `_x`
  (assigns it or defines it): any other one is an attribute of a library's base class, its private;
- canvas: no class overrides (or shadows with its own data) a private name of its Textual base class.

Dunder names (`__name__`, `__class__`, ...) are not private, nor the namedtuple API (`_replace` ...).
No file is exempt.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import Footer
from testkit import parsed, walked

REPO = Path(__file__).resolve().parents[2]
# The standard library's underscore names a test may use: documented ones, and the two steps of the
# interpreter's own exit the CLI fork server's child takes (testkit/cli_fork.py), which have no public name.
STDLIB_PRIVATE = frozenset({("os", "_exit"), ("sys", "_getframe"), ("threading", "_shutdown"),
                            ("atexit", "_run_exitfuncs")})
OWN = frozenset({"self", "cls"})
# Underscore names that are documented public API: the namedtuple methods and fields.
DOCUMENTED = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})
SOURCE_FOLDERS = ("store", "commands", "bench", "canvas")
LIBRARIES = ("ruamel", "mcp", "mcp_types")  # names taken from them must be in their __all__
ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def sources(folder: Path) -> list[Path]:
    # a dot folder holds no code of ours (bench's checked-out evaluation repositories)
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a file's AST, parsed once per run (the scans walk each file several times)."""
    return tuple(walked(path.read_text()))


def where(path: Path, node: ast.AST, root: Path) -> str:
    return f"{path.relative_to(root)}:{node.lineno}"


def owner(node: ast.Attribute) -> str | None:
    """'self' / 'cls' for `self._x`, the module name for `os._exit`, None for anything else."""
    return node.value.id if isinstance(node.value, ast.Name) else None


def private_reads_in_tests(root: Path = REPO) -> list[str]:
    """Every `X._name` in the tests where X is not self or cls (nor an allowed stdlib call)."""
    found = []
    for path in sources(root / "tests"):
        for node in walked(path.read_text()):
            if isinstance(node, ast.Attribute) and private(node.attr):
                base = owner(node)
                if base in OWN or (base, node.attr) in STDLIB_PRIVATE:
                    continue
                found.append(f"{where(path, node, root)} {ast.unparse(node)}")
    return found


def defined(root: Path, folder: str) -> set[str]:
    """The private names a folder's own code defines: functions, class-body names, attributes it assigns."""
    names: set[str] = set()
    for path in sources(root / folder):
        for node in nodes(path):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and owner(node) in OWN:
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {n for n in names if private(n)}


def foreign_reads(root: Path, folder: str) -> list[str]:
    """Every private attribute a folder's code touches that is not its own."""
    own = defined(root, folder)
    found = []
    for path in sources(root / folder):
        for node in nodes(path):
            if not (isinstance(node, ast.Attribute) and private(node.attr)) or node.attr in DOCUMENTED:
                continue
            base = owner(node)
            if (base in OWN and node.attr in own) or (base, node.attr) in STDLIB_PRIVATE:
                continue
            why = f"not defined in {folder}/ (a library's private)" if base in OWN else "another object's private"
            found.append(f"{where(path, node, root)} {ast.unparse(node)}: {why}")
    return found


def canvas_reads(root: Path = REPO) -> list[str]:
    """Every private attribute the canvas touches that is not its own."""
    return foreign_reads(root, "canvas")


def private_imports(path: Path, root: Path) -> list[str]:
    """A file's imports of a private module or name, and its get/set/has/delattr of a private name."""
    found = []
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if any(private(part) for part in module.split(".")):
                found.append(f"{where(path, node, root)} from {module} import: a private module")
            found += [f"{where(path, node, root)} from {module} import {alias.name}: a private name"
                      for alias in node.names if private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [f"{where(path, node, root)} import {alias.name}: a private module"
                      for alias in node.names if any(private(part) for part in alias.name.split("."))]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ATTRIBUTE_CALLS
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and private(node.args[1].value)):
            found.append(f"{where(path, node, root)} {node.func.id}(..., {node.args[1].value!r}): a private name")
    return found


def library_names(path: Path, root: Path) -> list[str]:
    """Names a file takes from ruamel or the MCP SDK that are not in their module's `__all__`."""
    found = []
    for node in nodes(path):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0
                and (node.module or "").split(".")[0] in LIBRARIES):
            continue
        public = getattr(importlib.import_module(node.module or ""), "__all__", None)
        found += [f"{where(path, node, root)} from {node.module} import {alias.name}: not in its __all__"
                  for alias in node.names if public is not None and alias.name not in public]
    return found


def private_uses(root: Path, folder: str) -> list[str]:
    """Every private use the scan forbids in a folder (tests/: their own rule for attributes)."""
    found = foreign_reads(root, folder) if folder in SOURCE_FOLDERS else []
    for path in sources(root / folder):
        found += private_imports(path, root) + library_names(path, root)
    return found


@pytest.mark.parametrize("folder", [*SOURCE_FOLDERS, "tests"])
def test_no_private_use(folder):
    found = private_uses(REPO, folder)
    assert not found, "private API used (use a public name, or give the name a public home):\n" + "\n".join(found)


def body_names(cls: ast.ClassDef) -> set[str]:
    """The names a class body defines: its methods and its class attributes."""
    names: set[str] = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(item.name)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def private_overrides(tree: ast.Module, namespace: dict[str, object], label: str) -> list[str]:
    """The classes of a module (its AST and its namespace) whose body defines a name that a Textual base
    class has as a private one."""
    found = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        cls = namespace[node.name]
        assert isinstance(cls, type)
        textual = [b for b in cls.__mro__[1:] if b.__module__.split(".")[0] == "textual"]
        for name in sorted(n for n in body_names(node) if private(n)):
            if any(name in vars(b) for b in textual):
                found.append(f"{label}:{node.lineno} {node.name}.{name} overrides a Textual private")
    return found


def canvas_overrides() -> list[str]:
    """Every canvas class that overrides (or shadows) a private name of its Textual base class."""
    import leafwise.canvas

    found = []
    for info in pkgutil.walk_packages(leafwise.canvas.__path__, "leafwise.canvas."):
        module = importlib.import_module(info.name)
        path = Path(module.__file__ or "")
        found += private_overrides(parsed(path.read_text()), vars(module), str(path.relative_to(REPO)))
    return found


def test_no_test_reads_a_private_attribute():
    found = private_reads_in_tests()
    assert not found, ("tests read private attributes: use a public accessor (a read-only property on the "
                       "screen, OptionList.options, app.export_screenshot() for the screen's text):\n"
                       + "\n".join(found))


def test_the_canvas_uses_no_textual_private():
    found = canvas_reads()
    assert not found, "the canvas touches private attributes:\n" + "\n".join(found)


def test_no_canvas_class_overrides_a_textual_private():
    found = canvas_overrides()
    assert not found, "\n".join(found)


def test_the_scan_sees_what_it_forbids(tmp_path):
    """The scanner finds each kind of private use it forbids (so a green run means something)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "canvas").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import os\n"
        "def test_x(app):\n"
        "    assert app.screen._cards\n"  # line 3: foreign
        "    os._exit(0)\n"  # allowed
        "    self._fine = 1\n")
    (tmp_path / "canvas" / "app.py").write_text(
        "class A:\n"
        "    def __init__(self):\n"
        "        self._mine = 1\n"
        "    def f(self, screen):\n"
        "        self._mine\n"  # own: fine
        "        self._exit\n"  # line 6: Textual's
        "        screen._refresh_layout()\n"  # line 7: foreign
        "        super()._prune(1)\n"  # line 8: foreign
        "        return self.__class__\n")
    assert private_reads_in_tests(tmp_path) == ["tests/test_x.py:3 app.screen._cards"]
    assert [line.split(" ")[0] for line in canvas_reads(tmp_path)] == [
        "canvas/app.py:6", "canvas/app.py:7", "canvas/app.py:8"]


class Shadowing(Footer):
    """What the override scan must find (two Textual privates redefined), beside what it must not."""

    _bindings_ready = True
    _own = 1

    def _refresh_scroll(self) -> None:
        pass

    def bindings_changed(self, screen: Screen) -> None:
        pass


def test_the_wide_scan_sees_what_it_forbids(tmp_path):
    """Each private use the store/commands/bench scan forbids is found, on its line."""
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "x.py").write_text(
        "from leafwise.store._inner import thing\n"  # 1: a private module
        "from leafwise.commands.handlers.agent_loop import _held\n"  # 2: a private name
        "import textual._compositor\n"  # 3: a private module
        "from ruamel.yaml.comments import CommentedMap, Anchor\n"  # 4: Anchor is not in its __all__
        "class Own:\n"
        "    def __init__(self):\n"
        "        self._mine = 1\n"
        "    def f(self, ctx, ts, point):\n"
        "        ctx._paths = None\n"  # 9: another object's private
        "        setattr(ts, '_yaml', 1)\n"  # 10: a private name as a string
        "        self._base_private()\n"  # 11: not defined in commands/
        "        return self._mine, point._replace(x=1), getattr(ts, 'value')\n")
    assert [line.split(" ")[0] for line in private_uses(tmp_path, "commands")] == [
        "commands/x.py:9", "commands/x.py:11", "commands/x.py:1", "commands/x.py:2", "commands/x.py:3",
        "commands/x.py:10", "commands/x.py:4"]


def test_the_override_scan_sees_a_textual_private_overridden():
    here = Path(__file__)
    line = next(n.lineno for n in parsed(here.read_text()).body if isinstance(n, ast.ClassDef))
    assert private_overrides(parsed(here.read_text()), globals(), "here") == [
        f"here:{line} Shadowing._bindings_ready overrides a Textual private",
        f"here:{line} Shadowing._refresh_scroll overrides a Textual private"]
