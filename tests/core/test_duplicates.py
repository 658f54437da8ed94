"""The near-duplicate rule (commands/core/duplicates.py) measured on hand-labelled backlog pairs.

The pairs were labelled before the rule was written; the holdout half never guided it, so its numbers are
the honest ones. Precision matters most: a refused add stops ordinary breakdown of work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leafwise.commands.core.duplicates import find, same_work

PAIRS = json.loads((Path(__file__).parent / "data" / "duplicate_pairs.json").read_text(encoding="utf-8"))["pairs"]


def scores(split: str) -> tuple[float, float]:
    chosen = [p for p in PAIRS if p["split"] == split]
    said = [(find(p["new"], [("X-1", p["existing"])]) is not None, p["duplicate"]) for p in chosen]
    tp = sum(got and want for got, want in said)
    fp = sum(got and not want for got, want in said)
    fn = sum(want and not got for got, want in said)
    return tp / (tp + fp), tp / (tp + fn)


def test_the_labels_cover_both_halves_and_every_relation() -> None:
    assert len(PAIRS) >= 40
    for split in ("dev", "holdout"):
        half = [p for p in PAIRS if p["split"] == split]
        assert len(half) >= 20 and any(p["duplicate"] for p in half) and not all(p["duplicate"] for p in half)
    assert {p["relation"] for p in PAIRS} == {"parent", "ancestor", "sibling", "other"}


@pytest.mark.parametrize(("split", "precision", "recall"), [("dev", 1.0, 0.9), ("holdout", 0.9, 0.8)])
def test_precision_and_recall_on_labelled_pairs(split: str, precision: float, recall: float) -> None:
    p, r = scores(split)
    assert p >= precision and r >= recall, (split, p, r)


def test_no_child_repeats_the_ancestor_whose_topic_it_names() -> None:
    for pair in PAIRS:
        if pair["relation"] in ("parent", "ancestor"):
            assert same_work(pair["new"], pair["existing"]) is None, pair


@pytest.mark.parametrize(("new", "existing", "why"), [
    ("Add CSV exports", "Add CSV export", "the same words"),
    ("Export orders to CSV", "Export orders as CSV", "the same words"),
    ("Log in with SSO", "Login with SSO", "the same letters"),
    ("Colour output on Windows", "Color output on Windows", "the same words but colour ~ color"),
])
def test_real_duplicates_say_why(new: str, existing: str, why: str) -> None:
    assert same_work(new, existing) == why


def test_the_distinguishing_word_keeps_siblings_apart() -> None:
    siblings = [("CLK-2", "Bash shell completion"), ("CLK-3", "Zsh shell completion"), ("CLK-1", "Shell completion")]
    for title in ("Fish shell completion", "PowerShell completion", "Nushell shell completion", "Bast shell completion"):
        assert find(title, siblings) is None, title
    assert find("bash  shell completions", siblings) == find("Bash Shell-Completion", siblings) != None  # noqa: E711
    assert find("Support Python 3.14", [("P-1", "Support Python 3.13")]) is None


def test_a_title_of_little_words_only_still_compares() -> None:
    assert same_work("To do", "to do") == "the same words"
    assert same_work("To do", "As is") is None
