"""No import cycles between Leafwise modules, counting imports made inside functions.

A function-level import hides a cycle from Python's loader, not from the
design: if two modules need each other, one of them is in the wrong place.
Imports under `if TYPE_CHECKING:` are left out: a screen naming its app's
type for the checker depends on nothing at run time (Textual's own pattern).
"""

from __future__ import annotations

import grimp
import networkx as nx

PACKAGES = ("leafwise.store", "leafwise.commands", "leafwise.canvas", "leafwise.themes")


def import_graph() -> nx.DiGraph:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False,
                               exclude_type_checking_imports=True)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return edges


def test_the_graph_sees_function_level_imports() -> None:
    # surfaces.cli imports the mcp server only when `leafwise mcp` runs; the graph must still see it
    graph = import_graph()
    assert graph.number_of_nodes() > 60
    assert graph.has_edge("leafwise.commands.domain.reconciling", "leafwise.commands.reconcile.engine")


def test_no_import_cycles() -> None:
    tangled = [sorted(group) for group in nx.strongly_connected_components(import_graph()) if len(group) > 1]
    assert tangled == [], f"modules that import each other: {tangled}"
