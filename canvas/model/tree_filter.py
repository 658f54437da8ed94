"""The plan tree's filter: which nodes match a query, which rows lead to them, and the exact id match.

Plain Python (no Textual). Typing on narrows the last matches instead of searching the whole
plan again; at most MATCH_LIMIT matches are shown (4+ screens), the rest are counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.canvas.model.query import Query
from leafwise.canvas.model.state import PlanState
from leafwise.canvas.model.tree_layout import row_path

MATCH_LIMIT = 150  # filter matches shown at once (4+ screens); the rest are counted, not drawn


@dataclass(frozen=True, slots=True)
class FilterResult:
    matches: int
    shown: int


@dataclass(frozen=True, slots=True)
class Filtered:
    """One run of the filter over the plan as it is (`version`)."""

    visible: set[str]  # the rows from each match shown up to its group (`tree_layout.row_path`)
    matched: set[str]  # the matches shown
    exact: tuple[str, ...]  # the group, ancestors and node whose id the query names exactly; () if none
    result: FilterResult
    version: object  # the state's version the matches were found in
    query: Query
    every_match: list[str]  # all matches, in plan order (what the next, narrower query searches)


def exact_id(query: Query, matched: list[str]) -> str | None:
    """The match whose id is one of the query's words (or id: terms), whole and in any case."""
    wanted = {value for field, value in query.terms if field in (None, "id")}
    if not wanted:
        return None
    return next((nid for nid in matched if nid.casefold() in wanted), None)


def run_filter(state: PlanState, query: Query, previous: Filtered | None = None) -> Filtered:
    """The nodes matching `query` in `state`; within `previous`'s matches when the query only narrows it."""
    nodes = state.nodes
    search = state.search
    if previous is not None and previous.version is state.version and query.narrows(previous.query):
        pool = (nid for nid in previous.every_match if nid in nodes)  # typing on: search within the last matches
    else:
        pool = iter(nodes)
    every = [nid for nid in pool if query.matches(nodes[nid], search[nid])]
    matched = every
    exact = exact_id(query, matched)
    if exact is not None:  # "SHOP-1" ranks SHOP-1 before SHOP-10…19, and always among those shown
        matched = [exact, *(nid for nid in matched if nid != exact)]
    shown = matched[:MATCH_LIMIT] if len(matched) > MATCH_LIMIT else matched
    visible: set[str] = set()
    for nid in shown:
        visible.update(row_path(state, nid))  # its group, a context row if it moved release, its ancestors
    path = row_path(state, exact) if exact is not None else ()
    return Filtered(visible, set(shown), path, FilterResult(len(matched), len(shown)), state.version, query, every)
