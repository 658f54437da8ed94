"""A scalar edit written as text (store/scalar_edit.py, under `writer.scalar_edits()`) gives the bytes
ruamel's round trip gives: for generated node files (plain ones and every shape the text path
declines: comments, blank lines, quotes, block lists, headers) and generated edits (statuses,
summaries that need quoting or not, a cleared key, times), `edit_node` inside the context writes
what it writes outside it, or refuses alike."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from testkit import write_plan

from leafwise.store import scalar_edit
from leafwise.store.paths import find_root
from leafwise.store.safe_yaml import parse_yaml
from leafwise.store.writer import edit_node, scalar_edits

WORDS = ["done", "in-progress", "a", "charged the cards", "Fix: the retry", "yes", "No", "on", "123", "1.5",
         "2026-01-01", "x" * 1200, " leading", "trailing ", "two  spaces", "é accent", "it's", 'say "hi"',
         "#tag", "a # b", "[list]", "{map}", "- dash", "null", "~", "True", "v1.2/beta+rc (2)", "- ", "a:b",
         "agent-7", "reviewed (twice)", "", "multi\nline"]
TIMES = ["2026-01-22T09:00:00Z", "2026-01-22 09:00:00", "2026-01-22"]


PLAIN = ["null", "draft", "Charge cards (payments 10)", "[T-2, T-3]", "[]", "3", "2026-01-22T09:00:00Z", "R1"]


def _value(rng: random.Random, plain: bool) -> str:
    if plain:
        return rng.choice(PLAIN)
    return rng.choice(["null", "", "draft", "Charge cards (payments 10)", "'quoted: colon'", '"double: colon"',
                       "[T-2, T-3]", "[]", "3", "010", "yes", rng.choice(TIMES), "~", "'it''s'", "plain # comment"])


def _file(rng: random.Random) -> str:
    plain = rng.random() < 0.4  # the shape Leafwise writes: most files take the text path
    title = rng.choice(["Charge cards", '"Payments: coupons"', "Refund (10)"])
    lines = ["id: T-1", f"title: {title}",
             "status: " + rng.choice(["draft", "in-progress", "blocked", '"draft"'])]
    for key in rng.sample(["parent", "release", "assignee", "created", "updated", "summary", "blocked_reason",
                           "priority", "tags", "depends_on", "docs"], rng.randint(0, 8)):
        if key in ("tags", "depends_on", "docs") and rng.random() < 0.4:
            indent = rng.choice(["  ", ""])
            lines += [f"{key}:", f"{indent}- T-{rng.randint(2, 9)}", f"{indent}- T-{rng.randint(2, 9)}"]
            continue
        value = {"parent": "T-9", "release": "R1", "created": rng.choice(TIMES), "updated": rng.choice(TIMES),
                 "priority": rng.choice(["high", "3", "low"])}.get(key) or _value(rng, plain)
        lines.append(f"{key}: {value}".rstrip() if rng.random() < 0.9 else f"{key}:")
    roll = 1.0 if plain else rng.random()
    if roll < 0.05:
        lines.insert(rng.randint(1, len(lines)), "# a person's note")
    elif roll < 0.1:
        lines.insert(rng.randint(1, len(lines)), "")
    elif roll < 0.12:
        lines.insert(0, "---")
    text = "\n".join(lines) + "\n"
    return text.replace("\n", "\r\n") if not plain and rng.random() < 0.02 else text


def _edit(rng: random.Random):
    values: dict = {}
    for key in rng.sample(["status", "summary", "assignee", "blocked_reason", "updated", "tags"], rng.randint(1, 4)):
        if key == "updated":
            values[key] = datetime(2026, 12, 3, 6, 0, tzinfo=timezone.utc) + timedelta(seconds=rng.randint(0, 10**6))
        elif key == "blocked_reason":
            values[key] = rng.choice([None, "waits for the API"])
        elif key == "status":
            values[key] = rng.choice(["done", "in-progress", "draft", "cancelled"])
        elif key == "tags":
            values[key] = None  # cleared; a list is not a scalar edit
        else:
            values[key] = rng.choice(WORDS)
    drop = rng.random() < 0.05

    def edit(doc: dict) -> None:
        for key, value in values.items():
            if doc.get(key) != value or key not in doc:
                doc[key] = value
        if drop and "priority" in doc:
            del doc["priority"]

    return edit


def _written(root: Path, text: str, edit, scalar: bool) -> bytes | str:
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    path.write_bytes(text.encode())
    try:
        if scalar:
            with scalar_edits():
                edit_node(find_root(explicit=root), "T-1", None, edit)
        else:
            edit_node(find_root(explicit=root), "T-1", None, edit)
    except Exception as exc:  # noqa: BLE001 - both ways must refuse alike
        return type(exc).__name__
    return path.read_bytes()


def _text_path(text: str, edit) -> bool:
    """Whether the writer's text path (not its round-trip fallback) writes this edit of this file."""
    try:
        before = parse_yaml(text)
    except Exception:  # noqa: BLE001 - a file the loader refuses: the writer refuses it too
        return False
    if not isinstance(before, dict):
        return False
    doc = dict(before)
    edit(doc)
    changed = [k for k in doc if k not in before or doc[k] != before[k]]
    return set(before) <= set(doc) and scalar_edit.rewrite(text, doc, changed) is not None


@pytest.mark.slow
def test_scalar_edits_write_the_round_trips_bytes(tmp_path: Path) -> None:
    root = write_plan(tmp_path / "p", {"T-9": "id: T-9\ntitle: Epic\nstatus: draft\n"})
    rng = random.Random(25)
    taken = 0
    for _ in range(800):
        text, edit = _file(rng), _edit(rng)
        ruamel = _written(root, text, edit, scalar=False)
        mine = _written(root, text, edit, scalar=True)
        assert mine == ruamel, text
        taken += _text_path(text, edit)
    assert taken > 120  # the text path itself was compared, not only the fallback


def test_plain_shape_and_rendering() -> None:
    assert scalar_edit.plain_shape("id: T-1\ntitle: \"A: b\"\nstatus: draft\ntags:\n  - x\n")
    for text in ("id: T-1\n# note\n", "id: T-1\n\nstatus: draft\n", "---\nid: T-1\n", "id: T-1", "id: T-1\r\n",
                 "id: T-1\nflag: yes\n", "id: T-1\ntags: [on, b]\n", "id: T-1\ntitle: a: b\n"):
        assert not scalar_edit.plain_shape(text), text
    assert scalar_edit.render("charged the cards") == "charged the cards"
    assert scalar_edit.render(datetime(2026, 12, 3, 6, 0, tzinfo=timezone.utc)) == "2026-12-03T06:00:00Z"
    assert scalar_edit.render(None) == "null"
    for value in ("yes", "123", "a: b", " x", "x ", "é", 3, True, ["a"], "x" * 1001):
        assert scalar_edit.render(value) is None, value
