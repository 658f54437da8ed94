"""Plan files are UTF-8 text, or refused (`store/safe_yaml.py` `safe_load`, `store/reader.py` `load_json`).

Found in session 17's attack (h22c): PyYAML reads bytes that open with a UTF-16 byte order mark, and
`json.loads` of bytes takes UTF-16 and UTF-32 with or without one. git and every review tool show such a
file as binary (`git diff --stat`: "Bin 0 -> 136 bytes"; GitHub: "Binary file not shown"), so a pull
request could add a node `status: done`, a verdict or a claim that nobody reviewing it could read, and
every clone loaded it as if it were plain text. Generated over the encodings × every kind of plan file
read as YAML or JSON, each also shown to be binary to git.
"""

from __future__ import annotations

import itertools
import json
import subprocess

import pytest
from leafwise.store import PlanPaths, claims, reader, safe_yaml, verdicts
from testkit import run_cli, write_plan

YAML_ENCODINGS = ("utf-16", "utf-16-le-bom", "utf-16-be-bom")
JSON_ENCODINGS = YAML_ENCODINGS + ("utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be")


def encode(text: str, encoding: str) -> bytes:
    if encoding.endswith("-bom"):
        base = encoding[:-4]
        return ("\ufeff" + text).encode(base)
    return text.encode(encoding)


def binary_to_git(tmp_path, data: bytes) -> bool:
    repo = tmp_path / "gitcheck"
    repo.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "f").write_bytes(data)
    subprocess.run(["git", "add", "f"], cwd=repo, check=True)
    numstat = subprocess.run(["git", "diff", "--cached", "--numstat"], cwd=repo, capture_output=True,
                             text=True, check=True).stdout
    return numstat.startswith("-\t-\t")


@pytest.mark.parametrize("encoding", YAML_ENCODINGS)
def test_a_node_file_that_git_shows_as_binary_is_refused(tmp_path, encoding):
    root = write_plan(tmp_path / "plan", {"T-1": "id: T-1\ntitle: Task\nstatus: draft\nrelease: R1\n"})
    data = encode("id: T-9\ntitle: Hidden from review\nstatus: done\nrelease: R1\n", encoding)
    assert binary_to_git(tmp_path, data)
    (root / ".leafwise" / "nodes" / "T-9.yaml").write_bytes(data)
    listed = run_cli("list", cwd=root)
    assert "Hidden from review" not in listed.stdout, listed.stdout
    checked = run_cli("validate", "--json", cwd=root).json
    [problem] = [p for p in checked["error"]["details"]["problems"]["items"] if p.get("node") == "T-9"]
    assert problem["code"] == "not_utf8", problem


@pytest.mark.parametrize(("encoding", "kind"), list(itertools.product(YAML_ENCODINGS, (reader.CYCLE, reader.NODE))))
def test_every_yaml_reader_refuses_it(encoding, kind):
    with pytest.raises(reader.Refused) as refused:
        safe_yaml.load_yaml(encode("kind: until-goal\nmax_iterations: 3\n", encoding), kind)
    assert refused.value.code == "not_utf8"
    with pytest.raises(Exception, match="UTF-16"):
        safe_yaml.parse_yaml(encode("a: b\n", encoding))


KINDS = [k for k in vars(reader).values() if isinstance(k, reader.Kind)] + [verdicts.VERDICT]


@pytest.mark.parametrize(("encoding", "kind"), list(itertools.product(JSON_ENCODINGS, KINDS)))
def test_every_json_kind_refuses_it(encoding, kind):
    with pytest.raises(reader.Refused) as refused:
        reader.load_json(encode('{"node": "T-1", "agent": "mallory"}', encoding), kind)
    # with a byte order mark: no UTF-8; without one, UTF-8 whose NUL bytes no JSON holds (or over a small cap)
    assert refused.value.code in ("not_utf8", "json_error", "too_large"), refused.value
    if encoding in YAML_ENCODINGS and len(encode("{}", encoding)) <= kind.cap:
        with pytest.raises(reader.Refused, match="not UTF-8"):
            reader.load_json(encode("{}", encoding), kind)


@pytest.mark.parametrize("encoding", JSON_ENCODINGS)
def test_a_claim_that_git_shows_as_binary_holds_nothing(tmp_path, encoding):
    root = write_plan(tmp_path / "plan", {"T-1": "id: T-1\ntitle: Task\nstatus: draft\nrelease: R1\n"})
    from datetime import UTC, datetime, timedelta

    from leafwise.store.timestamps import to_text

    now = datetime.now(UTC)
    text = json.dumps({"node": "T-1", "agent": "mallory", "since": to_text(now), "heartbeat": to_text(now),
                       "expires": to_text(now + timedelta(hours=1))})
    data = encode(text, encoding)
    assert binary_to_git(tmp_path, data)
    (root / ".leafwise" / "claims").mkdir()
    (root / ".leafwise" / "claims" / "T-1.json").write_bytes(data)
    assert claims.read(PlanPaths(root), "T-1") is None
    (root / ".leafwise" / "claims" / "T-1.json").write_bytes(b"\xef\xbb\xbf" + text.encode())  # a UTF-8 BOM reads
    assert claims.read(PlanPaths(root), "T-1") is not None
