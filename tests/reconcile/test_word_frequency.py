"""Reconcile's word weights read wordfreq's English list directly: the same Zipf answers as wordfreq."""

import random

import pytest

from leafwise.commands.reconcile import word_frequency

wordfreq = pytest.importorskip("wordfreq")


@pytest.mark.slow
def test_every_kind_of_word_gets_wordfreqs_own_answer():
    rng = random.Random(14)
    words = set(rng.sample(sorted(word_frequency.listed()), 4000))
    # words the list lacks, and text wordfreq's tokenizer must decide on (case, digits, marks, apostrophes)
    words |= {"".join(rng.choice("qxzjkv") for _ in range(9)) for _ in range(50)}
    words |= {"the", "a", "jitter", "backoff", "Jitter", "e-mail", "don't", "café", "naïve", "über", "v2", "2024",
              "retry_after", "sign in", "", " ", "ﬁle", "ǅemal", "ΣΊΣΥΦΟΣ"}
    differ = [w for w in words if word_frequency.zipf(w) != wordfreq.zipf_frequency(w, "en")]
    assert differ == []


def test_a_word_the_list_lacks_weighs_nothing_and_a_common_one_weighs_much():
    assert word_frequency.zipf("qxzjkvqxz") == 0.0
    assert word_frequency.zipf("the") > 7 > word_frequency.zipf("jitter") > 0
