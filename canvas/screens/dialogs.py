"""Small modal questions: a line of text (a reason, an agent's name) or a choice among options."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers, Esc cancels. Empty text is refused when required."""

    DEFAULT_CSS = """
    TextPrompt { align: center middle; }
    TextPrompt > Vertical {
        width: 80; max-width: 95%; height: auto; padding: 1 2;
        background: $panel; border: round $primary;
    }
    TextPrompt .prompt-title { text-style: bold; margin-bottom: 1; }
    TextPrompt .prompt-hint { color: $text-muted; margin-top: 1; }
    TextPrompt .prompt-error { color: $error; display: none; }
    TextPrompt .prompt-error.-shown { display: block; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, title: str, prompt: str, *, value: str = "", placeholder: str = "",
                 required: bool = True) -> None:
        super().__init__()
        self.title_text = title
        self.prompt = prompt
        self.value = value
        self.placeholder = placeholder
        self.required = required

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="prompt-title")
            yield Static(self.prompt)
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static("Please write something: it is recorded with the change.", classes="prompt-error")
            yield Static("Enter to confirm · Esc to cancel", classes="prompt-hint")

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if self.required and not text:
            self.query_one(".prompt-error").add_class("-shown")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoicePrompt(ModalScreen[int | None]):
    """Pick one of numbered options (1-based); digits pick directly, Esc cancels."""

    DEFAULT_CSS = """
    ChoicePrompt { align: center middle; }
    ChoicePrompt > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 80%; padding: 1 2;
        background: $panel; border: round $status-decision;
    }
    ChoicePrompt .prompt-title { text-style: bold; }
    ChoicePrompt .prompt-question { margin: 1 0; }
    ChoicePrompt OptionList { height: auto; max-height: 16; }
    ChoicePrompt .prompt-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [Binding("escape,q", "cancel", "Cancel", id="dialog.cancel")] + [
        Binding(str(n), f"pick({n})", f"Option {n}", show=False) for n in range(1, 10)]

    def __init__(self, title: str, question: str, options: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.question = question
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="prompt-title")
            yield Static(Content.styled(self.question, "bold"), classes="prompt-question")
            yield OptionList(*[Option(Content.assemble((f" {i} ", "reverse $status-decision"), " ", text),
                                      id=str(i)) for i, text in enumerate(self.options, 1)])
            yield Static("↑↓ and Enter, or the option's number · Esc to cancel", classes="prompt-hint")

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_pick(self, number: int) -> None:
        if 1 <= number <= len(self.options):
            self.dismiss(number)

    def action_cancel(self) -> None:
        self.dismiss(None)
