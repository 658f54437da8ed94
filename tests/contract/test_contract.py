"""The agent contract, enforced on every command of the registry and on all three surfaces.

For each command, a success case and at least one error case run on the same
seeded plan state three times: as text through the real CLI, as `--json`
through the real CLI (validated against the shipped envelope schema), and
through MCP with the SDK's client against the real server. Every answer must
end with exactly one next action, and the three surfaces must agree on it.

A command in the registry without cases here fails `test_every_command_has_cases`.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from leafwise.commands.contract import action_lines
from leafwise.commands.domain.doctor import envelope_schema
from leafwise.commands.registry import Ctx, load_all
from leafwise.commands.runner import execute
from leafwise.commands.surfaces.mcp_server import build_server
from leafwise.commands.surfaces.tool_answers import tool_call
from leafwise.store import PlanPaths, trust
from leafwise.store import claims as leases
from leafwise.store.paths import ID_PATTERN
from leafwise.store.writer import utc_now
from mcp import Client
from testkit import DEMO_PLAN, run_cli
from testkit.contract_cases import Case, area_cases, err, ok

VALIDATOR = Draft202012Validator(envelope_schema())
PRIMARY = ("Next: ", "Wait: ", "Fix: ")
MARKER = re.compile(r"^(Next: |Wait: |Fix: |Or: |Error: |Done\.$)")
# Values an agent supplies itself; anything else in <…> is a placeholder where a real value belongs.
PLACEHOLDERS = {"<agent>": "bot", "<summary>": "it works", "<reason>": "waiting", "<title>": "A title",
                "<N>": "1", "<question>": "Which?", "<choice>": "this one", "<command>": "true", "<text>": "a note",
                "<content>": "# Notes", "<prefix>": "BAK", "<YYYY-MM-DD>": "2027-06-30", "<name>": "Shop",
                # a usage error's Fix repeats the call with the missing argument's name in <…>
                "<kind>": "for-each-work-item", "<node_id>": "SHOP-18"}
ID_ARGUMENTS = {"node_id", "parent", "follows", "depends_on"}


def hold_shop_26(root: Path) -> None:
    """claude-2 holds SHOP-26 for an hour (the same expiry in every copy of the seed)."""
    leases.write(PlanPaths(root), "SHOP-26", "claude-2", utc_now(), 60)


def dangle_a_dependency(root: Path) -> None:
    path = root / ".leafwise/nodes/SHOP-18.yaml"
    path.write_text(path.read_text().replace("depends_on: [SHOP-16]", "depends_on: [SHOP-16, SHOP-999]"))


def dangle_shop_26_dependency(root: Path) -> None:
    path = root / ".leafwise/nodes/SHOP-26.yaml"
    path.write_text(path.read_text().replace("depends_on: [SHOP-21]", "depends_on: [SHOP-21, SHOP-999]"))


def run_in(root: Path, command_name: str, **arguments: Any) -> None:
    """Prepare a seed with a real command (in-process: the seed is copied before any surface runs)."""
    outcome = execute(load_all()[command_name], Ctx(cwd=root), arguments)
    assert outcome.envelope["status"] == "ok", outcome.envelope


def start_shop_18(root: Path) -> None:
    run_in(root, "start", node_id="SHOP-18", agent="bot-1")


def add_release_r4(root: Path) -> None:
    run_in(root, "release add", release_id="R4", title="Later")


def start_a_cycle(root: Path) -> None:
    run_in(root, "cycle start", name="polish", kind="until-goal", max_iterations=3, token_cap=1000,
           verify=("true",))


UPDATE = '[{"id": "SHOP-18", "status": "blocked", "reason": "after the launch"}]'
FAILING_UPDATE = '[{"id": "SHOP-999", "status": "done", "summary": "x"}]'

# command -> (success case, error case, more error cases...). Every registry command needs one.
CASES: dict[str, tuple[Case, ...]] = {
    "add": (ok("add", "Loyalty points for repeat buyers", "--parent", "SHOP-4"),
            err(5, "add", "Loyalty points for repeat buyers", "--parent", "SHOP-999"),
            err(3, "add", "Delete my account (GDPR)")),
    "agent-guide": (ok("agent-guide"), err(2, "agent-guide", "--bogus", mcp={"bogus": True})),
    "ask": (ok("ask", "SHOP-18", "Card or invoice?", "--option", "A: card", "--option", "B: invoice"),
            err(2, "ask", "SHOP-18", "Which?", "--option", "A: only"),
            err(3, "ask", "SHOP-12", "Which?", "--option", "A: x", "--option", "B: y")),
    "block": (ok("block", "SHOP-26", "--reason", "waiting for the search index", "--agent", "claude-2"),
              err(3, "block", "SHOP-26", "--reason", "mine now"),
              err(3, "block", "SHOP-12", "--reason", "too late")),
    "bulk": (ok("bulk", "-", stdin=UPDATE, mcp={"updates": UPDATE}),
             err(1, "bulk", "-", stdin=FAILING_UPDATE, mcp={"updates": FAILING_UPDATE}),
             err(2, "bulk", "-", stdin="not json", mcp={"updates": "not json"})),
    "cancel": (ok("cancel", "SHOP-18", "--reason", "out of scope"),
               err(3, "cancel", "SHOP-12", "--reason", "too late")),
    "comment": (ok("comment", "SHOP-18", "--text", "keep the old export format"),
                err(2, "comment", "SHOP-18", "--text", " "),
                err(5, "comment", "SHOP-999", "--text", "hello")),
    "commands": (ok("commands"), err(2, "commands", "--bogus", mcp={"bogus": True})),
    "complete": (ok("complete", "SHOP-26", "--summary", "search with filters; tests pass", "--agent", "claude-2"),
                 err(3, "complete", "SHOP-1", "--summary", "all of it"),
                 err(3, "complete", "SHOP-26", "--summary", "not mine", "--agent", "bot-1"),
                 err(4, "complete", "SHOP-26", "--summary", "done", "--agent", "claude-2",
                     setup=dangle_shop_26_dependency)),
    "context": (ok("context"), err(5, "context", where="empty")),
    "cycle start": (ok("cycle", "start", "polish", "--kind", "until-goal", "--max-iterations", "3",
                       "--token-cap", "1000", "--verify", "true"),
                    err(2, "cycle", "start", "polish", "--kind", "until-goal", "--max-iterations", "50",
                        "--token-cap", "1000", "--verify", "true"),
                    err(3, "cycle", "start", "polish", "--kind", "until-goal", "--max-iterations", "3",
                        "--token-cap", "1000", "--verify", "true", setup=start_a_cycle)),
    "cycle status": (ok("cycle", "status", "polish", setup=start_a_cycle), err(5, "cycle", "status", "nope")),
    "cycle stop": (ok("cycle", "stop", "polish", "--reason", "enough", setup=start_a_cycle),
                   err(5, "cycle", "stop", "nope")),
    "cycle tick": (ok("cycle", "tick", "polish", "--tokens", "10", setup=start_a_cycle),
                   err(5, "cycle", "tick", "nope")),
    "cycle verify": (ok("cycle", "verify", "polish", setup=start_a_cycle, trusted=("true",)),
                     err(3, "cycle", "verify", "polish", setup=start_a_cycle),
                     err(5, "cycle", "verify", "nope")),
    "decide": (ok("decide", "SHOP-40", "--option", "2"),
               err(3, "decide", "SHOP-18", "--option", "1"),
               err(2, "decide", "SHOP-40", "--option", "7")),
    "diagnose": (ok("diagnose", "SHOP-50"), err(5, "diagnose", "SHOP-999")),
    "doc": (ok("doc", "SHOP-12"), err(5, "doc", "SHOP-999")),
    "doctor": (ok("doctor"), err(2, "doctor", "--bogus", mcp={"bogus": True})),
    "edit": (ok("edit", "SHOP-18", "--set", "title=Delete my account"),
             err(2, "edit", "SHOP-18", "--set", "status=done")),
    "heartbeat": (ok("heartbeat", "SHOP-18", "--agent", "bot-1", setup=start_shop_18),
                  err(3, "heartbeat", "SHOP-18", "--agent", "bot-2", setup=start_shop_18)),
    "init": (ok("init", "--name", "Bakery", "--prefix", "BAK", where="empty"),
             err(2, "init", "--prefix", "bad-1", where="empty"),
             err(3, "init", "--name", "Bakery")),
    "list": (ok("list", "--status", "blocked"), err(2, "list", "--release", "R9")),
    "next": (ok("next"), err(5, "next", where="empty")),
    "progress": (ok("progress"), err(5, "progress", where="empty")),
    "reconcile": (ok("reconcile"), err(5, "reconcile", "--node", "SHOP-999")),
    "project set": (ok("project", "set", "--name", "Corner shop", "--prefix", "CS"),
                    err(2, "project", "set", "--prefix", "a-b"),
                    err(2, "project", "set")),
    "release add": (ok("release", "add", "R4", "--title", "Later"),
                    err(3, "release", "add", "R1", "--title", "Again"),
                    err(2, "release", "add", "R4", "--title", "Later", "--target", "2027-13-45")),
    "release edit": (ok("release", "edit", "R2", "--title", "Card payments", "--target", "2027-04-01"),
                     err(5, "release", "edit", "R9", "--title", "x"),
                     err(2, "release", "edit", "R2", "--target", "next week")),
    "release list": (ok("release", "list"), err(5, "release", "list", where="empty")),
    "release move": (ok("release", "move", "R3", "--before", "R2"),
                     err(5, "release", "move", "R3", "--before", "R9"),
                     err(2, "release", "move", "R3")),
    "release remove": (ok("release", "remove", "R4", setup=add_release_r4),
                       err(3, "release", "remove", "R3")),
    "renumber": (ok("renumber", "SHOP-18"), err(5, "renumber", "SHOP-999")),
    "repair": (ok("repair", "--dry-run"), err(5, "repair", where="empty")),
    "show": (ok("show", "SHOP-12"), err(5, "show", "SHOP-999"), err(2, "show", "shop_1")),
    "start": (ok("start", "SHOP-18", "--agent", "bot-1"),
              err(3, "start", "SHOP-12", "--agent", "bot-1"),
              err(3, "start", "SHOP-26", "--agent", "bot-1", setup=hold_shop_26)),
    "trust": (ok("trust"), err(2, "trust", "--bogus", mcp={"bogus": True})),
    "tree": (ok("tree", "SHOP-4"), err(5, "tree", "SHOP-999")),
    "unblock": (ok("unblock", "SHOP-32"), err(5, "unblock", "SHOP-999")),
    "unclaim": (ok("unclaim", "SHOP-18", "--agent", "bot-1", setup=start_shop_18),
                err(3, "unclaim", "SHOP-26", "--agent", "bot-1")),
    "validate": (ok("validate"), err(4, "validate", setup=dangle_a_dependency)),
    "write-doc": (ok("write-doc", "SHOP-18", "--content", "# Notes"),
                  err(5, "write-doc", "SHOP-999", "--content", "# Notes")),
    **area_cases(),
}


def _registry_names() -> list[str]:
    return sorted(load_all())


def test_every_command_has_cases():
    missing = sorted(set(load_all()) - set(CASES))
    stale = sorted(set(CASES) - set(load_all()))
    assert not missing, (f"no contract cases for {missing}: add (success case, error case) for each "
                         "to CASES in tests/test_contract.py")
    assert not stale, f"CASES lists commands that are not in the registry: {stale}"
    for name, cases in CASES.items():
        assert cases[0].code == 0 and any(c.code for c in cases[1:]), \
            f"{name}: the first case succeeds, and at least one other fails"


def test_cases_cover_every_exit_code():
    assert {c.code for cases in CASES.values() for c in cases} == {0, 1, 2, 3, 4, 5}


# --- running one case on each surface -----------------------------------------

def make_seed(case: Case, tmp_path: Path) -> Path:
    """The state a case starts from; every surface then runs on its own copy of it."""
    root = tmp_path / "seed" / "shop"
    if case.where == "plan":
        shutil.copytree(DEMO_PLAN, root)
        if case.setup:
            case.setup(root)
    else:
        root.mkdir(parents=True)
    return root


def copy_of(seed: Path, tmp_path: Path, label: str, trusted: tuple[str, ...] = ()) -> Path:
    """A copy of the seed; the commands in `trusted` approved for it as the person would (`leafwise trust`)."""
    target = tmp_path / label / seed.name
    shutil.copytree(seed, target)
    if trusted:
        trust.allow(target, list(trusted))
    return target


def mcp_arguments(case: Case) -> tuple[str, dict[str, Any]]:
    spec = load_all()[_command_name(case.args)]
    if case.mcp is not None:
        return spec.tool, case.mcp
    return tool_call("leafwise " + shlex.join(case.args))


def _command_name(args: tuple[str, ...]) -> str:
    return " ".join(args[:2]) if " ".join(args[:2]) in load_all() else args[0]


def call_mcp(cwd: Path, tool: str, arguments: dict[str, Any]):
    async def go():
        async with Client(build_server(cwd=cwd)) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(go)


# --- the assertions -------------------------------------------------------------

def check_text(code: int, stdout: str, stderr: str, document: bool = False) -> list[str]:
    """The marker block of a text answer, after checking where and how it stands; returns it.
    A document's answer (`agent-guide`) keeps stdout for the document: its markers are on stderr."""
    if code == 0 and document:
        assert not [line for line in stdout.splitlines() if MARKER.match(line)], f"markers on stdout:\n{stdout}"
        block = stderr.rstrip("\n").splitlines()
        assert block and all(MARKER.match(line) for line in block), f"bad stderr:\n{stderr}"
    elif code == 0:
        assert not [line for line in stderr.splitlines() if MARKER.match(line)], stderr
        lines = stdout.rstrip("\n").splitlines()
        markers = [i for i, line in enumerate(lines) if MARKER.match(line)]
        assert markers, f"no next action in:\n{stdout}"
        block = lines[markers[0]:]
        assert markers == list(range(markers[0], len(lines))), f"markers are not the last lines:\n{stdout}"
        assert not block[0].startswith(("Or: ", "Error: ", "Fix: ")), block
    else:
        assert not [line for line in stdout.splitlines() if MARKER.match(line)], f"markers on stdout:\n{stdout}"
        lines = stderr.rstrip("\n").splitlines()
        markers = [i for i, line in enumerate(lines) if MARKER.match(line)]
        assert markers and markers == list(range(markers[0], len(lines))), f"bad stderr:\n{stderr}"
        block = lines[markers[0]:]
        assert block[0].startswith("Error: "), block
        assert len(block) > 1 and block[1].startswith(("Fix: ", "Wait: ")), f"Error: without Fix:/Wait:\n{stderr}"
        block = block[1:]
    assert sum(1 for line in block if line.startswith(PRIMARY) or line == "Done.") == 1, block
    if block[0] == "Done.":
        assert block == ["Done."], f"Done. stands alone: {block}"
    assert all(line.startswith("Or: ") for line in block[1:]) and len(block) <= 2, block
    return block


def check_envelope(env: dict[str, Any], code: int, plan: Path) -> None:
    errors = sorted(VALIDATOR.iter_errors(env), key=lambda e: list(e.path))
    assert not errors, f"{errors[0].message} at {list(errors[0].path)}\n{json.dumps(env)[:2000]}"
    action = env["_next_action"]
    if code == 0:
        assert env["status"] == "ok"
    else:
        assert env["status"] == "error" and env["error"]["exit_code"] == code, env.get("error")
        assert env["root_cause"]["category"] and env["remediation"]["summary"]
        assert env["remediation"]["next_actions"] or action["marker"] == "wait"
    for line in (action["command"], action["or"], action["condition"]):
        if line:
            check_placeholders(line)
    for line in (action["command"], action["or"]):
        if line:
            check_command(line, plan)


DIGEST = re.compile(r"--allow [0-9a-f]{16}\b")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def same_action(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal next actions; a time the command computed from its own clock may differ by seconds."""
    if a == b:
        return True
    # an approval key names the plan's real path, and each surface runs on its own copy
    text_a, text_b = (DIGEST.sub("--allow D", json.dumps(x, sort_keys=True)) for x in (a, b))
    times_a, times_b = TIMESTAMP.findall(text_a), TIMESTAMP.findall(text_b)
    if TIMESTAMP.sub("T", text_a) != TIMESTAMP.sub("T", text_b) or len(times_a) != len(times_b):
        return False
    parse = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))  # noqa: E731
    return all(abs((parse(x) - parse(y)).total_seconds()) <= 5 for x, y in zip(times_a, times_b))


def only_the_persons_override(mcp: dict[str, Any], person: dict[str, Any]) -> bool:
    """An MCP call is an agent's, named or not: where the person's answer (the CLI case names no agent)
    offers a --force line, the agent's has the same step and no --force anywhere."""
    return "--force" in json.dumps(person) and "--force" not in json.dumps(mcp) \
        and (mcp["marker"], mcp["command"]) == (person["marker"], person["command"])


def check_placeholders(text: str) -> None:
    for found in re.findall(r"<[^<>\s]*>", text):
        assert found in PLACEHOLDERS, f"placeholder {found} where a real value belongs: {text}"


def check_command(line: str, plan: Path) -> None:
    """A full command of the registry, with known flags, whose ids are real nodes of the plan."""
    for placeholder, value in PLACEHOLDERS.items():
        line = line.replace(placeholder, value)
    if line.endswith(" --help"):
        line = line[: -len(" --help")]
    try:
        _tool, arguments = tool_call(line)
    except ValueError as exc:
        assert "CLI-only" in str(exc), f"not a runnable command: {line} ({exc})"
        return
    for name, value in arguments.items():
        if name in ID_ARGUMENTS:
            for ident in value if isinstance(value, list) else [value]:
                assert ID_PATTERN.match(ident), f"{name}={ident!r} is not an id in {line}"
                assert (plan / ".leafwise/nodes" / f"{ident}.yaml").exists(), f"{ident} is not in the plan: {line}"


# --- the suite --------------------------------------------------------------------

def _case_ids() -> list[tuple[str, int]]:
    return [(name, i) for name in _registry_names() for i in range(len(CASES.get(name, (None, None))))]


@pytest.mark.parametrize(("name", "index"), _case_ids(), ids=lambda v: str(v))
def test_contract(name: str, index: int, tmp_path: Path, monkeypatch):
    if name not in CASES:
        pytest.fail(f"`leafwise {name}` has no contract cases: add (success, error) to CASES in "
                    "tests/test_contract.py")
    monkeypatch.delenv("LEAFWISE_ROOT", raising=False)
    case = CASES[name][index]
    seed = make_seed(case, tmp_path)

    text_root = copy_of(seed, tmp_path, "text", case.trusted)
    text = run_cli(*case.args, cwd=text_root, stdin=case.stdin)
    assert text.code == case.code, f"exit {text.code}, expected {case.code}\n{text.stdout}\n{text.stderr}"
    block = check_text(text.code, text.stdout, text.stderr, load_all()[name].document)

    json_root = copy_of(seed, tmp_path, "json", case.trusted)
    res = run_cli(*case.args, "--json", cwd=json_root, stdin=case.stdin)
    assert res.code == case.code, res.stderr
    env = res.json
    check_envelope(env, case.code, json_root)
    assert env["command"] == f"leafwise {name}"
    assert same_action({"lines": action_lines(env)}, {"lines": block}), \
        "the text markers are not rendered from the JSON _next_action"

    if load_all()[name].tool is None:
        return  # a person's own command, CLI only: not offered on MCP (tests/commands/test_mcp.py)
    mcp_root = copy_of(seed, tmp_path, "mcp", case.trusted)
    tool, arguments = mcp_arguments(case)
    result = call_mcp(mcp_root, tool, arguments)
    mcp_env = result.structured_content
    check_envelope(mcp_env, case.code, mcp_root)
    assert result.is_error == (case.code != 0)
    assert same_action(mcp_env["_next_action"], env["_next_action"]) \
        or only_the_persons_override(mcp_env["_next_action"], env["_next_action"]), \
        f"MCP and --json disagree on the next action:\n{mcp_env['_next_action']}\n{env['_next_action']}"
    assert mcp_env["status"] == env["status"] and mcp_env["command"] == env["command"]
    if case.code:
        assert mcp_env["error"]["exit_code"] == env["error"]["exit_code"]
        assert mcp_env["root_cause"]["category"] == env["root_cause"]["category"]
    mcp_lines = [line for line in result.content[0].text.splitlines() if MARKER.match(line)]
    if not same_action(mcp_env["_next_action"], env["_next_action"]):
        block = action_lines(mcp_env)  # the agent's answer without the person's override: its own lines
    assert same_action({"lines": mcp_lines[-len(block):]}, {"lines": block}), \
        "the MCP text content ends differently from the CLI's"


# --- listings, usage errors, exit codes -------------------------------------------

def test_bare_and_jsonl_listings_keep_the_hint_on_stderr(demo_plan):
    env = run_cli("list", "--status", "blocked", "--json", cwd=demo_plan).json
    ids = [item["id"] for item in env["result"]["items"]]
    assert ids
    bare = run_cli("list", "--status", "blocked", "--bare", cwd=demo_plan)
    assert bare.code == 0
    assert [item["id"] for item in json.loads(bare.stdout)] == ids
    assert bare.stderr.strip().splitlines() == action_lines(env)
    jsonl = run_cli("list", "--status", "blocked", "--jsonl", cwd=demo_plan)
    assert [json.loads(line)["id"] for line in jsonl.stdout.splitlines()] == ids
    assert jsonl.stderr.strip().splitlines() == action_lines(env)
    listing = [spec.name for spec in load_all().values() if spec.listing]
    assert "list" in listing


def test_a_bare_listing_that_fails_still_answers_with_the_envelope(demo_plan):
    res = run_cli("list", "--release", "R9", "--bare", cwd=demo_plan)
    assert res.code == 2 and res.stdout == ""
    check_text(res.code, res.stdout, res.stderr)


@pytest.mark.parametrize("as_json", [False, True])
def test_an_unknown_option_is_a_usage_error_with_the_envelope(demo_plan, as_json):
    res = run_cli("next", "--no-such-option", *(["--json"] if as_json else []), cwd=demo_plan)
    assert res.code == 2
    if as_json:
        env = res.json
        check_envelope(env, 2, demo_plan)
        assert env["error"]["code"] == "unknown_argument" and env["root_cause"]["category"] == "usage"
        assert env["_next_action"]["command"] == "leafwise next"
    else:
        assert check_text(res.code, res.stdout, res.stderr) == ["Fix: leafwise next"]


def test_the_schema_rejects_an_envelope_that_breaks_the_contract(demo_plan):
    env = run_cli("next", "--json", cwd=demo_plan).json
    assert VALIDATOR.is_valid(env)
    silent = {**env, "_next_action": {**env["_next_action"], "marker": "fix"}}
    assert not VALIDATOR.is_valid(silent), "fix on a success"
    done_with_command = {**env, "_next_action": {**env["_next_action"], "marker": "done"}}
    assert not VALIDATOR.is_valid(done_with_command), "Done. carries no command"
    error = run_cli("show", "SHOP-999", "--json", cwd=demo_plan).json
    assert VALIDATOR.is_valid(error)
    assert not VALIDATOR.is_valid({k: v for k, v in error.items() if k != "remediation"})


def test_an_unreadable_file_is_answered_with_a_runnable_fix(demo_plan):
    (demo_plan / ".leafwise/nodes/SHOP-77.yaml").write_text("id: SHOP-77\ntitle: [broken\n")
    res = run_cli("validate", "--json", cwd=demo_plan)
    assert res.code == 4
    check_envelope(res.json, 4, demo_plan)


@pytest.mark.parametrize(("args", "fix_line"), [
    (("nosuch",), "leafwise commands"),
    (("cycle", "start", "x", "--bogus"), 'leafwise cycle start x --kind "<kind>"'),
    (("block", "SHOP-18", "--agent", "a"), 'leafwise block SHOP-18 --reason "<reason>" --agent a'),
    (("add",), 'leafwise add "<title>"'),
])
def test_a_usage_error_names_a_command_that_exists(demo_plan, args, fix_line):
    res = run_cli(*args, "--json", cwd=demo_plan)
    assert res.code == 2
    assert res.json["_next_action"]["command"] == fix_line
    check_envelope(res.json, 2, demo_plan)
