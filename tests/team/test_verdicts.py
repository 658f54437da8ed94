"""How a push's answer is read: applied, rejected (someone else moved the ref), refused by the host (this
kind of ref is not allowed there), or unknown (the transport failed: re-fetch and compare)."""

from __future__ import annotations

import pytest

from leafwise.commands.team.refs import Verdict, verdict_of
from leafwise.store.git import GitAnswer

REF = "refs/leafwise/claims/T-1"


@pytest.mark.parametrize(("code", "out", "err", "verdict"), [
    (0, f"To x\n*\tabc:{REF}\t[new reference]\nDone\n", "", Verdict.APPLIED),
    (0, f"To x\n=\tabc:{REF}\t[up to date]\nDone\n", "", Verdict.APPLIED),
    (1, f"To x\n!\tabc:{REF}\t[rejected] (stale info)\nDone\n", "", Verdict.REJECTED),
    (1, f"To x\n!\tabc:{REF}\t[remote rejected] (failed to update ref)\n", "", Verdict.REJECTED),
    (1, "", f"error: cannot lock ref '{REF}': reference already exists", Verdict.REJECTED),
    (1, f"!\tabc:{REF}\t[remote rejected] (atomic transaction failed)\n", "", Verdict.REJECTED),
    (1, f"!\tabc:{REF}\t[remote rejected] (pre-receive hook declined)\n", "", Verdict.REFUSED),
    (1, f"!\tabc:{REF}\t[remote rejected] (deny updating a hidden ref)\n", "", Verdict.REFUSED),
    (128, "", "fatal: unable to access 'https://h/x/': The requested URL returned error: 403", Verdict.REFUSED),
    (128, "", "fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused",
     Verdict.UNKNOWN),
    (128, "", "fatal: the remote end hung up unexpectedly", Verdict.UNKNOWN),
])
def test_a_push_answer_is_read_as_its_verdict(code, out, err, verdict):
    assert verdict_of(GitAnswer(code, out.encode(), err.encode())) is verdict
