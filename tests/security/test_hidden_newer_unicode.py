"""Every hidden character of a newer Unicode is hidden here too (`commands/text.py` `LATER_FORMAT`).

Found in session 17's attack (h22c): the hidden set is derived from this Python's `unicodedata`
(3.11: Unicode 14.0), and Unicode 15.0 assigned format characters (Cf) outside the ranges it reserves
as default-ignorable: the Egyptian hieroglyph format controls U+13439–1343F, unassigned to this Python,
reached CLI text and the canvas raw while a newer terminal, font or model takes them as format
controls. Checked against the `regex` module's database (newer than this Python's), every code point
of Cc, Cf, Zl, Zp, Default_Ignorable_Code_Point and Bidi_Control; and one through the real CLI.
"""

from __future__ import annotations

import regex
from leafwise.commands.contract import HIDDEN
from testkit import run_cli, write_plan

NEWER_HIDDEN = regex.compile(r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]")


def test_every_hidden_code_point_of_the_newer_database_is_hidden():
    missing = [f"U+{cp:04X}" for cp in range(0x110000) if NEWER_HIDDEN.match(chr(cp)) and not HIDDEN.match(chr(cp))]
    assert not missing, missing


def test_a_title_with_a_later_format_control_is_shown_by_its_code(tmp_path):
    root = write_plan(tmp_path / "plan", {"T-1": "id: T-1\ntitle: hier\U0001343aoglyph\nstatus: draft\nrelease: R1\n"})
    res = run_cli("show", "T-1", cwd=root)
    assert "hier<U+1343A>oglyph" in res.stdout and "\U0001343a" not in res.stdout, res.stdout
