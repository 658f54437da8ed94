"""The key-wise three-way merge of one node file (store/node_merge.py), on files the real writer makes.

Each side is written the way commands write (`writer.render_new_node`, `writer.rewrite`: ruamel round
trip and splice), and every merged file must load through the loader's own reader. Two properties with
hypothesis: edits of disjoint fields on two sides always merge to both edits; the same field edited to
two different values always conflicts, on that field alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.merge_conflicts import conflict_sides
from leafwise.store.node_files import read_node_file
from leafwise.store.node_merge import ABSENT, MergeRefused, merge_node, plain_conflict
from leafwise.store.safe_yaml import MAX_NODE_BYTES, parse_yaml
from leafwise.store.writer import render_new_node, rewrite

BASE = b"""id: T-1
title: Export the orders
parent: T-9
# the release is set by the epic
status: in-progress
assignee: bot-1
depends_on: [T-2, T-3]
tags: [shop, tech-debt]
created: 2026-11-16T09:43:00Z
updated: 2026-11-16T09:43:00Z
"""


def edit(raw: bytes, **changes: Any) -> bytes:
    """`raw` rewritten by the round-trip writer, as a command writes it (ABSENT removes a key)."""
    from ruamel.yaml.comments import CommentedSeq

    def apply(doc):
        for key, value in changes.items():
            if value is ABSENT:
                doc.pop(key, None)
            elif isinstance(value, list):  # a list of texts in flow style, as `edit --add` writes it
                seq = CommentedSeq(value)
                seq.fa.set_flow_style()
                doc[key] = seq
            else:
                doc[key] = value
    return rewrite(raw, "T-1", apply)


def comment(by: str, at: str, text: str) -> dict[str, str]:
    return {"by": by, "at": at, "text": text}


def add_comment(raw: bytes, item: dict[str, str]) -> bytes:
    from leafwise.commands.domain.comments import add_comment as append

    return rewrite(raw, "T-1", lambda doc: append(doc, item))


def loads(text: bytes, tmp_path) -> dict[str, Any]:
    """The merged file as the loader reads it from disk (its reader, screen and node check)."""
    path = tmp_path / "T-1.yaml"
    path.write_bytes(text)
    loaded = read_node_file(path)
    assert loaded.error is None, (loaded.error, text.decode())
    return loaded.data


# --- the two conflicts of issue 23 ----------------------------------------------------------------

def test_a_person_s_priority_and_comment_merge_with_an_agent_completing_the_task(tmp_path):
    ours = add_comment(edit(BASE, priority="high", updated="2026-11-20T10:00:00Z"),
                       comment("ann", "2026-11-20T10:00:00Z", "keep the CSV columns"))
    theirs = edit(BASE, status="done", summary="CSV export with tests", assignee=ABSENT,
                  updated="2026-11-21T08:00:00Z")
    merged = merge_node(BASE, ours, theirs, "T-1")
    assert merged.clean
    data = loads(merged.text, tmp_path)
    assert data["status"] == "done" and data["summary"] == "CSV export with tests" and "assignee" not in data
    assert data["priority"] == "high" and data["comments"][0]["text"] == "keep the CSV columns"
    assert data["updated"] == "2026-11-21T08:00:00Z"  # the newer of the two
    assert merged.taken == {"status": "theirs", "assignee": "theirs", "summary": "theirs", "updated": "newer",
                            "priority": "ours", "comments": "ours"}
    assert b"# the release is set by the epic\n" in merged.text  # ours' comment line kept
    assert [k for k in data][:5] == ["id", "title", "parent", "status", "depends_on"]  # ours' order


def test_a_title_edit_merges_with_a_status_change(tmp_path):
    ours = edit(BASE, title="Export the orders as CSV", updated="2026-11-21T09:00:00Z")
    theirs = edit(BASE, status="blocked", blocked_reason="waiting for the schema", blocked_from="in-progress",
                  updated="2026-11-20T09:00:00Z")
    merged = merge_node(BASE, ours, theirs, "T-1")
    data = loads(merged.text, tmp_path)
    assert merged.clean and data["title"] == "Export the orders as CSV" and data["status"] == "blocked"
    assert data["blocked_reason"] == "waiting for the schema" and data["updated"] == "2026-11-21T09:00:00Z"


# --- lists ------------------------------------------------------------------------------------------

def test_comments_from_both_sides_are_unioned_in_order_without_duplicates(tmp_path):
    same = comment("ann", "2026-11-20T10:00:00Z", "both saw this")
    ours = add_comment(add_comment(BASE, comment("ann", "2026-11-20T11:00:00Z", "mine")), same)
    theirs = add_comment(add_comment(BASE, same), comment("bot-1", "2026-11-20T09:00:00Z", "theirs"))
    data = loads(merge_node(BASE, ours, theirs, "T-1").text, tmp_path)
    assert [c["text"] for c in data["comments"]] == ["mine", "both saw this", "theirs"]


def test_tags_and_dependencies_merge_as_sets_and_a_removal_stays_removed(tmp_path):
    ours = edit(BASE, tags=["shop", "export"], depends_on=["T-2"])  # tech-debt and T-3 removed, export added
    theirs = edit(BASE, tags=["shop", "tech-debt", "csv"], depends_on=["T-2", "T-3", "T-4"])
    merged = merge_node(BASE, ours, theirs, "T-1")
    data = loads(merged.text, tmp_path)
    assert data["tags"] == ["shop", "export", "csv"] and data["depends_on"] == ["T-2", "T-4"]
    assert merged.taken["tags"] == merged.taken["depends_on"] == "union"
    assert b"tags: [shop, export, csv]\n" in merged.text  # ours' flow style kept


def test_a_list_one_side_removed_and_the_other_extended_keeps_only_the_new_items(tmp_path):
    ours = edit(BASE, tags=ABSENT)
    theirs = edit(BASE, tags=["shop", "tech-debt", "csv"])
    assert loads(merge_node(BASE, ours, theirs, "T-1").text, tmp_path)["tags"] == ["csv"]


# --- keys added and removed --------------------------------------------------------------------------

def test_a_key_only_theirs_added_goes_after_the_key_it_follows_there(tmp_path):
    ours = edit(BASE, description="all orders, as CSV")
    theirs = edit(BASE, release="R2")
    merged = merge_node(BASE, ours, theirs, "T-1")
    keys = list(loads(merged.text, tmp_path))
    assert keys.index("release") == keys.index("parent") + 1 or keys.index("release") > keys.index("id")
    assert keys[-1] == "description" and keys[:3] == ["id", "title", "parent"]


def test_a_key_removed_on_one_side_and_left_alone_on_the_other_is_removed(tmp_path):
    merged = merge_node(BASE, edit(BASE, assignee=ABSENT), edit(BASE, title="Renamed"), "T-1")
    data = loads(merged.text, tmp_path)
    assert "assignee" not in data and data["title"] == "Renamed"


def test_the_same_change_on_both_sides_is_no_conflict(tmp_path):
    both = edit(BASE, status="done", summary="shipped")
    merged = merge_node(BASE, edit(both, title="Renamed"), both, "T-1")
    assert merged.clean and loads(merged.text, tmp_path)["status"] == "done"


# --- real conflicts ------------------------------------------------------------------------------------

def test_one_scalar_changed_two_ways_is_a_conflict_with_markers_around_its_lines_only(tmp_path):
    ours = edit(BASE, status="done", summary="shipped", updated="2026-11-21T09:00:00Z")
    theirs = edit(BASE, status="cancelled", title="Export (dropped)", updated="2026-11-20T09:00:00Z")
    merged = merge_node(BASE, ours, theirs, "T-1")
    assert [(c.field, c.ours, c.theirs) for c in merged.conflicts] == [("status", "done", "cancelled")]
    text = merged.text.decode()
    assert text.count("<<<<<<<") == 1 and "<<<<<<< ours: status\nstatus: done\n=======\nstatus: cancelled\n" \
        ">>>>>>> theirs: status\n" in text
    mine, yours, line = conflict_sides(text)
    assert text.splitlines()[line - 1].startswith("<<<<<<<")
    a, b = loads(mine.encode(), tmp_path), loads(yours.encode(), tmp_path)
    assert (a["status"], b["status"]) == ("done", "cancelled")
    for side in (a, b):  # every other field merged on both sides of the conflict
        assert side["title"] == "Export (dropped)" and side["summary"] == "shipped"
        assert side["updated"] == "2026-11-21T09:00:00Z"


def test_a_change_against_a_removal_is_a_conflict(tmp_path):
    merged = merge_node(BASE, edit(BASE, assignee="bot-2"), edit(BASE, assignee=ABSENT), "T-1")
    assert [(c.field, c.theirs) for c in merged.conflicts] == [("assignee", ABSENT)]
    mine, yours, _line = conflict_sides(merged.text.decode())
    assert loads(mine.encode(), tmp_path)["assignee"] == "bot-2"
    assert "assignee" not in loads(yours.encode(), tmp_path)


def test_a_value_that_is_not_equal_to_itself_is_no_conflict_when_left_alone(tmp_path):
    base = BASE + b"estimate: .nan\n"
    merged = merge_node(base, edit(base, title="Renamed"), edit(base, status="done"), "T-1")
    assert merged.clean and merged.taken == {"title": "ours", "status": "theirs"}
    assert b"estimate: .nan\n" in merged.text


def test_updated_that_is_not_a_time_on_both_sides_is_a_conflict():
    merged = merge_node(BASE, edit(BASE, updated="yesterday"), edit(BASE, updated="today"), "T-1")
    assert [c.field for c in merged.conflicts] == ["updated"]


# --- untrusted input: refused, never merged ---------------------------------------------------------------

@pytest.mark.parametrize(("ours", "why"), [
    (BASE + b"summary: &s x\ndescription: *s\n", "anchors and aliases"),
    (BASE + b"summary: !!binary aGVsbG8=\n", "tag"),
    (BASE + b"summary: !!python/object:os.system x\n", "python/object"),
    (BASE + b"<<: {summary: x}\n", "merge keys"),
    (BASE + b"summary: '" + b"x" * MAX_NODE_BYTES + b"'\n", "limit"),
    (b"- a list\n- not a node\n", "mapping"),
    (BASE.replace(b"id: T-1", b"id: T-2"), "does not match the file name"),
    (b"\xff\xfe" + BASE, "UTF-8"),
    (BASE + b"title: again\n", "duplicate key"),
])
def test_a_side_the_loader_refuses_is_refused(ours, why):
    with pytest.raises(MergeRefused, match=why):
        merge_node(BASE, ours, edit(BASE, title="Renamed"), "T-1")


def test_a_file_both_sides_added_has_no_base_and_is_refused():
    with pytest.raises(MergeRefused, match="no common base"):
        merge_node(b"", BASE, edit(BASE, title="Theirs"), "T-1")


def test_git_s_plain_conflict_keeps_both_sides_whole():
    ours, theirs = BASE + b"summary: &s x\n", edit(BASE, title="Renamed")
    text = plain_conflict(ours, theirs).decode()
    assert text.startswith("id: T-1\n<<<<<<< ours\n")
    assert conflict_sides(text)[:2] == (ours.decode(), theirs.decode())


# --- the properties ------------------------------------------------------------------------------------

SCALARS = {  # field -> the values an edit may give it (each accepted by the loader)
    "title": st.text("abcdefgh ĳklmn:#'\"-", min_size=1, max_size=24).filter(str.strip),
    "status": st.sampled_from(["draft", "in-progress", "blocked", "done", "cancelled"]),
    "priority": st.sampled_from(["high", "normal", "low"]),
    "cascade": st.sampled_from(["auto", "manual"]),
    "assignee": st.sampled_from(["bot-1", "bot-2", "ann", ABSENT]),
    "summary": st.text("xyz ,.:!?'", min_size=1, max_size=30).filter(str.strip) | st.just(ABSENT),
    "description": st.text("pqrs \n", min_size=1, max_size=30).filter(str.strip) | st.just(ABSENT),
    "estimate": st.integers(0, 100) | st.just(ABSENT),  # a key the schema does not know
}
REQUIRED = {"title", "status"}
TIMES = st.integers(10, 28).map(lambda day: f"2026-11-{day:02d}T10:00:00Z")
TAGS = st.lists(st.sampled_from(["shop", "tech-debt", "csv", "ui", "api"]), unique=True, max_size=4)
NOTES = st.lists(st.builds(comment, st.sampled_from(["ann", "bot-1"]), TIMES, st.sampled_from(["a", "b: c", "d"])),
                 unique_by=lambda c: tuple(c.values()), max_size=2)


@st.composite
def edits(draw, fields: list[str]) -> dict[str, Any]:
    out = {}
    for name in fields:
        value = draw(SCALARS[name])
        out[name] = value if not (value is ABSENT and name in REQUIRED) else "draft" if name == "status" else "T"
    return out


@st.composite
def disjoint_edits(draw):
    names = draw(st.permutations(sorted(SCALARS)))
    cut = draw(st.integers(0, len(names)))
    mine = draw(edits(names[:cut][: draw(st.integers(0, 4))]))
    yours = draw(edits(names[cut:][: draw(st.integers(0, 4))]))
    return mine, yours, draw(TIMES), draw(TIMES), draw(TAGS), draw(TAGS), draw(NOTES), draw(NOTES)


def _start() -> bytes:
    return render_new_node({"id": "T-1", "title": "Start", "status": "draft", "tags": ["shop", "ui"],
                            "created": "2026-11-01T10:00:00Z", "updated": "2026-11-01T10:00:00Z"})


def _changed(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """Only the changes that change something (setting a key to the value it has is none)."""
    return {k: v for k, v in changes.items() if base.get(k, ABSENT) != v}


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(disjoint_edits())
def test_edits_of_disjoint_fields_on_two_sides_always_merge_to_both(case):
    mine, yours, t_ours, t_theirs, tags_ours, tags_theirs, notes_ours, notes_theirs = case
    base = _start()
    plain = parse_yaml(base)
    ours = edit(base, **mine, updated=t_ours, tags=tags_ours)
    theirs = edit(base, **yours, updated=t_theirs, tags=tags_theirs)
    for note in notes_ours:
        ours = add_comment(ours, note)
    for note in notes_theirs:
        theirs = add_comment(theirs, note)
    merged = merge_node(base, ours, theirs, "T-1")
    assert merged.clean, merged.conflicts
    data = parse_yaml(merged.text)
    expected = dict(plain)
    for key, value in {**_changed(plain, mine), **_changed(plain, yours)}.items():
        if value is ABSENT:
            expected.pop(key, None)
        else:
            expected[key] = value
    assert {k: v for k, v in data.items() if k not in ("tags", "updated", "comments")} == \
           {k: v for k, v in expected.items() if k not in ("tags", "updated", "comments")}
    assert data.get("comments", []) == notes_ours + [n for n in notes_theirs if n not in notes_ours]
    assert data["updated"] == max(t_ours, t_theirs)
    removed = set(plain["tags"]) - set(tags_ours) | set(plain["tags"]) - set(tags_theirs)
    assert set(data.get("tags") or []) == (set(tags_ours) | set(tags_theirs)) - removed
    assert len(data.get("tags") or []) == len(set(data.get("tags") or []))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SCALARS)), st.data())
def test_one_field_edited_two_different_ways_always_conflicts_on_it_alone(name, data):
    base = _start()
    now = parse_yaml(base).get(name, ABSENT)
    first = data.draw(SCALARS[name].filter(lambda v: v != now and not (v is ABSENT and name in REQUIRED)))
    second = data.draw(SCALARS[name].filter(lambda v: v not in (now, first) and not (v is ABSENT and name in REQUIRED)))
    merged = merge_node(base, edit(base, **{name: first}, trigger="after the launch"),
                        edit(base, **{name: second}, tags=["api"]), "T-1")
    assert [c.field for c in merged.conflicts] == [name]
    mine, yours, _line = conflict_sides(merged.text.decode())
    assert parse_yaml(mine).get(name, ABSENT) == first and parse_yaml(yours).get(name, ABSENT) == second
    for side in (parse_yaml(mine), parse_yaml(yours)):  # the other edits merged on both sides
        assert side["tags"] == ["api"] and side["trigger"] == "after the launch"
