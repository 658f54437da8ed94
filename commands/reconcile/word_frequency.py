"""General-English word frequency on the Zipf scale: wordfreq's English list, read without importing wordfreq.

Importing wordfreq costs 0.7-1.2 s (langcodes, ftfy, regex) and its first lookup 0.8 s more (it builds a
321,000-word dict in a Python loop); reconcile's child process pays that at every scan and every evidence
packet. The list itself is a gzipped msgpack of words bucketed by frequency (wordfreq's "cBpack": bucket i
holds the words at -i centibels), so a plain lowercase word is answered here from that file in about 0.1 s
at first use, with wordfreq's own rounding; any other text goes to wordfreq, whose tokenizer decides what
a word is there. `tests/reconcile/test_word_frequency.py` holds the two to the same answers.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
import zlib
from functools import lru_cache
from itertools import chain, repeat
from pathlib import Path
from typing import Callable

from leafwise.store import reader

LIST = reader.Kind("wordfreq's English word list", 16 * reader.MiB, 1)
MISSING = 0.0  # zipf_frequency's answer for a word the list does not hold (its default minimum)


@lru_cache(maxsize=1)
def _buckets() -> dict[str, int] | None:
    """word -> its bucket (centibels below 1), or None when wordfreq or its list is not installed."""
    import msgpack

    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "large_en.msgpack.gz"
    try:
        packed = msgpack.unpackb(gzip.decompress(reader.read_capped(path, LIST)), raw=False)
    except (OSError, ValueError, EOFError, zlib.error, msgpack.UnpackException):
        return None
    if not (isinstance(packed, list) and packed and packed[0] == {"format": "cB", "version": 1}):
        return None
    lists = packed[1:]
    # the last bucket that holds a word wins, as in wordfreq.get_frequency_dict
    return dict(zip(chain.from_iterable(lists), chain.from_iterable(repeat(i, len(b)) for i, b in enumerate(lists))))


def _zipf_of_bucket(index: int) -> float:
    """wordfreq's arithmetic for one token: 10^(cB/100), three significant digits, then Zipf to 0.01."""
    freq = 10 ** (-index / 100)
    freq = round(freq, math.floor(-math.log(freq, 10)) + 3)
    return round(math.log(freq, 10) + 9, 2)


@lru_cache(maxsize=1)
def _wordfreq() -> Callable[[str, str], float] | None:
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return None
    return zipf_frequency


def listed() -> list[str]:
    """Every word the English list holds, in no set order (empty without it)."""
    return list(_buckets() or ())


def available() -> bool:
    return _buckets() is not None or _wordfreq() is not None


def zipf(word: str) -> float:
    """wordfreq.zipf_frequency(word, "en"): 0 for a word it does not know. Raises LookupError when
    wordfreq is not installed (`available()` says)."""
    buckets = _buckets()
    if buckets is not None and word.isascii() and word.isalpha() and word.islower():
        index = buckets.get(word)
        return MISSING if index is None else _zipf_of_bucket(index)
    full = _wordfreq()
    if full is None:
        raise LookupError("wordfreq is not installed")
    return full(word, "en")
