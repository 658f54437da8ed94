"""No private API across a boundary (issue 12): the canvas uses Textual's public API only, and the tests
read no private attribute.

An AST scan of the source, so it names file:line and needs nothing to run:

- tests: no `X._name` where X is not `self` or `cls` (a test reads what a user or a caller could),
  except the few standard-library calls in `STDLIB_PRIVATE`;
- canvas: no private attribute of another object (`screen._x`, `self.app._x`, `widget._x`,
  `super()._x`), and no `self._x` / `cls._x` unless the canvas's own code defines `_x` (assigns it or
  defines it): any other one is an attribute of a Textual base class, that is, a Textual private;
- canvas: no class overrides (or shadows with its own data) a private name of its Textual base class.

Dunder names (`__name__`, `__class__`, …) are not private.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

from textual.screen import Screen
from textual.widgets import Footer

REPO = Path(__file__).resolve().parents[2]
# The standard library's documented underscore names a test may use.
STDLIB_PRIVATE = frozenset({("os", "_exit"), ("sys", "_getframe")})
OWN = frozenset({"self", "cls"})


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def where(path: Path, node: ast.AST, root: Path) -> str:
    return f"{path.relative_to(root)}:{node.lineno}"


def owner(node: ast.Attribute) -> str | None:
    """'self' / 'cls' for `self._x`, the module name for `os._exit`, None for anything else."""
    return node.value.id if isinstance(node.value, ast.Name) else None


def private_reads_in_tests(root: Path = REPO) -> list[str]:
    """Every `X._name` in the tests where X is not self or cls (nor an allowed stdlib call)."""
    found = []
    for path in sources(root / "tests"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and private(node.attr):
                base = owner(node)
                if base in OWN or (base, node.attr) in STDLIB_PRIVATE:
                    continue
                found.append(f"{where(path, node, root)} {ast.unparse(node)}")
    return found


def canvas_defined(root: Path) -> set[str]:
    """The private names the canvas's own code defines: functions, class-body names, attributes it assigns."""
    names: set[str] = set()
    for path in sources(root / "canvas"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and owner(node) in OWN:
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {n for n in names if private(n)}


def canvas_reads(root: Path = REPO) -> list[str]:
    """Every private attribute the canvas touches that is not its own."""
    own = canvas_defined(root)
    found = []
    for path in sources(root / "canvas"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Attribute) and private(node.attr)):
                continue
            base = owner(node)
            if base in OWN and node.attr in own:
                continue
            why = "not defined by the canvas (a Textual private)" if base in OWN else "another object's private"
            found.append(f"{where(path, node, root)} {ast.unparse(node)}: {why}")
    return found


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
        found += private_overrides(ast.parse(path.read_text()), vars(module), str(path.relative_to(REPO)))
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


def test_the_override_scan_sees_a_textual_private_overridden():
    here = Path(__file__)
    line = next(n.lineno for n in ast.parse(here.read_text()).body if isinstance(n, ast.ClassDef))
    assert private_overrides(ast.parse(here.read_text()), globals(), "here") == [
        f"here:{line} Shadowing._bindings_ready overrides a Textual private",
        f"here:{line} Shadowing._refresh_scroll overrides a Textual private"]
