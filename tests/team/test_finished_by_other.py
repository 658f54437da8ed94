"""A task finished by another holder, asked to complete again by the agent it was taken from: the answer is
the claim's refusal ("complete refused: T-1 is done in bob@…'s claim"), not a quiet "already done" that
hides the work was superseded (`team_reads.finished_by_other`, for `finishing.complete`). The holder's own
repeat stays as it is. Over `git daemon` on 127.0.0.1, the real CLI writing the claims."""

from __future__ import annotations

import time

import pytest
from leafwise.commands.contract import CommandError
from leafwise.commands.domain.team_reads import finished_by_other
from leafwise.commands.registry import Ctx
from testkit import gitserver

pytestmark = pytest.mark.slow


def test_a_done_claim_of_another_holder_refuses_the_late_complete(tmp_path):
    base = tmp_path / "srv"
    base.mkdir()
    with gitserver.daemon(base) as prefix:
        first, second = gitserver.team_clones(base, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        for args in (("start", "T-1", "--agent", "bob"), ("complete", "T-1", "--agent", "bob", "--summary", "did")):
            res = gitserver.leafwise(*args, cwd=second)
            assert res.code == 0, (args, res.stdout, res.stderr)
        assert gitserver.leafwise("next", cwd=first).code == 0  # the first clone fetches the claims
        ctx = Ctx(cwd=first)
        refused = finished_by_other(ctx, ctx.plan(), "T-1", "alice")
        assert isinstance(refused, CommandError) and refused.exit_code == 3
        assert "complete refused: T-1 is done in bob@" in str(refused)
        assert refused.action.command.startswith("leafwise start --next --agent alice")
        own = Ctx(cwd=second)
        assert finished_by_other(own, own.plan(), "T-1", "bob") is None  # the holder's own repeat
        assert finished_by_other(ctx, ctx.plan(), "T-2", "alice") is None  # no claim


def test_in_one_clone_the_stalled_holders_late_complete_is_refused_not_already_done(tmp_path):
    """Two agents of one clone share the YAML: alice stalls past her lease, bob takes T-1 and completes it,
    then alice's late `complete` is the claim's refusal (exit 3), not "already done" (the trial's seeds 4, 5)."""
    base = tmp_path / "srv"
    base.mkdir()
    with gitserver.daemon(base) as prefix:
        [work] = gitserver.team_clones(base, lambda repo: f"{prefix}/{repo.name}", 1, tasks=2)
        assert gitserver.leafwise("start", "T-1", "--agent", "alice", "--ttl", "0.02", cwd=work).code == 0
        deadline = time.monotonic() + 30
        while (took := gitserver.leafwise("start", "T-1", "--agent", "bob", cwd=work)).code != 0:
            assert time.monotonic() < deadline, took.stdout + took.stderr
            time.sleep(0.5)
        done = gitserver.leafwise("complete", "T-1", "--agent", "bob", "--summary", "bob did it", cwd=work)
        assert done.code == 0, done.stdout + done.stderr
        late = gitserver.leafwise("complete", "T-1", "--agent", "alice", "--summary", "late", cwd=work)
        assert late.code == 3, late.stdout + late.stderr
        assert "complete refused: T-1 is done in bob@" in late.stdout + late.stderr
        assert "bob did it" in (work / ".leafwise" / "nodes" / "T-1.yaml").read_text()  # bob's outcome stands
