"""The verify packet reaches code whose names do not use the title's words when the docs that match the
title name that code (`smtpd` in backticks: docs_names.py), and a licence text is never a document."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import node, run_cli_in_process, write_plan
from testkit.repos import commit_all, write_files

FILES = {
    "docs/email.md": ("# Email\n\nJobs can check in by sending an email to the address of their check.\n"
                      "Start the `smtpd` command to receive those emails and record them as check-ins.\n"),
    "hc/commands/smtpd.py": ("class Listener:\n    def handle_data(self, envelope):\n"
                             "        return record(envelope.rcpt_tos)\n"),
    "hc/jobs.py": "def job_check_list():\n    return []\n\n\ndef email_jobs():\n    return []\n",
    "hc/mail.py": "def send_email_to(check):\n    return check\n",
    "hc/views.py": "def check_in_jobs(request):\n    return request\n",
    "LICENSE.md": "Jobs can check in by sending an email: the licence grants you the right to do so.\n",
}


@pytest.mark.slow  # builds packets through the CLI (about 1 s of CPU)
def test_code_the_matching_docs_name_as_code_reaches_the_packet(tmp_path: Path):
    write_files(tmp_path, FILES)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Jobs can check in by sending an email", release="R1")])
    res = run_cli_in_process("verify", "T-1", "--json", cwd=tmp_path)
    assert res.code == 0, res.stdout + res.stderr
    places = res.json["result"]["places"]
    bridged = [p for p in places if p["path"] == "hc/commands/smtpd.py"]
    assert bridged and "the docs that match the title name it as code (smtpd)" in bridged[0]["why"], places
    assert not any(p["path"] == "LICENSE.md" for p in places)


def test_licence_and_notice_texts_are_not_documents():
    from leafwise.commands.reconcile.documents import kind_of

    assert [kind_of(n) for n in ("LICENSE.md", "licence.txt", "COPYING.md", "NOTICE.md", "AUTHORS.rst")] == [None] * 5
    assert kind_of("docs/license-keys.md") == "docs"  # a page about a feature named so stays
