"""The race run of bench/team.py as a test: clones x agents (the real CLI, each agent's clock off by up to
±10 minutes) through a plan over git daemon, agents frozen past their lease while they hold a task and
killed: every task completed exactly once, and the faults had teeth (a steal, a refused finish)."""

from __future__ import annotations

import argparse
import importlib.util
import random
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "team.py"


def bench():
    spec = importlib.util.spec_from_file_location("leafwise_team_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_every_task_is_done_once_through_freezes_kills_and_skewed_clocks():
    run = bench().run_one
    rows = []
    for seed in range(1, 11):  # the faults must have had teeth somewhere in these seeds (under the slow set's
        # four workers on two cores, six seeds once froze agents 7 times with no steal: more seeds, not a weaker bar)
        if seed > 3 and sum(r["steals"] for r in rows) and sum(r["refused_finishes"] for r in rows):
            break  # three seeds are enough when they had; a loaded machine's timing may need more
        args = argparse.Namespace(tasks=16, clones=3, agents=2, ttl=2.0, delay=0.05, faults=0.6, limit=240.0,
                                  seed=seed)
        row = run("daemon", args, random.Random(seed))
        assert row["duplicates"] == 0, row
        assert row["done"] + row["ref_done_no_yaml"] == 16, row  # every task's claim ends done
        rows.append(row)
    assert sum(r["steals"] for r in rows) >= 1 and sum(r["refused_finishes"] for r in rows) >= 1, \
        f"the faults had no teeth: {rows}"
