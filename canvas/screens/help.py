"""Every key of the view you came from: the focused widget's, the view's, and the global ones."""

from __future__ import annotations

from leafwise.canvas.model.query import __doc__ as FILTER_HELP
from leafwise.canvas.widgets.hanging import Hanging
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

SECTION_NAMES = {"PlanTree": "Tree", "ActivityFeed": "Activity feed", "NodeDetail": "Detail pane",
                 "PlanScreen": "Plan view", "BlockedScreen": "Blocked view", "ProgressScreen": "Progress view",
                 "ReconcileScreen": "Reconcile view", "ProblemsScreen": "Problems view", "CanvasApp": "Everywhere"}
HIDDEN_ACTIONS = {"cursor_left", "cursor_right", "toggle_expand_all", "scroll_left", "scroll_right",
                  "cursor_parent_next_sibling", "cursor_previous_sibling", "cursor_next_sibling",
                  "page_left", "page_right", "screen.copy_text", "copy_text"}
NUMBERED_WORDS = {"answer_option": "Answer by number"}  # said once for its digits (each says "Answer 3")


class HelpScreen(ModalScreen[None]):
    """F1 or ?: the keys, grouped from the focused widget out to the app."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 95%; height: 85%; padding: 1 2;
        background: $panel; border: round $primary;
        border-title-style: bold; border-subtitle-color: $text-muted;
    }
    HelpScreen .help-section { margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape,question_mark,f1,q", "dismiss", "Close", id="help.close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Keys"
            scroll.border_subtitle = "Esc to close · ctrl+p for the command palette"
            for node, bindings in self._sections():
                lines = self._lines(bindings)
                if lines:
                    title = SECTION_NAMES.get(type(node).__name__, type(node).__name__)
                    yield Static(Hanging([Content.styled(title, "bold $accent"), *lines]), classes="help-section")
            yield Static(Content("\n").join([Content.styled("Filter ( / )", "bold $accent"),
                                             Content(FILTER_HELP.strip())]), classes="help-section")
            yield Static(Content.assemble(("Mouse  ", "bold $accent"),
                                          "click a row to select it, its ▸ to open it; scroll anywhere; "
                                          "click the next-task line to jump to that task."),
                         classes="help-section")

    def _sections(self) -> list[tuple[DOMNode, list[tuple[str, Binding]]]]:
        """The view's active bindings (`Screen.active_bindings`: remapped keys applied, keys a nearer
        widget took left out, unavailable actions dropped), grouped by the widget that owns them,
        nearest first."""
        sections: dict[DOMNode, list[tuple[str, Binding]]] = {}
        for key, active in self.under.active_bindings.items():
            binding = active.binding
            if binding.action in HIDDEN_ACTIONS or binding.system:
                continue
            sections.setdefault(active.node, []).append((key, binding))
        return list(sections.items())

    def _lines(self, bindings: list[tuple[str, Binding]]) -> list[tuple[Content, Content]]:
        """One line per action, its keys together ("j ↓  Down"); the digits of one action ("1"…"9",
        `answer_option(n)`) on one line ("1–9")."""
        grouped: dict[tuple[str, str], tuple[list[str], Binding]] = {}
        for key, binding in bindings:
            name, _, number = binding.action.partition("(")
            if key.isdigit() and number == f"{key})":  # the digit gives the action its number
                group = (name, NUMBERED_WORDS.get(name, binding.description))
            else:
                group = (binding.action, binding.description)
            entry = grouped.setdefault(group, ([], binding))
            entry[0].append(self.app.get_key_display(Binding(key, binding.action)))
        lines = []
        for (action, description), (keys, binding) in grouped.items():
            tip = f" — {binding.tooltip}" if binding.tooltip else ""
            shown = f"{keys[0]}–{keys[-1]}" if len(keys) > 2 and all(k.isdigit() for k in keys) else " ".join(keys)
            # The keys are the lead: a long tooltip wraps under the description, not under the keys.
            lines.append((Content.styled(f"  {shown:>14}  ", "bold $secondary"),
                          Content.assemble(description or action, (tip, "$text-muted"))))
        return lines
