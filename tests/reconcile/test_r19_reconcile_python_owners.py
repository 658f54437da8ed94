"""The class a Python definition sits in is found in time logarithmic in the open classes
(`python_source._Owners`), and as the rule says: the latest class before it that is less indented."""

from __future__ import annotations

import random
import time
from pathlib import Path

from leafwise.commands.reconcile import artifacts, python_source
from leafwise.commands.reconcile.artifacts import Index, Source


def _scan(text: str, rel: str = "app/owners.py") -> list:
    index = Index(Path("."), [rel])
    python_source.scan_file(index, Source(rel, text), "")
    return index.artifacts


def _oracle(lines: list[tuple[str, int, str]]) -> dict[str, str | None]:
    """Each def's owner by the rule, scanning back over every class."""
    out, classes = {}, []
    for kind, indent, name in lines:
        if kind == "class":
            classes.append((indent, name))
        else:
            out[name] = next((c for i, c in reversed(classes) if i < indent), None)
    return out


def test_owners_follow_the_rule_on_generated_layouts() -> None:
    rnd = random.Random(19)
    for _ in range(300):
        lines = [(rnd.choice(("class", "def")), rnd.randint(0, 6), f"n{k}") for k in range(rnd.randint(1, 40))]
        text = "".join(" " * indent + (f"class C{name}:\n" if kind == "class" else f"def f{name}():\n")
                       for kind, indent, name in lines)
        want = _oracle(lines)
        got = {a.name.rpartition(".")[2][1:]: (a.name.rpartition(".")[0][1:] or None) for a in _scan(text)
               if a.kind == "symbol" and a.name.rpartition(".")[2].startswith("f")}
        assert got == want, text


def test_thousands_of_classes_then_thousands_of_defs_scan_in_linear_time(monkeypatch) -> None:
    """Before, each def scanned back over every class: 11,000 classes then 11,200 defs (377 KB, under the
    scanned-code cap) cost 3.5 s per file, and twelve such committed files took reconcile 42 s. The cost of
    four times the file is about four times the cost (a quadratic rule: sixteen), whatever the machine's
    load: a ratio, not a time."""
    def file(n: int) -> str:
        return "".join(f"class K{i}:pass\n" for i in range(n)) + "".join(f"def f{i}():pass\n" for i in range(n))

    monkeypatch.setattr(artifacts, "MAX_PER_FILE", 100_000)  # every one kept: the owners are what is timed

    def cpu(n: int) -> float:
        text = file(n)
        start = time.thread_time()
        assert len(_scan(text)) >= 2 * n
        return time.thread_time() - start

    small, large = min(cpu(2750) for _ in range(3)), min(cpu(11000) for _ in range(2))
    assert large / small < 9, f"{small:.3f} s -> {large:.3f} s for four times the file"
